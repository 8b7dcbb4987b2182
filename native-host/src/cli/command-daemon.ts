import type { Command } from 'commander';

import { toAppError } from '@nextai/shared';

import { DaemonClient } from '../client/daemon-client.js';
import { ensureDaemon, isNoDaemonError } from '../client/daemon-launcher.js';
import { Daemon } from '../daemon/daemon.js';
import { createLogger } from '../logger.js';
import { dataPaths } from '../paths.js';
import { currentPlatform } from '../platform/current.js';
import { EXIT } from './exit-codes.js';
import { exitCodeFor, printError, printLine } from './output.js';

export function registerDaemonCommand(program: Command, setExitCode: (code: number) => void): void {
  const daemon = program
    .command('daemon')
    .description('Run the daemon: the long-running process that owns all state and runs the tools.')
    .option('--detach', 'start it in the background (if not running) and return once it answers')
    .action(async (options: { detach?: boolean }) => {
      const paths = dataPaths();
      if (options.detach) {
        const { socket, started } = await ensureDaemon(paths, { start: true });
        socket.destroy();
        printLine(started ? `daemon started for ${paths.dataDir}` : `daemon already running for ${paths.dataDir}`);
        return;
      }
      setExitCode(await runDaemonInForeground());
    });

  daemon
    .command('stop')
    .description('Ask the running daemon to stop.')
    .action(async () => {
      const paths = dataPaths();
      let client: DaemonClient;
      try {
        client = await DaemonClient.connect(paths, { start: false });
      } catch (error) {
        if (isNoDaemonError(toAppError(error).cause)) {
          printLine(`no daemon is running for ${paths.dataDir}`);
          return;
        }
        throw error;
      }
      await client.peer.request('daemon.shutdown', { reason: 'nextai daemon stop' });
      // The daemon closes every connection as it stops; wait for that before reporting.
      await client.disconnected;
      printLine(`daemon stopped (pid ${client.daemon.pid})`);
    });
}

async function runDaemonInForeground(): Promise<number> {
  const paths = dataPaths();
  const log = createLogger({ component: 'daemon', stderr: true });
  let daemon: Daemon;
  try {
    daemon = await Daemon.start({ paths, platform: currentPlatform(), log });
  } catch (error) {
    const appError = toAppError(error);
    printError(appError.message);
    return exitCodeFor(appError);
  }
  const onSignal = (signal: NodeJS.Signals) => void daemon.stop(`received ${signal}`);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  await daemon.stopped;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.off('SIGHUP', onSignal);
  log.info('daemon stopped');
  return EXIT.OK;
}
