import {
  AppError,
  localizedError,
  say,
  type Localized,
  type ScheduleOutcome,
  type ScheduleTrigger,
} from '@nextai/shared';

import {
  CRASH_LIMIT,
  crashBackoffMs,
  planCatchUp,
  retryDelayMs,
  spanOf,
  type DueTimes,
  type SkippedSpan,
} from './catch-up.js';
import { dayIn } from './cron.js';
import { needsScreen } from './definition.js';
import type { ExecutionResult } from './executor.js';
import type { PresenceState } from './presence/presence.js';
import type { CrashRecord, RetryPlan, ScheduleRunRecord, ScheduleTask } from './schedule-store.js';
import { carriedSteps, uncertainStep } from './steps-resume.js';

/**
 * What the scheduler decides, as data: given a task, its state, the time and what happened, each
 * function here returns the actions to take. Nothing here writes, reads the database or the clock,
 * announces or starts anything — decision-writer.ts applies the actions (the writes of one
 * decision in one transaction, events and notifications after its commit), recovery.ts those about
 * runs the last daemon left going, and scheduler.ts is the loop that asks and applies.
 */

/** Why a due run waits; on battery the conditions are looked at less often. */
export interface Deferral {
  reason: Localized;
  onBattery?: true;
}

/** How a run ended, as it is to be recorded. */
export interface EndOfRun {
  outcome: ScheduleOutcome;
  summary: Localized;
  costUsd: number;
  errorCode?: string | undefined;
  at: number;
}

/** Write the row of a run, and start the run once the row is on disk. */
export interface StartRun {
  kind: 'start_run';
  trigger: ScheduleTrigger;
  scheduledFor: number;
  attempt: number;
  missed: number;
  /** The oldest of the earlier cron times it also stands for (catch-up `once`); absent when none. */
  missedTimes?: number[];
  /** A fixed-step retry: the history row of the attempt it continues (its finished steps are carried over). */
  continues?: string;
}

/** What to do with a task that is due (or whose retry is). */
export type DueAction =
  /** Record these due times as skipped, in one history row (announced after the commit). */
  | ({ kind: 'skip'; reason: Localized } & SkippedSpan)
  /** Every cron time up to `at` is dealt with. */
  | { kind: 'move_cursor'; at: number }
  /** The retry waiting is dropped (superseded, or becoming the run started with it). */
  | { kind: 'clear_retry' }
  | StartRun
  /** The task waits; `changed`: for a reason it did not wait for before (remember, log, announce). */
  | { kind: 'defer'; deferral: Deferral; changed: boolean }
  /** The task no longer waits. */
  | { kind: 'stop_deferring' }
  /** Tell the person the task is paused for the rest of the day (once per task and day: `key`). */
  | { kind: 'notify_cap'; key: string; title: string; body: string };

/** Writes that go with a run's end, for a task that still exists. */
export type EndAction =
  /** The run did not crash: no crash counts against the task any more. */
  { kind: 'reset_crashes' } | { kind: 'plan_retry'; retry: RetryPlan };

/** What to do with a run the last daemon left going. */
export type RecoveryAction =
  /** Turn the task off, for `reason`. */
  | { kind: 'disable'; reason: Localized }
  /** End the agent run behind it, which nothing will follow any more (after the commit). */
  | { kind: 'abandon_agent_run'; runId: string; reason: string }
  | { kind: 'clear_retry' }
  /** Record the run's end (and what goes with it: see {@link decideEnd}). */
  | { kind: 'end_run'; end: EndOfRun }
  /** The agent run resumes from its checkpoint by itself: follow it (after the commit). */
  | { kind: 'follow_agent_run'; runId: string; unsuspend: boolean };

/** Outcomes worth another try: the next attempt may go better. A denial, a block or a limit will not change. */
export const RETRIED: ReadonlySet<ScheduleOutcome> = new Set<ScheduleOutcome>([
  'failed',
  'timed_out',
  'crashed',
  'interrupted',
]);

