import type { Command } from 'commander';

import { printJson, printLine } from './output.js';
import { withDaemon } from './with-daemon.js';

export function registerStopCommand(program: Command): void {
  program
    .command('stop')
    .description('Emergency stop: abort everything the agent is doing and refuse new actions until reset.')
    .option('--reason <text>', 'why (recorded in the audit log)')
    .option('--reset', 'lift the emergency stop')
    .option('--status', 'say whether the emergency stop is on, since when and why')
    .option('--json', 'with --status: print it as JSON')
    .action(async (options: { reason?: string; reset?: boolean; status?: boolean; json?: boolean }) => {
      if (options.status) {
        const state = await withDaemon((client) => client.peer.request('safety.status', {}));
        if (options.json) printJson(state);
        else if (!state.active) printLine('the emergency stop is off');
        else
          printLine(
            `EMERGENCY STOP on since ${state.since ?? '?'} (${state.reason ?? 'no reason given'}, by ${state.by ?? '?'})`,
          );
        return;
      }
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
      printLine(
        `apps the agent started, ended: ${report.apps_ended}` +
          (report.apps_still_running > 0
            ? ` (${report.apps_still_running} could not be ended: close them yourself)`
            : ''),
      );
      printLine(`held inputs: ${report.inputs_released}`);
      printLine(`notification: ${report.notification}`);
    });
}
