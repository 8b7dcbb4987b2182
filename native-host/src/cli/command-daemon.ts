import type net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Command } from 'commander';

import { toAppError } from '@nextai/shared';

import { connectSocket, ensureDaemon, readStoppedMarker } from '../client/daemon-launcher.js';
import { Daemon } from '../daemon/daemon.js';
import { createLogger } from '../core/logger.js';
import { dataPaths, type DataPaths } from '../core/paths.js';
import { currentPlatform } from '../core/current-platform.js';
import {
  STABLE_AFTER_MS,
  readServiceState,
  restartDelay,
  writeServiceState,
} from '../install/service/restart-backoff.js';
import { servicePlan } from '../install/service/service-units.js';
import { ensurePrivateDirectory } from '../daemon/instance-lock.js';
import { logUncaughtExceptions, logUnhandledRejections } from '../daemon/process-guards.js';
import { parseGraceSeconds, stopDaemon, type StopOptions } from './daemon-stop.js';
import { EXIT } from './exit-codes.js';
import { exitCodeFor, printError, printLine } from './output.js';

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
    .description(
      'Ask the running daemon to stop. Tool calls it is running may finish first (daemon.stop_grace_seconds in config.json, 30 s by default); runs go on after the next start.',
    )
    .option('--now', 'do not wait: abort running tool calls at once (a run resumes with "outcome unknown" for them)')
    .option('--grace <seconds>', 'how long running tool calls may take to finish', parseGraceSeconds)
    .action(async (options: StopOptions) => {
      setExitCode(await stopDaemon(options));
    });
}

async function runDaemonInForeground(options: { service: boolean }): Promise<number> {
  const paths = dataPaths();
  const platform = currentPlatform();
  // The daemon writes (and rotates) logs/daemon.log itself. stderr gets the lines too when a
  // person or a program reads it (a terminal, a pipe, the systemd journal), not when it is a file:
  // `nextai daemon --detach` points it at daemon.log for what comes before this logger exists.
  const log = createLogger({ component: 'daemon', file: paths.daemonLog, stderr: 'auto' });
  // For the life of the daemon: a rejection nothing handled is logged, not fatal; an uncaught
  // exception is logged, and written out, before it ends the process (see process-guards.ts).
  logUnhandledRejections(log);
  logUncaughtExceptions(log);
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
      await sleep(waitMs);
    }
    writeServiceState(stateFile, { running: true, failures, started_at: new Date().toISOString() });
  }
  let daemon: Daemon;
  let waiting = false;
  for (;;) {
    try {
      daemon = await Daemon.start({ paths, platform, log });
      break;
    } catch (error) {
      const appError = toAppError(error);
      if (options.service && appError.code === 'DAEMON_ALREADY_RUNNING') {
        // A daemon a browser (or a person) started serves this data directory. Exiting would tell
        // the service manager the service is done — successfully (then nothing restarts a daemon
        // when that one crashes later) or not (then it restarts this every minute, forever, and
        // Task Scheduler gives up after its count). Starting anyway would make two. So the service
        // instance stays, waits for that daemon to end, and takes over: one daemon at any time.
        // Not running a daemon: a restart of this instance is not one after a crash.
        writeServiceState(stateFile, { running: false, failures: 0 });
        if (!waiting) {
          waiting = true;
          log.info('another daemon serves this data directory; the service waits for it to end, then takes over');
        }
        const ended = await waitForOtherDaemon(paths);
        if (ended === 'signal') return EXIT.OK;
        const marker = readStoppedMarker(paths);
        if (marker) {
          // Stopped on purpose (`nextai daemon stop`): that applies to the service too, as when
          // the service's own daemon is stopped so. Logging in again, or `systemctl --user start`, starts it.
          log.info('the other daemon was stopped on purpose; the service stays stopped too', {
            reason: marker.reason,
          });
          return EXIT.OK;
        }
        writeServiceState(stateFile, { running: true, failures: 0, started_at: new Date().toISOString() });
        continue;
      }
      // In the log too: under a launcher or a service manager, stderr is not where people look.
      if (appError.code === 'DAEMON_ALREADY_RUNNING') {
        log.info('another daemon serves this data directory; this one exits', { reason: appError.message });
      } else {
        log.error('the daemon could not start', { error: appError.message, code: appError.code });
      }
      printError(appError.message);
      return exitCodeFor(appError);
    }
  }
  if (waiting) log.info('the other daemon ended; the service took over');
  if (options.service) {
    stable = setTimeout(() => writeServiceState(stateFile, { running: true, failures: 0 }), STABLE_AFTER_MS);
    stable.unref();
  }
  // A service manager stops the daemon with SIGTERM: running tool calls may finish first, as for
  // `nextai daemon stop`. A signal while it stops already (a second one, Ctrl-C again) means now.
  const onSignal = (signal: NodeJS.Signals) => {
    const graceMs = daemon.isStopping ? 0 : daemon.stopGraceMs();
    daemon.stop(`received ${signal}`, { graceMs }).catch((error: unknown) => {
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
  if (daemon.restartRequested) {
    // Not a failure, but not done either: a code the service manager restarts on (database-replaced.ts).
    log.info('daemon stopped to be started again on the database file now there');
    return EXIT.DATABASE_REPLACED;
  }
  log.info('daemon stopped');
  return EXIT.OK;
}

/** How often a waiting service instance looks again when the other daemon cannot be watched. */
const TAKE_OVER_POLL_MS = 1000;

/**
 * Resolves once the daemon that holds the data directory has ended — or may have: the caller
 * tries to start and, if another daemon got there first, waits again — or with 'signal' when the
 * service manager stops this instance meanwhile. The wait is a connection to that daemon's
 * socket, which closes when it stops or dies (the kernel closes it even after SIGKILL); while no
 * connection can be made (it is starting, stopping, or stuck), the lock is tried once a second.
 */
async function waitForOtherDaemon(paths: DataPaths): Promise<'ended' | 'signal'> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.once(signal, onSignal);
  try {
    const aborted = new Promise<'signal'>((resolve) =>
      stop.signal.addEventListener('abort', () => resolve('signal'), { once: true }),
    );
    let socket: net.Socket | undefined;
    try {
      socket = await connectSocket(paths.socket);
    } catch {
      socket = undefined;
    }
    if (socket) {
      const connected = socket;
      const closed = new Promise<'ended'>((resolve) => connected.once('close', () => resolve('ended')));
      // Nothing is sent: the daemon keeps a silent connection open until it stops.
      connected.on('error', () => undefined);
      const how = await Promise.race([closed, aborted]);
      connected.destroy();
      if (how === 'signal') return how;
      // The socket closes a moment before the lock is released: let the daemon finish stopping.
      await Promise.race([sleep(TAKE_OVER_POLL_MS), aborted]);
      return stop.signal.aborted ? 'signal' : 'ended';
    }
    await Promise.race([sleep(TAKE_OVER_POLL_MS), aborted]);
    return stop.signal.aborted ? 'signal' : 'ended';
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
}
