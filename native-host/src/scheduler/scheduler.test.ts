import fs from 'node:fs';
import path from 'node:path';

import { verbatim } from '@nextai/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { RunStore } from '../agent/run-store.js';
import { storageHealth } from '../storage/storage-health.js';

import { runView } from './schedule-store.js';
import { makeHarness, type FakeGateway, type Harness } from './testing/harness.js';

const FIXED = [{ tool: 'system_info', input: {} }];
const MINUTE = 60_000;
const HOUR = 3_600_000;
let h: Harness;

afterEach(() => h.close());

const runs = (taskId: string) => h.store.history(taskId, 1000).reverse();

describe('firing', () => {
  it('fires a due task exactly once, at its cron time, with one timer armed', async () => {
    h = await makeHarness('2025-06-02T08:59:30Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.scheduler.start();
    await h.advance(29_000);
    expect(h.executor.started).toHaveLength(0);
    await h.advance(2_000);
    expect(h.executor.started.map((run) => [run.scheduledFor, run.at, run.trigger])).toEqual([
      ['2025-06-02T09:00:00.000Z', '2025-06-02T09:00:00.000Z', 'cron'],
    ]);
    // Time passes well beyond it: nothing fires again until the next day.
    await h.advance(10 * MINUTE);
    expect(h.executor.started).toHaveLength(1);
    expect(h.clock.pending).toBe(1);
    expect(runs(task.id).map((run) => [run.outcome, run.state])).toEqual([['succeeded', 'finished']]);
    const finished = h.emitted('schedule.run').map((event) => event.data.state);
    expect(finished).toEqual(['running', 'finished']);
    expect(h.notifications).toEqual([{ title: `NextAI: "${task.name}" finished`, body: 'done' }]);
  });

  it('does not let two runs of a task overlap: what comes due meanwhile is skipped and recorded', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '* * * * *', timezone: 'UTC', steps: FIXED });
    h.executor.behaviour = () => 'hang';
    h.scheduler.start();
    await h.advance(2 * MINUTE + 2_000);
    expect(h.executor.started).toHaveLength(1);
    expect(runs(task.id).map((run) => run.outcome)).toEqual([null, 'skipped', 'skipped']);
    expect(runs(task.id)[1]?.summary?.en).toContain('the previous run was still going');
    expect(runs(task.id)[1]?.summary?.['zh-CN']).toContain('上一次运行还没结束');
    h.executor.started[0]!.finish();
    await h.advance(MINUTE);
    expect(h.executor.started).toHaveLength(2);
    expect(h.executor.started[1]?.scheduledFor).toBe('2025-06-02T09:03:00.000Z');
  });

  it('runs them side by side when the task allows overlap', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    h.add({ cron: '* * * * *', timezone: 'UTC', steps: FIXED, allow_overlap: true });
    h.executor.behaviour = () => 'hang';
    h.scheduler.start();
    await h.advance(3 * MINUTE);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual([
      '2025-06-02T09:00:00.000Z',
      '2025-06-02T09:01:00.000Z',
      '2025-06-02T09:02:00.000Z',
    ]);
  });

  it('stops a run at its wall-time limit and records it as timed out', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED, limits: { max_wall_seconds: 30 } });
    h.executor.behaviour = () => 'hang';
    h.scheduler.start();
    await h.advance(29_000);
    expect(h.executor.started[0]?.cancelled).toBeUndefined();
    await h.advance(5_000);
    expect(h.executor.started[0]?.cancelled).toContain('wall-time limit of 30 s');
    expect(h.executor.started[0]?.context.signal.aborted).toBe(true);
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'timed_out', durationMs: 30_000 });
  });
});

