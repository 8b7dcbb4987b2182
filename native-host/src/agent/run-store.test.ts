import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { RUN_STATES } from '@nextai/shared';

import { openDatabase, type Db } from '../storage/database.js';
import { MIGRATIONS } from '../storage/migrations.js';
import { holdWriteLock } from '../storage/testing/sqlite-lock.js';
import { createLogger } from '../core/logger.js';
import { RUN_TRANSITIONS, RunStore, type RunState } from './run-store.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let dbFile: string;
let db: Db;
let time: number;
const clock = (): Date => new Date((time += 1000));

const STATES: readonly RunState[] = RUN_STATES;

/** The shortest legal path from a new run to each state. */
const PATH_TO: Record<RunState, RunState[]> = {
  queued: [],
  running: ['running'],
  waiting_user: ['running', 'waiting_user'],
  waiting_approval: ['running', 'waiting_approval'],
  paused: ['running', 'paused'],
  finished: ['running', 'finished'],
  failed: ['failed'],
  stopped: ['stopped'],
};

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-runs-'));
  dbFile = path.join(dir, 'data.db');
  db = await openDatabase(dbFile, log);
  time = Date.parse('2026-01-01T00:00:00Z');
});

afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function reopen(): Promise<RunStore> {
  db.close();
  db = await openDatabase(dbFile, log);
  return new RunStore(db, clock);
}

function runIn(store: RunStore, state: RunState): string {
  const run = store.create({ goal: 'tidy the downloads folder', project: 'default' });
  for (const step of PATH_TO[state]) store.transition(run.id, step);
  expect(store.get(run.id).state).toBe(state);
  return run.id;
}

describe('RunStore: runs', () => {
  it('creates a queued run with its limits, and lists runs newest first', () => {
    const store = new RunStore(db, clock);
    const a = store.create({ goal: ' first ', project: 'p', limits: { maxSteps: 20, maxCostUsd: 1.5 } });
    const b = store.create({ goal: 'second', project: 'p' });
    expect(a).toMatchObject({
      state: 'queued',
      goal: 'first',
      sessionId: null,
      limits: { maxSteps: 20, maxCostUsd: 1.5 },
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      finishedAt: null,
      error: null,
    });
    expect(store.get(a.id)).toEqual(a);
    expect(store.list().map((r) => r.id)).toEqual([b.id, a.id]);
    store.transition(a.id, 'running');
    expect(store.list({ state: 'running' }).map((r) => r.id)).toEqual([a.id]);
  });

  it('refuses a run without a goal, and a run in a session that does not exist', () => {
    const store = new RunStore(db, clock);
    expect(() => store.create({ goal: '  ', project: 'p' })).toThrow(/needs a goal/);
    expect(() => store.create({ goal: 'g', project: 'p', sessionId: 'gone' })).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringContaining('session gone') }),
    );
  });

  it('adds usage to the totals', () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    store.addUsage(id, { inputTokens: 100, outputTokens: 20, costUsd: 0.01 });
    const run = store.addUsage(id, { inputTokens: 50, outputTokens: 5, costUsd: 0.02 });
    expect(run.usage.inputTokens).toBe(150);
    expect(run.usage.outputTokens).toBe(25);
    expect(run.usage.costUsd).toBeCloseTo(0.03);
  });

  it('says NOT_FOUND for a missing run, whatever the operation', () => {
    const store = new RunStore(db, clock);
    const missing = 'no-such-run';
    for (const op of [
      () => store.get(missing),
      () => store.transition(missing, 'running'),
      () => store.addUsage(missing, { inputTokens: 1 }),
      () => store.recordIntent(missing, 1, { kind: 'tool_call' }),
      () => store.recordResult(missing, 1, {}),
      () => store.steps(missing),
      () => store.stepsWithoutResult(missing),
      () => store.checkpoint(missing, 1, {}),
      () => store.latestCheckpoint(missing),
    ]) {
      expect(op).toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringContaining(missing) }));
    }
  });
});

