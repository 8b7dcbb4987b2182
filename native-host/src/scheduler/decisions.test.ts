import {
  scheduleDefinitionSchema,
  verbatim,
  type Localized,
  type ScheduleDefinitionInput,
  type ScheduleOutcome,
} from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import type { DueTimes } from './catch-up.js';
import {
  decideDue,
  decideEnd,
  decideRecovery,
  decideRunNow,
  planRetry,
  type CrashVerdict,
  type DueInput,
  type EndOfRun,
} from './decisions.js';
import { checkDefinition } from './definition.js';
import { UNKNOWN_PRESENCE } from './presence/presence.js';
import type { CrashRecord, ScheduleTask, StepRecord } from './schedule-store.js';
import { stepFingerprint } from './steps-resume.js';
import { ALLOWED } from './testing/harness.js';
import { scheduleRun, T0 } from './testing/records.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const FIXED = [{ tool: 'system_info', input: {} }];

/** A task as the store returns it (validated as the daemon would, every tool allowed). */
function task(
  definition: Partial<ScheduleDefinitionInput> = {},
  state: Partial<Omit<ScheduleTask, 'definition'>> = {},
): ScheduleTask {
  const parsed = scheduleDefinitionSchema.parse({
    name: 'report',
    cron: '0 9 * * *',
    timezone: 'UTC',
    ...(definition.instruction === undefined ? { steps: FIXED } : {}),
    ...definition,
  });
  return {
    id: 'task-1',
    name: parsed.name,
    definition: checkDefinition(parsed, {
      projectId: (name) => name ?? 'default',
      forbids: () => undefined,
      explain: () => ALLOWED,
    }),
    enabled: true,
    disabledReason: null,
    cursorAt: T0 - 24 * HOUR,
    retry: null,
    consecutiveCrashes: 0,
    crashStreak: [],
    createdAt: '2025-06-01T00:00:00.000Z',
    updatedAt: '2025-06-01T00:00:00.000Z',
    ...state,
  };
}

/** A history row of a run that has not ended. */
const run = scheduleRun;

const dueAt = (...times: number[]): DueTimes => ({ times, total: times.length, latest: times.at(-1)! });

function due(input: Partial<DueInput> & { task: ScheduleTask }): DueInput {
  return {
    due: dueAt(T0),
    now: T0,
    running: false,
    deferred: undefined,
    capNotified: new Set(),
    presence: UNKNOWN_PRESENCE,
    sleeping: false,
    graceMs: 2 * MINUTE,
    batteryDeferMaxMs: 3 * HOUR,
    emergency: () => ({ active: false }),
    schedulerEnabled: () => true,
    spentToday: () => 0,
    ...input,
  };
}

const ended = (outcome: ScheduleOutcome, at = T0 + MINUTE): EndOfRun => ({
  outcome,
  summary: verbatim('it went'),
  costUsd: 0,
  at,
});

const kinds = (actions: readonly { kind: string }[]) => actions.map((action) => action.kind);

/** A death of the daemon put down to the task, during a run that started at `startedAt`. */
const crash = (startedAt: number): CrashRecord => ({
  foundAt: startedAt + MINUTE,
  historyId: `run-${startedAt}`,
  runStartedAt: startedAt,
});
const died = (streak: CrashRecord[], excuses: Localized[] = []): CrashVerdict => ({ died: true, streak, excuses });

