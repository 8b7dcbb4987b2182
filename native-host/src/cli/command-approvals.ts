import type { Command } from 'commander';

import type { Approval } from '@nextai/shared';

import { printJson, printLine } from './output.js';
import { withDaemon } from './with-daemon.js';

export function registerApprovalsCommand(program: Command): void {
  const approvals = program.command('approvals').description('Answer what the agent is waiting for you to approve.');

  approvals
    .command('list')
    .description('List pending approval requests, oldest first.')
    .option('--all', 'include answered requests (newest first)')
    .option('--json', 'print a JSON array; each request has id, tool, input, risk and reason')
    .action(async (options: { all?: boolean; json?: boolean }) => {
      const { approvals: list } = await withDaemon((client) =>
        client.peer.request('approvals.list', { status: options.all ? 'all' : 'pending' }),
      );
      if (options.json) {
        printJson(list);
        return;
      }
      if (list.length === 0) {
        printLine(options.all ? 'No approval requests yet.' : 'Nothing is waiting for your approval.');
        return;
      }
      for (const approval of list) printApproval(approval);
    });

  approvals
    .command('approve')
    .description('Approve a pending request.')
    .argument('<id>', 'request id (see `nextai approvals list`)')
    .option('--for-run', 'also approve this tool for the rest of the agent run (not for sensitive operations)')
    .action(async (id: string, options: { forRun?: boolean }) => {
      const { approval } = await withDaemon((client) =>
        client.peer.request('approvals.answer', { id, decision: 'approve', scope: options.forRun ? 'run' : 'once' }),
      );
      printLine(
        `approved ${approval.tool} (${approval.id})${approval.scope === 'run' ? ' for the rest of this run' : ''}`,
      );
    });

  approvals
    .command('deny')
    .description('Deny a pending request; the message, if any, is shown to the agent.')
    .argument('<id>', 'request id')
    .option('--message <text>', 'why, or what to do instead (the model reads it)')
    .action(async (id: string, options: { message?: string }) => {
      const { approval } = await withDaemon((client) =>
        client.peer.request('approvals.answer', {
          id,
          decision: 'deny',
          ...(options.message ? { message: options.message } : {}),
        }),
      );
      printLine(`denied ${approval.tool} (${approval.id})`);
    });
}

export function printApproval(approval: Approval): void {
  printLine(`${approval.id}  ${approval.status}  ${approval.created_at}`);
  printLine(`  ${approval.tool} — risk ${approval.risk} — ${approval.reason}`);
  printLine(`  input: ${JSON.stringify(approval.input)}`);
  for (const finding of approval.findings) printLine(`  found: ${finding}`);
  if (approval.status === 'pending') {
    printLine(
      `  approve: nextai approvals approve ${approval.id}    deny: nextai approvals deny ${approval.id} --message "…"`,
    );
  }
}
