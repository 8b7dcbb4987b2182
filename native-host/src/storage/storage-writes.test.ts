import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import type { Db } from './database.js';
import { storageFailureOf, storageHealth } from './storage-health.js';
import { storageWrite } from './storage-writes.js';
import { errorOf, scratchDatabases } from './testing/scratch-database.js';

const scratch = scratchDatabases('nx-writes-');
const freshDb = () => scratch.open();
const WHAT = { en: 'the test row', 'zh-CN': '测试行' };

const rows = (db: Db) => db.prepare("SELECT key FROM meta WHERE key LIKE 'row%' ORDER BY key").pluck().all();

describe('storageWrite', () => {
  it('keeps nothing of a write the database refuses, and says why with STORAGE_ERROR', async () => {
    const { db } = await freshDb();
    db.prepare("INSERT INTO meta (key, value) VALUES ('row0', 'x')").run();
    db.pragma('query_only = ON');
    const error = errorOf(() =>
      storageWrite(db, WHAT, () => {
        db.prepare("DELETE FROM meta WHERE key = 'row0'").run();
      }),
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'STORAGE_ERROR', details: { problem: 'read_only' } });
    expect((error as Error).message).toMatch(/^Could not save the test row: The database in .* has become read-only/);
    expect(storageHealth(db).failing).toMatchObject({ code: 'SQLITE_READONLY' });

    db.pragma('query_only = OFF');
    expect(rows(db)).toEqual(['row0']);
    // Two statements, one of which fails: neither stays.
    const partly = errorOf(() =>
      storageWrite(db, WHAT, () => {
        db.prepare("INSERT INTO meta (key, value) VALUES ('row1', 'x')").run();
        db.prepare("INSERT INTO meta (key, value) VALUES ('row0', 'again')").run();
      }),
    );
    // Not a storage condition (a constraint): passed on as it is.
    expect(partly).not.toBeInstanceOf(AppError);
    expect(rows(db)).toEqual(['row0']);
  });

  it('while another process holds the lock, refuses at once after the first wait, and writes once it is let go', async () => {
    const { db, file } = await freshDb();
    // The daemon waits five seconds for a lock; shortened here, the test is the same.
    db.pragma('busy_timeout = 300');
    const lock = await scratch.lock(file);
    const write = (key: string) =>
      storageWrite(db, WHAT, () => db.prepare("INSERT INTO meta (key, value) VALUES (?, 'x')").run(key));
    const first = errorOf(() => write('row1'));
    expect(first).toMatchObject({ code: 'STORAGE_ERROR', details: { problem: 'locked', code: 'SQLITE_BUSY' } });
    expect((first as Error).message).toContain(`Close the other program using ${file}`);
    // Known not to work: refused after a short try, not after the whole busy timeout again.
    db.pragma('busy_timeout = 60000');
    const started = Date.now();
    const refused = errorOf(() => write('row2'));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(refused).toMatchObject({ code: 'STORAGE_ERROR' });
    // Known for a storage condition by whoever waits those out (a run's loop).
    expect(storageFailureOf(refused)).toMatchObject({ code: 'SQLITE_BUSY' });

    await lock.release();
    write('row3');
    expect(rows(db)).toEqual(['row3']);
    expect(storageHealth(db).failing).toBeUndefined();
  });
});
