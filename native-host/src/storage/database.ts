import fs from 'node:fs';
import path from 'node:path';

import Database from 'better-sqlite3';

import { AppError } from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import { followDatabaseFile } from './database-file.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { networkFileSystemAt } from './network-file-system.js';
import { storageHealth } from './storage-health.js';
import { describeNetworkFileSystem } from './storage-problem.js';

export type Db = Database.Database;

/**
 * How long a statement waits for a lock another connection holds (SQLite retries with growing
 * pauses meanwhile: its busy handler) before it fails with SQLITE_BUSY. It holds the daemon's
 * event loop while it waits, so it is kept short; a write that still fails after it is a storage
 * condition (storage-health.ts), waited out and retried by the caller, never a crash. Write
 * transactions begin IMMEDIATE (see writeTransaction) so this wait covers them too.
 */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Opens `data.db` in WAL mode and brings its schema up to date. Before migrating a database that
 * already holds data, a copy is kept next to it, so a failed or regretted upgrade loses nothing.
 * A database written by a newer version is refused rather than touched. The file's identity is
 * recorded (database-file.ts), and a data folder on a network file system is warned about in the
 * log (network-file-system.ts): SQLite's locking is unreliable there.
 */
export async function openDatabase(
  file: string,
  log: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<Db> {
  let db: Db;
  try {
    db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    fs.chmodSync(file, 0o600);
  } catch (error) {
    throw new AppError('STORAGE_ERROR', `Could not open the database ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    await migrate(db, file, log, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  storageHealth(db, log);
  // Which file it is, so one replaced or removed under the daemon is noticed (database-file.ts).
  const followed = followDatabaseFile(db, file, log);
  followed.network = await networkFileSystemAt(path.dirname(file)).catch(() => undefined);
  if (followed.network) {
    const { message, fix } = describeNetworkFileSystem(
      path.dirname(file),
      followed.network.type,
      followed.network.mountPoint,
    );
    log.warn(`${message.en} ${fix.en}`, {
      file_system: followed.network.type,
      mount_point: followed.network.mountPoint,
    });
  }
  return db;
}

/**
 * `write` as one transaction that takes the write lock when it begins (BEGIN IMMEDIATE), inside
 * an outer transaction a savepoint of it. A plain (deferred) transaction that reads before it
 * writes asks for the lock only at its first write, and SQLite then fails at once with
 * SQLITE_BUSY when another connection holds it — without the busy timeout's wait — because a
 * reader that waited could deadlock. Taking the lock first lets the busy timeout do its work.
 */
export function writeTransaction<T>(db: Db, write: () => T): T {
  return db.transaction(write).immediate();
}

async function migrate(db: Db, file: string, log: Logger, migrations: readonly Migration[]): Promise<void> {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new AppError(
      'STORAGE_ERROR',
      `${file} was written by a newer NextAI Agent (schema ${current}; this version knows up to ${latest}). Nothing was changed. Update NextAI Agent, or point NEXTAI_HOME at another directory.`,
    );
  }
  const pending = migrations.filter((migration) => migration.version > current);
  if (pending.length === 0) return;

  if (current > 0) {
    const backup = `${file}.before-v${pending[0]?.version ?? current + 1}.bak`;
    await db.backup(backup);
    fs.chmodSync(backup, 0o600);
    log.info('backed up the database before migrating', { backup });
  }
  for (const migration of pending) {
    const apply = db.transaction(() => {
      db.exec(migration.sql);
      migration.data?.(db);
      db.pragma(`user_version = ${migration.version}`);
    });
    try {
      apply();
    } catch (error) {
      throw new AppError(
        'STORAGE_ERROR',
        `Database migration ${migration.version} (${migration.name}) failed and was rolled back: ${(error as Error).message}`,
        { cause: error },
      );
    }
    log.info('applied database migration', { version: migration.version, name: migration.name });
  }
}
