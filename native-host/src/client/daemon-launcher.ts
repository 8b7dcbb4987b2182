import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { AppError } from '@nextai/shared/wire';

import { renderLogLine, type Logger } from '../core/logger.js';
import type { DataPaths } from '../core/paths.js';
import { isProcessRunning, lockHolder } from './daemon-lock.js';
import { cliProgramPath } from './self-path.js';

/**
 * Why no daemon could be reached; travels in the AppError's `details.reason`. `unreachable`: a
 * daemon runs (it holds the instance lock; its pid in `details.pid` when known) but has no socket
 * — it is starting, or its socket file was removed and it makes a new one within seconds.
 */
export type UnavailableReason = 'not_running' | 'stopped' | 'not_responding' | 'failed_to_start' | 'unreachable';

/**
 * How long a daemon may be without its socket file: it looks every 2 s (daemon/daemon-socket.ts)
 * and makes a new one at once.
 */
export const SOCKET_RENEWED_WITHIN_MS = 5000;

/** Connects to the daemon socket; rejects with the errno code (ENOENT, ECONNREFUSED…) on failure. */
export function connectSocket(socketPath: string, timeoutMs = 2000): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`Timed out connecting to ${socketPath}`), { code: 'ETIMEDOUT' }));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

/**
 * Connects; when the daemon's queue of connections not yet accepted is full (EAGAIN: many clients
 * connect at once, or it is flooded), tries again for a moment before giving up.
 */
async function connectWhenAccepted(socketPath: string, timeoutMs = 2000): Promise<net.Socket> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await connectSocket(socketPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() >= deadline) throw error;
      await sleep(50);
    }
  }
}

/** The pid of the daemon an `unreachable` error from {@link ensureDaemon} is about, when known. */
export function unreachablePid(error: unknown): number | undefined {
  if (unavailableReason(error) !== 'unreachable') return undefined;
  return ((error as AppError).details as { pid?: number } | undefined)?.pid;
}

/** The reason in an error from {@link ensureDaemon}, if it is one. */
export function unavailableReason(error: unknown): UnavailableReason | undefined {
  if (!(error instanceof AppError) || error.code !== 'DAEMON_UNAVAILABLE') return undefined;
  const reason = (error.details as { reason?: UnavailableReason } | undefined)?.reason;
  return reason;
}

export interface EnsureDaemonOptions {
  /** Start a daemon when none answers, unless it was stopped on purpose. */
  start: boolean;
  /** Start it even if it was stopped on purpose (`nextai daemon --detach`). */
  evenIfStopped?: boolean;
  timeoutMs?: number;
  log?: Logger;
}

/**
 * Returns a socket connected to the daemon of `paths`, starting a detached daemon first if none
 * is running (and `start` is set). Two callers racing to start one is fine: the second daemon
 * finds the instance lock taken and exits, and both callers connect to the first.
 *
 * A daemon stopped with `nextai daemon stop` stays stopped: browsers and commands that would
 * start it get a `stopped` error saying how to start it, until someone starts it explicitly.
 */
export async function ensureDaemon(
  paths: DataPaths,
  options: EnsureDaemonOptions,
): Promise<{ socket: net.Socket; started: boolean }> {
  try {
    return { socket: await connectWhenAccepted(paths.socket), started: false };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ETIMEDOUT' || code === 'EAGAIN') {
      throw unavailable(
        paths,
        'not_responding',
        `The daemon for ${paths.dataDir} accepts no connections${code === 'EAGAIN' ? ' (too many are waiting: it is flooded, or stuck)' : ' (it may be stuck)'}. Stop it (\`nextai daemon stop\`, or kill the pid in ${paths.pidFile}) and start it again.`,
        error,
      );
    }
    if (code !== 'ENOENT' && code !== 'ECONNREFUSED') {
      throw unavailable(
        paths,
        'not_running',
        `Cannot reach the daemon at ${paths.socket}: ${(error as Error).message}.`,
        error,
      );
    }
    // No socket is not no daemon: one whose socket file was deleted still runs, holds the lock,
    // and makes a new socket within seconds. Starting another would only be refused by the lock.
    const holder = lockHolder(paths);
    if (holder.held) {
      if (!options.start) throw unreachable(paths, holder.pid, error);
      const socket = await waitForSocket(paths, holder.pid, options.timeoutMs ?? 10_000);
      if (socket) return { socket, started: false };
      // It ended meanwhile (it was stopping): on as when none ran.
    }
    const stopped = readStoppedMarker(paths);
    if (!options.start || (stopped && !options.evenIfStopped)) {
      const why = stopped
        ? `The NextAI daemon was stopped on purpose (${stopped.reason}, ${stopped.time}). Start it again with \`npx nextai daemon --detach\`.`
        : `The NextAI daemon is not running for ${paths.dataDir}. Start it with \`npx nextai daemon --detach\`.`;
      throw unavailable(paths, stopped ? 'stopped' : 'not_running', why, error);
    }
  }

  options.log?.info('no daemon answered; starting one', { socket: paths.socket });
  const child = spawnDetachedDaemon(paths);
  let exited: { code: number | null } | undefined;
  let spawnError: Error | undefined;
  child.once('exit', (code) => {
    exited = { code };
  });
  child.once('error', (error) => {
    spawnError = error;
  });

  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let delay = 25;
  let lastError: unknown;
  while (Date.now() < deadline) {
    await sleep(delay);
    delay = Math.min(delay * 2, 250);
    try {
      return { socket: await connectSocket(paths.socket), started: true };
    } catch (error) {
      lastError = error;
    }
    if (spawnError) {
      throw unavailable(paths, 'failed_to_start', `Could not start the daemon: ${spawnError.message}.`, spawnError);
    }
    // Exit code 4: another daemon won the race; keep connecting to that one.
    if (exited && exited.code !== 4) {
      throw unavailable(paths, 'failed_to_start', `The daemon could not start (exit code ${exited.code}).`, lastError);
    }
  }
  throw unavailable(
    paths,
    'failed_to_start',
    `The daemon did not answer within ${options.timeoutMs ?? 10_000} ms of starting.`,
    lastError,
  );
}