describe('catch-up after downtime', () => {
  async function downtime(policy: 'skip' | 'once' | 'each') {
    h = await makeHarness('2025-06-02T07:30:00Z');
    const task = h.add({ cron: '0 * * * *', timezone: 'UTC', steps: FIXED, catch_up: policy });
    // The daemon is down from 07:30 to 12:30: 08:00 … 12:00 are missed (5 runs).
    h.clock.jump('2025-06-02T12:30:00Z');
    h.scheduler.start();
    await h.advance(1_000);
    return task;
  }

  it('once (the default): one run stands for all missed ones', async () => {
    const task = await downtime('once');
    expect(h.executor.started.map((run) => [run.scheduledFor, run.trigger, run.missed])).toEqual([
      ['2025-06-02T12:00:00.000Z', 'catch_up', 4],
    ]);
    await h.advance(HOUR);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual([
      '2025-06-02T12:00:00.000Z',
      '2025-06-02T13:00:00.000Z',
    ]);
    expect(h.executor.started[1]?.trigger).toBe('cron');
    expect(runs(task.id)).toHaveLength(2);
  });

  it('skip: none of the missed runs happens; the skip is recorded with the span', async () => {
    const task = await downtime('skip');
    expect(h.executor.started).toHaveLength(0);
    const [skipped] = runs(task.id);
    expect(skipped).toMatchObject({ outcome: 'skipped', missed: 4 });
    expect(skipped?.summary?.en).toContain('5 runs due from 2025-06-02T08:00:00.000Z to 2025-06-02T12:00:00.000Z');
    expect(skipped?.summary?.['zh-CN']).toBe(
      '已跳过从 2025-06-02T08:00:00.000Z 到 2025-06-02T12:00:00.000Z 应运行的 5 次：守护进程没有运行或任务被暂缓时错过了。',
    );
    await h.advance(HOUR);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual(['2025-06-02T13:00:00.000Z']);
  });

  it('a long downtime of a frequent task: the skip row counts every missed time, and its count, range and list agree', async () => {
    h = await makeHarness('2025-06-01T23:59:30Z');
    const task = h.add({ cron: '* * * * *', timezone: 'Europe/Berlin', steps: FIXED, catch_up: 'skip' });
    // Down for 30 hours: 1801 minutes were due, more than the scheduler lists (1000). The last
    // one is on time: it runs, and only the 1800 before it are skipped.
    h.clock.jump('2025-06-03T06:00:30Z');
    h.scheduler.start();
    await h.advance(1_000);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual(['2025-06-03T06:00:00.000Z']);
    const [row] = runs(task.id);
    expect(row).toMatchObject({ outcome: 'skipped', missed: 1799, scheduledFor: Date.parse('2025-06-03T05:59:00Z') });
    const first = Date.parse('2025-06-02T00:00:00Z');
    expect(row?.missedTimes).toEqual(Array.from({ length: 50 }, (_, index) => first + index * MINUTE));
    // The summary says what the row's fields say: missed + 1 runs, from the first listed to its own time.
    expect(row?.summary?.en).toContain('1800 runs due from 2025-06-02T00:00:00.000Z to 2025-06-03T05:59:00.000Z');
    const view = runView(row!);
    expect([view.missed, view.missed_times?.length, view.missed_times?.[0], view.scheduled_for]).toEqual([
      1799,
      50,
      '2025-06-02T00:00:00.000Z',
      '2025-06-03T05:59:00.000Z',
    ]);
  });

  it('once, after a long downtime of a frequent task: the run stands for the true number of missed times', async () => {
    h = await makeHarness('2025-06-01T23:59:30Z');
    h.add({ cron: '* * * * *', timezone: 'UTC', steps: FIXED });
    h.clock.jump('2025-06-03T06:00:30Z');
    h.scheduler.start();
    await h.advance(1_000);
    expect(h.executor.started.map((run) => [run.scheduledFor, run.trigger, run.missed])).toEqual([
      ['2025-06-03T06:00:00.000Z', 'cron', 1800],
    ]);
  });

  it('each: every missed run, one after another, oldest first', async () => {
    await downtime('each');
    await h.advance(1_000);
    expect(h.executor.started.map((run) => [run.scheduledFor, run.trigger])).toEqual([
      ['2025-06-02T08:00:00.000Z', 'catch_up'],
      ['2025-06-02T09:00:00.000Z', 'catch_up'],
      ['2025-06-02T10:00:00.000Z', 'catch_up'],
      ['2025-06-02T11:00:00.000Z', 'catch_up'],
      ['2025-06-02T12:00:00.000Z', 'catch_up'],
    ]);
  });

  it('catches up within a minute of the daemon starting even if its first look finds nothing (a wake from sleep)', async () => {
    h = await makeHarness('2025-06-02T08:59:00Z');
    h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.scheduler.start();
    // The machine sleeps: the monotonic timer did not run while the wall clock moved on 3 hours.
    h.clock.jump('2025-06-02T11:59:00Z');
    await h.advance(60_000);
    expect(h.executor.started.map((run) => [run.scheduledFor, run.trigger])).toEqual([
      ['2025-06-02T09:00:00.000Z', 'catch_up'],
    ]);
  });
});

