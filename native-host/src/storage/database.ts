import fs from 'node:fs';

import Database from 'better-sqlite3';

import { AppError } from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import { MIGRATIONS, type Migration } from './migrations.js';

export type Db = Database.Database;

/**
 * Opens `data.db` in WAL mode and brings its schema up to date. Before migrating a database that
 * already holds data, a copy is kept next to it, so a failed or regretted upgrade loses nothing.
 * A database written by a newer version is refused rather than touched.
 */
export async function openDatabase(
  file: string,
  log: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<Db> {
  let db: Db;
  try {
    db = new Database(file, { timeout: 5000 });
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
  return db;
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