/** What a decision about a due task looks at. */
export interface DueInput {
  task: ScheduleTask;
  /** Its cron times due now, if any. */
  due: DueTimes | undefined;
  now: number;
  /** A run of the task is going. */
  running: boolean;
  /** Why the task waited at the last look, if it did. */
  deferred: Deferral | undefined;
  /** `task id:day` of the tasks already announced as paused for that day. */
  capNotified: ReadonlySet<string>;
  presence: PresenceState;
  /** The machine said it is about to sleep (and has not said it woke up). */
  sleeping: boolean;
  /** How late a run may start and still count as on time. */
  graceMs: number;
  /** On battery, how long a non-urgent run waits for mains power at most. */
  batteryDeferMaxMs: number;
  /**
   * What is read only once the decision gets that far, as it always was: the emergency stop,
   * config.json's `scheduler.enabled` (read from disk), and what the task spent today (a query).
   */
  emergency(): { active: boolean; reason?: string | undefined };
  schedulerEnabled(): boolean;
  spentToday(): number;
}

/**
 * Decides what to do with a task that is due. A run still going (and overlap not allowed) has
 * what came due meanwhile skipped, or — with the `each` policy — queued behind it; a run that has
 * to wait (see {@link deferralOf}) waits; a task that spent its daily cap has what is due skipped
 * and its retry dropped; otherwise the due cron times follow the catch-up policy (catch-up.ts) —
 * a cron time supersedes a retry still waiting, the new run being a fresh attempt — or the retry
 * that is due becomes a run. The actions are in the order they are to be applied.
 */
export function decideDue(input: DueInput): DueAction[] {
  const { task, due, now } = input;
  const definition = task.definition;
  if (input.running && !definition.allow_overlap) {
    // `each` queues behind the run going; otherwise what came due meanwhile is skipped.
    if (!due || definition.catch_up === 'each') return [];
    return [
      {
        kind: 'skip',
        ...spanOf(due, 0, due.total),
        reason: say('the previous run was still going', '上一次运行还没结束'),
      },
      { kind: 'move_cursor', at: due.latest },
    ];
  }
  const oldest = Math.min(due?.times[0] ?? Infinity, task.retry?.at ?? Infinity);
  const deferral = deferralOf(input, oldest);
  if (deferral) return [{ kind: 'defer', deferral, changed: input.deferred?.reason.en !== deferral.reason.en }];
  const actions: DueAction[] = [{ kind: 'stop_deferring' }];

  const spent = input.spentToday();
  if (spent >= definition.daily_cost_cap_usd) {
    const reason = say(
      `its daily cost cap of $${definition.daily_cost_cap_usd} is reached ($${spent.toFixed(4)} spent today)`,
      `已达到每日费用上限 $${definition.daily_cost_cap_usd}（今天已花费 $${spent.toFixed(4)}）`,
    );
    if (due) {
      actions.push({ kind: 'skip', ...spanOf(due, 0, due.total), reason }, { kind: 'move_cursor', at: due.latest });
    }
    if (task.retry) actions.push({ kind: 'clear_retry' });
    const key = `${task.id}:${dayIn(now, definition.timezone)}`;
    if (!input.capNotified.has(key)) {
      actions.push({
        kind: 'notify_cap',
        key,
        title: `NextAI: "${task.name}" paused for today`,
        body: `It will not run again today: ${reason.en}.`,
      });
    }
    return actions;
  }

  if (due) {
    const plan = planCatchUp(due, definition.catch_up, now, input.graceMs);
    // One decision: the retry a cron time supersedes, the skip, the new cursor and the run it
    // fires are on disk together — or, if any write fails, none of them.
    // A cron time supersedes a retry still waiting: the new run is a fresh attempt.
    if (task.retry) actions.push({ kind: 'clear_retry' });
    if (plan.skipped) {
      actions.push({
        kind: 'skip',
        ...plan.skipped,
        reason: say(
          'missed while the daemon was not running or the task was held back',
          '守护进程没有运行或任务被暂缓时错过了',
        ),
      });
    }
    actions.push({ kind: 'move_cursor', at: plan.cursor });
    if (plan.fire) {
      actions.push({
        kind: 'start_run',
        trigger: plan.fire.late ? 'catch_up' : 'cron',
        scheduledFor: plan.fire.scheduledFor,
        attempt: 1,
        missed: plan.fire.missed,
        ...(plan.fire.missedTimes.length > 0 ? { missedTimes: plan.fire.missedTimes } : {}),
      });
    }
    // `each` has more to run: look again once this run ends (the run's end pokes).
    return actions;
  }
  const retry = task.retry;
  if (retry && retry.at <= now) {
    // The retry is cleared together with the run it becomes.
    actions.push(
      { kind: 'clear_retry' },
      {
        kind: 'start_run',
        trigger: 'retry',
        scheduledFor: retry.scheduledFor,
        attempt: retry.attempt,
        missed: 0,
        ...(definition.steps && retry.from !== undefined ? { continues: retry.from } : {}),
      },
    );
  }
  return actions;
}

