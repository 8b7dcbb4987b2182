import { say, translationsOf, type EventData, type EventType, type ScheduleOutcome } from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import { dayIn } from './cron.js';
import { decideEnd, type Deferral, type DueAction, type EndOfRun, type StartRun } from './decisions.js';
import type { RetryPlan, ScheduleRunRecord, ScheduleStore, ScheduleTask, StepRecord } from './schedule-store.js';
import { carriedSteps } from './steps-resume.js';

export interface DecisionWriterOptions {
  store: ScheduleStore;
  events: { append<T extends EventType>(type: T, data: EventData<T>): unknown };
  notify(title: string, body: string): Promise<unknown>;
  log: Logger;
  /** Starts a run whose row is on disk (the scheduler follows it from there). */
  launch(task: ScheduleTask, run: ScheduleRunRecord, now: number, resume?: { carried: StepRecord[] }): void;
  /** Why a due run of each task waits, while it does: the scheduler's, kept here as decided. */
  deferred: Map<string, Deferral>;
  /** `task id:day` of the tasks announced as paused for that day. */
  capNotified: Set<string>;
}

/** How a run ended, as {@link DecisionWriter.finish} recorded it, to be announced after the commit. */
export interface Ended {
  taskId: string;
  run: ScheduleRunRecord;
  /** Undefined when the task was deleted while its run went on (its history went with it). */
  task: ScheduleTask | undefined;
  retry: RetryPlan | null;
  /** A step of it may or may not have happened: it is not retried, and the person is asked to look. */
  uncertain: boolean;
}

/**
 * Applies what the scheduler decided (decisions.ts): the writes, then — once they are on disk —
 * the events, notifications and runs they start. The writes of one decision go into the caller's
 * transaction (the store's `atomically`, committed with synchronous = FULL): a moved cursor, a
 * cleared or planned retry and the history rows that go with them are on disk whole or not at all.
 * What is announced or started waits in the caller's `after` list until that commit: nothing
 * starts that is not on disk.
 */
export class DecisionWriter {
  constructor(private readonly options: DecisionWriterOptions) {}

  /** Applies the actions decided for a due task: part of the caller's transaction; the rest goes to `after`. */
  apply(task: ScheduleTask, actions: readonly DueAction[], now: number, after: (() => void)[]): void {
    const { store, log, deferred, capNotified } = this.options;
    for (const action of actions) {
      switch (action.kind) {
        case 'skip': {
          const skipped = this.recordSkip(task, action, now);
          after.push(() => this.emitRun(task.id, skipped));
          break;
        }
        case 'move_cursor':
          store.setCursor(task.id, action.at);
          break;
        case 'clear_retry':
          store.setRetry(task.id, null);
          break;
        case 'start_run': {
          const run = this.recordRun(task, action, now);
          const resume = action.continues === undefined ? undefined : this.resumeOf(task, action.continues);
          after.push(() => this.options.launch(task, run, now, resume));
          break;
        }
        case 'defer': {
          if (!action.changed) break;
          const { deferral } = action;
          deferred.set(task.id, deferral);
          log.info('a due task waits', { task: task.name, reason: deferral.reason.en });
          after.push(() =>
            this.options.events.append('schedule.deferred', {
              schedule_id: task.id,
              reason: deferral.reason.en,
              reason_translations: translationsOf(deferral.reason),
            }),
          );
          break;
        }
        case 'stop_deferring':
          deferred.delete(task.id);
          break;
        case 'notify_cap':
          capNotified.add(action.key);
          after.push(() => this.announce(action.title, action.body));
          break;
        default:
          action satisfies never;
      }
    }
  }

  /** Writes the row of a run about to start (part of the caller's transaction); start it after the commit. */
  recordRun(
    task: ScheduleTask,
    plan: Pick<StartRun, 'trigger' | 'scheduledFor' | 'attempt' | 'missed' | 'missedTimes'>,
    now: number,
  ): ScheduleRunRecord {
    return this.options.store.insertRun({
      scheduleId: task.id,
      scheduledFor: plan.scheduledFor,
      day: dayIn(plan.scheduledFor, task.definition.timezone),
      startedAt: now,
      trigger: plan.trigger,
      attempt: plan.attempt,
      missed: plan.missed,
      ...(plan.missedTimes ? { missedTimes: plan.missedTimes } : {}),
      state: 'running',
    });
  }

  /** Records how a run ended and arranges a retry when it failed (one transaction), then announces it. */
  end(historyId: string, taskId: string, end: EndOfRun): void {
    const ended = this.options.store.atomically(() => this.finish(historyId, taskId, end));
    if (ended) this.announceEnd(ended);
  }

