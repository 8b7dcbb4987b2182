import {
  AppError,
  localizedError,
  say,
  translationsOf,
  type EventData,
  type EventType,
  type Localized,
  type ScheduleOutcome,
  type ScheduleTrigger,
} from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import { CRASH_LIMIT, crashBackoffMs, planCatchUp, retryDelayMs, type DueTimes } from './catch-up.js';
import type { Clock } from './clock.js';
import { CronSchedule, dayIn } from './cron.js';
import { needsScreen } from './definition.js';
import type { Execution, ExecutionResult, TaskExecutor } from './executor.js';
import type { PresenceMonitor, PresenceState } from './presence/presence.js';
import type { RetryPlan, ScheduleRunRecord, ScheduleStore, ScheduleTask, StepRecord } from './schedule-store.js';
import { carriedSteps, uncertainStep } from './steps-resume.js';

export interface SchedulerOptions {
  store: ScheduleStore;
  clock: Clock;
  executor: TaskExecutor;
  events: { append<T extends EventType>(type: T, data: EventData<T>): unknown };
  notify(title: string, body: string): Promise<unknown>;
  presence: PresenceMonitor;
  /** The emergency stop: while it is on, nothing is fired (due runs wait for the reset). */
  emergency(): { active: boolean; reason?: string | undefined };
  /** config.json's `scheduler.enabled`: when false, due runs wait. */
  enabled?: () => boolean;
  log: Logger;
  /** How late a run may start and still count as on time (default 2 minutes). */
  graceMs?: number;
  /**
   * The longest the scheduler sleeps between looks (default 60 s). Node's timers run on the
   * monotonic clock, which stops while the machine is suspended: a timer set for 09:00 at 08:00
   * would fire at 10:00 after an hour asleep. Waking at least this often bounds how late a run
   * can start after a resume or a change of the wall clock — and costs nothing measurable.
   */
  maxSleepMs?: number;
  /** While deferred, how often conditions are looked at again (default 5 min; ×3 on battery). */
  recheckMs?: number;
  /** On battery, a non-urgent run waits for mains power at most this long (default 3 h). */
  batteryDeferMaxMs?: number;
}

/** Cron times enumerated at most per look (more are counted as "at least this many"). */
const ENUMERATION_LIMIT = 1000;

interface Active {
  taskId: string;
  runId: string;
  execution: Execution;
  /**
   * The run's signal: aborted at the wall-time limit and when the daemon stops, which ends the
   * tool call in progress and keeps a fixed-step run from starting its next step.
   */
  controller: AbortController;
  timedOut: boolean;
  cancelWallTimer: () => void;
  /** Wall time the run used under earlier daemons, and since when this one follows it. */
  usedBefore: number;
  since: number;
}

/** How a run ended, as {@link Scheduler.finish} recorded it, to be announced after the commit. */
interface Ended {
  taskId: string;
  run: ScheduleRunRecord;
  /** Undefined when the task was deleted while its run went on (its history went with it). */
  task: ScheduleTask | undefined;
  retry: RetryPlan | null;
  /** A step of it may or may not have happened: it is not retried, and the person is asked to look. */
  uncertain: boolean;
}

type EndOfRun = {
  outcome: ScheduleOutcome;
  summary: Localized;
  costUsd: number;
  errorCode?: string | undefined;
  at: number;
};

/**
 * The scheduler: fires each enabled task at its cron times (in the task's time zone), with one
 * timer armed for whatever is due next — no polling. A due run may be held back (emergency stop,
 * sleep, a locked screen for tasks that need it, battery for tasks that are not urgent), skipped
 * (the previous run still going, the task's daily cost cap reached) or caught up after downtime
 * per the task's policy. Failed runs are retried with back-off; a task whose runs keep dying with
 * the daemon is turned off. Every run, skip and deferral is recorded, announced as an event, and
 * every finished run also as an OS notification.
 *
 * Each decision is written whole and durably (the store's `atomically`; the decisions of one look
 * share one commit, each in a savepoint): a moved cursor, a cleared retry or a run that ended is on
 * disk together with the history rows that go with it — a crash or a power cut keeps all of it or
 * none, so nothing fires twice and nothing is lost. Events and notifications go out after the
 * commit, and a run starts only once its row is on disk.
 */