describe('retry back-off', () => {
  it('waits retry_backoff_seconds, twice as long after each attempt, never more than an hour', () => {
    const flaky = task({ retry_backoff_seconds: 60, max_retries: 10 });
    const delays = [1, 2, 3, 4].map((attempt) => planRetry(flaky, run({ attempt }), 'failed', T0)!.at - T0);
    expect(delays).toEqual([MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE]);
    const slow = task({ retry_backoff_seconds: 1800, max_retries: 10 });
    expect(planRetry(slow, run({ attempt: 3 }), 'failed', T0)!.at - T0).toBe(HOUR);
  });

  it('is the next attempt of the same cron time; a fixed-step retry continues the run, an agent one does not', () => {
    const failed = run({ id: 'run-7', attempt: 2, scheduledFor: T0 - HOUR });
    expect(planRetry(task(), failed, 'failed', T0)).toEqual({
      at: T0 + 2 * MINUTE,
      attempt: 3,
      scheduledFor: T0 - HOUR,
      from: 'run-7',
    });
    expect(planRetry(task({ instruction: 'look around' }), failed, 'failed', T0)).toEqual({
      at: T0 + 2 * MINUTE,
      attempt: 3,
      scheduledFor: T0 - HOUR,
    });
  });

  it('stops after max_retries, and never retries a run a person started, a task that does not retry or one turned off', () => {
    const three = task({ max_retries: 3 });
    expect(planRetry(three, run({ attempt: 3 }), 'failed', T0)?.attempt).toBe(4);
    expect(planRetry(three, run({ attempt: 4 }), 'failed', T0)).toBeNull();
    expect(planRetry(task(), run({ trigger: 'manual' }), 'failed', T0)).toBeNull();
    expect(planRetry(task({ retry_on_failure: false }), run(), 'failed', T0)).toBeNull();
    expect(planRetry(task({}, { enabled: false }), run(), 'failed', T0)).toBeNull();
  });

  it('a run that failed ends with the retry planned', () => {
    const decision = decideEnd(run(), task(), ended('failed'));
    expect(decision).toMatchObject({ outcome: 'failed', uncertain: false });
    expect(decision.then).toEqual([
      { kind: 'plan_retry', retry: { at: T0 + 2 * MINUTE, attempt: 2, scheduledFor: T0, from: 'run-1' } },
    ]);
  });

  it('a retry that is due becomes the run, cleared with it, carrying over what the attempt it continues finished', () => {
    const waiting = task({}, { retry: { at: T0, attempt: 2, scheduledFor: T0 - HOUR, from: 'run-0' } });
    expect(decideDue(due({ task: waiting, due: undefined }))).toEqual([
      { kind: 'stop_deferring' },
      { kind: 'clear_retry' },
      { kind: 'start_run', trigger: 'retry', scheduledFor: T0 - HOUR, attempt: 2, missed: 0, continues: 'run-0' },
    ]);
  });

  it('a cron time that comes due supersedes a retry still waiting: the new run is a fresh attempt', () => {
    const waiting = task({}, { retry: { at: T0 + HOUR, attempt: 2, scheduledFor: T0 - 24 * HOUR } });
    expect(decideDue(due({ task: waiting }))).toEqual([
      { kind: 'stop_deferring' },
      { kind: 'clear_retry' },
      { kind: 'move_cursor', at: T0 },
      { kind: 'start_run', trigger: 'cron', scheduledFor: T0, attempt: 1, missed: 0 },
    ]);
  });
});

describe('no overlap unless the task allows it', () => {
  it('skips what came due while the previous run goes on, recording the span, and moves the cursor past it', () => {
    const actions = decideDue(due({ task: task(), running: true, due: dueAt(T0 - MINUTE, T0) }));
    expect(actions).toEqual([
      {
        kind: 'skip',
        first: T0 - MINUTE,
        last: T0,
        count: 2,
        times: [T0 - MINUTE, T0],
        reason: expect.objectContaining({ en: 'the previous run was still going' }),
      },
      { kind: 'move_cursor', at: T0 },
    ]);
    expect(kinds(actions)).not.toContain('start_run');
  });

  it('with the `each` policy, queues what came due behind the run going (nothing written)', () => {
    expect(decideDue(due({ task: task({ catch_up: 'each' }), running: true }))).toEqual([]);
  });

  it('leaves a retry that came due waiting while the run goes on', () => {
    const waiting = task({}, { retry: { at: T0, attempt: 2, scheduledFor: T0 } });
    expect(decideDue(due({ task: waiting, running: true, due: undefined }))).toEqual([]);
  });

  it('starts another run beside it when the task allows overlap', () => {
    expect(kinds(decideDue(due({ task: task({ allow_overlap: true }), running: true })))).toEqual([
      'stop_deferring',
      'move_cursor',
      'start_run',
    ]);
  });

  it('refuses run-now while a run goes on, unless overlap is allowed', () => {
    const refused = decideRunNow({
      task: task(),
      now: T0,
      running: true,
      emergency: { active: false },
      spentToday: () => 0,
    });
    expect(refused).toMatchObject({ kind: 'refuse', error: { code: 'INVALID_ARGUMENT' } });
    expect(
      decideRunNow({
        task: task({ allow_overlap: true }),
        now: T0,
        running: true,
        emergency: { active: false },
        spentToday: () => 0,
      }),
    ).toEqual({ kind: 'start_run', trigger: 'manual', scheduledFor: T0, attempt: 1, missed: 0 });
  });
});

