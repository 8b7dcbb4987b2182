import path from 'node:path';

import type { Command } from 'commander';

import { toAppError } from '@nextai/shared';

import { DaemonClient } from '../client/daemon-client.js';
import { ensureDaemon, unavailableReason, waitForExit } from '../client/daemon-launcher.js';
import { Daemon } from '../daemon/daemon.js';
import { createLogger } from '../logger.js';
import { dataPaths } from '../paths.js';
import { currentPlatform } from '../platform/current.js';
import {
  STABLE_AFTER_MS,
  readServiceState,
  restartDelay,
  writeServiceState,
} from '../install/service/restart-backoff.js';
import { servicePlan } from '../install/service/service-units.js';
import { ensurePrivateDirectory } from '../daemon/instance-lock.js';
import { EXIT } from './exit-codes.js';
import { exitCodeFor, printError, printLine } from './output.js';

/** How long `nextai daemon stop` waits for the process to end after it closed its connections. */
const STOP_WAIT_MS = 15_000;

export function registerDaemonCommand(program: Command, setExitCode: (code: number) => void): void {
  const daemon = program
    .command('daemon')
    .description('Run the daemon: the long-running process that owns all state and runs the tools.')
    .option('--detach', 'start it in the background (if not running) and return once it answers')
    .option('--service', 'run under the OS service manager (what `nextai install --service` sets up)')
    .option('--home <dir>', 'the data directory to serve (instead of NEXTAI_HOME)')
    .action(async (options: { detach?: boolean; service?: boolean; home?: string }) => {
      // The service manager starts the daemon with a fixed command line: the data directory comes with it.
      if (options.home) process.env.NEXTAI_HOME = path.resolve(options.home);
      const paths = dataPaths();
      if (options.detach) {
        const { socket, started } = await ensureDaemon(paths, { start: true, evenIfStopped: true });
        socket.destroy();
        printLine(started ? `daemon started for ${paths.dataDir}` : `daemon already running for ${paths.dataDir}`);
        return;
      }
      setExitCode(await runDaemonInForeground({ service: Boolean(options.service) }));
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

async function runDaemonInForeground(options: { service: boolean }): Promise<number> {
  const paths = dataPaths();
  const platform = currentPlatform();
  const log = createLogger({ component: 'daemon', stderr: true });
  const stateFile = path.join(paths.runDir, 'service-state.json');
  let stable: NodeJS.Timeout | undefined;
  if (options.service) {
    ensurePrivateDirectory(paths.dataDir);
    ensurePrivateDirectory(paths.runDir);
    // A daemon that keeps dying is restarted after 5 s, then 15 s, then every 60 s: the service
    // manager waited its part; this waits the rest, the same on every OS.
    const managerDelayMs = servicePlan({
      platform,
      homeDir: '',
      dataDir: paths.dataDir,
      nodePath: '',
      cliPath: '',
    }).managerRestartDelayMs;
    const { failures, waitMs } = restartDelay(readServiceState(stateFile), managerDelayMs);
    if (waitMs > 0) {
      log.warn('the daemon died before; waiting before starting again', { failures, wait_ms: waitMs });
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    writeServiceState(stateFile, { running: true, failures, started_at: new Date().toISOString() });
    stable = setTimeout(() => writeServiceState(stateFile, { running: true, failures: 0 }), STABLE_AFTER_MS);
    stable.unref();
  }
  let daemon: Daemon;
  try {
    daemon = await Daemon.start({ paths, platform, log });
  } catch (error) {
    const appError = toAppError(error);
    clearTimeout(stable);
    if (options.service && appError.code === 'DAEMON_ALREADY_RUNNING') {
      // A daemon already serves this data directory (a browser started one): that is what the
      // service is for, so this is a success — the manager does not restart it in a loop.
      writeServiceState(stateFile, { running: false, failures: 0 });
      log.info('a daemon already runs for this data directory; the service instance leaves it be');
      return EXIT.OK;
    }
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
  clearTimeout(stable);
  if (options.service) writeServiceState(stateFile, { running: false, failures: 0 });
  log.info('daemon stopped');
  return EXIT.OK;
}