/**
 * Why a due run must wait now, or undefined: the emergency stop, the scheduler turned off in
 * config.json, the machine going to sleep, a locked screen for a task that uses it, battery for a
 * task that is not urgent (for at most `batteryDeferMaxMs` after it came due).
 */
function deferralOf(input: DueInput, dueSince: number): Deferral | undefined {
  const { task, presence, now } = input;
  const emergency = input.emergency();
  if (emergency.active) {
    return {
      reason: say(
        `the emergency stop is on (${emergency.reason ?? 'no reason given'})`,
        `紧急停止已开启（${emergency.reason ?? '未说明原因'}）`,
      ),
    };
  }
  if (!input.schedulerEnabled()) {
    return {
      reason: say(
        'the scheduler is turned off in config.json (scheduler.enabled)',
        '定时任务在 config.json 中被关闭了（scheduler.enabled）',
      ),
    };
  }
  if (input.sleeping || presence.sleeping) {
    return { reason: say('the machine is going to sleep', '电脑即将进入睡眠') };
  }
  if (presence.screenLocked === true && needsScreen(task.definition)) {
    return {
      reason: say(
        'the screen is locked or off, and this task uses the screen',
        '屏幕已锁定或关闭，而这个任务要用到屏幕',
      ),
    };
  }
  if (presence.onBattery === true && !task.definition.urgent && now - dueSince < input.batteryDeferMaxMs) {
    return {
      reason: say('the computer runs on battery (the task is not urgent)', '电脑正在用电池供电（这个任务不紧急）'),
      onBattery: true,
    };
  }
  return undefined;
}

/**
 * A person asked for a run now: it starts unless the emergency stop is on, a run of the task is
 * still going (and overlap is not allowed) or the task spent its daily cap. Conditions like
 * battery do not hold it back.
 */
export function decideRunNow(input: {
  task: ScheduleTask;
  now: number;
  running: boolean;
  emergency: { active: boolean; reason?: string | undefined };
  /** Read only when the other checks pass. */
  spentToday(): number;
}): StartRun | { kind: 'refuse'; error: AppError } {
  const { task, emergency } = input;
  if (emergency.active) {
    return {
      kind: 'refuse',
      error: new AppError(
        'EMERGENCY_STOPPED',
        `The emergency stop is on (${emergency.reason ?? 'no reason given'}): nothing starts until it is reset.`,
      ),
    };
  }
  if (!task.definition.allow_overlap && input.running) {
    return {
      kind: 'refuse',
      error: new AppError(
        'INVALID_ARGUMENT',
        `"${task.name}" is still running; wait for that run to end (or allow overlapping runs for this task).`,
      ),
    };
  }
  const spent = input.spentToday();
  if (spent >= task.definition.daily_cost_cap_usd) {
    return {
      kind: 'refuse',
      error: new AppError(
        'LIMIT_REACHED',
        `"${task.name}" already spent $${spent.toFixed(4)} today; its daily cap is $${task.definition.daily_cost_cap_usd}.`,
      ),
    };
  }
  return { kind: 'start_run', trigger: 'manual', scheduledFor: input.now, attempt: 1, missed: 0 };
}

