import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

import { AppError } from '@nextai/shared/wire';

import type { Logger } from '../logger.js';
import type { DataPaths } from '../paths.js';
import { cliProgramPath } from './self-path.js';

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

/** Errors that mean "no daemon is listening", as opposed to "something is wrong". */
export function isNoDaemonError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ETIMEDOUT';
}

export interface EnsureDaemonOptions {
  /** Start a daemon when none answers. */
  start: boolean;
  timeoutMs?: number;
  log?: Logger;
}

/**
 * Returns a socket connected to the daemon of `paths`, starting a detached daemon first if none
 * is running (and `start` is set). Two callers racing to start one is fine: the second daemon
 * finds the instance lock taken and exits, and both callers connect to the first.
 */
export async function ensureDaemon(
  paths: DataPaths,
  options: EnsureDaemonOptions,
): Promise<{ socket: net.Socket; started: boolean }> {
  try {
    return { socket: await connectSocket(paths.socket), started: false };
  } catch (error) {
    if (!isNoDaemonError(error) || !options.start) throw daemonUnavailable(paths, error);
  }
  options.log?.info('no daemon answered; starting one', { socket: paths.socket });
  const child = spawnDetachedDaemon(paths);
  let exited: { code: number | null } | undefined;
  child.once('exit', (code) => {
    exited = { code };
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
    // Exit code 4: another daemon won the race; keep connecting to that one.
    if (exited && exited.code !== 4) {
      throw new AppError(
        'DAEMON_UNAVAILABLE',
        `The daemon could not start (exit code ${exited.code}). ${tailOfLog(paths.daemonLog)}`,
      );
    }
  }
  throw daemonUnavailable(paths, lastError);
}

/** Starts `nextai daemon` in the background, detached from the caller, logging to logs/daemon.log. */
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

function daemonUnavailable(paths: DataPaths, cause: unknown): AppError {
  const reason = cause instanceof Error ? ` (${cause.message})` : '';
  return new AppError(
    'DAEMON_UNAVAILABLE',
    `The NextAI daemon is not running for ${paths.dataDir}${reason}. Start it with \`nextai daemon\`. ${tailOfLog(paths.daemonLog)}`.trim(),
    { cause },
  );
}

/** The last lines of the daemon log, which usually say why it did not start. */
function tailOfLog(file: string, lines = 5): string {
  try {
    const text = fs.readFileSync(file, 'utf8').trimEnd();
    if (!text) return '';
    return `Last lines of ${file}:\n${text.split('\n').slice(-lines).join('\n')}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    return `(could not read ${file}: ${(error as Error).message})`;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
