import fs from 'node:fs';

import type { Logger } from '../core/logger.js';
import type { Db } from './database.js';
import type { NetworkFileSystem } from './network-file-system.js';
import { storageHealth } from './storage-health.js';
import { DATABASE_MOVED_CODE } from './storage-problem.js';

/**
 * Whether the file at the database's path is still the one the connection has open. A backup
 * restored over data.db (a rename: a new file at the path) or data.db deleted leaves the
 * connection writing into the old file, which nothing will ever read again: every later write
 * would be lost without a word. Worse, its WAL and shared-memory files (data.db-wal, -shm) stay
 * at the path next to a database they do not belong to — SQLite would lay the old database's
 * pages over the new one the next time it is opened, and a connection opened meanwhile would share
 * the old one's index. So the file's identity (device and inode) is recorded at open and compared
 * with the path every few seconds and at every probe of the storage's health; once they differ:
 *
 * - not one more write goes into the old file (`query_only`: every write fails with
 *   SQLITE_READONLY, a storage condition, so what was to be written waits or is refused, as for a
 *   read-only file) and nothing more is checkpointed into it (SQLite itself skips the checkpoint
 *   when it closes a database whose file moved);
 * - the old database's -wal and -shm are taken off the path (this connection keeps them open),
 *   only when they are the very files recorded at open — a -wal restored with the backup stays;
 * - the health reports the problem `replaced` (SQLite's own code for it, SQLITE_READONLY_DBMOVED);
 * - those listening are told (the daemon keeps a copy of what the old file held, then restarts on
 *   the file now there: daemon/database-replaced.ts).
 *
 * A file overwritten in place (`cp backup.db data.db`) keeps its inode and is not seen here.
 */

/** Which file a path names: its device and inode (bigint: NTFS file ids and some inode numbers pass 2^53). */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/** The identity of the file at `file`, undefined when there is none; throws when it cannot be told (EACCES, EIO). */
export type IdentityOf = (file: string) => FileIdentity | undefined;

