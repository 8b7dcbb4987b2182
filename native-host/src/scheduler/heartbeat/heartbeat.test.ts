import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { DaemonEvent, RunView } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../core/logger.js';
import { FakePresence } from '../presence/fake-presence.js';
import { FakeClock } from '../testing/fake-clock.js';
import { Heartbeat } from './heartbeat.js';

let dir: string;
let file: string;
let clock: FakeClock;
let presence: FakePresence;
let started: { goal: string; source?: string }[];
let state: RunView['state'];
let result: string | null;
let events: DaemonEvent[];
let listeners: ((event: DaemonEvent) => void)[];
let memory: string | undefined;
let heartbeat: Heartbeat;

function view(): RunView {
  return { id: 'run-1', state, result, error: null } as unknown as RunView;
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-hb-'));
  file = path.join(dir, 'HEARTBEAT.md');
  clock = new FakeClock('2025-06-02T09:00:00Z');
  presence = new FakePresence();
  started = [];
  state = 'running';
  result = null;
  events = [];
  listeners = [];
  memory = undefined;
  heartbeat = new Heartbeat({
    file,
    config: () => ({ enabled: true, interval_minutes: 30 }),
    clock,
    runs: {
      start: (input) => {
        started.push(input);
        return view();
      },
      view: () => view(),
    },
    events: {
      append: (type, data) => {
        const event = { seq: events.length + 1, type, time: '', data } as DaemonEvent;
        events.push(event);
        for (const listener of listeners) listener(event);
      },
      subscribe: (listener) => {
        listeners.push(listener);
        return () => undefined;
      },
    },
    memory: { get: () => memory, set: (value) => (memory = value) },
    presence,
    emergency: () => ({ active: false }),
    notify: () => Promise.resolve(),
    log: createLogger({ component: 'test', level: 'error' }),
  });
});

afterEach(() => {
  heartbeat.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('Heartbeat', () => {
  it('calls no model when there is no file or nothing is open', async () => {
    heartbeat.start();
    await clock.advance(30 * 60_000);
    fs.writeFileSync(file, '# All done\n- [x] Rotate the logs\n');
    await clock.advance(30 * 60_000);
    expect(started).toEqual([]);
    expect(events.map((event) => event.data.open_items)).toEqual([0, 0]);
  });

  it('turns the open items into one run at the interval, waits for it, then checks off what it reports done', async () => {
    fs.writeFileSync(file, '- [ ] Check the build\n- [ ] Summarise mail\n- [x] Old\n');
    heartbeat.start();
    await clock.advance(29 * 60_000);
    expect(started).toHaveLength(0);
    await clock.advance(60_000);
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ source: 'heartbeat' });
    expect(started[0]?.goal).toContain('1. Check the build\n2. Summarise mail');
    // Still running at the next look: no second run.
    await clock.advance(30 * 60_000);
    expect(started).toHaveLength(1);
    expect(events.at(-1)?.data.reason).toBe('the previous heartbeat run is still going');

    state = 'finished';
    result = 'The build is green.\nDONE: 1';
    events.push({ seq: 0, type: 'run.state', time: '', data: { run_id: 'run-1', state: 'finished' } });
    for (const listener of listeners) listener(events.at(-1)!);
    await new Promise((resolve) => setImmediate(resolve));
    expect(fs.readFileSync(file, 'utf8')).toBe('- [x] Check the build\n- [ ] Summarise mail\n- [x] Old\n');
    // The next look starts a run for what is still open.
    await clock.advance(30 * 60_000);
    expect(started).toHaveLength(2);
    expect(started[1]?.goal).toContain('1. Summarise mail');
  });

  it('looks three times less often on battery', async () => {
    presence.set({ onBattery: true });
    fs.writeFileSync(file, '- [ ] Something\n');
    heartbeat.start();
    await clock.advance(30 * 60_000);
    expect(started).toHaveLength(1);
    state = 'finished';
    result = 'DONE: none';
    await clock.advance(60 * 60_000);
    expect(started).toHaveLength(1);
    await clock.advance(30 * 60_000);
    expect(started).toHaveLength(2);
  });

  it('reports a HEARTBEAT.md it cannot check items off in (no uncaught exception), and checks them off at the next look', async () => {
    fs.writeFileSync(file, '- [ ] Check the build\n- [ ] Summarise mail\n');
    heartbeat.start();
    await clock.advance(30 * 60_000);
    expect(started).toHaveLength(1);
    // The file cannot be read when the run ends (here: a directory took its place).
    fs.renameSync(file, `${file}.aside`);
    fs.mkdirSync(file);
    state = 'finished';
    result = 'DONE: 1';
    const ended = { seq: 0, type: 'run.state', time: '', data: { run_id: 'run-1', state: 'finished' } } as DaemonEvent;
    for (const listener of listeners) listener(ended);
    await new Promise((resolve) => setImmediate(resolve));
    const problem = events.find((event) => event.type === 'heartbeat.problem');
    expect(problem?.data).toMatchObject({ run_id: 'run-1' });
    expect(String(problem?.data.problem)).toContain('could not check off what its run did in HEARTBEAT.md: EISDIR');
    expect(heartbeat.view().problem).toContain('EISDIR');

    fs.rmdirSync(file);
    fs.renameSync(`${file}.aside`, file);
    await clock.advance(30 * 60_000);
    // What the run did is checked off now; only what is still open becomes the next run.
    expect(fs.readFileSync(file, 'utf8')).toBe('- [x] Check the build\n- [ ] Summarise mail\n');
    expect(started).toHaveLength(2);
    expect(started[1]?.goal).toContain('1. Summarise mail');
    expect(started[1]?.goal).not.toContain('Check the build');
    expect(heartbeat.view().problem).toBeNull();
  });

  it('keeps looking after a look that failed to read the power state', async () => {
    fs.writeFileSync(file, '- [ ] Something\n');
    let failures = 1;
    const read = presence.read.bind(presence);
    presence.read = () => (failures-- > 0 ? Promise.reject(new Error('the bus is gone')) : read());
    heartbeat.start();
    await clock.advance(30 * 60_000);
    expect(started).toHaveLength(0);
    expect(heartbeat.view().problem).toContain('the bus is gone');
    await clock.advance(30 * 60_000);
    expect(started).toHaveLength(1);
  });
});