describe('retries', () => {
  it('retries a failed run with growing back-off, up to max_retries', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED, max_retries: 3, retry_backoff_seconds: 60 });
    h.executor.behaviour = () => ({ outcome: 'failed', summary: verbatim('disk full') });
    h.scheduler.start();
    await h.advance(2 * HOUR);
    expect(h.executor.started.map((run) => [run.at, run.attempt, run.trigger])).toEqual([
      ['2025-06-02T09:00:00.000Z', 1, 'cron'],
      ['2025-06-02T09:01:00.000Z', 2, 'retry'],
      ['2025-06-02T09:03:00.000Z', 3, 'retry'],
      ['2025-06-02T09:07:00.000Z', 4, 'retry'],
    ]);
    expect(h.store.get(task.id).retry).toBeNull();
    expect(h.executor.started.every((run) => run.scheduledFor === '2025-06-02T09:00:00.000Z')).toBe(true);
    expect(h.notifications[0]?.body).toContain('It will be tried again at');
  });

  it('does not retry what another try cannot change: a denial, a policy block', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.executor.behaviour = () => ({ outcome: 'denied', summary: verbatim('the person said no') });
    h.scheduler.start();
    await h.advance(HOUR);
    expect(h.executor.started).toHaveLength(1);
  });

  it('a success ends the retries', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    let calls = 0;
    h.executor.behaviour = () => (++calls === 1 ? { outcome: 'failed', summary: verbatim('flaky') } : {});
    h.scheduler.start();
    await h.advance(HOUR);
    expect(h.executor.started.map((run) => run.attempt)).toEqual([1, 2]);
  });
});

describe('time zones and daylight saving time', () => {
  it('a daily 02:30 in New York runs once on the day 02:30 does not exist (at 03:00 EDT), and on time after', async () => {
    h = await makeHarness('2025-03-08T12:00:00Z');
    h.add({ cron: '30 2 * * *', timezone: 'America/New_York', steps: FIXED });
    h.scheduler.start();
    await h.advance(3 * 24 * HOUR);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual([
      '2025-03-09T07:00:00.000Z', // 03:00 EDT: the first valid time after the gap
      '2025-03-10T06:30:00.000Z', // 02:30 EDT
      '2025-03-11T06:30:00.000Z',
    ]);
  });

  it('a daily 01:30 runs once on the day 01:30 happens twice', async () => {
    h = await makeHarness('2025-11-01T12:00:00Z');
    h.add({ cron: '30 1 * * *', timezone: 'America/New_York', steps: FIXED });
    h.scheduler.start();
    await h.advance(2 * 24 * HOUR);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual([
      '2025-11-02T05:30:00.000Z', // 01:30 EDT, the first of the two
      '2025-11-03T06:30:00.000Z', // 01:30 EST
    ]);
  });

  it('09:00 Shanghai is 01:00 UTC, and the daily cost day is Shanghai’s', async () => {
    h = await makeHarness('2025-06-01T23:00:00Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'Asia/Shanghai', steps: FIXED });
    h.scheduler.start();
    await h.advance(3 * HOUR);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual(['2025-06-02T01:00:00.000Z']);
    expect(runs(task.id)[0]?.day).toBe('2025-06-02');
  });
});

describe('cost cap', () => {
  it('stops a task for the rest of the day once its runs spent the daily cap, and gives each run only what is left', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({
      cron: '0 * * * *',
      timezone: 'UTC',
      instruction: 'summarise the news',
      daily_cost_cap_usd: 5,
      limits: { max_cost_usd: 4 },
    });
    h.executor.behaviour = () => ({ costUsd: 3 });
    h.scheduler.start();
    await h.advance(3 * HOUR);
    expect(h.executor.started.map((run) => run.budgetUsd)).toEqual([5, 2]);
    const history = runs(task.id);
    expect(history.map((run) => run.outcome)).toEqual(['succeeded', 'succeeded', 'skipped']);
    expect(history[2]?.summary?.en).toContain('daily cost cap of $5 is reached ($6.0000 spent today)');
    expect(history[2]?.summary?.['zh-CN']).toContain('已达到每日费用上限 $5（今天已花费 $6.0000）');
    expect(h.notifications.filter((note) => note.title.includes('paused for today'))).toHaveLength(1);
    // The next day it runs again.
    h.clock.jump('2025-06-02T23:59:59Z');
    await h.advance(2_000);
    expect(h.executor.started.at(-1)?.scheduledFor).toBe('2025-06-03T00:00:00.000Z');
  });

  it('refuses run-now once the cap is reached', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', instruction: 'x', daily_cost_cap_usd: 1 });
    h.executor.behaviour = () => ({ costUsd: 1.5 });
    h.scheduler.start();
    await h.advance(2_000);
    expect(() => h.scheduler.runNow(h.store.get(task.id))).toThrow(/daily cap is \$1/);
  });
});

