import fs from 'node:fs';
import { createRequire } from 'node:module';

import type BetterSqlite3 from 'better-sqlite3';

import type { DataPaths } from '../core/paths.js';

/** Whether a daemon runs for a data directory, told by its instance lock rather than its socket. */
export type LockHolder =
  /** No process holds the lock: no daemon runs (or one is just starting or ending). */
  | { held: false }
  /** A daemon runs; `pid` when its pid file names a live process. */
  | { held: true; pid: number | undefined };

/**
 * Looks, from outside, whether a daemon holds the instance lock of `paths` (see
 * daemon/instance-lock.ts: an exclusive SQLite lock on `run/daemon.lock`, which the kernel lets go
 * when the process ends). The socket says how to reach a daemon; the lock says whether one runs —
 * a daemon whose socket file was deleted still holds it.
 *
 * Reading takes a shared lock for a moment; a daemon starting at that very moment waits for it
 * (its lock has a busy time-out) rather than taking it for another daemon's.
 */
export function lockHolder(paths: DataPaths): LockHolder {
  // Loaded when first asked, not with the module: `nextai host` imports this and must start
  // without SQLite (src/entry.ts).
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  let database: BetterSqlite3.Database | undefined;
  try {
    database = new Database(paths.lockFile, { readonly: true, fileMustExist: true, timeout: 0 });
    database.prepare('SELECT pid FROM owner LIMIT 1').get();
    return { held: false };
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') return { held: false };
    let pid: number | undefined;
    try {
      pid = readPid(paths.pidFile);
    } catch {
      // Unreadable: the daemon runs all the same, its pid unknown.
      pid = undefined;
    }
    const named = pid !== undefined && isProcessRunning(pid) && hasOpen(pid, paths.lockFile) !== false;
    return { held: true, pid: named ? pid : undefined };
  } finally {
    database?.close();
  }
}

/** The pid in a pid file; undefined when there is none or it holds no pid. */
export function readPid(pidFile: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Whether process `pid` has `file` open, where the system says (Linux's /proc): a pid file that
 * names some other process (a pid reused after a crash) is not taken for the daemon's. Undefined
 * where it cannot be known.
 */
function hasOpen(pid: number, file: string): boolean | undefined {
  let target: string;
  let entries: string[];
  try {
    target = fs.realpathSync(file);
    entries = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  return entries.some((fd) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === target;
    } catch {
      return false;
    }
  });
}

/** Whether a process runs: not gone, and (on Linux) not a zombie waiting to be reaped. */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // On Linux an exited child its parent has not reaped yet still answers signal 0.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^Z|^X/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return true;
  }
}
