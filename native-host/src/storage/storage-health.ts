import type { Logger } from '../core/logger.js';
import type { Db } from './database.js';

/**
 * SQLite's answers that mean "the database cannot be written now", not "this code is wrong": a
 * lock another process held past the busy timeout, a full disk, a file or folder that became
 * read-only, an I/O error. They pass (the lock is let go, space is freed, the disk comes back), so
 * they are conditions to wait out: logged, waited for and retried, never a reason to end the daemon.
 */
const CONDITION = /^SQLITE_(BUSY|LOCKED|FULL|READONLY|IOERR|CANTOPEN|PROTOCOL|NOLFS)(_|$)/;

/** How long a probe waits for a lock before it says writing does not work yet. */
const PROBE_BUSY_TIMEOUT_MS = 100;

export interface StorageFailure {
  /** SQLite's code, e.g. SQLITE_BUSY, SQLITE_FULL, SQLITE_READONLY. */
  code: string;
  message: string;
  /** When writing first failed (ISO time). */
  since: string;
}

/**
 * The storage condition `error` stands for, looking through the errors that wrapped it (`cause`);
 * undefined for anything else (a bug, a constraint, a closed database).
 */
export function storageFailureOf(error: unknown): { code: string; message: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONDITION.test(code)) return { code, message: current.message };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isStorageFailure(error: unknown): boolean {
  return storageFailureOf(error) !== undefined;
}

/**
 * Whether the daemon's database can be written, as far as its last writes showed. One per
 * connection ({@link storageHealth}): the event log, the run manager and anything else writing to
 * it share what one of them learnt. While writes fail it tries a small write every `retryMs`
 * (and any write that succeeds says the same), and once one succeeds it tells those waiting
 * (`onRecovered`): deferred events are written, runs that waited go on.
 */
export class StorageHealth {
  /** How often a failing database is tried again. */
  retryMs = 2000;
  private failure: StorageFailure | undefined;
  private readonly recoveredListeners = new Set<() => void>();
  private readonly changeListeners = new Set<() => void>();
  private retryTimer: ReturnType<typeof setInterval> | undefined;
  /** The database file was replaced or removed under the connection (database-file.ts): for good. */
  private replaced = false;
  /** Looks whether the file at the database's path is still the one open (database-file.ts). */
  private fileCheck: (() => unknown) | undefined;

  constructor(
    private readonly db: Db,
    readonly log: Logger | undefined,
  ) {}

  /** What failed, while writes fail; undefined while they work. */
  get failing(): StorageFailure | undefined {
    return this.failure;
  }

  /**
   * Notes a failed write. True when `error` is a storage condition (now remembered, and retried
   * from now on); false for anything else, which the caller handles as before.
   */
  noteFailure(error: unknown): boolean {
    const failure = storageFailureOf(error);
    if (!failure) return false;
    // Nothing to wait for: the daemon restarts on the file now there.
    if (this.replaced) return true;
    if (!this.failure) {
      this.failure = { ...failure, since: new Date().toISOString() };
      this.log?.warn('the database cannot be written now; waiting for it and trying again', failure);
      this.tellChanged();
    }
    this.startRetrying();
    return true;
  }

  /** Notes a write that worked: if writes were failing, they work again, and those waiting are told. */
  noteSuccess(): void {
    if (!this.failure || this.replaced) return;
    const { code, since } = this.failure;
    this.failure = undefined;
    this.stopRetrying();
    this.log?.info('the database can be written again', { code, failing_since: since });
    // Never inside the write that noticed it (an event being appended, a transaction).
    setImmediate(() => this.call(this.recoveredListeners, 'working again'));
    this.tellChanged();
  }

  /**
   * Notes that the database file was replaced or removed while the connection had it open
   * (database-file.ts, which has stopped writing into the old one): writes fail from now on and
   * never work again on this connection — nothing is retried, no write that seems to work says
   * otherwise — until the daemon restarts on the file now there.
   */
  noteReplaced(failure: { code: string; message: string }): void {
    if (this.replaced) return;
    this.replaced = true;
    this.stopRetrying();
    this.failure = { ...failure, since: new Date().toISOString() };
    this.tellChanged();
  }

  /** Whether the database file was replaced or removed under the connection. */
  get isReplaced(): boolean {
    return this.replaced;
  }

  /** What each probe asks first: whether the database's file is still the one open (database-file.ts). */
  checkFileWith(check: () => unknown): void {
    this.fileCheck = check;
  }

  /** Called (outside any write) each time writing works again after failing. Returns the unsubscribe function. */
  onRecovered(listener: () => void): () => void {
    this.recoveredListeners.add(listener);
    return () => this.recoveredListeners.delete(listener);
  }

  /**
   * Called (outside any write, after the `onRecovered` listeners) each time writing starts failing
   * or works again; {@link failing} says which. Calls may come after the state moved on again: a
   * listener reads the state then, not what it was when it was queued.
   */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /**
   * Whether writing works now: one small write in its own transaction, waiting at most
   * {@link PROBE_BUSY_TIMEOUT_MS} for a lock (not the connection's full busy timeout, which would
   * hold the daemon's event loop that long at every try). Notes what it learnt. First it looks
   * whether the database's file is still the one open: a replaced file is never "writable".
   */
  probe(): boolean {
    this.fileCheck?.();
    if (this.replaced || !this.db.open || this.db.inTransaction) return false;
    let previous: number | undefined;
    try {
      previous = this.db.pragma('busy_timeout', { simple: true }) as number;
      this.db.pragma(`busy_timeout = ${Math.min(previous, PROBE_BUSY_TIMEOUT_MS)}`);
      this.db
        .transaction(() =>
          this.db
            .prepare(
              "INSERT INTO meta (key, value) VALUES ('storage_probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            )
            .run(new Date().toISOString()),
        )
        .immediate();
    } catch (error) {
      if (!this.noteFailure(error)) {
        this.log?.error('could not check whether the database can be written', { error: (error as Error).message });
      }
      return false;
    } finally {
      if (previous !== undefined && this.db.open) this.db.pragma(`busy_timeout = ${previous}`);
    }
    this.noteSuccess();
    return true;
  }

  /** Stops trying (the database is being closed). */
  close(): void {
    this.stopRetrying();
    this.recoveredListeners.clear();
    this.changeListeners.clear();
  }

  private tellChanged(): void {
    setImmediate(() => this.call(this.changeListeners, 'changing'));
  }

  private call(listeners: Set<() => void>, what: string): void {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch (error) {
        this.log?.error(`a listener for the database ${what} failed`, { error: (error as Error).message });
      }
    }
  }

  private startRetrying(): void {
    if (this.retryTimer) return;
    this.retryTimer = setInterval(() => {
      if (!this.db.open) this.stopRetrying();
      else this.probe();
    }, this.retryMs);
    this.retryTimer.unref();
  }

  private stopRetrying(): void {
    clearInterval(this.retryTimer);
    this.retryTimer = undefined;
  }
}

const healthOf = new WeakMap<Db, StorageHealth>();

/**
 * The write health of a database connection, the same object for everyone who asks. `log` is
 * used when it is created (openDatabase creates it with the database's logger).
 */
export function storageHealth(db: Db, log?: Logger): StorageHealth {
  let health = healthOf.get(db);
  if (!health) {
    health = new StorageHealth(db, log);
    healthOf.set(db, health);
  }
  return health;
}