/** What a run's end is recorded as, and what goes with it. */
export interface EndDecision {
  outcome: ScheduleOutcome;
  summary: Localized;
  errorCode: string | undefined;
  /** A step of it may or may not have happened: it is not retried, and the person is asked to look. */
  uncertain: boolean;
  /** In this order, with the end (nothing when the task was deleted while the run went on). */
  then: EndAction[];
}

/**
 * How a run that has not ended yet ends: `run` is its row as it is, `task` the task as it is now
 * (undefined when it was deleted while the run went on).
 *
 * A fixed-step run that ended without succeeding is looked at step by step: when every step had
 * in fact finished (the daemon died before the end was written), it succeeded; when the step
 * after the finished ones may or may not have happened, it is not retried — nothing here can
 * look before acting again, so a person does — and it says so (error code OUTCOME_UNKNOWN).
 * Any other end that may go better next time gets a retry ({@link planRetry}); an end that is not
 * a crash clears the crashes counted against the task (for its back-off and for turning it off).
 */
export function decideEnd(run: ScheduleRunRecord, task: ScheduleTask | undefined, end: EndOfRun): EndDecision {
  let { outcome, summary, errorCode } = end;
  let uncertain = false;
  const steps = task?.definition.steps;
  if (steps && run.runId === null && RETRIED.has(outcome)) {
    const done = carriedSteps(steps, run.steps).length;
    const unknown = uncertainStep(steps, run.steps);
    if (done === steps.length) {
      outcome = 'succeeded';
      summary = say(
        `All ${steps.length} step${steps.length === 1 ? ' was' : 's were'} done before the run was cut short (${summary.en})`,
        `运行被中断之前，全部 ${steps.length} 步都已完成（${summary['zh-CN']}）`,
      );
      errorCode = undefined;
    } else if (unknown) {
      uncertain = true;
      errorCode = 'OUTCOME_UNKNOWN';
      const step = `${unknown.index + 1}`;
      const tool = unknown.record.tool;
      summary = say(
        `${summary.en} Step ${step} of ${steps.length} (${tool}) had begun and may or may not ` +
          `have happened, so the run is not tried again by itself: check what it did, then run what is left ` +
          `yourself${done > 0 ? ` (steps 1–${done} are done)` : ''}, or \`nextai schedule run-now\` to run the task from the start.`,
        `${summary['zh-CN']} 第 ${step}/${steps.length} 步（${tool}）已经开始，可能做了也可能没做，所以不会自动重试：` +
          `请先查看它做了什么，再自己完成剩下的步骤${done > 0 ? `（第 1–${done} 步已完成）` : ''}，` +
          `或用 \`nextai schedule run-now\` 从头运行这个任务。`,
      );
    }
  }
  const then: EndAction[] = [];
  if (task) {
    const crashesCount = task.consecutiveCrashes > 0 || task.crashStreak.length > 0;
    if (outcome !== 'crashed' && crashesCount) then.push({ kind: 'reset_crashes' });
    const retry = uncertain ? null : planRetry(task, run, outcome, end.at);
    if (retry) then.push({ kind: 'plan_retry', retry });
  }
  return { outcome, summary, errorCode, uncertain, then };
}

/**
 * The next attempt of a run that ended with `outcome` at `now`, if it gets one: only outcomes a
 * new try may change, for a task that retries, is still on and has retries left, and never for a
 * run a person started. The back-off doubles with each attempt; after a crash it is at least the
 * crash back-off, so a task that takes the daemon down cannot do so in a tight loop.
 */
export function planRetry(
  task: ScheduleTask,
  run: Pick<ScheduleRunRecord, 'id' | 'attempt' | 'scheduledFor' | 'trigger'>,
  outcome: ScheduleOutcome,
  now: number,
): RetryPlan | null {
  const definition = task.definition;
  if (!RETRIED.has(outcome) || !definition.retry_on_failure || run.trigger === 'manual') return null;
  // Turned off (by the person, or for crashing the daemon): nothing is tried again.
  if (!task.enabled) return null;
  if (run.attempt > definition.max_retries) return null;
  let delay = retryDelayMs(run.attempt, definition.retry_backoff_seconds);
  if (outcome === 'crashed') delay = Math.max(delay, crashBackoffMs(task.consecutiveCrashes));
  return {
    at: now + delay,
    attempt: run.attempt + 1,
    scheduledFor: run.scheduledFor,
    // A fixed-step retry continues this run: the steps it finished are not done again.
    ...(definition.steps ? { from: run.id } : {}),
  };
}

