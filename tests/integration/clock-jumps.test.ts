import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { DaemonEvent } from '@nextai/shared';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import type { Logger } from '../../native-host/src/core/logger.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { Daemon } from '../../native-host/src/daemon/daemon.js';
import { createFakeDesktop } from '../../native-host/src/platform/fake-desktop.js';
import { FakePresence } from '../../native-host/src/scheduler/presence/fake-presence.js';
import { FakeClock, flush } from '../../native-host/src/scheduler/testing/fake-clock.js';

/**
 * The wall clock set back an hour under a real daemon — in this process, its own wiring, a real
 * database, the real gateway running the task's step — with the scheduler's clock injected (no
 * libfaketime): a task that ran at 09:00 does not run again when the clock comes to 09:00 a second
 * time, and the daemon's log and event log say why.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
let root: string;
let daemon: Daemon | undefined;

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-clock-')));
});

afterEach(async () => {
  await daemon?.stop('test done');
  daemon = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the clock set back an hour under a running daemon', () => {
  it('does not run a scheduled task twice, and says so in the log and as a clock.changed event', async () => {
    const lines: { level: string; message: string }[] = [];
    const listening = (): Logger => ({
      debug: () => undefined,
      info: (message) => lines.push({ level: 'info', message }),
      warn: (message) => lines.push({ level: 'warn', message }),
      error: (message) => lines.push({ level: 'error', message }),
      child: () => listening(),
    });
    const clock = new FakeClock('2030-01-07T08:59:30Z');
    const home = path.join(root, 'home');
    fs.mkdirSync(home, { recursive: true });
    daemon = await Daemon.start({
      paths: dataPaths(path.join(root, 'data')),
      platform: 'linux',
      log: listening(),
      desktop: createFakeDesktop().desktop,
      homeDir: home,
      presence: new FakePresence(),
      clock,
    });
    const started = daemon;
    const events: DaemonEvent[] = [];
    started.events.subscribe((event) => events.push(event));
    const advance = (ms: number) =>
      clock.advance(ms, async () => {
        await flush();
        await started.scheduler.settled();
      });

    const task = started.schedules.create({
      name: 'morning report',
      cron: '0 9 * * *',
      timezone: 'UTC',
      steps: [{ tool: 'system_info', input: { categories: ['os'] } }],
    });
    await advance(MINUTE);
    await vi.waitFor(
      () => expect(started.schedules.history(task.id, 10).map((run) => run.outcome)).toEqual(['succeeded']),
      {
        timeout: 10_000,
      },
    );

    clock.jump('2030-01-07T08:00:30Z');
    await advance(MINUTE);
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.message)).toContain(
      'the clock went back by 60 min; tasks already run are not run again',
    );
    expect(events.filter((event) => event.type === 'clock.changed').map((event) => event.data)).toMatchObject([
      { direction: 'back', minutes: 60 },
    ]);

    // 09:00 comes round again, and passes: nothing more runs.
    // (A run starts, and says so, within the look that fires it: `advance` waits for each look.)
    await advance(HOUR + 10 * MINUTE);
    expect(started.schedules.history(task.id, 10)).toHaveLength(1);
    const runsStarted = events.filter((event) => event.type === 'schedule.run' && event.data.state === 'running');
    expect(runsStarted).toHaveLength(1);
    expect(started.schedules.get(task.id, 0).schedule.next_run_at).toBe('2030-01-08T09:00:00.000Z');
  });
});
