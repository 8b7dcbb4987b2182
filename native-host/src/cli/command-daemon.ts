import type { Command } from 'commander';

import { toAppError } from '@nextai/shared';

import { DaemonClient } from '../client/daemon-client.js';
import { ensureDaemon, unavailableReason, waitForExit } from '../client/daemon-launcher.js';
import { Daemon } from '../daemon/daemon.js';
import { createLogger } from '../logger.js';
import { dataPaths } from '../paths.js';
import { currentPlatform } from '../platform/current.js';
import { EXIT } from './exit-codes.js';
import { exitCodeFor, printError, printLine } from './output.js';

/** How long `nextai daemon stop` waits for the process to end after it closed its connections. */
const STOP_WAIT_MS = 15_000;

export function registerDaemonCommand(program: Command, setExitCode: (code: number) => void): void {
  const daemon = program
    .command('daemon')
    .description('Run the daemon: the long-running process that owns all state and runs the tools.')
    .option('--detach', 'start it in the background (if not running) and return once it answers')
    .action(async (options: { detach?: boolean }) => {
      const paths = dataPaths();
      if (options.detach) {
        const { socket, started } = await ensureDaemon(paths, { start: true, evenIfStopped: true });
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
        const reason = unavailableReason(error);
        if (reason === 'not_running' || reason === 'stopped') {
          printLine(`no daemon is running for ${paths.dataDir}`);
          return;
        }
        throw error;
      }
      try {
        await client.peer.request('daemon.shutdown', { reason: 'nextai daemon stop' });
        // The daemon closes every connection as it stops; wait for that, then for the process to end.
        await client.disconnected;
      } finally {
        client.close();
      }
      const { pid } = client.daemon;
      if (!(await waitForExit(pid, STOP_WAIT_MS))) {
        printLine(`daemon (pid ${pid}) is still finishing after ${STOP_WAIT_MS / 1000} s; it will not start new work`);
        return;
      }
      printLine(`daemon stopped (pid ${pid}); it stays stopped until \`nextai daemon\` starts it`);
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
  const onSignal = (signal: NodeJS.Signals) => {
    daemon.stop(`received ${signal}`).catch((error: unknown) => {
      log.error('error while stopping', { error: (error as Error).message });
      process.exitCode = EXIT.FAILURE;
    });
  };
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
