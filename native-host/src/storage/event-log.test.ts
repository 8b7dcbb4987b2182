import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { AppError } from '@nextai/shared';
import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { openDatabase, type Db } from './database.js';
import { EventLog } from './event-log.js';
import { storageHealth } from './storage-health.js';
import { holdWriteLock } from './testing/sqlite-lock.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let db: Db | undefined;

async function freshLog(options = { retain: 50_000, maxReplay: 5_000 }): Promise<EventLog> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-events-'));
  db = await openDatabase(path.join(dir, 'data.db'), log);
  return new EventLog(db, options);
}

afterEach(() => {
  if (db) storageHealth(db).close();
  db?.close();
  db = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const started = (n: number) => ({ call_id: `c${n}`, tool: 'system_info', source: 'test' });

describe('EventLog', () => {
  it('numbers events with an increasing seq and tells live listeners', async () => {
    const events = await freshLog();
    const heard: number[] = [];
    events.subscribe((event) => heard.push(event.seq));
    const first = events.append('tool.started', started(1));
    const second = events.append('tool.started', started(2));
    expect(second.seq).toBe(first.seq + 1);
    expect(heard).toEqual([first.seq, second.seq]);
    expect(events.lastSeq()).toBe(second.seq);
  });

  it('replays exactly what came after a given seq', async () => {
    const events = await freshLog();
    for (let n = 1; n <= 5; n++) events.append('tool.started', started(n));
    const missed = events.missedSince(3, events.logId);
    expect(missed.gap).toBe(false);
    expect(missed.events.map((event) => event.seq)).toEqual([4, 5]);
    expect(missed.events[0]).toMatchObject({ type: 'tool.started', data: { call_id: 'c4' } });
  });

  it('reports a gap when what the client missed was pruned', async () => {
    const events = await freshLog({ retain: 3, maxReplay: 100 });
    for (let n = 1; n <= 10; n++) events.append('tool.started', started(n));
    events.prune();
    expect(events.missedSince(2, events.logId)).toMatchObject({ gap: true });
    expect(events.missedSince(7, events.logId)).toMatchObject({ gap: false });
    // Pruning never rewinds the numbering.
    expect(events.append('tool.started', started(11)).seq).toBe(11);
  });

  it('reports a gap for another event log, or more than one replay can carry', async () => {
    const events = await freshLog({ retain: 100, maxReplay: 2 });
    for (let n = 1; n <= 5; n++) events.append('tool.started', started(n));
    const other = events.missedSince(3, 'some-other-log');
    expect(other.gap).toBe(true);
    const tooMany = events.missedSince(0, events.logId);
    expect(tooMany).toMatchObject({ gap: true });
    expect(tooMany.events.map((event) => event.seq)).toEqual([4, 5]);
  });

  it('keeps its id and numbering across reopening the database', async () => {
    const events = await freshLog();
    events.append('tool.started', started(1));
    const { logId } = events;
    db?.close();
    db = await openDatabase(path.join(dir, 'data.db'), log);
    const reopened = new EventLog(db);
    expect(reopened.logId).toBe(logId);
    expect(reopened.append('tool.started', started(2)).seq).toBe(2);
  });

  it('refuses event data that does not match its type', async () => {
    const events = await freshLog();
    expect(() => events.append('tool.started', { tool: 'x' } as never)).toThrow(/invalid data/);
    expect(events.lastSeq()).toBe(0);
  });

  it('refuses an event it cannot write with STORAGE_ERROR, and writes nothing', async () => {
    const events = await freshLog();
    db?.pragma('query_only = ON');
    expect(() => events.append('tool.started', started(1))).toThrow(
      expect.objectContaining({ code: 'STORAGE_ERROR' }) as Error,
    );
    db?.pragma('query_only = OFF');
    expect(events.lastSeq()).toBe(0);
  });

  it('keeps bookkeeping it cannot write and writes it, in order, once it can', async () => {
    const events = await freshLog();
    const health = storageHealth(db as Db);
    health.retryMs = 20;
    const heard: string[] = [];
    events.subscribe((event) => heard.push(String(event.data.call_id)));
    // The database became read-only (as a full disk or a read-only folder leaves it).
    db?.pragma('query_only = ON');
    expect(events.record('tool.started', started(1))).toBeUndefined();
    expect(events.record('tool.started', started(2))).toBeUndefined();
    expect(events.deferredCount).toBe(2);
    expect(heard).toEqual([]);
    expect(health.failing).toMatchObject({ code: 'SQLITE_READONLY' });

    db?.pragma('query_only = OFF');
    await expect.poll(() => events.deferredCount, { timeout: 5000 }).toBe(0);
    expect(heard).toEqual(['c1', 'c2']);
    expect(events.missedSince(0, events.logId).events.map((event) => event.data.call_id)).toEqual(['c1', 'c2']);
    // What came after is written after them.
    expect(events.append('tool.started', started(3)).seq).toBe(3);
  });

  it('refuses with a message that says what is wrong and what to do, in both languages', async () => {
    const events = await freshLog();
    db?.pragma('query_only = ON');
    let refused: unknown;
    try {
      events.append('tool.started', started(1));
    } catch (error) {
      refused = error;
    }
    db?.pragma('query_only = OFF');
    expect(refused).toMatchObject({ code: 'STORAGE_ERROR', details: { problem: 'read_only', data_dir: dir } });
    expect((refused as Error).message).toContain(`Make ${dir} and the files in it writable`);
    expect((refused as AppError).translations?.['zh-CN']).toContain(`请让当前用户可以写入 ${dir}`);
  });

  it('announces what listeners must hear now even when it cannot be written, and writes it later without telling again', async () => {
    const events = await freshLog();
    const health = storageHealth(db as Db);
    health.retryMs = 20;
    events.append('tool.started', started(1));
    const heard: { seq: number; type: string }[] = [];
    events.subscribe((event) => heard.push({ seq: event.seq, type: event.type }));

    db?.pragma('query_only = ON');
    expect(events.record('tool.started', started(2))).toBeUndefined();
    const told = events.announce('policy.changed', { source: 'test', summary: 'narrower' });
    // Told at once, with the seq of the newest event written (nothing newer exists yet).
    expect(told).toMatchObject({ seq: 1, type: 'policy.changed' });
    expect(heard).toEqual([{ seq: 1, type: 'policy.changed' }]);
    expect(events.lastSeq()).toBe(1);

    db?.pragma('query_only = OFF');
    await expect.poll(() => events.deferredCount, { timeout: 5000 }).toBe(0);
    // Written in the order things happened; only what was not told yet is told now.
    expect(events.missedSince(1, events.logId).events.map((event) => event.type)).toEqual([
      'tool.started',
      'policy.changed',
    ]);
    expect(heard).toEqual([
      { seq: 1, type: 'policy.changed' },
      { seq: 2, type: 'tool.started' },
    ]);
    // While it can be written, an announcement is an ordinary event.
    expect(events.announce('policy.changed', { source: 'test', summary: 'again' })).toMatchObject({ seq: 4 });
  });

  it('while another process holds the lock, waits its busy timeout once, not at every event', async () => {
    const events = await freshLog();
    // The daemon's busy timeout is five seconds; shortened here, the test is the same.
    db?.pragma('busy_timeout = 500');
    const lock = await holdWriteLock(path.join(dir, 'data.db'));
    try {
      const first = Date.now();
      events.record('tool.started', started(1));
      expect(Date.now() - first).toBeGreaterThanOrEqual(400);
      const rest = Date.now();
      for (let n = 2; n <= 20; n++) events.record('tool.started', started(n));
      expect(Date.now() - rest).toBeLessThan(400);
      expect(events.deferredCount).toBe(20);
    } finally {
      await lock.release();
    }
    storageHealth(db as Db).probe();
    await expect.poll(() => events.deferredCount, { timeout: 5000 }).toBe(0);
    expect(events.lastSeq()).toBe(20);
  });
});
