import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { createLogger } from '../core/logger.js';
import { dataPaths } from '../core/paths.js';
import { openDatabase, type Db } from '../storage/database.js';
import { databaseFile } from '../storage/database-file.js';
import { storageHealth } from '../storage/storage-health.js';
import {
  heldAfterReplacement,
  replacedMarkerFile,
  restartOnReplacedDatabase,
  takeReplacedMarker,
} from './database-replaced.js';
import type { DaemonStorage } from './storage-alerts.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let db: Db | undefined;

afterEach(() => {
  if (db) {
    databaseFile(db)?.close();
    storageHealth(db).close();
    if (db.open) db.close();
  }
  db = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a database replaced under the daemon', () => {
  it('leaves word for the next start, keeps a copy of the old database, waits for the notification, then restarts', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-replaced-'));
    const paths = dataPaths(dir);
    db = await openDatabase(paths.database, log);
    db.prepare("INSERT INTO meta (key, value) VALUES ('note', 'kept')").run();
    const order: string[] = [];
    let notificationShown!: () => void;
    const storage = {
      notified: () =>
        new Promise<void>((resolve) => {
          order.push('notifying');
          notificationShown = () => {
            order.push('notified');
            resolve();
          };
        }),
    } as Partial<DaemonStorage> as DaemonStorage;
    const restart = vi.fn((reason: string) => order.push(`restart: ${reason}`));
    restartOnReplacedDatabase({ db, paths, storage, log, restart, intervalMs: 20 });

    fs.rmSync(paths.database);
    await vi.waitFor(() => expect(order).toEqual(['notifying']), { timeout: 5000 });
    expect(restart).not.toHaveBeenCalled();
    const marker = JSON.parse(fs.readFileSync(replacedMarkerFile(paths), 'utf8')) as Record<string, string>;
    expect(marker).toMatchObject({ change: 'removed', file: paths.database, kept_copy: expect.any(String) });
    const copy = new Database(marker.kept_copy as string, { readonly: true });
    expect(copy.prepare("SELECT value FROM meta WHERE key = 'note'").pluck().get()).toBe('kept');
    copy.close();

    notificationShown();
    await vi.waitFor(() => expect(restart).toHaveBeenCalledTimes(1));
    expect(order.at(-1)).toBe(
      `restart: ${paths.database} was removed while the daemon ran; restarting on the file now there`,
    );

    // The next daemon takes the word once, and holds the runs with it.
    const taken = takeReplacedMarker(paths, log);
    expect(taken).toEqual(marker);
    expect(fs.existsSync(replacedMarkerFile(paths))).toBe(false);
    expect(takeReplacedMarker(paths, log)).toBeUndefined();
    const why = heldAfterReplacement(taken as NonNullable<typeof taken>);
    expect(why.code).toBe('DATABASE_REPLACED');
    expect(why.message).toContain('The database was removed while NextAI Agent was running');
    expect(why.message).toContain(`kept in ${marker.kept_copy}`);
    expect(why.translations?.['zh-CN']).toContain('请先检查');
  });

  it('an unreadable word still counts as a replaced database', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-replaced-'));
    const paths = dataPaths(dir);
    fs.mkdirSync(paths.runDir);
    fs.writeFileSync(replacedMarkerFile(paths), '{ half');
    expect(takeReplacedMarker(paths, log)).toMatchObject({ change: 'replaced', file: paths.database });
  });
});
