import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { createLogger } from '../core/logger.js';
import { openDatabase, type Db } from './database.js';
import { DatabaseFile, databaseFile, type FileIdentity, type IdentityOf } from './database-file.js';
import { storageHealth } from './storage-health.js';
import { problemOf, storageHealthReport } from './storage-problem.js';
import { storageWrite } from './storage-writes.js';
import { say } from '@nextai/shared';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
const opened: Db[] = [];

afterEach(() => {
  for (const db of opened.splice(0)) {
    databaseFile(db)?.close();
    storageHealth(db).close();
    if (db.open) db.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A database as the daemon opens it, holding one note, its WAL not checkpointed. */
async function openWithNote(): Promise<{ db: Db; file: string }> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-dbfile-'));
  const file = path.join(dir, 'data.db');
  const db = await openDatabase(file, log);
  opened.push(db);
  db.pragma('wal_autocheckpoint = 0');
  note(db, 'before');
  return { db, file };
}

function note(db: Db, value: string): void {
  db.prepare(
    "INSERT INTO meta (key, value) VALUES ('note', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  ).run(value);
}

function noteIn(file: string): string | undefined {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT value FROM meta WHERE key = 'note'").pluck().get() as string | undefined;
  } finally {
    db.close();
  }
}

/** Another complete database at `to` (a backup being restored), with its own note. */
function backupWithNote(to: string, value: string): void {
  const db = new Database(to);
  db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('note', 'placeholder')");
  db.prepare("UPDATE meta SET value = ? WHERE key = 'note'").run(value);
  db.close();
}

function hashOf(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function errorOf(write: () => unknown): unknown {
  try {
    write();
  } catch (error) {
    return error;
  }
  throw new Error('the write did not fail');
}

describe('the database file replaced or removed under the connection', () => {
  it('says nothing while the file at the path is the one open, and writing works', async () => {
    const { db } = await openWithNote();
    const followed = databaseFile(db);
    expect(followed).toBeDefined();
    expect(followed?.check()).toBeUndefined();
    expect(storageHealth(db).probe()).toBe(true);
    note(db, 'after');
    expect(followed?.replacement).toBeUndefined();
  });

  it('a file renamed over it: not one more write goes into the old one, and its WAL leaves the path', async () => {
    const { db, file } = await openWithNote();
    const health = storageHealth(db);
    const replaced = vi.fn();
    databaseFile(db)?.onReplaced(replaced);
    // Hard links keep the old file and its WAL where the test can look at them afterwards.
    fs.linkSync(file, path.join(dir, 'old.db'));
    fs.linkSync(`${file}-wal`, path.join(dir, 'old.db-wal'));
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);

    backupWithNote(path.join(dir, 'restore.db'), 'from the backup');
    fs.renameSync(path.join(dir, 'restore.db'), file);
    // Found at the next probe (the timer's or a status's).
    expect(health.probe()).toBe(false);
    expect(databaseFile(db)?.replacement).toMatchObject({
      change: 'replaced',
      sideFilesRemoved: [`${file}-wal`, `${file}-shm`],
    });
    expect(health.isReplaced).toBe(true);
    expect(health.failing).toMatchObject({ code: 'SQLITE_READONLY_DBMOVED' });
    expect(problemOf('SQLITE_READONLY_DBMOVED')).toBe('replaced');
    const report = storageHealthReport(health.failing, file);
    expect(report).toMatchObject({ ok: false, problem: 'replaced', code: 'SQLITE_READONLY_DBMOVED' });
    expect(report.message).toContain(`${file} was replaced or removed while NextAI Agent was running`);
    expect(report.fix).toContain('restarts by itself and uses the file now at');
    expect(report.fix_translations?.['zh-CN']).toContain('自动重启');
    // The old database's side files are gone from the path: the new file is opened on its own.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    expect(fs.existsSync(`${file}-shm`)).toBe(false);

    const oldDb = hashOf(path.join(dir, 'old.db'));
    const oldWal = hashOf(path.join(dir, 'old.db-wal'));
    // Every later write is refused — a storage condition, not a crash — and lands nowhere.
    expect(errorOf(() => note(db, 'lost'))).toMatchObject({ code: 'SQLITE_READONLY' });
    expect(health.noteFailure(errorOf(() => note(db, 'lost')))).toBe(true);
    expect(() => storageWrite(db, say('a note', '一条笔记'), () => note(db, 'lost'))).toThrow(
      /Could not save a note: .* was replaced or removed while NextAI Agent was running/,
    );
    health.noteSuccess();
    expect(health.failing).toMatchObject({ code: 'SQLITE_READONLY_DBMOVED' });
    expect(health.probe()).toBe(false);
    // Reading still works (status, lists), from the old database.
    expect(db.prepare("SELECT value FROM meta WHERE key = 'note'").pluck().get()).toBe('before');

    // Told once, outside the check.
    expect(replaced).not.toHaveBeenCalled();
    await vi.waitFor(() => expect(replaced).toHaveBeenCalledTimes(1));
    databaseFile(db)?.check();
    await new Promise((resolve) => setImmediate(resolve));
    expect(replaced).toHaveBeenCalledTimes(1);

    // What the old database held, its WAL included, is kept whole; nothing is written into it.
    const copy = await databaseFile(db)?.keepCopy(new Date('2026-01-02T03:04:05.678Z'));
    expect(copy).toBe(`${file}.replaced-2026-01-02T03-04-05-678Z.bak`);
    expect(noteIn(copy as string)).toBe('before');
    expect(fs.statSync(copy as string).mode & 0o777).toBe(0o600);
    db.close();
    expect(hashOf(path.join(dir, 'old.db'))).toBe(oldDb);
    expect(hashOf(path.join(dir, 'old.db-wal'))).toBe(oldWal);
    // The file now at the path is the backup, untouched, without the old WAL laid over it.
    expect(noteIn(file)).toBe('from the backup');
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  it('a WAL restored with the backup belongs to it and stays', async () => {
    const { db, file } = await openWithNote();
    // The backup comes with a WAL of its own (copied while its daemon ran).
    const restore = path.join(dir, 'restore.db');
    const source = new Database(restore);
    source.pragma('journal_mode = WAL');
    source.pragma('wal_autocheckpoint = 0');
    source.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('note', 'in the WAL')");
    fs.copyFileSync(`${restore}-wal`, path.join(dir, 'restore.db-wal.copy'));
    fs.copyFileSync(restore, path.join(dir, 'restore.db.copy'));
    source.close();
    fs.renameSync(path.join(dir, 'restore.db-wal.copy'), `${file}-wal`);
    fs.renameSync(path.join(dir, 'restore.db.copy'), file);

    expect(databaseFile(db)?.check()).toMatchObject({ change: 'replaced', sideFilesRemoved: [`${file}-shm`] });
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
    db.close();
    expect(noteIn(file)).toBe('in the WAL');
  });

  it('a removed file is found too, and the old WAL does not wait for the next database at the path', async () => {
    const { db, file } = await openWithNote();
    fs.rmSync(file);
    expect(databaseFile(db)?.check()).toMatchObject({ change: 'removed' });
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(storageHealth(db).failing).toMatchObject({ code: 'SQLITE_READONLY_DBMOVED' });
    expect(() => note(db, 'lost')).toThrow();
  });

  it('looks by itself every few seconds, with a timer that does not hold the process', async () => {
    const { db, file } = await openWithNote();
    databaseFile(db)?.watch(20);
    fs.rmSync(file);
    await vi.waitFor(() => expect(storageHealth(db).isReplaced).toBe(true), { timeout: 2000 });
  });
});

describe('DatabaseFile with the file system described', () => {
  /** A file system the test describes: identities by path, and paths that cannot be looked at. */
  function described(): { files: Map<string, FileIdentity>; unreadable: Set<string>; identityOf: IdentityOf } {
    const files = new Map<string, FileIdentity>();
    const unreadable = new Set<string>();
    return {
      files,
      unreadable,
      identityOf: (file) => {
        if (unreadable.has(file)) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        return files.get(file);
      },
    };
  }

  it('compares device and inode, not the name: the same inode on another device is another file', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-dbfile-'));
    const db = new Database(':memory:');
    opened.push(db);
    const fsys = described();
    fsys.files.set('/data/data.db', { dev: 1n, ino: 42n });
    const followed = new DatabaseFile(db, '/data/data.db', log, fsys.identityOf);
    expect(followed.check()).toBeUndefined();
    // A path that cannot be looked at now (a network folder gone for a moment) is not a replaced file.
    fsys.unreadable.add('/data/data.db');
    expect(followed.check()).toBeUndefined();
    fsys.unreadable.clear();
    // Inode numbers past 2^53 are told apart.
    fsys.files.set('/data/data.db', { dev: 1n, ino: 42n + 2n ** 60n });
    expect(followed.check()).toMatchObject({ change: 'replaced' });
  });

  it('a side file first seen after the open is recorded then, while the database file is still the one open', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-dbfile-'));
    const file = path.join(dir, 'data.db');
    const db = new Database(file);
    opened.push(db);
    const fsys = described();
    fsys.files.set(file, { dev: 1n, ino: 1n });
    const followed = new DatabaseFile(db, file, log, fsys.identityOf);
    // The WAL appears (the first read in WAL mode), and is seen at the next check.
    fs.writeFileSync(`${file}-wal`, 'ours');
    fsys.files.set(`${file}-wal`, { dev: 1n, ino: 2n });
    expect(followed.check()).toBeUndefined();
    // Replaced; then another -wal is put at the path before the check: not ours, left alone.
    fsys.files.set(file, { dev: 1n, ino: 3n });
    fsys.files.set(`${file}-wal`, { dev: 1n, ino: 4n });
    expect(followed.check()).toMatchObject({ change: 'replaced', sideFilesRemoved: [] });
    expect(fs.existsSync(`${file}-wal`)).toBe(true);
  });
});
