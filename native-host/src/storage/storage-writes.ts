import type { Localized } from '@nextai/shared';

import { writeTransaction, type Db } from './database.js';
import { storageHealth, storageFailureOf } from './storage-health.js';
import { storageWriteError } from './storage-problem.js';

/**
 * Writes someone asked for (an approval's answer, a scheduled task, an audit record) when the
 * database may not be writable: made whole or not at all, and refused with a STORAGE_ERROR that
 * says what was not saved, why and what to do — never a raw SQLite error, never half a change.
 */

/**
 * `write` as one write transaction (see writeTransaction). When the database cannot be written
 * it throws STORAGE_ERROR and nothing of `write` is kept; what it did outside the database (an
 * event told to listeners) is the caller's to put after this returns.
 */
export function storageWrite<T>(db: Db, what: Localized, write: () => T): T {
  requireWritable(db, what);
  try {
    return writeTransaction(db, write);
  } catch (error) {
    throw asStorageError(db, what, error);
  }
}

/**
 * Refuses at once while the database is known not to be writable, instead of letting the write
 * wait out the busy timeout (five seconds of a stalled daemon for each request). One quick try
 * first (storageHealth.probe), so a database that works again is not refused. Inside a
 * transaction the outer write has the lock already: nothing to check.
 */
export function requireWritable(db: Db, what: Localized): void {
  const health = storageHealth(db);
  const failure = health.failing;
  if (!failure || db.inTransaction || health.probe()) return;
  const now = health.failing ?? failure;
  // Its cause carries SQLite's code, as a write that failed would: whoever waits out storage
  // conditions (a run's loop pauses until writing works) knows this refusal for one.
  const cause = Object.assign(new Error(now.message), { code: now.code });
  throw storageWriteError(what, now, db.name, cause);
}

/**
 * `error` as the STORAGE_ERROR to refuse a write with when it is a storage condition (noted in
 * the database's health, so the status, the panel and the retries know); any other error as it is.
 */
export function asStorageError(db: Db, what: Localized, error: unknown): unknown {
  if (!storageHealth(db).noteFailure(error)) return error;
  const failure = storageFailureOf(error) ?? { code: 'SQLITE_IOERR' };
  return storageWriteError(what, failure, db.name, error);
}