describe('holding runs back', () => {
  it('defers non-urgent tasks on battery (urgent ones run), and runs them when mains power returns', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    h.presence.set({ onBattery: true });
    const calm = h.add({ name: 'calm', cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.add({ name: 'urgent', cron: '0 9 * * *', timezone: 'UTC', steps: FIXED, urgent: true });
    h.scheduler.start();
    await h.advance(10 * MINUTE);
    expect(h.executor.started.map((run) => run.task)).toEqual(['urgent']);
    expect(h.scheduler.deferralOf(calm.id)?.en).toContain('battery');
    expect(h.scheduler.deferralOf(calm.id)?.['zh-CN']).toBe('电脑正在用电池供电（这个任务不紧急）');
    h.presence.set({ onBattery: false });
    await h.advance(1_000);
    expect(h.executor.started.map((run) => [run.task, run.trigger])).toEqual([
      ['urgent', 'cron'],
      ['calm', 'catch_up'],
    ]);
  });

  it('with the screen locked, holds back tasks that use the screen and runs file and terminal tasks', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    h.presence.set({ screenLocked: true });
    h.add({ name: 'shot', cron: '0 9 * * *', timezone: 'UTC', steps: [{ tool: 'screenshot', input: {} }] });
    h.add({ name: 'file', cron: '0 9 * * *', timezone: 'UTC', steps: [{ tool: 'file_read', input: { path: '~/a' } }] });
    h.scheduler.start();
    await h.advance(MINUTE);
    expect(h.executor.started.map((run) => run.task)).toEqual(['file']);
    h.presence.set({ screenLocked: false });
    await h.advance(1_000);
    expect(h.executor.started.map((run) => run.task)).toEqual(['file', 'shot']);
  });

  it('fires nothing while the emergency stop is on, nor while the machine goes to sleep', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    h.emergency.active = true;
    h.emergency.reason = 'test';
    h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.scheduler.start();
    await h.advance(MINUTE);
    expect(h.executor.started).toHaveLength(0);
    expect(h.emitted('schedule.deferred').map((event) => event.data.reason)).toEqual([
      'the emergency stop is on (test)',
    ]);
    h.presence.set({ sleeping: true });
    h.emergency.active = false;
    h.scheduler.poke();
    await h.advance(MINUTE);
    expect(h.executor.started).toHaveLength(0);
    h.presence.set({ sleeping: false });
    await h.advance(1_000);
    expect(h.executor.started).toHaveLength(1);
  });
});

