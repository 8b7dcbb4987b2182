import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
  scheduleDefinitionSchema,
  type Decision,
  verbatim,
  type DaemonEvent,
  type ScheduleDefinitionInput,
  type ToolOutcome,
  type ToolResult,
} from '@nextai/shared';

import { openDatabase, type Db } from '../../storage/database.js';
import { EventLog } from '../../storage/event-log.js';
import type { CallContext, ToolCallRequest } from '../../gateway/tool-gateway.js';
import { createLogger } from '../../core/logger.js';
import { DaemonTaskExecutor, type ExecutorServices } from '../agent-executor.js';
import type { BootMark } from '../daemon-life.js';
import { checkDefinition } from '../definition.js';
import type { Execution, ExecutionContext, ExecutionResult, TaskExecutor } from '../executor.js';
import { FakePresence } from '../presence/fake-presence.js';
import { ScheduleStore, type ScheduleTask } from '../schedule-store.js';
import { Scheduler, type SchedulerOptions } from '../scheduler.js';
import { FakeClock } from './fake-clock.js';

export interface Started {
  task: string;
  trigger: string;
  scheduledFor: string;
  attempt: number;
  missed: number;
  budgetUsd: number;
  at: string;
  /** Steps an earlier attempt finished that this retry carries over (fixed-step tasks). */
  carried: number;
  context: ExecutionContext;
  finish(result?: Partial<ExecutionResult>): void;
  cancelled: string | undefined;
}

/**
 * A task executor for scheduler tests: records every start, and ends a run when the test says
 * (`finish`) or at once with what `behaviour` returns (`'hang'` leaves it running).
 */
export class ScriptedExecutor implements TaskExecutor {
  readonly started: Started[] = [];
  readonly abandoned: string[] = [];
  behaviour: (task: ScheduleTask, started: Started) => Partial<ExecutionResult> | 'hang' = () => ({});

  constructor(private readonly clock: FakeClock) {}

  start(task: ScheduleTask, context: ExecutionContext): Execution {
    return this.begin(task, context);
  }

  reattach(task: ScheduleTask, _runId: string, context: ExecutionContext): Execution {
    return this.begin(task, context);
  }

  abandon(runId: string): Promise<void> {
    this.abandoned.push(runId);
    return Promise.resolve();
  }

  private begin(task: ScheduleTask, context: ExecutionContext): Execution {
    let resolve!: (result: ExecutionResult) => void;
    const done = new Promise<ExecutionResult>((settle) => (resolve = settle));
    const started: Started = {
      task: task.name,
      trigger: context.run.trigger,
      scheduledFor: new Date(context.run.scheduledFor).toISOString(),
      attempt: context.run.attempt,
      missed: context.run.missed,
      budgetUsd: context.budgetUsd,
      at: new Date(this.clock.now()).toISOString(),
      carried: context.resume?.carried.length ?? 0,
      context,
      cancelled: undefined,
      finish: (result = {}) => resolve({ outcome: 'succeeded', summary: verbatim('done'), costUsd: 0, ...result }),
    };
    this.started.push(started);
    const behaviour = this.behaviour(task, started);
    if (behaviour !== 'hang') started.finish(behaviour);
    return {
      done,
      cancel: (reason) => {
        started.cancelled = reason;
        started.finish({ outcome: 'stopped', summary: verbatim(reason) });
      },
    };
  }
}

export interface GatewayCall {
  tool: string;
  input: Record<string, unknown>;
  callId: string;
  /** The signal the scheduler passed (aborted when the run must stop). */
  signal: AbortSignal | undefined;
  /** Ends the call (a success unless told otherwise); nothing once it has ended. */
  finish(outcome?: ToolOutcome): void;
}

/**
 * The tool gateway as fixed-step runs see it: records each call, and ends it with what
 * `behaviour` returns (`'hang'` leaves it going until the test finishes it or the call's signal
 * aborts it — the gateway then answers DISCONNECTED, as the real one does).
 */
export class FakeGateway {
  readonly calls: GatewayCall[] = [];
  behaviour: (call: GatewayCall) => ToolOutcome | 'hang' = () => ({ ok: true, output: 'ok' });

  callTool = (request: ToolCallRequest, context: CallContext): Promise<ToolResult> =>
    new Promise<ToolResult>((resolve) => {
      let ended = false;
      const call: GatewayCall = {
        tool: request.name,
        input: request.input,
        callId: request.call_id ?? '',
        signal: context.cancel,
        finish: (outcome = { ok: true, output: 'ok' }) => {
          if (ended) return;
          ended = true;
          resolve({ ...outcome, duration_ms: 0 });
        },
      };
      this.calls.push(call);
      context.cancel?.addEventListener(
        'abort',
        () => call.finish({ ok: false, error: { code: 'DISCONNECTED', message: 'Stopped: The caller went away.' } }),
        { once: true },
      );
      const behaviour = this.behaviour(call);
      if (behaviour !== 'hang') call.finish(behaviour);
    });