describe('failure kinds that another try cannot change are not retried', () => {
  it.each<ScheduleOutcome>(['denied', 'blocked', 'limit_reached', 'stopped', 'succeeded'])('%s', (outcome) => {
    expect(planRetry(task(), run(), outcome, T0)).toBeNull();
    expect(decideEnd(run(), task(), ended(outcome)).then).toEqual([]);
  });

  it.each<ScheduleOutcome>(['failed', 'timed_out', 'interrupted', 'crashed'])('but %s is', (outcome) => {
    expect(planRetry(task(), run(), outcome, T0)).not.toBeNull();
  });

  it('nor is a fixed-step run whose cut-short step may or may not have happened: the person is asked', () => {
    const steps = [
      { tool: 'file_write', input: { path: '~/invoice.txt', content: 'invoice 42' } },
      { tool: 'bash_execute', input: { command: 'make-invoice && send' } },
    ];
    const record = (index: number, result: Partial<StepRecord> = {}): StepRecord => ({
      tool: steps[index]!.tool,
      call_id: `c${index}`,
      started_at: 't',
      fingerprint: stepFingerprint(steps[index]!),
      ...result,
    });
    const cutShort = run({ steps: [record(0, { finished_at: 't', ok: true }), record(1)] });
    const decision = decideEnd(cutShort, task({ steps }), ended('interrupted'));
    expect(decision).toMatchObject({ outcome: 'interrupted', errorCode: 'OUTCOME_UNKNOWN', uncertain: true, then: [] });
    expect(decision.summary.en).toContain('Step 2 of 2 (bash_execute) had begun and may or may not have happened');
  });
});

