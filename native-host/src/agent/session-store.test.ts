import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { openDatabase, type Db } from '../storage/database.js';
import { createLogger } from '../core/logger.js';
import { RunStore } from './run-store.js';
import { SessionStore } from './session-store.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let dbFile: string;
let db: Db;
let time: number;
const clock = (): Date => new Date((time += 1000));

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-sessions-'));
  dbFile = path.join(dir, 'data.db');
  db = await openDatabase(dbFile, log);
  time = Date.parse('2026-01-01T00:00:00Z');
});

afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('SessionStore', () => {
  it('creates, gets, renames and lists sessions, most recently updated first', () => {
    const store = new SessionStore(db, clock);
    const a = store.create({ title: '  Fix the build ', project: 'default' });
    const b = store.create({ project: 'work' });
    expect(a.title).toBe('Fix the build');
    expect(b.title).toBe('New session');
    expect(store.get(a.id)).toEqual(a);
    expect(store.list().map((s) => s.id)).toEqual([b.id, a.id]);

    const renamed = store.rename(a.id, 'Fix the CI build');
    expect(renamed.title).toBe('Fix the CI build');
    expect(renamed.updatedAt > a.updatedAt).toBe(true);
    expect(store.list().map((s) => s.id)).toEqual([a.id, b.id]);

    store.appendMessage(b.id, 'user', 'hello');
    expect(store.list().map((s) => s.id)).toEqual([b.id, a.id]);
    expect(store.list({ limit: 1, offset: 1 }).map((s) => s.id)).toEqual([a.id]);
    expect(store.list({ project: 'work' }).map((s) => s.id)).toEqual([b.id]);
  });

  it('searches titles by part of the word, ignoring case, with % and _ taken literally', () => {
    const store = new SessionStore(db, clock);
    const build = store.create({ title: 'Fix the BUILD', project: 'p' });
    store.create({ title: 'Write notes', project: 'p' });
    const percent = store.create({ title: '100% done', project: 'p' });
    expect(store.list({ search: 'buil' }).map((s) => s.id)).toEqual([build.id]);
    expect(store.list({ search: '%' }).map((s) => s.id)).toEqual([percent.id]);
    expect(store.list({ search: '_' })).toEqual([]);
  });

  it('refuses empty or overlong titles', () => {
    const store = new SessionStore(db, clock);
    expect(() => store.create({ title: '   ', project: 'p' })).toThrow(/cannot be empty/);
    const s = store.create({ project: 'p' });
    expect(() => store.rename(s.id, 'x'.repeat(201))).toThrow(/at most 200 characters/);
  });

  it('keeps messages in the order they were appended, with JSON content, and pages through them', () => {
    const store = new SessionStore(db, clock);
    const s = store.create({ title: 't', project: 'p' });
    const first = store.appendMessage(s.id, 'user', [{ type: 'text', text: 'open the file' }]);
    store.appendMessage(s.id, 'assistant', { type: 'text', text: 'done' });
    store.appendMessage(s.id, 'tool', { ok: true, n: 3 });
    expect(first.seq).toBe(1);
    const all = store.messages(s.id);
    expect(all.map((m) => [m.seq, m.role])).toEqual([
      [1, 'user'],
      [2, 'assistant'],
      [3, 'tool'],
    ]);
    expect(all[0]?.content).toEqual([{ type: 'text', text: 'open the file' }]);
    expect(all[2]?.content).toEqual({ ok: true, n: 3 });
    expect(store.messages(s.id, { afterSeq: 1, limit: 1 }).map((m) => m.seq)).toEqual([2]);

    // Another session numbers its own messages.
    const other = store.create({ title: 'o', project: 'p' });
    expect(store.appendMessage(other.id, 'user', 'x').seq).toBe(1);
  });

  it('refuses an unknown role', () => {
    const store = new SessionStore(db, clock);
    const s = store.create({ project: 'p' });
    expect(() => store.appendMessage(s.id, 'robot' as 'user', 'x')).toThrow(/role is one of/);
  });

  it('deletes a session with its messages, and keeps its runs detached', () => {
    const store = new SessionStore(db, clock);
    const runs = new RunStore(db, clock);
    const s = store.create({ title: 't', project: 'p' });
    store.appendMessage(s.id, 'user', 'x');
    const run = runs.create({ goal: 'g', project: 'p', sessionId: s.id });
    store.delete(s.id);
    expect(store.list()).toEqual([]);
    expect(db.prepare('SELECT COUNT(*) FROM session_messages').pluck().get()).toBe(0);
    expect(runs.get(run.id).sessionId).toBeNull();
  });

  it('says NOT_FOUND for a missing session, whatever the operation', () => {
    const store = new SessionStore(db, clock);
    const missing = 'no-such-session';
    for (const op of [
      () => store.get(missing),
      () => store.rename(missing, 'x'),
      () => store.delete(missing),
      () => store.appendMessage(missing, 'user', 'x'),
      () => store.messages(missing),
    ]) {
      expect(op).toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringContaining(missing) }));
    }
  });

  it('keeps sessions and messages across a reopen of the file', async () => {
    const store = new SessionStore(db, clock);
    const s = store.create({ title: 'kept', project: 'p' });
    store.appendMessage(s.id, 'user', 'one');
    store.appendMessage(s.id, 'assistant', 'two');
    db.close();
    db = await openDatabase(dbFile, log);
    const reopened = new SessionStore(db, clock);
    expect(reopened.get(s.id).title).toBe('kept');
    expect(reopened.messages(s.id).map((m) => m.content)).toEqual(['one', 'two']);
  });
});
