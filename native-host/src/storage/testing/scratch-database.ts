import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach } from 'vitest';

import { createLogger } from '../../core/logger.js';
import { openDatabase, type Db } from '../database.js';
import { storageHealth } from '../storage-health.js';
import { holdWriteLock, type HeldLock } from './sqlite-lock.js';

const log = createLogger({ component: 'test', level: 'error' });

/**
 * Scratch databases for storage tests, each in a folder of its own, and locks another process
 * holds on them: every one is let go, closed and removed after each test.
 */
export function scratchDatabases(prefix: string): {
  open(): Promise<{ db: Db; file: string }>;
  lock(file: string, options?: { forMs?: number }): Promise<HeldLock>;
} {
  const opened: { dir: string; db: Db }[] = [];
  const locks: HeldLock[] = [];
  afterEach(async () => {
    for (const lock of locks.splice(0)) await lock.release();
    for (const { dir, db } of opened.splice(0)) {
      storageHealth(db).close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  return {
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      const file = path.join(dir, 'data.db');
      const db = await openDatabase(file, log);
      opened.push({ dir, db });
      return { db, file };
    },
    async lock(file, options) {
      const lock = await holdWriteLock(file, options);
      locks.push(lock);
      return lock;
    },
  };
}

/** The error `write` throws (it must throw). */
export function errorOf(write: () => unknown): unknown {
  try {
    write();
  } catch (error) {
    return error;
  }
  throw new Error('the write did not fail');
}
