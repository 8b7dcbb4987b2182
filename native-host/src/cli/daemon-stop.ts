import { InvalidArgumentError } from 'commander';

import { AppError, type DaemonEvent, type EventData } from '@nextai/shared';

import { DaemonClient } from '../client/daemon-client.js';
import { lockHolder } from '../client/daemon-lock.js';
import {
  SOCKET_RENEWED_WITHIN_MS,
  unavailableReason,
  unreachablePid,
  waitForExit,
  writeStoppedMarker,
} from '../client/daemon-launcher.js';
import { currentPlatform } from '../core/current-platform.js';
import { dataPaths, type DataPaths } from '../core/paths.js';
import { readDaemonConfig } from '../daemon/stop-config.js';
import { EXIT } from './exit-codes.js';
import { printError, printLine } from './output.js';

/**
 * How long `nextai daemon stop` waits, past the grace period, for the daemon to abort what is left,
 * close its connections and end.
 */
const STOP_WAIT_MS = 15_000;

/** The longest grace period `--grace` takes (the daemon refuses more). */
const MAX_GRACE_SECONDS = 3600;

export interface StopOptions {
  /** Abort running tool calls at once instead of letting them finish. */
  now?: boolean;
  /** Seconds running tool calls may take to finish; the daemon's `daemon.stop_grace_seconds` when absent. */
  grace?: number;
}

/** `--grace <seconds>`: 0 or more, fractions allowed. */
export function parseGraceSeconds(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0 || seconds > MAX_GRACE_SECONDS) {
    throw new InvalidArgumentError(`Give the seconds to wait, from 0 to ${MAX_GRACE_SECONDS}.`);
  }
  return seconds;
}

/** The grace period to ask the daemon for, in ms; undefined: the daemon's own. */
export function requestedGraceMs(options: StopOptions): number | undefined {
  if (options.now) return 0;
  return options.grace === undefined ? undefined : Math.round(options.grace * 1000);
}

const calls = (count: number) => `${count} running tool call${count === 1 ? '' : 's'}`;
const seconds = (ms: number) => `${Math.max(1, Math.ceil(ms / 1000))} s`;

/** What the stop does with the calls running when it was asked. */
export function describeStart(runningCalls: number, graceMs: number): string | undefined {
  if (runningCalls === 0) return undefined;
  if (graceMs === 0) return `stopping now: aborting ${calls(runningCalls)}`;
  return `waiting for ${calls(runningCalls)} to finish (up to ${seconds(graceMs)})…`;
}

/** One line for a `daemon.draining` event; undefined when it says nothing new. */
export function describeDrain(data: EventData<'daemon.draining'>, shown: number | undefined): string | undefined {
  const { running_calls: running, remaining_ms: remaining, ended } = data;
  if (ended === 'finished') return shown === undefined || shown === 0 ? undefined : 'the running tool calls finished';
  if (ended === 'grace_over') return `the grace period is over: aborting ${calls(running)} still going`;
  if (ended === 'hurried') return running > 0 ? `stopping now: aborting ${calls(running)}` : undefined;
  if (running === shown) return undefined;
  return `waiting for ${calls(running)} to finish (up to ${seconds(remaining)} more)…`;
}

/**
 * `nextai daemon stop`: asks the daemon to stop, letting the tool calls it runs finish first (up
 * to its grace period, or `--grace`; `--now` does not wait), shows the wait, and returns once the
 * daemon has ended — at most the grace period and STOP_WAIT_MS later.
 */
export async function stopDaemon(options: StopOptions): Promise<number> {
  const paths = dataPaths();
  let client: DaemonClient;
  try {
    client = await DaemonClient.connect(paths, { start: false });
  } catch (error) {
    const reason = unavailableReason(error);
    if (reason === 'not_running' || reason === 'stopped') {
      printLine(`no daemon is running for ${paths.dataDir}`);
      return EXIT.OK;
    }
    if (reason === 'unreachable') return stopBySignal(paths, unreachablePid(error), 'its socket is missing', options);
    // It refuses new clients (it has too many): the person's stop goes through all the same.
    const holder = error instanceof AppError && error.code === 'BUSY' ? lockHolder(paths) : undefined;
    if (holder?.held) return stopBySignal(paths, holder.pid, 'it refuses new connections (too many clients)', options);
    // A daemon that is stopping already takes no new clients: `--now` tells it not to wait, by signal.
    const stopping = options.now ? lockHolder(paths) : undefined;
    if (stopping?.held)
      return stopBySignal(paths, stopping.pid, 'it takes no new connections (it may be stopping)', options);
    // It took the connection and dropped it at once: a daemon stopping does that to new clients.
    // The stop asked first goes on; this one waits for it.
    const dropped = droppedAtOnce(error) ? lockHolder(paths) : undefined;
    if (dropped?.held) return waitForStopInProgress(paths, dropped.pid);
    throw error;
  }
  const { pid } = client.daemon;
  let deadline = Date.now() + STOP_WAIT_MS;
  try {
    let shown: number | undefined;
    client.peer.onNotification('event', (event: DaemonEvent) => {
      if (event.type !== 'daemon.draining') return;
      const data = event.data as EventData<'daemon.draining'>;
      const line = describeDrain(data, shown);
      shown = data.running_calls;
      if (line !== undefined) printLine(line);
    });
    const { last_event_seq } = await client.peer.request('daemon.status', {});
    await client.peer.request('events.subscribe', { after_seq: last_event_seq });
    const requested = requestedGraceMs(options);
    const answer = await client.peer.request('daemon.shutdown', {
      reason: options.now ? 'nextai daemon stop --now' : 'nextai daemon stop',
      ...(requested === undefined ? {} : { grace_ms: requested }),
    });
    const graceMs = answer.grace_ms ?? 0;
    deadline = Date.now() + graceMs + STOP_WAIT_MS;
    const start = describeStart(answer.running_calls ?? 0, graceMs);
    if (start !== undefined) {
      printLine(start);
      shown = answer.running_calls;
    }
    // The daemon closes every connection as it stops; wait for that, then for the process to end.
    await Promise.race([client.disconnected, waitUntil(deadline)]);
  } finally {
    client.close();
  }
  if (!(await waitForExit(pid, Math.max(0, deadline - Date.now())))) {
    printLine(`daemon (pid ${pid}) is still finishing; it will not start new work`);
    return EXIT.OK;
  }
  printLine(`daemon stopped (pid ${pid}); it stays stopped until \`nextai daemon\` starts it`);
  return EXIT.OK;
}