  /**
   * The writes of a run's end, as {@link decideEnd} decides it: its outcome, the crash streak, the
   * retry. Part of the caller's transaction; undefined when the run had already ended.
   */
  finish(historyId: string, taskId: string, end: EndOfRun): Ended | undefined {
    const { store } = this.options;
    const before = store.getRun(historyId);
    if (before.state === 'finished') return undefined;
    let task: ScheduleTask | undefined;
    try {
      task = store.get(taskId);
    } catch {
      // Deleted while it ran: its history goes with it.
      task = undefined;
    }
    const decision = decideEnd(before, task, end);
    const { outcome, summary, errorCode, uncertain } = decision;
    store.finishRun(historyId, { outcome, summary, costUsd: end.costUsd, errorCode, at: end.at });
    const run = store.getRun(historyId);
    if (!task) return { taskId, run, task, retry: null, uncertain };
    let retry: RetryPlan | null = null;
    for (const action of decision.then) {
      switch (action.kind) {
        case 'reset_crashes':
          store.resetCrashes(task.id);
          break;
        case 'plan_retry':
          store.setRetry(task.id, action.retry);
          retry = action.retry;
          break;
        default:
          action satisfies never;
      }
    }
    return { taskId, run, task, retry, uncertain };
  }

  /** Announces a run's end (after the commit of {@link finish}): an event, and a notification. */
  announceEnd({ taskId, run, task, retry, uncertain }: Ended): void {
    this.emitRun(taskId, run);
    if (!task || run.outcome === null) return;
    const then = retry ? ` It will be tried again at ${new Date(retry.at).toLocaleString()}.` : '';
    const title = uncertain
      ? `NextAI: "${task.name}" ${OUTCOME_WORDS[run.outcome]} and needs you to check a step`
      : `NextAI: "${task.name}" ${OUTCOME_WORDS[run.outcome]}`;
    this.announce(title, `${run.summary?.en ?? ''}${then}`);
  }

  /** An agent run's row at a clean stop: it resumes at the next start, having used `usedMs` (one transaction). */
  suspend(historyId: string, usedMs: number): void {
    const { store } = this.options;
    store.atomically(() => {
      store.setSuspended(historyId, true);
      store.setRunUsed(historyId, usedMs);
    });
  }

  emitRun(taskId: string, run: ScheduleRunRecord): void {
    this.options.events.append('schedule.run', {
      schedule_id: taskId,
      history_id: run.id,
      state: run.state,
      ...(run.outcome ? { outcome: run.outcome } : {}),
      trigger: run.trigger,
      scheduled_for: new Date(run.scheduledFor).toISOString(),
      attempt: run.attempt,
      ...(run.durationMs !== null ? { duration_ms: run.durationMs } : {}),
      ...(run.state === 'finished' ? { cost_usd: run.costUsd } : {}),
      ...(run.summary ? { summary: run.summary.en, summary_translations: translationsOf(run.summary) } : {}),
      ...(run.runId ? { run_id: run.runId } : {}),
    });
  }

  /** An OS notification; one that cannot be sent is logged, never thrown. */
  announce(title: string, body: string): void {
    this.options
      .notify(title, body)
      .catch((error: unknown) =>
        this.options.log.warn('could not send a scheduler notification', { error: (error as Error).message }),
      );
  }

  /**
   * Writes a skip to the history (part of the caller's transaction); announce it after the commit.
   * The row stands for `last` (its scheduled time) and the `count` − 1 times before it (`missed`,
   * the oldest of them listed), and its summary names the same count and range: see
   * SkippedSpan (catch-up.ts) for why they always agree.
   */
  private recordSkip(task: ScheduleTask, skip: Extract<DueAction, { kind: 'skip' }>, now: number): ScheduleRunRecord {
    const { first, last, count, reason } = skip;
    const from = new Date(first).toISOString();
    const to = new Date(last).toISOString();
    const span =
      count > 1
        ? say(`${count} runs due from ${from} to ${to}`, `从 ${from} 到 ${to} 应运行的 ${count} 次`)
        : say(`the run due at ${to}`, `${to} 应运行的那一次`);
    return this.options.store.insertRun({
      scheduleId: task.id,
      scheduledFor: last,
      day: dayIn(last, task.definition.timezone),
      startedAt: now,
      trigger: 'cron',
      attempt: 1,
      missed: Math.max(0, count - 1),
      // The times before `last`: the list is the oldest ones, so at most `last` itself is left out.
      missedTimes: skip.times.slice(0, Math.max(0, count - 1)),
      state: 'finished',
      outcome: 'skipped',
      summary: say(`Skipped ${span.en}: ${reason.en}.`, `已跳过${span['zh-CN']}：${reason['zh-CN']}。`),
    });
  }

  /**
   * What a retry of a fixed-step run carries over from the attempt it continues (history row
   * `from`): the steps that attempt finished. The step after them was judged safe to do again when
   * the retry was planned ({@link finish}); results only ever get added to a finished run's steps,
   * so that still holds.
   */
  private resumeOf(task: ScheduleTask, from: string): { carried: StepRecord[] } | undefined {
    const steps = task.definition.steps;
    if (!steps) return undefined;
    let previous: ScheduleRunRecord;
    try {
      previous = this.options.store.getRun(from);
    } catch {
      return undefined;
    }
    const carried = carriedSteps(steps, previous.steps);
    return carried.length > 0 ? { carried } : undefined;
  }
}

const OUTCOME_WORDS: Record<ScheduleOutcome, string> = {
  succeeded: 'finished',
  failed: 'failed',
  timed_out: 'took too long and was stopped',
  stopped: 'was stopped',
  denied: 'was denied',
  blocked: 'was blocked by the policy',
  limit_reached: 'reached its limit',
  crashed: 'was cut short by a crash',
  interrupted: 'was interrupted',
  skipped: 'was skipped',
};