describe('crash-loop protection', () => {
  it('a run the daemon died during is recorded as crashed and retried only after a long back-off; the third crash turns the task off', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.executor.behaviour = () => 'hang';
    h.scheduler.start();
    await h.advance(2_000);
    expect(h.executor.started).toHaveLength(1);

    // The daemon dies (no clean stop) and starts again.
    h.crash().start();
    await h.advance(1_000);
    let history = runs(task.id);
    expect(history[0]).toMatchObject({ outcome: 'crashed' });
    const retry = h.store.get(task.id).retry;
    expect(retry && retry.at - h.clock.now()).toBeGreaterThanOrEqual(5 * MINUTE - 1_000);
    expect(h.executor.started).toHaveLength(1);

    await h.advance(5 * MINUTE);
    expect(h.executor.started).toHaveLength(2);
    h.crash().start();
    await h.advance(1_000);
    expect(h.store.get(task.id).consecutiveCrashes).toBe(2);
    // The second crash waits longer (20 min).
    await h.advance(19 * MINUTE);
    expect(h.executor.started).toHaveLength(2);
    await h.advance(2 * MINUTE);
    expect(h.executor.started).toHaveLength(3);

    h.crash().start();
    await h.advance(HOUR);
    const turnedOff = h.store.get(task.id);
    expect(turnedOff.enabled).toBe(false);
    // The reason names each death (the run it happened during) and why it is put down to the task.
    const reason = turnedOff.disabledReason?.en ?? '';
    expect(reason).toContain('the daemon died during its runs 3 times in a row');
    for (const started of h.executor.started) expect(reason).toContain(`between ${started.at} and`);
    expect(reason).toContain('each time its run was the only thing going and no other cause was known');
    expect(turnedOff.disabledReason?.['zh-CN']).toContain('守护进程在它的运行期间连续崩溃了 3 次');
    expect(h.executor.started).toHaveLength(3);
    history = runs(task.id);
    expect(history.map((run) => run.outcome)).toEqual(['crashed', 'crashed', 'crashed']);
    expect(history[0]?.summary?.en).toContain('It counts against the task');
    expect(h.emitted('schedule.crash').map((event) => [event.data.counted, event.data.streak])).toEqual([
      [true, 1],
      [true, 2],
      [true, 3],
    ]);
  });

  /**
   * Runs `task`s' runs into three deaths of the daemon in a row (each run hangs; a retry comes
   * after the crash back-off), with `before` done ahead of each death.
   */
  async function threeDeaths(before: () => void | Promise<void>): Promise<void> {
    h.executor.behaviour = () => 'hang';
    h.scheduler.start();
    await h.advance(2_000);
    for (const backOff of [5 * MINUTE, 20 * MINUTE, 0]) {
      await before();
      h.crash().start();
      await h.advance(1_000);
      await h.advance(backOff);
    }
  }

  it('three deaths while another task’s run was going too are put down to neither task', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const first = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    const second = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    await threeDeaths(() => expect(h.scheduler.runningCount(first.id) + h.scheduler.runningCount(second.id)).toBe(2));
    for (const [task, other] of [
      [first, second],
      [second, first],
    ] as const) {
      const now = h.store.get(task.id);
      expect([now.enabled, now.crashStreak, now.consecutiveCrashes]).toEqual([true, [], 3]);
      expect(runs(task.id).map((run) => run.outcome)).toEqual(['crashed', 'crashed', 'crashed']);
      expect(runs(task.id)[0]?.summary?.en).toContain(
        `It does not count against the task: runs of other tasks were going too ("${other.name}").`,
      );
    }
    const told = h.emitted('schedule.crash').map((event) => event.data);
    expect(told).toHaveLength(6);
    expect(told.every((data) => !data.counted && data.streak === 0)).toBe(true);
  });

  it('three deaths across restarts of the computer (a power cut) are not put down to the task', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    let boot = 1;
    await threeDeaths(() => {
      h.boot = { id: `boot-${(boot += 1)}`, bootedAt: h.clock.now() };
    });
    expect(h.store.get(task.id)).toMatchObject({ enabled: true, crashStreak: [] });
    expect(runs(task.id)[2]?.summary?.en).toContain(
      'It does not count against the task: the computer restarted while the daemon ran',
    );
  });

  it('three deaths while the database could not be written are not put down to the task', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    const health = storageHealth(h.db);
    await threeDeaths(async () => {
      const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      health.noteFailure(full);
      // The daemon notes it in its life record (outside the write that failed).
      await vi.waitFor(() =>
        expect(fs.readFileSync(path.join(h.dir, 'scheduler-life.json'), 'utf8')).toContain('SQLITE_FULL'),
      );
    });
    expect(h.store.get(task.id)).toMatchObject({ enabled: true, crashStreak: [] });
    expect(runs(task.id)[0]?.summary?.en).toContain(
      'It does not count against the task: the database could not be written (SQLITE_FULL, since',
    );
  });

  it('three deaths while an agent run (a chat, the heartbeat) was going too are not put down to the task', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    const agentRuns = new RunStore(h.db);
    const chat = agentRuns.create({ goal: 'tidy the downloads folder', project: 'default' });
    agentRuns.transition(chat.id, 'running');
    await threeDeaths(() => undefined);
    expect(h.store.get(task.id)).toMatchObject({ enabled: true, crashStreak: [] });
    expect(runs(task.id)[0]?.summary?.en).toContain(`other agent runs were going too (run ${chat.id})`);
  });

  it('a death the task’s run was not going at ends its streak: only deaths in a row count', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.executor.behaviour = () => 'hang';
    h.scheduler.start();
    await h.advance(2_000);
    h.crash().start();
    await h.advance(1_000);
    expect(h.store.get(task.id).crashStreak).toHaveLength(1);
    // The daemon dies again while nothing of the task is going (its retry waits 5 min).
    h.crash().start();
    await h.advance(1_000);
    expect(h.store.get(task.id).crashStreak).toEqual([]);
    for (const backOff of [5 * MINUTE, 20 * MINUTE]) {
      await h.advance(backOff);
      h.crash().start();
      await h.advance(1_000);
    }
    expect(h.store.get(task.id)).toMatchObject({ enabled: true, consecutiveCrashes: 3 });
    expect(h.store.get(task.id).crashStreak).toHaveLength(2);
  });

  it('a stop recorded as clean is no crash, even when it could not mark its runs suspended', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.executor.behaviour = () => 'hang';
    h.scheduler.start();
    await h.advance(2_000);
    // What a stop writes to its life record, with the run's row left as it was (the database failed).
    const file = path.join(h.dir, 'scheduler-life.json');
    const life = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...life, stopped_at: new Date(h.clock.now()).toISOString() }));
    h.crash().start();
    await h.advance(1_000);
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'interrupted' });
    expect(h.store.get(task.id)).toMatchObject({ consecutiveCrashes: 0, crashStreak: [] });
    expect(h.emitted('schedule.crash')).toEqual([]);
  });

  it('a clean stop suspends an agent run, which is followed again after the restart (not counted as a crash)', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', instruction: 'look around' });
    h.executor.behaviour = (_task, started) => {
      started.context.onAgentRun('run-1');
      return 'hang';
    };
    h.scheduler.start();
    await h.advance(2_000);
    h.restart().start();
    await h.advance(1_000);
    expect(h.executor.started).toHaveLength(2);
    expect(h.store.get(task.id).consecutiveCrashes).toBe(0);
    h.executor.started[1]!.finish({ summary: verbatim('all good'), costUsd: 0.25 });
    await h.advance(1_000);
    expect(runs(task.id)).toHaveLength(1);
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'succeeded', costUsd: 0.25, runId: 'run-1' });
  });
});

