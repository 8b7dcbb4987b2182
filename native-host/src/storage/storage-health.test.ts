import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { writeTransaction } from './database.js';
import { isStorageFailure, storageFailureOf, storageHealth } from './storage-health.js';
import { errorOf, scratchDatabases } from './testing/scratch-database.js';

const scratch = scratchDatabases('nx-health-');
const freshDb = () => scratch.open();

describe('storage conditions', () => {
  it('tells a database that cannot be written from a bug', async () => {
    const { db } = await freshDb();
    db.pragma('query_only = ON');
    const readOnly = errorOf(() => db.prepare("INSERT INTO meta (key, value) VALUES ('x', 'y')").run());
    db.pragma('query_only = OFF');
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const full = errorOf(() => {
      for (let i = 0; i < 100; i++)
        db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(`k${i}`, 'x'.repeat(4000));
    });
    const constraint = errorOf(() => db.prepare("INSERT INTO meta (key, value) VALUES ('k0', 'again')").run());

    expect(storageFailureOf(readOnly)).toMatchObject({ code: 'SQLITE_READONLY' });
    expect(storageFailureOf(full)).toMatchObject({ code: 'SQLITE_FULL' });
    // Wrapped by whoever passed it on, it is still recognised.
    expect(isStorageFailure(new AppError('STORAGE_ERROR', 'could not write', { cause: full }))).toBe(true);
    expect(isStorageFailure(constraint)).toBe(false);
    expect(isStorageFailure(new Error('a bug'))).toBe(false);
  });

  it('a write transaction waits out a lock another process holds for a moment, instead of failing at once', async () => {
    const { db, file } = await freshDb();
    db.prepare("INSERT INTO meta (key, value) VALUES ('n', '0')").run();
    // Read first, then write: the shape of every state change of a run.
    const readThenWrite = () => {
      const value = Number(db.prepare("SELECT value FROM meta WHERE key = 'n'").pluck().get());
      db.prepare("UPDATE meta SET value = ? WHERE key = 'n'").run(String(value + 1));
    };
    await scratch.lock(file, { forMs: 300 });
    // A plain (deferred) transaction meets the lock at its first write, where SQLite does not wait.
    expect(errorOf(() => db.transaction(readThenWrite)())).toMatchObject({ code: 'SQLITE_BUSY' });
    const started = Date.now();
    writeTransaction(db, readThenWrite);
    expect(Date.now() - started).toBeGreaterThan(100);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'n'").pluck().get()).toBe('1');
  });

  it('probes a locked database without waiting the busy timeout, and says when writing works again', async () => {
    const { db, file } = await freshDb();
    const health = storageHealth(db);
    health.retryMs = 20;
    let recovered = 0;
    health.onRecovered(() => recovered++);
    const lock = await scratch.lock(file);

    const started = Date.now();
    expect(health.probe()).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(health.failing).toMatchObject({ code: 'SQLITE_BUSY' });

    await lock.release();
    // Retried by itself; the listeners are told once.
    await expect.poll(() => recovered, { timeout: 5000 }).toBe(1);
    expect(health.failing).toBeUndefined();
  });

  it('tells who follows it once when writing starts failing and once when it works again, not at every write', async () => {
    const { db } = await freshDb();
    const health = storageHealth(db);
    health.retryMs = 20;
    const seen: (string | undefined)[] = [];
    health.onChange(() => seen.push(health.failing?.code));
    db.pragma('query_only = ON');
    for (let i = 0; i < 5; i++) {
      expect(
        health.noteFailure(errorOf(() => db.prepare("INSERT INTO meta (key, value) VALUES ('x', 'y')").run())),
      ).toBe(true);
    }
    // Never inside the write that noticed it.
    expect(seen).toEqual([]);
    await expect.poll(() => seen).toEqual(['SQLITE_READONLY']);

    db.pragma('query_only = OFF');
    await expect.poll(() => seen, { timeout: 5000 }).toEqual(['SQLITE_READONLY', undefined]);
    health.noteSuccess();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['SQLITE_READONLY', undefined]);
  });
});
