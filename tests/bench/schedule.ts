/**
 * The scheduler:
 *   - fire-time precision: a few hundred tasks all due at the same minute, fired by the real
 *     Scheduler on a real SQLite file with real timers, on a clock injected to start two seconds
 *     before that minute; lateness = when each run started minus its cron time. Baseline: one
 *     bare setTimeout to the same instant in the same process.
 *   - the daemon as its own process with 100 enabled tasks: CPU time and resident memory over an
 *     idle window, against the same daemon with no tasks (baseline).
 * Goals: p99 ≤ 1 s; idle CPU ≈ 0 (no polling: one timer to the next due time). Prints; asserts nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { scheduleDefinitionSchema, verbatim } from '@nextai/shared';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { openDatabase } from '../../native-host/src/storage/database.js';
import { EventLog } from '../../native-host/src/storage/event-log.js';
import { createLogger } from '../../native-host/src/core/logger.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import type { Clock } from '../../native-host/src/scheduler/clock.js';
import { checkDefinition } from '../../native-host/src/scheduler/definition.js';
import type { Execution, TaskExecutor } from '../../native-host/src/scheduler/executor.js';
import { FakePresence } from '../../native-host/src/scheduler/presence/fake-presence.js';
import { ScheduleStore } from '../../native-host/src/scheduler/schedule-store.js';
import { Scheduler } from '../../native-host/src/scheduler/scheduler.js';
import { exitOf, spawnDaemon } from '../support/cli.js';
import { makeHome } from '../support/home.js';
import { formatRow, summarize } from './stats.js';

const DUE_TASKS = 400;
const IDLE_TASKS = 100;
const IDLE_WINDOW_MS = 20_000;

const log = createLogger({ component: 'bench', level: 'error' });

export async function benchSchedule(): Promise<string[]> {
  return ['Scheduler:', ...(await benchPrecision()), '', ...(await benchIdle())];
}

/** A clock that runs in real time from a chosen instant: real timers, a wall clock of our choosing. */
function shiftedClock(start: number): Clock {
  const offset = start - Date.now();
  return {
    now: () => Date.now() + offset,
    monotonic: () => performance.now(),
    setTimer: (ms, fn) => {
      const timer = setTimeout(fn, Math.max(0, ms));
      return () => clearTimeout(timer);
    },
  };
}

export async function benchPrecision(): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-bench-sched-'));
  const db = await openDatabase(path.join(dir, 'data.db'), log);
  try {
    const due = Date.parse('2030-01-07T09:00:00Z');
    const clock = shiftedClock(due - 2000);
    const store = new ScheduleStore(db);
    const lateness: number[] = [];
    let resolveAll!: () => void;
    const allFired = new Promise<void>((resolve) => (resolveAll = resolve));
    const executor: TaskExecutor = {
      start: (_task, context): Execution => {
        lateness.push(clock.now() - context.run.scheduledFor);
        if (lateness.length === DUE_TASKS) resolveAll();
        return {
          done: Promise.resolve({ outcome: 'succeeded', summary: verbatim('ok'), costUsd: 0 }),
          cancel: () => undefined,
        };
      },
      reattach: () => {
        throw new Error('not used');
      },
      abandon: () => Promise.resolve(),
    };
    const checks = {
      projectId: () => 'default',
      forbids: () => undefined,
      explain: () => {
        throw new Error('not used');
      },
    };
    for (let i = 0; i < DUE_TASKS; i++) {
      const definition = scheduleDefinitionSchema.parse({
        name: `due-${i}`,
        cron: '0 9 * * *',
        timezone: 'UTC',
        instruction: 'x',
      });
      store.create(checkDefinition(definition, checks), clock.now());
    }
    const scheduler = new Scheduler({
      store,
      clock,
      executor,
      events: new EventLog(db),
      notify: () => Promise.resolve(),
      presence: new FakePresence(),
      emergency: () => ({ active: false }),
      log,
    });
    // Baseline: a bare timer to the same instant, in the same process.
    const baseline = new Promise<number>((resolve) => {
      setTimeout(() => resolve(clock.now() - due), due - clock.now());
    });
    scheduler.start();
    await allFired;
    const bare = await baseline;
    scheduler.stop();
    const summary = summarize(lateness);
    const p99 = [...lateness].sort((a, b) => a - b)[Math.ceil(0.99 * lateness.length) - 1]!;
    return [
      `Fire time minus cron time, ${DUE_TASKS} tasks due at the same minute (real timers and SQLite, injected clock):`,
      formatRow('lateness of each run', summary),
      `p99 ${p99.toFixed(2)} ms; a bare setTimeout to the same instant was ${bare.toFixed(2)} ms late (baseline)`,
      `goal p99 ≤ 1 s: ${p99 <= 1000 ? 'met' : 'NOT met'} (${p99.toFixed(2)} ms)`,
    ];
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU seconds (user + system) and resident MB of a process, from /proc. */
function usage(pid: number): { cpuSeconds: number; rssMb: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat(5); after the command they are 12th and 13th.
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/^VmRSS:\s+(\d+)\s+kB/mu.exec(status)?.[1]);
  return { cpuSeconds: ticks / 100, rssMb: rssKb / 1024 };
}

async function idleWindow(pid: number): Promise<{ cpuPercent: number; rssMb: number }> {
  const before = usage(pid);
  await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
  const after = usage(pid);
  return { cpuPercent: ((after.cpuSeconds - before.cpuSeconds) / (IDLE_WINDOW_MS / 1000)) * 100, rssMb: after.rssMb };
}

async function benchIdle(): Promise<string[]> {
  const home = makeHome('nx-bench-idle-');
  const daemon = spawnDaemon({ ...home.env, NEXTAI_LOG_LEVEL: 'warn' });
  try {
    let client: DaemonClient | undefined;
    const deadline = Date.now() + 20_000;
    while (!client) {
      try {
        client = await DaemonClient.connect(dataPaths(home.dir), {
          start: false,
          client: { kind: 'test', name: 'bench' },
        });
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const pid = daemon.pid as number;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const empty = await idleWindow(pid);
    // 100 tasks at many different times, none due during the window (it is measured idle).
    for (let i = 0; i < IDLE_TASKS; i++) {
      const hour = i % 24;
      await client.peer.request('schedules.create', {
        name: `idle-${i}`,
        cron: `${i % 60} ${hour} 1 1 *`,
        timezone: 'UTC',
        steps: [{ tool: 'system_info', input: { categories: ['os'] } }],
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const loaded = await idleWindow(pid);
    client.close();
    return [
      `The daemon as its own process, idle for ${IDLE_WINDOW_MS / 1000} s:`,
      `  no tasks (baseline):  CPU ${empty.cpuPercent.toFixed(2)} %, resident ${empty.rssMb.toFixed(0)} MB`,
      `  ${IDLE_TASKS} enabled tasks:     CPU ${loaded.cpuPercent.toFixed(2)} %, resident ${loaded.rssMb.toFixed(0)} MB`,
      `goal idle CPU ≈ 0: ${loaded.cpuPercent < 0.5 ? 'met' : 'NOT met'} (${loaded.cpuPercent.toFixed(2)} % of one core)`,
    ];
  } finally {
    daemon.kill('SIGTERM');
    await exitOf(daemon);
    await home.cleanup();
  }
}