describe('RunStore: state machine', () => {
  const cases = STATES.flatMap((from) => STATES.map((to) => ({ from, to, legal: RUN_TRANSITIONS[from].includes(to) })));

  it('has the transitions of the design', () => {
    expect(RUN_TRANSITIONS).toEqual({
      queued: ['running', 'failed', 'stopped'],
      running: ['waiting_user', 'waiting_approval', 'paused', 'finished', 'failed', 'stopped'],
      waiting_user: ['running', 'failed', 'stopped'],
      waiting_approval: ['running', 'failed', 'stopped'],
      paused: ['running', 'failed', 'stopped'],
      finished: [],
      failed: [],
      stopped: [],
    });
  });

  it.each(cases.filter((c) => c.legal))('allows $from → $to', ({ from, to }) => {
    const store = new RunStore(db, clock);
    const id = runIn(store, from);
    const before = store.get(id);
    const after = store.transition(id, to);
    expect(after.state).toBe(to);
    expect(store.get(id).state).toBe(to);
    expect(after.updatedAt > before.updatedAt).toBe(true);
    expect(after.finishedAt !== null).toBe(['finished', 'failed', 'stopped'].includes(to));
  });

  it.each(cases.filter((c) => !c.legal))(
    'refuses $from → $to, naming the state and what is allowed',
    ({ from, to }) => {
      const store = new RunStore(db, clock);
      const id = runIn(store, from);
      const before = store.get(id);
      let error: unknown;
      try {
        store.transition(id, to);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        details: { state: from, to, allowed: RUN_TRANSITIONS[from] },
      });
      const message = (error as Error).message;
      expect(message).toContain(`is ${from} and cannot become ${to}`);
      if (RUN_TRANSITIONS[from].length === 0) expect(message).toContain('has ended');
      else expect(message).toContain(`it can go to ${RUN_TRANSITIONS[from].join(', ')}`);
      expect(store.get(id)).toEqual(before);
    },
  );

  it('records the error a run failed with', () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    const run = store.transition(id, 'failed', { code: 'TIMEOUT', message: 'the model did not answer' });
    expect(run.error).toEqual({ code: 'TIMEOUT', message: 'the model did not answer' });
  });
});

describe('RunStore: intents, results, checkpoints', () => {
  it('writes the intent before the result, once each', () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    expect(() => store.recordResult(id, 1, { ok: true })).toThrow(/no recorded intent/);

    store.recordIntent(id, 1, { kind: 'tool_call', tool: 'fs.write', input: { path: 'a.txt' } });
    expect(() => store.recordIntent(id, 1, { kind: 'tool_call', tool: 'x' })).toThrow(/already has an intent/);
    store.recordResult(id, 1, { ok: true, bytes: 3 });
    expect(() => store.recordResult(id, 1, { ok: false })).toThrow(/already has a result/);

    const [step] = store.steps(id);
    expect(step).toMatchObject({
      step: 1,
      kind: 'tool_call',
      intent: { kind: 'tool_call', tool: 'fs.write', input: { path: 'a.txt' } },
      result: { ok: true, bytes: 3 },
    });
    expect(step?.resultAt).not.toBeNull();
    expect(step!.resultAt! > step!.intentAt).toBe(true);
  });

  it('starts an action only while the run is running, but takes its result in any state', () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    store.recordIntent(id, 1, { kind: 'tool_call' });
    store.transition(id, 'stopped');
    expect(() => store.recordIntent(id, 2, { kind: 'tool_call' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('is stopped') }),
    );
    store.recordResult(id, 1, { aborted: true });
    expect(store.stepsWithoutResult(id)).toEqual([]);
  });

  it('refuses step numbers that are not whole numbers from 0 up', () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    expect(() => store.recordIntent(id, -1, { kind: 'x' })).toThrow(/whole number/);
    expect(() => store.recordIntent(id, 1.5, { kind: 'x' })).toThrow(/whole number/);
  });

  it('lists the steps whose outcome is unknown', () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    store.recordIntent(id, 1, { kind: 'tool_call', tool: 'a' });
    store.recordResult(id, 1, 'done');
    store.recordIntent(id, 2, { kind: 'tool_call', tool: 'b' });
    store.recordIntent(id, 3, { kind: 'tool_call', tool: 'c' });
    store.recordResult(id, 3, null);
    expect(store.stepsWithoutResult(id).map((s) => [s.step, s.intent.tool])).toEqual([[2, 'b']]);
  });

  it('keeps the latest checkpoint only, and refuses one that goes back', () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    expect(store.latestCheckpoint(id)).toBeNull();
    store.checkpoint(id, 1, { messages: ['a'] });
    store.checkpoint(id, 2, { messages: ['a', 'b'] });
    expect(store.latestCheckpoint(id)).toMatchObject({ step: 2, state: { messages: ['a', 'b'] } });
    expect(db.prepare('SELECT COUNT(*) FROM run_checkpoints WHERE run_id = ?').pluck().get(id)).toBe(1);
    expect(() => store.checkpoint(id, 1, {})).toThrow(/go back in time/);
    expect(store.latestCheckpoint(id)?.step).toBe(2);
  });

  it('writes intents, results, checkpoints and transitions with synchronous = FULL, then goes back to NORMAL', () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    const seen: number[] = [];
    const prepare = db.prepare.bind(db);
    const spy = vi.spyOn(db, 'prepare').mockImplementation((sql: string) => {
      if (/^\s*(INSERT|UPDATE|DELETE)/.test(sql)) {
        seen.push(db.pragma('synchronous', { simple: true }) as number);
      }
      return prepare(sql);
    });
    store.recordIntent(id, 1, { kind: 'tool_call' });
    store.recordResult(id, 1, {});
    store.checkpoint(id, 1, {});
    store.transition(id, 'finished');
    spy.mockRestore();
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(seen.every((level) => level === 2)).toBe(true);
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
  });
});