  /** The tools called so far, in order. */
  get tools(): string[] {
    return this.calls.map((call) => call.tool);
  }
}

export interface HarnessOptions extends Partial<SchedulerOptions> {
  /**
   * Fixed-step tasks run for real (the daemon's executor and runSteps) against
   * {@link Harness.gateway}, instead of the scripted executor.
   */
  realSteps?: boolean;
}

export interface Harness {
  dir: string;
  db: Db;
  store: ScheduleStore;
  clock: FakeClock;
  presence: FakePresence;
  executor: ScriptedExecutor;
  /** The tool calls of fixed-step runs, with `realSteps`. */
  gateway: FakeGateway;
  events: EventLog;
  notifications: { title: string; body: string }[];
  emergency: { active: boolean; reason?: string };
  /** The machine's boot as the scheduler sees it: a new `id` is a restart of the machine. */
  boot: BootMark;
  scheduler: Scheduler;
  /** Adds a task (validated as the daemon would, with every tool allowed by the policy). */
  add(definition: Omit<ScheduleDefinitionInput, 'name'> & { name?: string }): ScheduleTask;
  /** Moves time, letting the scheduler react after each timer. */
  advance(ms: number): Promise<void>;
  /** A new scheduler on the same database and clock: a daemon restart after a clean stop. */
  restart(options?: Partial<SchedulerOptions>): Scheduler;
  /** A new scheduler on the same database and clock after the old one died without stopping. */
  crash(): Scheduler;
  emitted(type: string): DaemonEvent[];
  close(): void;
}

const log = createLogger({ component: 'test', level: 'error' });
let counter = 0;

/** The policy's verdict that lets a step run (what the harness's checks answer for every step). */
export const ALLOWED: Decision = {
  action: 'auto_approve',
  risk: 'low',
  default_risk: 'low',
  layer: 'project_policy',
  reason: 'allowed',
  trail: [],
  findings: [],
  per_call: false,
  translations: { 'zh-CN': { reason: '允许', findings: [] } },
};

export async function makeHarness(start: string, harnessOptions: HarnessOptions = {}): Promise<Harness> {
  const { realSteps, ...options } = harnessOptions;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-sched-'));
  const db = await openDatabase(path.join(dir, 'data.db'), log);
  const store = new ScheduleStore(db);
  const clock = new FakeClock(start);
  const presence = new FakePresence();
  const executor = new ScriptedExecutor(clock);
  const events = new EventLog(db);
  const gateway = new FakeGateway();
  const noAgentRuns = () => {
    throw new Error('this harness runs fixed-step tasks only');
  };
  const daemonExecutor = new DaemonTaskExecutor({
    callTool: gateway.callTool,
    events,
    runs: { start: noAgentRuns, view: noAgentRuns, stop: noAgentRuns } as unknown as ExecutorServices['runs'],
    log,
  });
  const seen: DaemonEvent[] = [];
  events.subscribe((event) => seen.push(event));
  const notifications: { title: string; body: string }[] = [];
  const emergency: { active: boolean; reason?: string } = { active: false };
  const make = (extra: Partial<SchedulerOptions> = {}) =>
    new Scheduler({
      store,
      clock,
      executor,
      events,
      notify: (title, body) => {
        notifications.push({ title, body });
        return Promise.resolve();
      },
      presence,
      emergency: () => emergency,
      log,
      lifeFile: path.join(dir, 'scheduler-life.json'),
      boot: () => harness.boot,
      ...(realSteps ? { executor: daemonExecutor } : {}),
      ...options,
      ...extra,
    });
  const harness: Harness = {
    dir,
    db,
    store,
    clock,
    presence,
    executor,
    gateway,
    events,
    notifications,
    emergency,
    boot: { id: 'boot-1', bootedAt: clock.now() - 3_600_000 },
    scheduler: make(),
    add: (definition) => {
      const parsed = scheduleDefinitionSchema.parse({ name: `task-${++counter}`, ...definition });
      const checked = checkDefinition(parsed, {
        projectId: (name) => name ?? 'default',
        forbids: () => undefined,
        explain: () => ALLOWED,
      });
      const task = store.create(checked, clock.now());
      harness.scheduler.poke();
      return task;
    },
    advance: async (ms) => {
      await harness.scheduler.settled();
      await clock.advance(ms, async () => {
        await flushAll();
        await harness.scheduler.settled();
      });
    },
    restart: (extra) => {
      harness.scheduler.stop();
      harness.scheduler = make(extra);
      return harness.scheduler;
    },
    crash: () => {
      clock.clearAll();
      presence.close();
      harness.scheduler = make();
      return harness.scheduler;
    },
    emitted: (type) => seen.filter((event) => event.type === type),
    close: () => {
      harness.scheduler.stop();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

async function flushAll(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
