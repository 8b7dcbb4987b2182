import type { Command } from 'commander';

import { EXIT } from './exit-codes.js';
import { printJson, printLine } from './output.js';
import { withDaemon } from './with-daemon.js';

export function registerAuditCommand(program: Command, setExitCode: (code: number) => void): void {
  const audit = program.command('audit').description('Read and check the tamper-evident audit log.');

  audit
    .command('list')
    .description('Show the newest audit records.')
    .option('--limit <n>', 'how many', (value) => Number.parseInt(value, 10), 50)
    .option('--json', 'print JSON')
    .action(async (options: { limit: number; json?: boolean }) => {
      const { records } = await withDaemon((client) => client.peer.request('audit.list', { limit: options.limit }));
      if (options.json) {
        printJson(records);
        return;
      }
      for (const record of records) {
        const entry = record.entry;
        const parts = [
          entry.tool,
          entry.action ?? entry.result,
          entry.risk && `risk ${String(entry.risk)}`,
          entry.layer,
        ]
          .filter(Boolean)
          .join(' · ');
        printLine(`${String(record.seq).padStart(6)}  ${record.time}  ${record.kind.padEnd(14)} ${parts}`);
        if (typeof entry.reason === 'string') printLine(`        ${entry.reason}`);
      }
    });

  audit
    .command('verify')
    .description('Check the hash chain: exit 0 when intact, otherwise name the first bad row.')
    .action(async () => {
      const result = await withDaemon((client) => client.peer.request('audit.verify', {}));
      if (result.ok) {
        printLine(
          `audit log intact: ${result.rows} rows${result.head ? `, head ${result.head.hash.slice(0, 16)}… at row ${result.head.seq}` : ''}`,
        );
        return;
      }
      process.stderr.write(
        `nextai: the audit log is NOT intact (${result.problem.kind} at row ${result.problem.seq}): ${result.problem.message}\n`,
      );
      setExitCode(EXIT.FAILURE);
    });

  audit
    .command('export')
    .description('Write every audit record as JSON Lines to stdout, oldest first.')
    .action(async () => {
      await withDaemon(async (client) => {
        let after = 0;
        for (;;) {
          const { records } = await client.peer.request('audit.list', { after_seq: after, limit: 1000 });
          if (records.length === 0) break;
          for (const record of records) process.stdout.write(`${JSON.stringify(record)}\n`);
          after = records.at(-1)!.seq;
        }
      });
    });
}