/**
 * Whether connecting failed because the daemon closed or reset the connection as soon as it was
 * made (it refuses clients while it stops), rather than finding no daemon or one that is stuck.
 */
export function droppedAtOnce(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ECONNRESET' || code === 'EPIPE') return true;
  if (!(error instanceof AppError)) return false;
  // The connection reset while saying hello ("read ECONNRESET", "write EPIPE": FramedStream).
  if (error.code === 'DISCONNECTED') return true;
  // "The daemon closed the connection" (DaemonClient): no reason of its own, unlike ensureDaemon's.
  return error.code === 'DAEMON_UNAVAILABLE' && unavailableReason(error) === undefined;
}

/**
 * Another stop is under way (the daemon holds its lock but drops new connections): waits for that
 * daemon to end — at most its configured grace period and STOP_WAIT_MS — rather than failing.
 */
async function waitForStopInProgress(paths: DataPaths, pid: number | undefined): Promise<number> {
  printLine('a stop is already in progress (waiting for it)');
  const timeoutMs = readDaemonConfig(paths.configFile).config.stop_grace_seconds * 1000 + STOP_WAIT_MS;
  const ended = pid === undefined ? await waitForUnlock(paths, timeoutMs) : await waitForExit(pid, timeoutMs);
  const which = pid === undefined ? '' : ` (pid ${pid})`;
  printLine(ended ? `daemon stopped${which}` : `daemon${which} is still finishing; it will not start new work`);
  return EXIT.OK;
}

/** Waits for the daemon's lock to be let go (its pid unknown); false when `timeoutMs` passed first. */
async function waitForUnlock(paths: DataPaths, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (lockHolder(paths).held) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

async function waitUntil(deadline: number): Promise<void> {
  await new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())).unref());
}

/** How long after its first signal a daemon told to stop now gets the second, which means now. */
const SECOND_SIGNAL_AFTER_MS = 500;

/**
 * Stops a daemon that holds the lock but cannot be asked over its socket (the file was removed,
 * or it refuses new clients for having too many): by its pid, with SIGTERM, on which it stops as
 * when asked — gracefully, with its configured grace period — and, as when asked, it stays
 * stopped. A signal to a daemon already stopping means "now": `--now` sends a second one.
 */
async function stopBySignal(
  paths: DataPaths,
  pid: number | undefined,
  why: string,
  options: StopOptions,
): Promise<number> {
  if (pid === undefined || currentPlatform() === 'windows') {
    printError(
      `a daemon holds the lock for ${paths.dataDir} but ${why}${pid === undefined ? `, and ${paths.pidFile} names no process of it` : ''}; a daemon makes a new socket within ${SOCKET_RENEWED_WITHIN_MS / 1000} s: run \`nextai daemon stop\` again in a moment`,
    );
    return EXIT.DAEMON_UNAVAILABLE;
  }
  printLine(`a daemon (pid ${pid}) holds the lock for ${paths.dataDir} but ${why}; stopping it by signal`);
  writeStoppedMarker(paths, 'nextai daemon stop');
  const signal = () => {
    try {
      process.kill(pid, 'SIGTERM');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  };
  signal();
  // A signal cannot say how long to wait: the daemon takes its configured grace period, or none
  // when signalled twice.
  const graceMs = options.now ? 0 : readDaemonConfig(paths.configFile).config.stop_grace_seconds * 1000;
  if (options.now && !(await waitForExit(pid, SECOND_SIGNAL_AFTER_MS))) signal();
  if (!(await waitForExit(pid, graceMs + STOP_WAIT_MS))) {
    printLine(`daemon (pid ${pid}) is still finishing; it will not start new work`);
    return EXIT.OK;
  }
  printLine(`daemon stopped (pid ${pid}); it stays stopped until \`nextai daemon\` starts it`);
  return EXIT.OK;
}
