import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { openDatabase, type Db } from '../storage/database.js';
import { EventLog } from '../storage/event-log.js';
import { createLogger } from '../core/logger.js';
import { RunStore } from './run-store.js';
import { onRunEnded, transitionRun } from './run-transition.js';

let dir: string;
let db: Db;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-run-ended-'));
  db = await openDatabase(path.join(dir, 'data.db'), createLogger({ component: 'test', level: 'error' }));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('onRunEnded', () => {
  it('names each run once it finishes, fails or is stopped, and no other', () => {
    const events = new EventLog(db);
    const runs = new RunStore(db);
    const ended: string[] = [];
    const stop = onRunEnded(events, (runId) => ended.push(runId));
    const [finished, failed, stopped, paused] = ['a', 'b', 'c', 'd'].map(
      (goal) => runs.create({ goal, project: 'default' }).id,
    ) as [string, string, string, string];
    transitionRun(runs, events, finished, 'running');
    transitionRun(runs, events, finished, 'waiting_approval');
    transitionRun(runs, events, finished, 'running');
    transitionRun(runs, events, finished, 'finished');
    transitionRun(runs, events, failed, 'failed');
    transitionRun(runs, events, paused, 'running');
    transitionRun(runs, events, paused, 'paused');
    transitionRun(runs, events, stopped, 'stopped');
    expect(ended).toEqual([finished, failed, stopped]);
    stop();
    transitionRun(runs, events, paused, 'stopped');
    expect(ended).toEqual([finished, failed, stopped]);
  });
});