describe('crash back-off and disabling', () => {
  it('a crashed run waits at least 5 min after the first crash in a row, 20 min after the second', () => {
    expect(planRetry(task({}, { consecutiveCrashes: 1 }), run(), 'crashed', T0)!.at - T0).toBe(5 * MINUTE);
    expect(planRetry(task({}, { consecutiveCrashes: 2 }), run(), 'crashed', T0)!.at - T0).toBe(20 * MINUTE);
    // A longer back-off of the task's own still applies.
    const patient = task({ retry_backoff_seconds: 3600 }, { consecutiveCrashes: 1 });
    expect(planRetry(patient, run(), 'crashed', T0)!.at - T0).toBe(HOUR);
  });

  it('a run that did not crash clears the crashes counted against the task; a crash does not', () => {
    const crashing = task({}, { consecutiveCrashes: 2 });
    expect(kinds(decideEnd(run(), crashing, ended('succeeded')).then)).toEqual(['reset_crashes']);
    expect(kinds(decideEnd(run(), crashing, ended('crashed')).then)).toEqual(['plan_retry']);
    const blamed = task({}, { crashStreak: [crash(T0)] });
    expect(kinds(decideEnd(run(), blamed, ended('failed')).then)).toEqual(['reset_crashes', 'plan_retry']);
  });

  it('a fixed-step run the daemon died during ends as crashed, saying whether it counts against the task', () => {
    const open = run({ costUsd: 0.5, steps: [{ tool: 'system_info', call_id: 'c0', started_at: 't' }] });
    const counted = decideRecovery(open, task(), T0 + HOUR, died([crash(T0)]));
    expect(counted).toEqual([
      { kind: 'end_run', end: expect.objectContaining({ outcome: 'crashed', costUsd: 0.5, at: T0 + HOUR }) },
    ]);
    const [end] = counted;
    expect(end?.kind === 'end_run' && end.end.summary.en).toBe(
      'The daemon died during this run (step 1 of 1 was the last one begun). It counts against the task: its run ' +
        'was the only thing going and no other cause is known (1 such death in a row; at 3 the task is turned off).',
    );
    const excused = decideRecovery(
      open,
      task(),
      T0 + HOUR,
      died([], [verbatim('runs of other tasks were going too ("b")')]),
    );
    const [notCounted] = excused;
    expect(notCounted?.kind === 'end_run' && notCounted.end.summary.en).toContain(
      'It does not count against the task: runs of other tasks were going too ("b").',
    );
  });

  it('an agent run the daemon died during is followed again (it resumes from its checkpoint)', () => {
    expect(decideRecovery(run({ runId: 'agent-1' }), task({ instruction: 'look' }), T0, died([crash(T0)]))).toEqual([
      { kind: 'follow_agent_run', runId: 'agent-1', unsuspend: false },
    ]);
  });

  it('the third death in a row put down to the task turns it off, naming each death and why; drops its retry and ends the run', () => {
    const crashing = task({}, { retry: { at: T0, attempt: 2, scheduledFor: T0 } });
    const streak = [crash(T0 - 2 * HOUR), crash(T0 - HOUR), crash(T0)];
    const actions = decideRecovery(run(), crashing, T0 + MINUTE, died(streak));
    expect(kinds(actions)).toEqual(['disable', 'clear_retry', 'end_run']);
    const disable = actions[0];
    const reason = disable?.kind === 'disable' ? disable.reason : undefined;
    expect(reason?.en).toContain('the daemon died during its runs 3 times in a row');
    for (const at of ['2025-06-02T07:00:00.000Z', '2025-06-02T08:00:00.000Z', '2025-06-02T09:00:00.000Z']) {
      expect(reason?.en).toContain(`between ${at} and`);
      expect(reason?.['zh-CN']).toContain(at);
    }
    expect(reason?.en).toContain('each time its run was the only thing going and no other cause was known');
    expect(reason?.['zh-CN']).toContain('守护进程在它的运行期间连续崩溃了 3 次');

    const agent = decideRecovery(run({ runId: 'agent-1' }), task({ instruction: 'look' }), T0, died(streak));
    expect(kinds(agent)).toEqual(['disable', 'abandon_agent_run', 'clear_retry', 'end_run']);
    // A second run of the task left going (overlap allowed): the task is already off.
    const off = task({}, { enabled: false });
    expect(kinds(decideRecovery(run({ id: 'run-2' }), off, T0, died(streak)))).toEqual(['clear_retry', 'end_run']);
    // Turned off, the task gets no retry for the crash that turned it off.
    expect(planRetry(task({}, { enabled: false, consecutiveCrashes: 3 }), run(), 'crashed', T0)).toBeNull();
  });

  it('deaths not put down to the task never turn it off, however many', () => {
    const excuse = [verbatim('the computer restarted')];
    const many = task({}, { consecutiveCrashes: 9 });
    expect(kinds(decideRecovery(run(), many, T0, died([], excuse)))).toEqual(['end_run']);
  });

  it('a clean stop that could not mark the run suspended is still a clean stop, not a crash', () => {
    const clean = { died: false, streak: [], excuses: [] };
    expect(decideRecovery(run({ runId: 'agent-1' }), task({ instruction: 'look' }), T0, clean)).toEqual([
      { kind: 'follow_agent_run', runId: 'agent-1', unsuspend: false },
    ]);
    expect(decideRecovery(run(), task(), T0, clean)).toEqual([
      { kind: 'end_run', end: expect.objectContaining({ outcome: 'interrupted' }) },
    ]);
  });

  it('a clean stop is no crash: an agent run is followed again, a fixed-step run was interrupted', () => {
    const clean = { died: false, streak: [], excuses: [] };
    expect(
      decideRecovery(run({ suspended: true, runId: 'agent-1' }), task({ instruction: 'look' }), T0, clean),
    ).toEqual([{ kind: 'follow_agent_run', runId: 'agent-1', unsuspend: true }]);
    expect(decideRecovery(run({ suspended: true }), task({}, { consecutiveCrashes: 2 }), T0, clean)).toEqual([
      { kind: 'end_run', end: expect.objectContaining({ outcome: 'interrupted' }) },
    ]);
  });
});