/** How the last daemon's end concerns one task with a run left going (see crash-judgement.ts). */
export interface CrashVerdict {
  /** The daemon died (false: it stopped cleanly, even if it could not mark the run suspended). */
  died: boolean;
  /** The deaths in a row put down to the task, this one included; empty when this one is not. */
  streak: readonly CrashRecord[];
  /** Why this death is not put down to the task; empty when it is (or when the daemon did not die). */
  excuses: readonly Localized[];
}

/**
 * A run the last daemon left going (`open`), of `task` as it is (its crash counts already
 * updated for this death), found at `now`. Suspended by a clean stop: an agent run is followed
 * again (it resumes from its checkpoint), a fixed-step run was interrupted. Not suspended: the
 * daemon died during it. When the deaths put down to the task reach {@link CRASH_LIMIT} in a row
 * (`verdict`: crash-judgement.ts says when a death is), the task is turned off — the reason names
 * each death and why it is put down to the task — and an agent run behind it ended; otherwise an
 * agent run is followed again, and a fixed-step run ends as crashed, its summary saying whether
 * the death counts against the task and why — retried only after the crash back-off, and only
 * from after the steps it finished (see {@link decideEnd}). The actions of one run are one
 * decision: they are written together.
 */
export function decideRecovery(
  open: ScheduleRunRecord,
  task: ScheduleTask,
  now: number,
  verdict: CrashVerdict,
): RecoveryAction[] {
  if (open.suspended || !verdict.died) {
    if (open.runId !== null) return [{ kind: 'follow_agent_run', runId: open.runId, unsuspend: open.suspended }];
    return [
      {
        kind: 'end_run',
        end: {
          outcome: 'interrupted',
          summary: say('The daemon stopped during this run.', '这次运行期间守护进程停止了。'),
          costUsd: open.costUsd,
          at: now,
        },
      },
    ];
  }
  if (verdict.streak.length >= CRASH_LIMIT) {
    const reason = crashLoopReason(task, verdict.streak);
    const actions: RecoveryAction[] = task.enabled ? [{ kind: 'disable', reason }] : [];
    if (open.runId !== null) {
      actions.push({
        kind: 'abandon_agent_run',
        runId: open.runId,
        reason: 'its scheduled task crashed the daemon repeatedly',
      });
    }
    actions.push(
      { kind: 'clear_retry' },
      {
        kind: 'end_run',
        end: {
          outcome: 'crashed',
          summary: say(
            `The daemon died during this run; the task was turned off: ${reason.en}`,
            `这次运行期间守护进程崩溃了，任务已被关闭：${reason['zh-CN']}`,
          ),
          costUsd: open.costUsd,
          at: now,
        },
      },
    );
    return actions;
  }
  // The agent run resumes from its last checkpoint (nothing is done twice); follow it.
  if (open.runId !== null) return [{ kind: 'follow_agent_run', runId: open.runId, unsuspend: false }];
  const total = task.definition.steps?.length ?? 0;
  const counted = crashCounted(verdict);
  return [
    {
      kind: 'end_run',
      end: {
        outcome: 'crashed',
        summary: say(
          `The daemon died during this run (step ${open.steps.length} of ${total} was the last one begun). ${counted.en}`,
          `这次运行期间守护进程崩溃了（最后开始的是第 ${open.steps.length}/${total} 步）。${counted['zh-CN']}`,
        ),
        costUsd: open.costUsd,
        at: now,
      },
    },
  ];
}

