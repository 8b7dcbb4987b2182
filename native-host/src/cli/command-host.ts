import type { Command } from 'commander';

import { ensureDaemon } from '../client/daemon-launcher.js';
import { Bridge } from '../host/bridge.js';
import { createLogger } from '../logger.js';
import { dataPaths } from '../paths.js';

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
      const paths = dataPaths();
      // stdout carries protocol frames only; logs go to a file and stderr.
      const log = createLogger({ component: `host:${process.pid}`, file: paths.hostLog, stderr: false });
      const bridge = new Bridge({
        stdin: process.stdin,
        stdout: process.stdout,
        callerArgs: caller,
        connectDaemon: async () => (await ensureDaemon(paths, { start: true, log })).socket,
        log,
      });
      bridge.start();
      setExitCode(await bridge.done);
    });
}
