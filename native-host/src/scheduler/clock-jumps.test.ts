import { verbatim, type HeartbeatView } from '@nextai/shared';
import { afterEach, describe, expect, it } from 'vitest';

import type { Logger } from '../core/logger.js';
import { ScheduleService } from './schedule-service.js';
import { ALLOWED, makeHarness, type Harness } from './testing/harness.js';

/**
 * The wall clock set back or forward by an hour while the daemon runs (a person fixing the time,
 * a wrong time zone corrected, NTP stepping a clock that was far off). Node's timers and the
 * scheduler's notion of running time follow the monotonic clock, which does not move; cron times
 * follow the wall clock. Nothing may run twice, nothing may be lost, and the log says what happened.
 */

const FIXED = [{ tool: 'system_info', input: {} }];
const MINUTE = 60_000;
const HOUR = 3_600_000;
let h: Harness;

afterEach(() => h.close());

const runs = (taskId: string) => h.store.history(taskId, 1000).reverse();

interface Line {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** A logger that keeps what it is told. */
function listeningLog(): { log: Logger; lines: Line[] } {
  const lines: Line[] = [];
  const make = (): Logger => ({
    debug: (message, fields) => lines.push({ level: 'debug', message, fields }),
    info: (message, fields) => lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => lines.push({ level: 'error', message, fields }),
    child: () => make(),
  });
  return { log: make(), lines };
}

/** The schedule service over the harness's store and scheduler: what the CLI and the panel call. */
function service(): ScheduleService {
  return new ScheduleService({
    store: h.store,
    scheduler: h.scheduler,
    clock: h.clock,
    checks: { projectId: (name) => name ?? 'default', forbids: () => undefined, explain: () => ALLOWED },
    presence: h.presence,
    heartbeat: () => ({}) as HeartbeatView,
    events: h.events,
  });
}

describe('the clock goes back an hour', () => {
  it('a task that ran at 09:00 does not run again when the clock reaches 09:00 a second time; the log and an event say so', async () => {
    const { log, lines } = listeningLog();
    h = await makeHarness('2025-06-02T08:59:30Z', { log });
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.scheduler.start();
    await h.advance(MINUTE);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual(['2025-06-02T09:00:00.000Z']);

    h.clock.jump('2025-06-02T08:00:30Z');
    // The scheduler looks at least once a minute: the jump is seen at the next look.
    await h.advance(MINUTE);
    const warned = lines.filter((line) => line.level === 'warn' && line.message.startsWith('the clock went back'));
    expect(warned.map((line) => line.message)).toEqual([
      'the clock went back by 60 min; tasks already run are not run again',
    ]);
    expect(warned[0]?.fields).toMatchObject({ minutes: 60 });
    expect(h.emitted('clock.changed').map((event) => event.data)).toEqual([
      {
        direction: 'back',
        minutes: 60,
        message: 'The clock went back by 60 min; scheduled tasks already run are not run again.',
        message_translations: { 'zh-CN': '时钟往回调了 60 分钟；已经运行过的定时任务不会再运行。' },
      },
    ]);

    // 09:00 comes round again, and passes.
    await h.advance(HOUR + 10 * MINUTE);
    expect(h.executor.started).toHaveLength(1);
    expect(runs(task.id)).toHaveLength(1);
    // Said once, not at every look.
    expect(h.emitted('clock.changed')).toHaveLength(1);
    // The next day it runs as usual.
    await h.advance(24 * HOUR);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual([
      '2025-06-02T09:00:00.000Z',
      '2025-06-03T09:00:00.000Z',
    ]);
  });

  it('nor after the task is turned off and on, or its time changed, while the clock is behind', async () => {
    h = await makeHarness('2025-06-02T08:59:30Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.scheduler.start();
    await h.advance(MINUTE);
    expect(h.executor.started).toHaveLength(1);
    h.clock.jump('2025-06-02T08:00:30Z');
    await h.advance(MINUTE);

    const schedules = service();
    schedules.update(task.name, { enabled: false });
    schedules.update(task.name, { enabled: true });
    // 2 June 2025 is a Monday: 09:00 on weekdays still includes today's 09:00, which already ran.
    schedules.update(task.name, { cron: '0 9 * * 1-5' });
    expect(h.store.get(task.id).cursorAt).toBe(Date.parse('2025-06-02T09:00:00Z'));
    await h.advance(HOUR + 10 * MINUTE);
    expect(h.executor.started).toHaveLength(1);
    expect(runs(task.id)).toHaveLength(1);
    await h.advance(24 * HOUR);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual([
      '2025-06-02T09:00:00.000Z',
      '2025-06-03T09:00:00.000Z',
    ]);
  });

  it('a retry waiting is not lost and happens once', async () => {
    h = await makeHarness('2025-06-02T08:59:30Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.executor.behaviour = () =>
      h.executor.started.length === 1 ? { outcome: 'failed', summary: verbatim('no') } : {};
    h.scheduler.start();
    await h.advance(MINUTE);
    expect(h.store.get(task.id).retry?.at).toBe(Date.parse('2025-06-02T09:01:00Z'));
    h.clock.jump('2025-06-02T08:00:30Z');
    // It waits for its time on the wall clock (an hour later than planned), then runs once.
    await h.advance(HOUR + 5 * MINUTE);
    expect(h.executor.started.map((run) => [run.scheduledFor, run.trigger, run.attempt])).toEqual([
      ['2025-06-02T09:00:00.000Z', 'cron', 1],
      ['2025-06-02T09:00:00.000Z', 'retry', 2],
    ]);
    await h.advance(2 * HOUR);
    expect(h.executor.started).toHaveLength(2);
    expect(runs(task.id).map((run) => run.outcome)).toEqual(['failed', 'succeeded']);
  });
});

describe('the clock jumps forward an hour', () => {
  it('once: the 09:00 it jumped over runs at once as a catch-up, as after downtime; the log and an event say so', async () => {
    const { log, lines } = listeningLog();
    h = await makeHarness('2025-06-02T08:29:30Z', { log });
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.scheduler.start();
    await h.advance(MINUTE);
    h.clock.jump('2025-06-02T09:30:30Z');
    await h.advance(MINUTE);
    expect(h.executor.started.map((run) => [run.scheduledFor, run.trigger])).toEqual([
      ['2025-06-02T09:00:00.000Z', 'catch_up'],
    ]);
    expect(
      lines.filter((line) => line.message.startsWith('the clock moved ahead')).map((line) => line.message),
    ).toEqual([
      'the clock moved ahead by 60 min (the machine slept, or the clock was set forward); ' +
        'times due meanwhile are caught up as each task’s catch-up policy says',
    ]);
    expect(h.emitted('clock.changed').map((event) => [event.data.direction, event.data.minutes])).toEqual([
      ['forward', 60],
    ]);
    await h.advance(2 * HOUR);
    expect(runs(task.id)).toHaveLength(1);
  });

  it('skip: the 09:00 it jumped over is recorded as skipped, not silently dropped', async () => {
    h = await makeHarness('2025-06-02T08:29:30Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED, catch_up: 'skip' });
    h.scheduler.start();
    await h.advance(MINUTE);
    h.clock.jump('2025-06-02T09:30:30Z');
    await h.advance(MINUTE);
    expect(h.executor.started).toHaveLength(0);
    expect(runs(task.id).map((run) => [run.scheduledFor, run.outcome])).toEqual([
      [Date.parse('2025-06-02T09:00:00Z'), 'skipped'],
    ]);
    // When a correction sets it back, 09:00 does not come due again.
    h.clock.jump('2025-06-02T08:31:30Z');
    await h.advance(HOUR);
    expect(runs(task.id)).toHaveLength(1);
  });

  it('each: every hourly time it jumped over runs, one after another', async () => {
    h = await makeHarness('2025-06-02T08:29:30Z');
    const task = h.add({ cron: '*/20 * * * *', timezone: 'UTC', steps: FIXED, catch_up: 'each' });
    h.scheduler.start();
    await h.advance(MINUTE);
    expect(h.executor.started).toHaveLength(0);
    h.clock.jump('2025-06-02T09:30:30Z');
    await h.advance(MINUTE);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual([
      '2025-06-02T08:40:00.000Z',
      '2025-06-02T09:00:00.000Z',
      '2025-06-02T09:20:00.000Z',
    ]);
    expect(runs(task.id)).toHaveLength(3);
  });
});

describe('the wall-time limit counts running time, whatever the clock does', () => {
  /** An agent run of a task with a 30-minute limit, ten minutes in. */
  async function agentRunGoing() {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({
      cron: '0 9 * * *',
      timezone: 'UTC',
      instruction: 'tidy up',
      limits: { max_wall_seconds: 1800 },
    });
    h.executor.behaviour = (_task, started) => {
      if (started.trigger !== 'retry' && h.executor.started.length === 1) started.context.onAgentRun('run-1');
      return 'hang';
    };
    h.scheduler.start();
    await h.advance(2_000);
    await h.advance(10 * MINUTE);
    return task;
  }

  it('set forward an hour, then a restart: the run goes on for what is left, it is not stopped at once', async () => {
    await agentRunGoing();
    h.clock.jump(h.clock.now() + HOUR);
    h.executor.started[0]!.context.onCost(0.1);
    h.restart();
    h.scheduler.start();
    await h.advance(1_000);
    expect(h.executor.started).toHaveLength(2);
    expect(h.executor.started[1]?.cancelled).toBeUndefined();
    await h.advance(18 * MINUTE);
    expect(h.executor.started[1]?.cancelled).toBeUndefined();
    await h.advance(2 * MINUTE);
    expect(h.executor.started[1]?.cancelled).toContain('wall-time limit of 1800 s');
  });

  it('set back an hour, then a restart: the run is still stopped after 30 minutes of running time', async () => {
    const task = await agentRunGoing();
    h.clock.jump(h.clock.now() - HOUR);
    h.executor.started[0]!.context.onCost(0.1);
    h.restart();
    h.scheduler.start();
    await h.advance(1_000);
    expect(h.executor.started).toHaveLength(2);
    await h.advance(18 * MINUTE);
    expect(h.executor.started[1]?.cancelled).toBeUndefined();
    await h.advance(2 * MINUTE);
    expect(h.executor.started[1]?.cancelled).toContain('wall-time limit of 1800 s');
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'timed_out', runId: 'run-1' });
  });

  it('after a crash too: the time used is what ran, not what the clock says', async () => {
    await agentRunGoing();
    h.clock.jump(h.clock.now() + HOUR);
    h.executor.started[0]!.context.onCost(0.1);
    expect(h.store.openRuns()[0]?.usedMs).toBe(10 * MINUTE + 1_000);
  });
});