/** Whether a death the task's run was going at counts against the task, and why, in words. */
export function crashCounted(verdict: CrashVerdict): Localized {
  if (verdict.streak.length > 0) {
    const n = verdict.streak.length;
    return say(
      `It counts against the task: its run was the only thing going and no other cause is known ` +
        `(${n} such death${n === 1 ? '' : 's'} in a row; at ${CRASH_LIMIT} the task is turned off).`,
      `这次计入该任务：当时只有它的运行在进行，也没有已知的其他原因（已连续 ${n} 次；达到 ${CRASH_LIMIT} 次时任务会被关闭）。`,
    );
  }
  const en = verdict.excuses.map((excuse) => excuse.en).join('; ');
  const zh = verdict.excuses.map((excuse) => excuse['zh-CN']).join('；');
  return say(`It does not count against the task: ${en}.`, `这次不计入该任务：${zh}。`);
}

/** Why a task is turned off for crashing the daemon: each death, and why it is put down to the task. */
function crashLoopReason(task: ScheduleTask, streak: readonly CrashRecord[]): Localized {
  const iso = (time: number) => new Date(time).toISOString();
  const spans = streak.map((crash) => ({
    en: `between ${iso(crash.runStartedAt)} and ${iso(crash.foundAt)}`,
    zh: `${iso(crash.runStartedAt)} 至 ${iso(crash.foundAt)} 之间`,
  }));
  const enable = `\`nextai schedule enable ${task.name}\``;
  return say(
    `the daemon died during its runs ${streak.length} times in a row (${spans.map((span) => span.en).join('; ')}), ` +
      'and each time its run was the only thing going and no other cause was known — no other task’s run or ' +
      'agent run, no restart of the computer, no database that could not be written. Turned off so it cannot ' +
      `crash the daemon again; turn it on again with ${enable} once fixed.`,
    `守护进程在它的运行期间连续崩溃了 ${streak.length} 次（${spans.map((span) => span.zh).join('；')}），` +
      '每次都只有它的运行在进行，也没有已知的其他原因——没有其他任务或智能体的运行，电脑没有重启，数据库也可以写入。' +
      `已关闭，免得再让守护进程崩溃；修好后用 ${enable} 重新开启。`,
  );
}

/**
 * The daemon is stopping while `run` goes on: an agent run is suspended (it resumes from its
 * checkpoint at the next start); a fixed-step run is cut short and recorded as interrupted.
 */
export function decideStop(
  run: ScheduleRunRecord,
  now: number,
): { kind: 'suspend' } | { kind: 'end_run'; end: EndOfRun } {
  if (run.runId !== null) return { kind: 'suspend' };
  return {
    kind: 'end_run',
    end: {
      outcome: 'interrupted',
      summary: say(
        'The daemon stopped while this run was going; the step in progress was cut short.',
        '这次运行进行中守护进程停止了，正在进行的那一步被中断。',
      ),
      costUsd: run.costUsd,
      at: now,
    },
  };
}

/** How a run ended, from what its execution reported; one stopped at the wall-time limit timed out. */
export function endOfExecution(result: ExecutionResult, timedOut: boolean, at: number): EndOfRun {
  return {
    outcome: timedOut ? 'timed_out' : result.outcome,
    summary: timedOut
      ? prefixed(say('Stopped at the wall-time limit. ', '到达运行时长上限，已停止。'), result.summary)
      : result.summary,
    costUsd: result.costUsd,
    errorCode: result.errorCode,
    at,
  };
}

/** The end of a run whose execution could not even begin. */
export function couldNotStart(error: unknown, at: number): EndOfRun {
  return {
    outcome: 'failed',
    summary: prefixed(say('The run could not start: ', '运行无法开始：'), localizedError(error)),
    costUsd: 0,
    errorCode: error instanceof AppError ? error.code : undefined,
    at,
  };
}

/** What an execution that broke its promise never to reject is taken to have reported. */
export function failedUnexpectedly(error: unknown): ExecutionResult {
  return {
    outcome: 'failed',
    summary: prefixed(say('The run failed unexpectedly: ', '运行意外失败：'), localizedError(error)),
    costUsd: 0,
  };
}

/** `lead` followed by `text`, in each language. */
function prefixed(lead: Localized, text: Localized): Localized {
  return say(lead.en + text.en, lead['zh-CN'] + text['zh-CN']);
}