export class Scheduler {
  private readonly active = new Map<string, Active>();
  private readonly schedules = new Map<string, { cron: string; timezone: string; schedule: CronSchedule }>();
  /** Why a due run of each task waits, while it does (in every language: the panel shows it). */
  private readonly deferred = new Map<string, Deferral>();
  private readonly capNotified = new Set<string>();
  /**
   * Tasks whose last decision could not be written (the database refused it — full, read-only):
   * the decision was rolled back, so the task is still due; it is looked at again at this time
   * rather than at once, which would spin.
   */
  private readonly failedUntil = new Map<string, number>();
  private cancelTimer: (() => void) | undefined;
  private evaluating: Promise<void> | undefined;
  private again = false;
  private started = false;
  private stopped = false;
  private sleeping = false;
  private unsubscribers: (() => void)[] = [];
  private readonly graceMs: number;
  private readonly maxSleepMs: number;
  private readonly recheckMs: number;
  private readonly batteryDeferMaxMs: number;

  constructor(private readonly options: SchedulerOptions) {
    this.graceMs = options.graceMs ?? 120_000;
    this.maxSleepMs = options.maxSleepMs ?? 60_000;
    this.recheckMs = options.recheckMs ?? 5 * 60_000;
    this.batteryDeferMaxMs = options.batteryDeferMaxMs ?? 3 * 3600_000;
  }

  /**
   * Deals with runs the last daemon left going — a clean stop suspended them, a crash did not —
   * then looks at what is due (runs missed while the daemon was down are caught up now).
   * Call before agent runs are resumed, so a run whose task is turned off is not resumed first.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.recover();
    this.unsubscribers.push(
      this.options.presence.onChange(() => this.poke()),
      this.options.presence.onSleep((sleeping) => {
        this.sleeping = sleeping;
        this.options.log.info(sleeping ? 'the machine is about to sleep' : 'the machine woke up');
        this.poke();
      }),
    );
    this.poke();
  }

  /**
   * The daemon is stopping: nothing new fires. An agent run going is suspended (it resumes from its
   * checkpoint at the next start) with the wall time it has used, so the time the daemon is down is
   * not charged to it. A fixed-step run is cut short: its signal is aborted — the call in progress
   * ends (or its approval request closes) and no later step starts — and it is recorded as
   * interrupted; a retry goes on after the steps it finished (see steps-resume.ts).
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.cancelTimer?.();
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    const { store, clock, log } = this.options;
    const now = clock.now();
    for (const [historyId, active] of this.active) {
      active.cancelWallTimer();
      try {
        const run = store.getRun(historyId);
        if (run.runId !== null) {
          // The agent run is checkpointed and resumes at the next start; this row follows it then.
          store.atomically(() => {
            store.setSuspended(historyId, true);
            store.setRunUsed(historyId, active.usedBefore + (now - active.since));
          });
          continue;
        }
        active.controller.abort(new AppError('DISCONNECTED', 'The daemon is stopping.'));
        active.execution.cancel('the daemon is stopping');
        this.end(historyId, active.taskId, {
          outcome: 'interrupted',
          summary: say(
            'The daemon stopped while this run was going; the step in progress was cut short.',
            '这次运行进行中守护进程停止了，正在进行的那一步被中断。',
          ),
          costUsd: run.costUsd,
          at: now,
        });
      } catch (error) {
        log.error('could not record a scheduled run the daemon stop cut short', {
          run: historyId,
          error: (error as Error).message,
        });
      }
    }
    this.active.clear();
  }

  /** Something changed (a task, the emergency stop, power): look again now. */
  poke(): void {
    if (this.stopped || !this.started) return;
    void this.evaluate();
  }

  /** Resolves once the look in progress (if any) is done: for tests and the bench. */
  async settled(): Promise<void> {
    while (this.evaluating) await this.evaluating;
  }

  /** Runs still going, by task id. */
  runningCount(taskId: string): number {
    let count = 0;
    for (const active of this.active.values()) if (active.taskId === taskId) count += 1;
    return count;
  }

  /** Why a due run of the task waits, while it does. */
  deferralOf(taskId: string): Localized | null {
    return this.deferred.get(taskId)?.reason ?? null;
  }

  /** The next cron time of an enabled task, after what has been dealt with. */
  nextRunAt(task: ScheduleTask): number | null {
    if (!task.enabled) return null;
    return this.cronOf(task).next(task.cursorAt);
  }