describe('daily cost cap', () => {
  it('once reached, skips what is due, drops the retry, and says so once a day', () => {
    const capped = task({ daily_cost_cap_usd: 5 }, { retry: { at: T0 + HOUR, attempt: 2, scheduledFor: T0 - HOUR } });
    const actions = decideDue(due({ task: capped, spentToday: () => 6 }));
    expect(kinds(actions)).toEqual(['stop_deferring', 'skip', 'move_cursor', 'clear_retry', 'notify_cap']);
    const skip = actions[1];
    expect(skip?.kind === 'skip' && skip.reason.en).toBe('its daily cost cap of $5 is reached ($6.0000 spent today)');
    expect(actions[4]).toEqual({
      kind: 'notify_cap',
      key: 'task-1:2025-06-02',
      title: 'NextAI: "report" paused for today',
      body: 'It will not run again today: its daily cost cap of $5 is reached ($6.0000 spent today).',
    });

    const told = decideDue(due({ task: capped, spentToday: () => 6, capNotified: new Set(['task-1:2025-06-02']) }));
    expect(kinds(told)).toEqual(['stop_deferring', 'skip', 'move_cursor', 'clear_retry']);
  });

  it('counts the day in the task’s time zone', () => {
    const shanghai = task({ timezone: 'Asia/Shanghai', daily_cost_cap_usd: 1 });
    const late = Date.parse('2025-06-02T17:00:00Z'); // 01:00 on June 3rd in Shanghai
    const actions = decideDue(due({ task: shanghai, now: late, due: dueAt(late), spentToday: () => 1 }));
    expect(actions.at(-1)).toMatchObject({ kind: 'notify_cap', key: 'task-1:2025-06-03' });
  });

  it('below the cap, the run starts', () => {
    const actions = decideDue(due({ task: task({ daily_cost_cap_usd: 5 }), spentToday: () => 4.99 }));
    expect(kinds(actions)).toEqual(['stop_deferring', 'move_cursor', 'start_run']);
  });

  it('refuses run-now once reached; the emergency stop comes first, and then nothing is read', () => {
    const capped = task({ daily_cost_cap_usd: 1 });
    const limit = decideRunNow({
      task: capped,
      now: T0,
      running: false,
      emergency: { active: false },
      spentToday: () => 1.5,
    });
    expect(limit).toMatchObject({ kind: 'refuse', error: { code: 'LIMIT_REACHED' } });
    expect(limit.kind === 'refuse' && limit.error.message).toContain('daily cap is $1');
    const stopped = decideRunNow({
      task: capped,
      now: T0,
      running: false,
      emergency: { active: true, reason: 'test' },
      spentToday: () => {
        throw new Error('not read');
      },
    });
    expect(stopped).toMatchObject({ kind: 'refuse', error: { code: 'EMERGENCY_STOPPED' } });
  });
});

describe('holding a due run back', () => {
  const notRead = () => {
    throw new Error('not read');
  };

  it('waits while the emergency stop is on, announcing a reason only when it is new; the cost is not read', () => {
    const input = due({ task: task(), emergency: () => ({ active: true, reason: 'test' }), spentToday: notRead });
    const [first] = decideDue(input);
    expect(first).toMatchObject({
      kind: 'defer',
      changed: true,
      deferral: { reason: { en: 'the emergency stop is on (test)' } },
    });
    const again = decideDue({ ...input, deferred: first?.kind === 'defer' ? first.deferral : undefined });
    expect(again).toMatchObject([{ kind: 'defer', changed: false }]);
  });

  it('waits on battery unless urgent, for at most batteryDeferMaxMs after it came due', () => {
    const presence = { ...UNKNOWN_PRESENCE, onBattery: true };
    expect(decideDue(due({ task: task(), presence }))).toMatchObject([
      { kind: 'defer', deferral: { onBattery: true } },
    ]);
    expect(kinds(decideDue(due({ task: task({ urgent: true }), presence })))).toContain('start_run');
    const longAgo = decideDue(due({ task: task(), presence, due: dueAt(T0 - 3 * HOUR), now: T0 }));
    expect(kinds(longAgo)).toContain('start_run');
  });

  it('waits while the scheduler is turned off, the machine goes to sleep, or the screen is locked for a task that uses it', () => {
    const waits = (input: Partial<DueInput> & { task: ScheduleTask }) => decideDue(due(input))[0]?.kind;
    expect(waits({ task: task(), schedulerEnabled: () => false })).toBe('defer');
    expect(waits({ task: task(), sleeping: true })).toBe('defer');
    const locked = { ...UNKNOWN_PRESENCE, screenLocked: true };
    expect(waits({ task: task({ steps: [{ tool: 'screenshot', input: {} }] }), presence: locked })).toBe('defer');
    expect(waits({ task: task(), presence: locked })).toBe('stop_deferring');
  });
});
