import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { openDatabase } from './database.js';
import type { Migration } from './migrations.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const v1: Migration = { version: 1, name: 'notes', sql: 'CREATE TABLE notes (text TEXT NOT NULL);' };
const v2: Migration = { version: 2, name: 'note time', sql: 'ALTER TABLE notes ADD COLUMN time TEXT;' };

function file(): string {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-db-'));
  return path.join(dir, 'data.db');
}

describe('openDatabase', () => {
  it('creates the schema in WAL mode with a private file', async () => {
    const dbFile = file();
    const db = await openDatabase(dbFile, log, [v1]);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(fs.statSync(dbFile).mode & 0o777).toBe(0o600);
    db.close();
  });

  it('backs up a database with data before migrating it, and keeps the data', async () => {
    const dbFile = file();
    const first = await openDatabase(dbFile, log, [v1]);
    first.prepare('INSERT INTO notes (text) VALUES (?)').run('keep me');
    first.close();

    const second = await openDatabase(dbFile, log, [v1, v2]);
    expect(second.prepare('SELECT text FROM notes').pluck().all()).toEqual(['keep me']);
    second.close();
    const backup = new Database(`${dbFile}.before-v2.bak`, { readonly: true });
    expect(backup.pragma('user_version', { simple: true })).toBe(1);
    expect(backup.prepare('SELECT text FROM notes').pluck().all()).toEqual(['keep me']);
    backup.close();
  });

  it('rolls back a failing migration and says which one failed', async () => {
    const dbFile = file();
    (await openDatabase(dbFile, log, [v1])).close();
    const broken: Migration = { version: 2, name: 'broken', sql: 'CREATE TABLE extra (x); SELECT * FROM nowhere;' };
    await expect(openDatabase(dbFile, log, [v1, broken])).rejects.toThrow(
      /migration 2 \(broken\) failed and was rolled back/,
    );
    const db = new Database(dbFile, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'extra'").all()).toEqual([]);
    db.close();
  });

  it('refuses a database from a newer version without changing it', async () => {
    const dbFile = file();
    (await openDatabase(dbFile, log, [v1, v2])).close();
    await expect(openDatabase(dbFile, log, [v1])).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
  });
});