  /** Forgets cached cron data of a task (after an edit or a delete). */
  forget(taskId: string): void {
    this.schedules.delete(taskId);
    this.deferred.delete(taskId);
    this.failedUntil.delete(taskId);
  }

  /** Starts a run now, as a person asked (conditions like battery do not hold it back). */
  runNow(task: ScheduleTask): ScheduleRunRecord {
    const emergency = this.options.emergency();
    if (emergency.active) {
      throw new AppError(
        'EMERGENCY_STOPPED',
        `The emergency stop is on (${emergency.reason ?? 'no reason given'}): nothing starts until it is reset.`,
      );
    }
    if (!task.definition.allow_overlap && this.runningCount(task.id) > 0) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `"${task.name}" is still running; wait for that run to end (or allow overlapping runs for this task).`,
      );
    }
    const now = this.options.clock.now();
    const spent = this.spentToday(task, now);
    if (spent >= task.definition.daily_cost_cap_usd) {
      throw new AppError(
        'LIMIT_REACHED',
        `"${task.name}" already spent $${spent.toFixed(4)} today; its daily cap is $${task.definition.daily_cost_cap_usd}.`,
      );
    }
    const run = this.options.store.atomically(() =>
      this.recordRun(task, { trigger: 'manual', scheduledFor: now, attempt: 1, missed: 0 }, now),
    );
    return this.launch(task, run, now);
  }

  // -------------------------------------------------------------------------------------------

  private async evaluate(): Promise<void> {
    if (this.evaluating) {
      this.again = true;
      return this.evaluating;
    }
    this.evaluating = (async () => {
      try {
        do {
          this.again = false;
          await this.evaluateOnce();
        } while (this.again && !this.stopped);
      } catch (error) {
        this.options.log.error('the scheduler could not look at its tasks', { error: (error as Error).message });
      } finally {
        this.evaluating = undefined;
        this.arm();
      }
    })();
    return this.evaluating;
  }

  private async evaluateOnce(): Promise<void> {
    const { store, clock } = this.options;
    const before = clock.now();
    const due = store
      .enabled()
      .filter((task) => (this.failedUntil.get(task.id) ?? 0) <= before && this.isDue(task, before));
    if (due.length === 0) return;
    // Presence is read only when something is due: nothing is polled while nothing is.
    const presence = await this.options.presence.read();
    if (this.stopped) return;
    // The decisions of one look are committed together — one sync to disk, not one per task, so
    // hundreds of tasks due at the same minute still start on time — each in a savepoint of its
    // own: a task whose decision fails is rolled back alone. What the decisions announce or
    // start waits in `after` until the commit: nothing starts that is not on disk.
    const after: (() => void)[] = [];
    try {
      store.atomically(() => {
        for (const { id, name } of due) {
          const actions: (() => void)[] = [];
          try {
            store.atomically(() => {
              // Read again after the wait: a task turned off, edited or deleted meanwhile must not
              // fire as it was, nor have its cursor set from a stale copy.
              let task: ScheduleTask;
              try {
                task = store.get(id);
              } catch {
                return;
              }
              const now = clock.now();
              if (!task.enabled) return;
              const times = this.dueTimes(task, now);
              if (times === undefined && !(task.retry !== null && task.retry.at <= now)) return;
              this.consider(task, times, presence, now, actions);
            });
            after.push(...actions);
            this.failedUntil.delete(id);
          } catch (error) {
            this.failedUntil.set(id, clock.now() + this.maxSleepMs);
            this.options.log.error('could not fire a scheduled task; looking again in a minute', {
              task: name,
              error: (error as Error).message,
            });
          }
        }
      });
    } catch (error) {
      // The commit failed: nothing of this look is on disk, so nothing of it starts.
      for (const { id } of due) this.failedUntil.set(id, clock.now() + this.maxSleepMs);
      this.options.log.error('could not record what the scheduler decided; looking again in a minute', {
        error: (error as Error).message,
      });
      return;
    }
    for (const action of after) action();
  }

  /** A cron time or a retry of the task is due. */
  private isDue(task: ScheduleTask, now: number): boolean {
    return this.dueTimes(task, now) !== undefined || (task.retry !== null && task.retry.at <= now);
  }

  /**
   * Decides what to do with a task that is due. Runs inside the look's transaction: it writes,
   * and leaves what to announce or start to `after`, which runs once the writes are on disk.
   */
  private consider(
    task: ScheduleTask,
    due: DueTimes | undefined,
    presence: PresenceState,
    now: number,
    after: (() => void)[],
  ): void {
    const { store } = this.options;
    const definition = task.definition;
    const running = this.runningCount(task.id) > 0;
    if (running && !definition.allow_overlap) {
      // `each` queues behind the run going; otherwise what came due meanwhile is skipped.
      if (due && definition.catch_up !== 'each') {
        const first = due.times[0] ?? due.latest;
        const skipped = this.recordSkip(
          task,
          first,
          due.latest,
          due.total,
          say('the previous run was still going', '上一次运行还没结束'),
          now,
        );
        store.setCursor(task.id, due.latest);
        after.push(() => this.emitRun(task.id, skipped));
      }
      return;
    }
    const oldest = Math.min(due?.times[0] ?? Infinity, task.retry?.at ?? Infinity);
    const deferral = this.deferral(task, presence, now, oldest);
    if (deferral) {
      if (this.deferred.get(task.id)?.reason.en !== deferral.reason.en) {
        this.deferred.set(task.id, deferral);
        this.options.log.info('a due task waits', { task: task.name, reason: deferral.reason.en });
        after.push(() =>
          this.options.events.append('schedule.deferred', {
            schedule_id: task.id,
            reason: deferral.reason.en,
            reason_translations: translationsOf(deferral.reason),
          }),
        );
      }
      return;
    }
    this.deferred.delete(task.id);

    const spent = this.spentToday(task, now);
    if (spent >= definition.daily_cost_cap_usd) {
      const reason = say(
        `its daily cost cap of $${definition.daily_cost_cap_usd} is reached ($${spent.toFixed(4)} spent today)`,
        `已达到每日费用上限 $${definition.daily_cost_cap_usd}（今天已花费 $${spent.toFixed(4)}）`,
      );
      if (due) {
        const skipped = this.recordSkip(task, due.times[0] ?? due.latest, due.latest, due.total, reason, now);
        store.setCursor(task.id, due.latest);
        after.push(() => this.emitRun(task.id, skipped));
      }
      if (task.retry) store.setRetry(task.id, null);
      const key = `${task.id}:${dayIn(now, definition.timezone)}`;
      if (!this.capNotified.has(key)) {
        this.capNotified.add(key);
        after.push(() =>
          this.announce(`NextAI: "${task.name}" paused for today`, `It will not run again today: ${reason.en}.`),
        );
      }
      return;
    }

    if (due) {
      const plan = planCatchUp(due, definition.catch_up, now, this.graceMs);
      // One decision: the retry a cron time supersedes, the skip, the new cursor and the run it
      // fires are on disk together — or, if any write fails, none of them.
      // A cron time supersedes a retry still waiting: the new run is a fresh attempt.
      if (task.retry) store.setRetry(task.id, null);
      if (plan.skipped) {
        const skipped = this.recordSkip(
          task,
          plan.skipped.first,
          plan.skipped.last,
          plan.skipped.count,
          say(
            'missed while the daemon was not running or the task was held back',
            '守护进程没有运行或任务被暂缓时错过了',
          ),
          now,
        );
        after.push(() => this.emitRun(task.id, skipped));
      }
      store.setCursor(task.id, plan.cursor);
      if (plan.fire) {
        const run = this.recordRun(
          task,
          {
            trigger: plan.fire.late ? 'catch_up' : 'cron',
            scheduledFor: plan.fire.scheduledFor,
            attempt: 1,
            missed: plan.fire.missed,
          },
          now,
        );
        after.push(() => this.launch(task, run, now));
      }
      // `each` has more to run: look again once this run ends (the run's end pokes).
      return;
    }
    const retry = task.retry;
    if (retry && retry.at <= now) {
      // The retry is cleared together with the run it becomes.
      store.setRetry(task.id, null);
      const run = this.recordRun(
        task,
        { trigger: 'retry', scheduledFor: retry.scheduledFor, attempt: retry.attempt, missed: 0 },
        now,
      );
      const resume = this.resumeOf(task, retry);
      after.push(() => this.launch(task, run, now, resume));
    }
  }

  /**
   * What a retry of a fixed-step run carries over from the attempt it continues: the steps that
   * attempt finished. The step after them was judged safe to do again when the retry was planned
   * ({@link finish}); results only ever get added to a finished run's steps, so that still holds.
   */
  private resumeOf(task: ScheduleTask, retry: RetryPlan): { carried: StepRecord[] } | undefined {
    const steps = task.definition.steps;
    if (!steps || retry.from === undefined) return undefined;
    let previous: ScheduleRunRecord;
    try {
      previous = this.options.store.getRun(retry.from);
    } catch {
      return undefined;
    }
    const carried = carriedSteps(steps, previous.steps);
    return carried.length > 0 ? { carried } : undefined;
  }

  /** Why a due run must wait now, or undefined. */
  private deferral(task: ScheduleTask, presence: PresenceState, now: number, dueSince: number): Deferral | undefined {
    const emergency = this.options.emergency();
    if (emergency.active) {
      return {
        reason: say(
          `the emergency stop is on (${emergency.reason ?? 'no reason given'})`,
          `紧急停止已开启（${emergency.reason ?? '未说明原因'}）`,
        ),
      };
    }
    if (this.options.enabled && !this.options.enabled()) {
      return {
        reason: say(
          'the scheduler is turned off in config.json (scheduler.enabled)',
          '定时任务在 config.json 中被关闭了（scheduler.enabled）',
        ),
      };
    }
    if (this.sleeping || presence.sleeping) {
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
    if (presence.onBattery === true && !task.definition.urgent && now - dueSince < this.batteryDeferMaxMs) {
      return {
        reason: say('the computer runs on battery (the task is not urgent)', '电脑正在用电池供电（这个任务不紧急）'),
        onBattery: true,
      };
    }
    return undefined;
  }

  /** Writes the row of a run about to start (part of the caller's transaction); {@link launch} starts it. */
  private recordRun(
    task: ScheduleTask,
    plan: { trigger: ScheduleTrigger; scheduledFor: number; attempt: number; missed: number },
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
      state: 'running',
    });
  }

  /** Starts a run whose row is on disk. */
  private launch(
    task: ScheduleTask,
    run: ScheduleRunRecord,
    now: number,
    resume?: { carried: StepRecord[] },
  ): ScheduleRunRecord {
    const { store } = this.options;
    this.options.log.info('firing a scheduled task', {
      task: task.name,
      trigger: run.trigger,
      scheduled_for: new Date(run.scheduledFor).toISOString(),
      late_ms: now - run.scheduledFor,
      attempt: run.attempt,
      ...(resume ? { steps_carried_over: resume.carried.length } : {}),
    });
    this.emitRun(task.id, run);
    const budget = Math.max(0, task.definition.daily_cost_cap_usd - this.spentToday(task, now));
    this.track(task, run, budget, resume, (context) => this.options.executor.start(task, context));
    return store.getRun(run.id);
  }

  private track(
    task: ScheduleTask,
    run: ScheduleRunRecord,
    budgetUsd: number,
    resume: { carried: StepRecord[] } | undefined,
    begin: (context: Parameters<TaskExecutor['start']>[1]) => Execution,
  ): void {
    const { store, clock } = this.options;
    const controller = new AbortController();
    // The wall-time limit counts time this run was followed by a daemon: what earlier daemons
    // used (written at their clean stop, or at each sign of progress before a crash), plus this
    // one's. The time the daemon was down — a reboot, a night powered off — is not counted.
    const usedBefore = run.usedMs;
    const since = clock.now();
    const used = () => usedBefore + (clock.now() - since);
    // Progress goes to disk with the time used so far, in one durable write.
    const progress = (write: () => void) =>
      store.atomically(() => {
        write();
        store.setRunUsed(run.id, used());
      });
    const context: Parameters<TaskExecutor['start']>[1] = {
      run,
      budgetUsd,
      signal: controller.signal,
      ...(resume ? { resume } : {}),
      onState: (state, detail) => {
        progress(() => store.setRunState(run.id, state));
        this.emitRun(task.id, store.getRun(run.id));
        if (state === 'waiting_user') {
          this.announce(
            `NextAI: "${task.name}" asks you something`,
            detail ?? 'Answer in the side panel or with `nextai runs answer`.',
          );
        }
      },
      onSteps: (steps) => progress(() => store.setRunSteps(run.id, steps)),
      onAgentRun: (runId) => progress(() => store.setRunAgent(run.id, runId)),
      onCost: (cost) => progress(() => store.setRunCost(run.id, cost)),
    };
    let execution: Execution;
    try {
      execution = begin(context);
    } catch (error) {
      const appError = error instanceof AppError ? error : undefined;
      this.end(run.id, task.id, {
        outcome: 'failed',
        summary: prefixed(say('The run could not start: ', '运行无法开始：'), localizedError(error)),
        costUsd: 0,
        errorCode: appError?.code,
        at: clock.now(),
      });
      return;
    }
    const wallMs = task.definition.limits.max_wall_seconds * 1000;
    const cancelWallTimer = clock.setTimer(Math.max(0, wallMs - usedBefore), () => {
      const entry = this.active.get(run.id);
      if (!entry) return;
      entry.timedOut = true;
      controller.abort(new AppError('TIMEOUT', 'the run reached its wall-time limit'));
      execution.cancel(`the run reached its wall-time limit of ${task.definition.limits.max_wall_seconds} s`);
    });
    this.active.set(run.id, {
      taskId: task.id,
      runId: run.id,
      execution,
      controller,
      timedOut: false,
      cancelWallTimer,
      usedBefore,
      since,
    });
    void execution.done.then(
      (result) => this.onDone(run.id, result),
      (error: unknown) =>
        this.onDone(run.id, {
          outcome: 'failed',
          summary: prefixed(say('The run failed unexpectedly: ', '运行意外失败：'), localizedError(error)),
          costUsd: 0,
        }),
    );
  }

  private onDone(historyId: string, result: ExecutionResult): void {
    const active = this.active.get(historyId);
    if (!active) return;
    this.active.delete(historyId);
    active.cancelWallTimer();
    const outcome: ScheduleOutcome = active.timedOut ? 'timed_out' : result.outcome;
    const summary = active.timedOut
      ? prefixed(say('Stopped at the wall-time limit. ', '到达运行时长上限，已停止。'), result.summary)
      : result.summary;
    try {
      this.end(historyId, active.taskId, {
        outcome,
        summary,
        costUsd: result.costUsd,
        errorCode: result.errorCode,
        at: this.options.clock.now(),
      });
    } catch (error) {
      this.options.log.error('could not record how a scheduled run ended', {
        run: historyId,
        error: (error as Error).message,
      });
    }
    this.poke();
  }

  /** Records how a run ended and arranges a retry when it failed (one transaction), then announces it. */
  private end(historyId: string, taskId: string, end: EndOfRun): void {
    const ended = this.options.store.atomically(() => this.finish(historyId, taskId, end));
    if (ended) this.announceEnd(ended);
  }

  /**
   * The writes of a run's end: its outcome, the crash streak, the retry. Part of the caller's
   * transaction; undefined when the run had already ended.
   *
   * A fixed-step run that ended without succeeding is looked at step by step: when every step had
   * in fact finished (the daemon died before the end was written), it succeeded; when the step
   * after the finished ones may or may not have happened, it is not retried — nothing here can
   * look before acting again, so a person does — and it says so (error code OUTCOME_UNKNOWN).
   */
  private finish(historyId: string, taskId: string, end: EndOfRun): Ended | undefined {
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
    let { outcome, summary, errorCode } = end;
    let uncertain = false;
    const steps = task?.definition.steps;
    if (steps && before.runId === null && RETRIED.has(outcome)) {
      const done = carriedSteps(steps, before.steps).length;
      const unknown = uncertainStep(steps, before.steps);
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
    store.finishRun(historyId, { outcome, summary, costUsd: end.costUsd, errorCode, at: end.at });
    const run = store.getRun(historyId);
    if (!task) return { taskId, run, task, retry: null, uncertain };
    if (outcome !== 'crashed' && task.consecutiveCrashes > 0) store.setCrashes(task.id, 0);
    const retry = uncertain ? null : this.retryFor(task, run, outcome, end.at);
    return { taskId, run, task, retry, uncertain };
  }

  private announceEnd({ taskId, run, task, retry, uncertain }: Ended): void {
    this.emitRun(taskId, run);
    if (!task || run.outcome === null) return;
    const then = retry ? ` It will be tried again at ${new Date(retry.at).toLocaleString()}.` : '';
    const title = uncertain
      ? `NextAI: "${task.name}" ${OUTCOME_WORDS[run.outcome]} and needs you to check a step`
      : `NextAI: "${task.name}" ${OUTCOME_WORDS[run.outcome]}`;
    this.announce(title, `${run.summary?.en ?? ''}${then}`);
  }

  /** Plans the next attempt of a run that failed, if it gets one (part of the caller's transaction). */
  private retryFor(
    task: ScheduleTask,
    run: ScheduleRunRecord,
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
    const retry: RetryPlan = {
      at: now + delay,
      attempt: run.attempt + 1,
      scheduledFor: run.scheduledFor,
      // A fixed-step retry continues this run: the steps it finished are not done again.
      ...(definition.steps ? { from: run.id } : {}),
    };
    this.options.store.setRetry(task.id, retry);
    return retry;
  }

  /** Writes a skip to the history (part of the caller's transaction); announce it after the commit. */
  private recordSkip(
    task: ScheduleTask,
    first: number,
    last: number,
    count: number,
    reason: Localized,
    now: number,
  ): ScheduleRunRecord {
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
      state: 'finished',
      outcome: 'skipped',
      summary: say(`Skipped ${span.en}: ${reason.en}.`, `已跳过${span['zh-CN']}：${reason['zh-CN']}。`),
    });
  }

  /**
   * Runs the last daemon left going. Suspended by a clean stop: an agent run is followed again
   * (it resumes from its checkpoint). Not suspended: the daemon died during it — counted as a
   * crash of the task; after {@link CRASH_LIMIT} in a row the task is turned off, otherwise a
   * fixed-step run is retried only after a long back-off, never in a tight loop, and only from
   * after the steps it finished (never blindly repeating one that may have happened).
   */
  private recover(): void {
    const { store, clock } = this.options;
    const now = clock.now();
    for (const open of store.openRuns()) {
      try {
        this.recoverRun(open, now);
      } catch (error) {
        this.options.log.error('could not deal with a scheduled run the last daemon left going', {
          run: open.id,
          error: (error as Error).message,
        });
      }
    }
  }

  private recoverRun(open: ScheduleRunRecord, now: number): void {
    const { store } = this.options;
    let task: ScheduleTask;
    try {
      task = store.get(open.scheduleId);
    } catch {
      return;
    }
    if (open.suspended) {
      if (open.runId !== null) {
        store.setSuspended(open.id, false);
        this.reattach(task, store.getRun(open.id), open.runId);
        return;
      }
      this.end(open.id, task.id, {
        outcome: 'interrupted',
        summary: say('The daemon stopped during this run.', '这次运行期间守护进程停止了。'),
        costUsd: open.costUsd,
        at: now,
      });
      return;
    }
    // The crash streak, turning the task off, and the run's end: one decision, one transaction.
    let disabled: Localized | undefined;
    let ended: Ended | undefined;
    store.atomically(() => {
      const crashes = task.consecutiveCrashes + 1;
      store.setCrashes(task.id, crashes);
      task = store.get(task.id);
      this.options.log.warn('a scheduled run was going when the daemon died', {
        task: task.name,
        run: open.id,
        consecutive_crashes: crashes,
      });
      if (crashes >= CRASH_LIMIT) {
        const enable = `\`nextai schedule enable ${task.name}\``;
        const reason = say(
          `its last ${crashes} runs ended with the daemon dying; turned off so it cannot crash it again. Turn it on again with ${enable} once fixed.`,
          `它最近 ${crashes} 次运行都以守护进程崩溃告终；已关闭，免得再让守护进程崩溃。修好后用 ${enable} 重新开启。`,
        );
        store.setEnabled(task.id, false, now, reason);
        store.setRetry(task.id, null);
        disabled = reason;
        ended = this.finish(open.id, task.id, {
          outcome: 'crashed',
          summary: say(
            `The daemon died during this run; the task was turned off: ${reason.en}`,
            `这次运行期间守护进程崩溃了，任务已被关闭：${reason['zh-CN']}`,
          ),
          costUsd: open.costUsd,
          at: now,
        });
        return;
      }
      if (open.runId !== null) return;
      ended = this.finish(open.id, task.id, {
        outcome: 'crashed',
        summary: say(
          `The daemon died during this run (step ${open.steps.length} of ${task.definition.steps?.length ?? 0} was the last one begun).`,
          `这次运行期间守护进程崩溃了（最后开始的是第 ${open.steps.length}/${task.definition.steps?.length ?? 0} 步）。`,
        ),
        costUsd: open.costUsd,
        at: now,
      });
    });
    if (disabled !== undefined) {
      this.options.events.append('schedule.changed', {
        schedule_id: task.id,
        change: 'disabled',
        reason: disabled.en,
        reason_translations: translationsOf(disabled),
      });
      if (open.runId !== null) {
        void this.options.executor.abandon(open.runId, 'its scheduled task crashed the daemon repeatedly');
      }
    }
    if (ended) {
      this.announceEnd(ended);
      return;
    }
    // The agent run resumes from its last checkpoint (nothing is done twice); follow it.
    if (disabled === undefined && open.runId !== null) this.reattach(task, store.getRun(open.id), open.runId);
  }

  private reattach(task: ScheduleTask, run: ScheduleRunRecord, runId: string): void {
    const budget = Math.max(0, task.definition.daily_cost_cap_usd - this.spentToday(task, this.options.clock.now()));
    this.track(task, run, budget, undefined, (context) => this.options.executor.reattach(task, runId, context));
  }

  /** Cron times of a task due now, or undefined when none is. */
  private dueTimes(task: ScheduleTask, now: number): DueTimes | undefined {
    const schedule = this.cronOf(task);
    const first = schedule.next(task.cursorAt);
    if (first === null || first > now) return undefined;
    const times = schedule.between(task.cursorAt, now, ENUMERATION_LIMIT);
    const truncated = times.length === ENUMERATION_LIMIT;
    const latest = truncated ? (schedule.latestAtOrBefore(now) ?? times.at(-1)!) : times.at(-1)!;
    return { times, total: truncated ? times.length + 1 : times.length, latest };
  }

  private cronOf(task: ScheduleTask): CronSchedule {
    const { cron, timezone } = task.definition;
    const cached = this.schedules.get(task.id);
    if (cached && cached.cron === cron && cached.timezone === timezone) return cached.schedule;
    const schedule = CronSchedule.parse(cron, timezone);
    this.schedules.set(task.id, { cron, timezone, schedule });
    return schedule;
  }

  private spentToday(task: ScheduleTask, now: number): number {
    return this.options.store.costOnDay(task.id, dayIn(now, task.definition.timezone));
  }

  /** Arms the one timer for the next thing due (a cron time, a retry, a re-check while deferred). */
  private arm(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.stopped) return;
    const now = this.options.clock.now();
    let next = now + this.maxSleepMs;
    for (const task of this.options.store.enabled()) {
      if (this.deferred.has(task.id)) {
        const onBattery = this.deferred.get(task.id)?.onBattery === true;
        next = Math.min(next, now + (onBattery ? this.recheckMs * 3 : this.recheckMs));
        continue;
      }
      if (this.runningCount(task.id) > 0 && !task.definition.allow_overlap) continue;
      const failed = this.failedUntil.get(task.id);
      if (failed !== undefined && failed > now) {
        next = Math.min(next, failed);
        continue;
      }
      const at = this.cronOf(task).next(task.cursorAt);
      if (at !== null) next = Math.min(next, at);
      if (task.retry) next = Math.min(next, task.retry.at);
    }
    this.cancelTimer = this.options.clock.setTimer(Math.max(0, next - now), () => {
      this.cancelTimer = undefined;
      void this.evaluate();
    });
  }

  private emitRun(taskId: string, run: ScheduleRunRecord): void {
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

  private announce(title: string, body: string): void {
    this.options
      .notify(title, body)
      .catch((error: unknown) =>
        this.options.log.warn('could not send a scheduler notification', { error: (error as Error).message }),
      );
  }
}

/** Why a due run waits; on battery the conditions are looked at less often. */
interface Deferral {
  reason: Localized;
  onBattery?: true;
}

/** `lead` followed by `text`, in each language. */
function prefixed(lead: Localized, text: Localized): Localized {
  return say(lead.en + text.en, lead['zh-CN'] + text['zh-CN']);
}

/** Outcomes worth another try: the next attempt may go better. A denial, a block or a limit will not change. */
const RETRIED = new Set<ScheduleOutcome>(['failed', 'timed_out', 'crashed', 'interrupted']);

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