export const identityAt: IdentityOf = (file) => {
  try {
    const stat = fs.statSync(file, { bigint: true });
    return { dev: stat.dev, ino: stat.ino };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
};

export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** What was found: the database file replaced by another, or gone. */
export interface DatabaseReplacement {
  change: 'replaced' | 'removed';
  /** When it was noticed (ISO time). */
  detectedAt: string;
  /** The old database's side files taken off the path (full paths). */
  sideFilesRemoved: string[];
}

/** How often the path is looked at by default. */
export const DEFAULT_CHECK_MS = 2000;

const SIDE_FILES = ['-wal', '-shm'] as const;

export class DatabaseFile {
  /** The data folder's network file system, when it is on one (found at open; network-file-system.ts). */
  network: NetworkFileSystem | undefined;
  private readonly opened: FileIdentity;
  /** The side files as first seen while the database file was the one opened: this connection's. */
  private readonly sides = new Map<string, FileIdentity>();
  private found: DatabaseReplacement | undefined;
  private readonly listeners = new Set<(replacement: DatabaseReplacement) => void>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly db: Db,
    readonly file: string,
    private readonly log: Logger | undefined,
    private readonly identityOf: IdentityOf = identityAt,
  ) {
    const opened = identityOf(file);
    if (!opened) throw new Error(`${file} is not there right after it was opened`);
    this.opened = opened;
    this.noteSideFiles();
  }

  /** What was found, once the file was replaced or removed (for good: it does not come back). */
  get replacement(): DatabaseReplacement | undefined {
    return this.found;
  }

  /**
   * Looks at the path now. Undefined while it is the file the connection has open (or it cannot
   * be told: a folder that cannot be read now is not a replaced file). Once it is not: stops
   * writing, takes the old side files off the path and tells the health and the listeners (see
   * the top of this file) — once — and returns what was found from then on.
   */
  check(): DatabaseReplacement | undefined {
    if (this.found || !this.db.open) return this.found;
    let now: FileIdentity | undefined;
    try {
      now = this.identityOf(this.file);
    } catch (error) {
      this.log?.debug('could not look at the database file', { file: this.file, error: (error as Error).message });
      return undefined;
    }
    if (now && sameFile(now, this.opened)) {
      this.noteSideFiles();
      return undefined;
    }
    return this.replaced(now ? 'replaced' : 'removed');
  }

  /**
   * Called once (outside any write, after the health's own listeners) when the file is found
   * replaced or removed. Returns the unsubscribe function.
   */
  onReplaced(listener: (replacement: DatabaseReplacement) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Looks at the path every `intervalMs` (a timer that does not keep the process alive) until the database closes. */
  watch(intervalMs = DEFAULT_CHECK_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.db.open || this.found) this.close();
      else this.check();
    }, intervalMs);
    this.timer.unref();
  }

  /**
   * A copy of everything the connection sees — the old file and its WAL — as
   * `<file>.replaced-<time>.bak` next to it (0600): what was saved before the file was replaced is
   * not lost with it. Read through the connection (SQLite's online backup); nothing is written
   * into the old file.
   */
  async keepCopy(at: Date = new Date()): Promise<string> {
    const copy = `${this.file}.replaced-${at.toISOString().replace(/[:.]/g, '-')}.bak`;
    await this.db.backup(copy);
    fs.chmodSync(copy, 0o600);
    return copy;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Records each side file the first time it is seen while the database file is the one opened. */
  private noteSideFiles(): void {
    for (const suffix of SIDE_FILES) {
      if (this.sides.has(suffix)) continue;
      try {
        const identity = this.identityOf(this.file + suffix);
        if (identity) this.sides.set(suffix, identity);
      } catch {
        // Looked at again at the next check.
      }
    }
  }

  private replaced(change: DatabaseReplacement['change']): DatabaseReplacement {
    // First: not one more write into the old file, whatever else fails below.
    try {
      this.db.pragma('query_only = ON');
    } catch (error) {
      this.log?.error('could not stop writing into the replaced database', { error: (error as Error).message });
    }
    const sideFilesRemoved: string[] = [];
    for (const [suffix, recorded] of this.sides) {
      const side = this.file + suffix;
      try {
        const now = this.identityOf(side);
        if (!now || !sameFile(now, recorded)) continue;
        fs.rmSync(side);
        sideFilesRemoved.push(side);
      } catch (error) {
        this.log?.error('could not take the old database’s side file off the path', {
          file: side,
          error: (error as Error).message,
        });
      }
    }
    const found: DatabaseReplacement = { change, detectedAt: new Date().toISOString(), sideFilesRemoved };
    this.found = found;
    this.close();
    const message =
      change === 'removed'
        ? `${this.file} was removed while the daemon had it open`
        : `${this.file} was replaced by another file while the daemon had it open`;
    this.log?.error('the database file was replaced or removed: nothing more is written into the old one', {
      file: this.file,
      change,
      side_files_removed: sideFilesRemoved,
    });
    storageHealth(this.db).noteReplaced({ code: DATABASE_MOVED_CODE, message });
    // After the health's change listeners (queued by noteReplaced): the alerts go out first.
    setImmediate(() => {
      for (const listener of [...this.listeners]) {
        try {
          listener(found);
        } catch (error) {
          this.log?.error('a listener for the replaced database failed', { error: (error as Error).message });
        }
      }
    });
    return found;
  }
}

const files = new WeakMap<Db, DatabaseFile>();

/**
 * Starts following the file of `db` (openDatabase does, right after opening it): its identity is
 * recorded now, and the storage's health looks at it at every probe. `watch()` adds the timer.
 */
export function followDatabaseFile(db: Db, file: string, log?: Logger, identityOf?: IdentityOf): DatabaseFile {
  const followed = new DatabaseFile(db, file, log, identityOf);
  files.set(db, followed);
  storageHealth(db, log).checkFileWith(() => followed.check());
  return followed;
}

/** The followed file of `db`, when it was opened by openDatabase. */
export function databaseFile(db: Db): DatabaseFile | undefined {
  return files.get(db);
}
