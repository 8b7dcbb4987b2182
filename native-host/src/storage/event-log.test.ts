import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { openDatabase, type Db } from './database.js';
import { EventLog } from './event-log.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let db: Db | undefined;

async function freshLog(options = { retain: 50_000, maxReplay: 5_000 }): Promise<EventLog> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-events-'));
  db = await openDatabase(path.join(dir, 'data.db'), log);
  return new EventLog(db, options);
}

afterEach(() => {
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
});
