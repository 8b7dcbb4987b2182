import type { Command } from 'commander';

import { runHost } from '../host/run-host.js';

/**
 * Listed for `--help`; the entry point sends `nextai host` straight to runHost without loading
 * the rest of the CLI, so this action only runs when called through main() (tests).
 */
export function registerHostCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('host')
    .description('The native-messaging bridge the browser starts (not for people to run).')
    .argument(
      '[caller...]',
      'what the browser passes: the extension origin (Chromium) or manifest path and add-on id (Firefox)',
    )
    .allowUnknownOption()
    .action(async (caller: string[]) => {
      setExitCode(await runHost(caller));
    });
}