/**
 * Connects once the daemon that holds the lock has its socket again (or has started listening);
 * undefined when it ends meanwhile.
 */
async function waitForSocket(
  paths: DataPaths,
  pid: number | undefined,
  timeoutMs: number,
): Promise<net.Socket | undefined> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    await sleep(100);
    try {
      return await connectSocket(paths.socket);
    } catch (error) {
      lastError = error;
    }
    if (!lockHolder(paths).held) return undefined;
  }
  throw unavailable(
    paths,
    'not_responding',
    `${daemonName(pid)} holds the lock for ${paths.dataDir} but has had no socket at ${paths.socket} for ${timeoutMs / 1000} s (it may be stuck). Stop it (\`nextai daemon stop\`) and start it again.`,
    lastError,
  );
}

function daemonName(pid: number | undefined): string {
  return pid === undefined ? 'A daemon' : `A daemon (pid ${pid})`;
}

function unreachable(paths: DataPaths, pid: number | undefined, cause: unknown): AppError {
  return new AppError(
    'DAEMON_UNAVAILABLE',
    `${daemonName(pid)} holds the lock for ${paths.dataDir} but its socket ${paths.socket} is missing: it is starting, or the file was removed and the daemon makes a new one within ${SOCKET_RENEWED_WITHIN_MS / 1000} s.`,
    { cause, details: { reason: 'unreachable', pid } },
  );
}

/**
 * Starts `nextai daemon` in the background, detached from the caller. The daemon writes and
 * rotates logs/daemon.log itself; its stdout and stderr go to the same file, for what it prints
 * before its logger exists (a module that failed to load) and for Node's report of a crash.
 */
export function spawnDetachedDaemon(paths: DataPaths) {
  fs.mkdirSync(paths.logsDir, { recursive: true, mode: 0o700 });
  const logFd = fs.openSync(paths.daemonLog, 'a', 0o600);
  try {
    const child = spawn(process.execPath, [cliProgramPath(), 'daemon'], {
      detached: true,
      stdio: ['ignore', logFd, logFd],
      // Not the caller's directory: the daemon outlives it, and must not keep it busy.
      cwd: paths.dataDir,
      env: { ...process.env, NEXTAI_HOME: paths.dataDir },
      windowsHide: true,
    });
    child.unref();
    return child;
  } finally {
    fs.closeSync(logFd);
  }
}

export interface StoppedMarker {
  reason: string;
  time: string;
}

/** Records that the daemon is being stopped on purpose, so nothing starts it behind the person's back. */
export function writeStoppedMarker(paths: DataPaths, reason: string): void {
  const marker: StoppedMarker = { reason, time: new Date().toISOString() };
  fs.writeFileSync(paths.stoppedMarker, `${JSON.stringify(marker)}\n`, { mode: 0o600 });
}

export function clearStoppedMarker(paths: DataPaths): void {
  fs.rmSync(paths.stoppedMarker, { force: true });
}

export function readStoppedMarker(paths: DataPaths): StoppedMarker | undefined {
  try {
    return JSON.parse(fs.readFileSync(paths.stoppedMarker, 'utf8')) as StoppedMarker;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // An unreadable marker still says "stopped on purpose"; keep that meaning.
    return { reason: 'stopped on purpose', time: 'unknown time' };
  }
}

function unavailable(paths: DataPaths, reason: UnavailableReason, message: string, cause: unknown): AppError {
  const log = reason === 'failed_to_start' || reason === 'not_responding' ? tailOfLog(paths.daemonLog) : '';
  return new AppError('DAEMON_UNAVAILABLE', log ? `${message}\n${log}` : message, { cause, details: { reason } });
}

/** How much of the end of the log is read for its last lines. */
const TAIL_BYTES = 64 * 1024;

/**
 * The last lines of the daemon log, which usually say why it did not start; the logger's JSON
 * lines rendered as `time level [component] message key=value…`, other lines as they are.
 */
export function tailOfLog(file: string, lines = 5): string {
  let text: string;
  try {
    text = readEnd(file, TAIL_BYTES).trimEnd();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    return `(could not read ${file}: ${(error as Error).message})`;
  }
  if (!text) return '';
  return `Last lines of ${file}:\n${text.split('\n').slice(-lines).map(renderLogLine).join('\n')}`;
}

/** The last `bytes` of a file, from the first whole line in them. */
function readEnd(file: string, bytes: number): string {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    const read = fs.readSync(fd, buffer, 0, buffer.length, start);
    const text = buffer.subarray(0, read).toString('utf8');
    return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Waits until a process has exited (or is a zombie waiting to be reaped), polling; false when it
 * is still there after `timeoutMs`. A closed connection is not the end of the daemon: it still
 * checkpoints and closes SQLite after.
 */
export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isProcessRunning(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(25);
  }
  return true;
}