describe('fixed steps across a stop, a crash and a retry', () => {
  const INVOICE = [
    { tool: 'file_write', input: { path: '~/invoice.txt', content: 'invoice 42' } },
    { tool: 'bash_execute', input: { command: 'make-invoice && send' } },
    { tool: 'notification_send', input: { title: 'Invoice', body: 'sent' } },
  ];
  const retryAt = (taskId: string) => h.store.get(taskId).retry;

  /** The approval machinery as the gateway drives it: the call waits for the person. */
  const askApproval = (callId: string) =>
    h.events.append('approval.requested', {
      approval_id: `approval-${callId}`,
      call_id: callId,
      tool: 'bash_execute',
      risk: 'high',
      layer: 'project_policy',
      reason: 'asks first',
    });

  /** Gateway behaviour: the first bash_execute waits for the person; every other call succeeds. */
  const bashWaitsForApprovalOnce = (): FakeGateway['behaviour'] => {
    let asked = 0;
    return (call) => {
      if (call.tool !== 'bash_execute' || asked++ > 0) return { ok: true, output: 'ok' };
      askApproval(call.callId);
      return 'hang';
    };
  };

  it('a daemon stop aborts the step in progress and starts no later step', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z', { realSteps: true });
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: INVOICE });
    h.gateway.behaviour = (call) => (call.tool === 'file_write' ? 'hang' : { ok: true, output: 'ok' });
    h.scheduler.start();
    await h.advance(2_000);
    expect(h.gateway.tools).toEqual(['file_write']);
    const going = h.gateway.calls[0]!;

    h.restart();
    expect(going.signal?.aborted).toBe(true);
    // Had the tool finished regardless, the next step still must not start: the run was stopped.
    going.finish();
    await h.advance(1_000);
    expect(h.gateway.tools).toEqual(['file_write']);
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'interrupted' });
  });

  it('a step cut short by a stop is never repeated: no automatic retry, the person is told', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z', { realSteps: true });
    const task = h.add({ name: 'invoice', cron: '0 9 * * *', timezone: 'UTC', steps: INVOICE });
    h.gateway.behaviour = (call) => (call.tool === 'bash_execute' ? 'hang' : { ok: true, output: 'ok' });
    h.scheduler.start();
    await h.advance(2_000);
    expect(h.gateway.tools).toEqual(['file_write', 'bash_execute']);

    h.restart().start();
    await h.advance(2 * HOUR);
    // Neither the finished step nor the one whose outcome is unknown ran again.
    expect(h.gateway.tools).toEqual(['file_write', 'bash_execute']);
    expect(retryAt(task.id)).toBeNull();
    const [run] = runs(task.id);
    expect(run).toMatchObject({ outcome: 'interrupted', errorCode: 'OUTCOME_UNKNOWN' });
    expect(run?.summary?.en).toContain('Step 2 of 3 (bash_execute) had begun and may or may not have happened');
    expect(run?.summary?.en).toContain('steps 1–1 are done');
    expect(run?.summary?.['zh-CN']).toContain('第 2/3 步（bash_execute）已经开始，可能做了也可能没做');
    expect(run?.summary?.['zh-CN']).toContain('（第 1–1 步已完成）');
    expect(h.notifications.at(-1)?.title).toBe('NextAI: "invoice" was interrupted and needs you to check a step');
  });

  it('the same after a crash: the step that was going is not retried', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z', { realSteps: true });
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: INVOICE });
    h.gateway.behaviour = (call) => (call.tool === 'bash_execute' ? 'hang' : { ok: true, output: 'ok' });
    h.scheduler.start();
    await h.advance(2_000);

    h.crash().start();
    await h.advance(2 * HOUR);
    expect(h.gateway.tools).toEqual(['file_write', 'bash_execute']);
    expect(retryAt(task.id)).toBeNull();
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'crashed', errorCode: 'OUTCOME_UNKNOWN' });
  });

  it('a retry after a stop goes on after the finished steps; a step that only waited for approval is asked again', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z', { realSteps: true });
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: INVOICE });
    h.gateway.behaviour = bashWaitsForApprovalOnce();
    h.scheduler.start();
    await h.advance(2_000);
    expect(runs(task.id)[0]?.state).toBe('waiting_approval');

    h.restart().start();
    await h.advance(1_000);
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'interrupted', errorCode: null });
    expect(retryAt(task.id)).not.toBeNull();
    await h.advance(2 * MINUTE);
    // file_write is not done again; bash_execute never ran, so it is asked for again.
    expect(h.gateway.tools).toEqual(['file_write', 'bash_execute', 'bash_execute', 'notification_send']);
    const retried = runs(task.id)[1];
    expect(retried).toMatchObject({ trigger: 'retry', attempt: 2, outcome: 'succeeded' });
    expect(retried?.steps.map((step) => [step.tool, step.carried ?? false, step.ok])).toEqual([
      ['file_write', true, true],
      ['bash_execute', false, true],
      ['notification_send', false, true],
    ]);
    expect(retried?.summary?.en).toContain('Step 1 was done by an earlier attempt and not repeated');
    expect(retried?.summary?.['zh-CN']).toContain('第 1 步已由之前的尝试完成，没有重复。');
  });

  it('a retry after a crash during an approval wait goes on from that step too', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z', { realSteps: true });
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: INVOICE });
    h.gateway.behaviour = bashWaitsForApprovalOnce();
    h.scheduler.start();
    await h.advance(2_000);
    h.crash().start();
    await h.advance(6 * MINUTE);
    expect(h.gateway.tools).toEqual(['file_write', 'bash_execute', 'bash_execute', 'notification_send']);
    expect(runs(task.id).map((run) => run.outcome)).toEqual(['crashed', 'succeeded']);
  });

  it('a retry after a failed step does not repeat the steps before it', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z', { realSteps: true });
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: INVOICE });
    let failures = 0;
    h.gateway.behaviour = (call) =>
      call.tool === 'bash_execute' && failures++ === 0
        ? { ok: false, error: { code: 'TOOL_FAILED', message: 'the printer is off' } }
        : { ok: true, output: 'ok' };
    h.scheduler.start();
    await h.advance(2 * MINUTE);
    expect(h.gateway.tools).toEqual(['file_write', 'bash_execute', 'bash_execute', 'notification_send']);
    expect(runs(task.id).map((run) => run.outcome)).toEqual(['failed', 'succeeded']);
  });

  it('a run whose steps had all finished when the daemon died is recorded as succeeded, not retried', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: [{ tool: 'system_info', input: {} }] });
    h.executor.behaviour = (_task, started) => {
      // The step's intent and result are on disk; the daemon dies before the run's end is.
      started.context.onSteps([
        { tool: 'system_info', call_id: 'c1', started_at: 'x', finished_at: 'y', ok: true, summary: 'fine' },
      ]);
      return 'hang';
    };
    h.scheduler.start();
    await h.advance(2_000);
    h.crash().start();
    await h.advance(HOUR);
    expect(h.executor.started).toHaveLength(1);
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'succeeded' });
    expect(h.store.get(task.id)).toMatchObject({ retry: null, consecutiveCrashes: 0 });
  });
});