describe('RunStore: another process holding the database', () => {
  it('waits out a lock held for a moment instead of failing at once (intent, result, checkpoint, transition)', async () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    // Each write reads the run first: a deferred transaction would meet the lock at its first
    // write, where SQLite fails at once with SQLITE_BUSY and does not wait its busy timeout.
    const writes: (() => unknown)[] = [
      () => store.recordIntent(id, 1, { kind: 'tool_call' }),
      () => store.recordResult(id, 1, { ok: true }),
      () => store.checkpoint(id, 1, { messages: [] }),
      () => store.transition(id, 'paused'),
    ];
    for (const write of writes) {
      const lock = await holdWriteLock(dbFile, { forMs: 200 });
      try {
        write();
      } finally {
        await lock.release();
      }
    }
    expect(store.get(id).state).toBe('paused');
    expect(store.steps(id)).toMatchObject([{ step: 1, result: { ok: true } }]);
    expect(store.latestCheckpoint(id)?.step).toBe(1);
  });
});

describe('RunStore: after a restart', () => {
  it('a new connection sees the runs, steps and checkpoint; unfinished runs are listed oldest first', async () => {
    let store = new RunStore(db, clock);
    const done = runIn(store, 'finished');
    const waiting = runIn(store, 'waiting_approval');
    const crashed = runIn(store, 'running');
    runIn(store, 'stopped');
    const queued = runIn(store, 'queued');
    store.recordIntent(crashed, 1, { kind: 'tool_call', tool: 'fs.write' });
    store.recordResult(crashed, 1, { ok: true });
    store.checkpoint(crashed, 1, { messages: [{ role: 'user', content: 'go' }], step: 1 });
    store.recordIntent(crashed, 2, { kind: 'tool_call', tool: 'shell.run', input: { command: 'rm x' } });
    // The process dies here: no result for step 2.

    store = await reopen();
    expect(store.unfinishedRuns().map((r) => r.id)).toEqual([waiting, crashed, queued]);
    expect(store.get(done).state).toBe('finished');
    expect(store.latestCheckpoint(crashed)).toMatchObject({
      step: 1,
      state: { messages: [{ role: 'user', content: 'go' }], step: 1 },
    });
    expect(store.stepsWithoutResult(crashed)).toMatchObject([
      { step: 2, intent: { tool: 'shell.run', input: { command: 'rm x' } }, result: null, resultAt: null },
    ]);
    expect(store.steps(crashed).map((s) => s.step)).toEqual([1, 2]);

    // Observing the outcome and recording it closes the unknown step.
    store.recordResult(crashed, 2, { outcome: 'observed: x is gone' });
    expect(store.stepsWithoutResult(crashed)).toEqual([]);
  });

  it('also reads back through a plain second connection while the first is open', () => {
    const store = new RunStore(db, clock);
    const id = runIn(store, 'running');
    store.recordIntent(id, 1, { kind: 'tool_call' });
    store.checkpoint(id, 1, { n: 1 });
    const other = new Database(dbFile, { readonly: true });
    try {
      expect(other.prepare('SELECT state FROM runs WHERE id = ?').pluck().get(id)).toBe('running');
      expect(other.prepare('SELECT state FROM run_checkpoints WHERE run_id = ?').pluck().get(id)).toBe('{"n":1}');
      expect(other.prepare('SELECT COUNT(*) FROM run_steps WHERE run_id = ?').pluck().get(id)).toBe(1);
    } finally {
      other.close();
    }
  });
});

describe('migration 3', () => {
  it('applies on a database created by the earlier migrations, keeping their data', async () => {
    db.close();
    fs.rmSync(dbFile, { force: true });
    const earlier = MIGRATIONS.filter((m) => m.version < 3);
    const old = await openDatabase(dbFile, log, earlier);
    old.prepare("INSERT INTO safety_state (key, value) VALUES ('estop', 'latched')").run();
    old.close();

    db = await openDatabase(dbFile, log);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)?.version);
    expect(db.prepare("SELECT value FROM safety_state WHERE key = 'estop'").pluck().get()).toBe('latched');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).toEqual(
      expect.arrayContaining(['sessions', 'session_messages', 'runs', 'run_steps', 'run_checkpoints']),
    );
    expect(fs.existsSync(`${dbFile}.before-v3.bak`)).toBe(true);
    const store = new RunStore(db, clock);
    expect(store.get(runIn(store, 'running')).state).toBe('running');
  });
});
