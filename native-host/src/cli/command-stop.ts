import type { Command } from 'commander';

import { printLine } from './output.js';
import { withDaemon } from './with-daemon.js';

export function registerStopCommand(program: Command): void {
  program
    .command('stop')
    .description('Emergency stop: abort everything the agent is doing and refuse new actions until reset.')
    .option('--reason <text>', 'why (recorded in the audit log)')
    .option('--reset', 'lift the emergency stop')
    .action(async (options: { reason?: string; reset?: boolean }) => {
      if (options.reset) {
        const { was_active } = await withDaemon((client) => client.peer.request('safety.reset', {}));
        printLine(was_active ? 'emergency stop lifted: tools may run again' : 'the emergency stop was not on');
        return;
      }
      const report = await withDaemon((client) =>
        client.peer.request('safety.stop', { reason: options.reason ?? 'nextai stop' }),
      );
      printLine(
        report.already_active
          ? 'the emergency stop was already on'
          : 'EMERGENCY STOP — nothing will run until `nextai stop --reset`',
      );
      printLine(`running calls aborted: ${report.aborted_calls} (all ended after ${report.ended_ms} ms)`);
      printLine(`held inputs: ${report.inputs_released}`);
      printLine(`notification: ${report.notification}`);
    });
}