describe('decisions are written whole and durably', () => {
  const failInserts = () =>
    h.db.exec(`CREATE TRIGGER no_runs BEFORE INSERT ON schedule_runs BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
  const allowInserts = () => h.db.exec('DROP TRIGGER no_runs');

  it('a history row that cannot be written leaves the cursor where it was: the run is not lost', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    const cursor = h.store.get(task.id).cursorAt;
    failInserts();
    h.scheduler.start();
    await h.advance(2_000);
    expect(h.executor.started).toHaveLength(0);
    expect(h.store.get(task.id).cursorAt).toBe(cursor);

    allowInserts();
    await h.advance(MINUTE);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual(['2025-06-02T09:00:00.000Z']);
    expect(runs(task.id)).toHaveLength(1);
  });

  it('a retry is cleared only together with the run it becomes', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED, retry_backoff_seconds: 60 });
    let calls = 0;
    h.executor.behaviour = () => (++calls === 1 ? { outcome: 'failed', summary: verbatim('flaky') } : {});
    h.scheduler.start();
    await h.advance(2_000);
    const retry = h.store.get(task.id).retry;
    expect(retry?.attempt).toBe(2);

    failInserts();
    await h.advance(MINUTE);
    expect(h.store.get(task.id).retry).toEqual(retry);
    allowInserts();
    await h.advance(MINUTE);
    expect(h.executor.started.map((run) => [run.trigger, run.attempt])).toEqual([
      ['cron', 1],
      ['retry', 2],
    ]);
  });

  it('every write of a decision is committed with synchronous = FULL', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z', { realSteps: true });
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    const levels = new Set<number>();
    const probe = h.db.prepare('SELECT 1');
    const statement = Object.getPrototypeOf(probe) as { run: (...args: unknown[]) => unknown };
    const run = statement.run;
    const spy = vi.spyOn(statement, 'run').mockImplementation(function (this: { source: string }, ...args) {
      if (/schedule/.test(this.source)) levels.add(h.db.pragma('synchronous', { simple: true }) as number);
      return run.apply(this, args);
    });
    h.scheduler.start();
    await h.advance(2_000);
    spy.mockRestore();
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'succeeded' });
    expect([...levels]).toEqual([2]);
    expect(h.db.pragma('synchronous', { simple: true })).toBe(1);
  });
});

describe('the wall-time limit counts running time only', () => {
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
    // Ten minutes in, the run reports its cost (a sign of progress, written with the time used).
    await h.advance(10 * MINUTE);
    h.executor.started[0]!.context.onCost(0.1);
    return task;
  }

  it('a run resumed after a long clean stop gets what is left of its limit, not zero', async () => {
    const task = await agentRunGoing();
    h.restart();
    // The machine is off overnight.
    h.clock.jump(h.clock.now() + 10 * HOUR);
    h.scheduler.start();
    await h.advance(1_000);
    expect(h.executor.started).toHaveLength(2);
    expect(h.executor.started[1]?.cancelled).toBeUndefined();
    await h.advance(18 * MINUTE);
    expect(h.executor.started[1]?.cancelled).toBeUndefined();
    await h.advance(2 * MINUTE);
    expect(h.executor.started[1]?.cancelled).toContain('wall-time limit of 1800 s');
    expect(runs(task.id)[0]).toMatchObject({ outcome: 'timed_out', runId: 'run-1' });
  });

  it('after a crash, the time up to the last progress counts, the downtime does not', async () => {
    await agentRunGoing();
    h.crash();
    h.clock.jump(h.clock.now() + 10 * HOUR);
    h.scheduler.start();
    await h.advance(19 * MINUTE);
    expect(h.executor.started[1]?.cancelled).toBeUndefined();
    await h.advance(2 * MINUTE);
    expect(h.executor.started[1]?.cancelled).toContain('wall-time limit');
  });
});

describe('a task changed while the scheduler looks', () => {
  it('is read again after presence is read: one turned off meanwhile does not fire', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.scheduler.start();
    await h.advance(0);
    const release = h.presence.hold();
    await h.clock.advance(2_000);
    h.store.setEnabled(task.id, false, h.clock.now(), verbatim('turned off by the person'));
    release();
    await h.advance(1_000);
    expect(h.executor.started).toHaveLength(0);
    expect(runs(task.id)).toHaveLength(0);
  });

  it('one whose time was changed meanwhile keeps its new cursor and fires at its new time', async () => {
    h = await makeHarness('2025-06-02T08:59:59Z');
    const task = h.add({ cron: '0 9 * * *', timezone: 'UTC', steps: FIXED });
    h.scheduler.start();
    await h.advance(0);
    const release = h.presence.hold();
    await h.clock.advance(2_000);
    const edited = h.store.update(task.id, { ...task.definition, cron: '30 9 * * *' }, h.clock.now(), {
      resetCursor: true,
    });
    h.scheduler.forget(task.id);
    release();
    await h.advance(1_000);
    expect(h.executor.started).toHaveLength(0);
    expect(h.store.get(task.id).cursorAt).toBe(edited.cursorAt);
    await h.advance(30 * MINUTE);
    expect(h.executor.started.map((run) => run.scheduledFor)).toEqual(['2025-06-02T09:30:00.000Z']);
  });
});
