import {
  AppError,
  MAX_CATCH_UP_EACH,
  translationsOf,
  type EventData,
  type EventType,
  type Localized,
} from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import type { DueTimes } from './catch-up.js';
import type { Clock } from './clock.js';
import { ClockWatch } from './clock-watch.js';
import { CronSchedule, dayIn } from './cron.js';
import { currentBoot, LifeRecord, type BootMark } from './daemon-life.js';
import { DecisionWriter } from './decision-writer.js';
import {
  couldNotStart,
  decideDue,
  decideRunNow,
  decideStop,
  endOfExecution,
  failedUnexpectedly,
  type Deferral,
  type DueAction,
} from './decisions.js';
import type { Execution, ExecutionResult, TaskExecutor } from './executor.js';
import type { PresenceMonitor, PresenceState } from './presence/presence.js';
import { recoverRuns } from './recovery.js';
import type { ScheduleRunRecord, ScheduleStore, ScheduleTask, StepRecord } from './schedule-store.js';

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
  /**
   * Where the scheduler records its life for the next daemon (daemon-life.ts): whether it stopped
   * cleanly, the machine's boot, a database that could not be written. Without it, whether the
   * last daemon died is judged by the runs it left going alone.
   */
  lifeFile?: string;
  /** This machine's boot (tests pretend the machine restarted). */
  boot?: () => BootMark;
}

/** Cron times listed at most per look (more are counted, and the newest listed too: see dueTimes). */
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
  /**
   * Wall time the run used under earlier daemons, and since when this one follows it (on the
   * monotonic clock: setting the wall clock neither uses up nor gives back running time).
   */
  usedBefore: number;
  since: number;
}

/**
 * The scheduler: fires each enabled task at its cron times (in the task's time zone), with one
 * timer armed for whatever is due next — no polling. A due run may be held back (emergency stop,
 * sleep, a locked screen for tasks that need it, battery for tasks that are not urgent), skipped
 * (the previous run still going, the task's daily cost cap reached) or caught up after downtime
 * per the task's policy. Failed runs are retried with back-off; a task is turned off when the
 * daemon dies three times in a row while its run alone was going (crash-judgement.ts). Every run, skip and deferral is recorded, announced as an event, and
 * every finished run also as an OS notification.
 *
 * This is the loop: the timer, the looks, and the runs going. What to do is decided in
 * decisions.ts (no database, no clock), applied by decision-writer.ts, and runs the last daemon
 * left going are dealt with by recovery.ts. Each decision is written whole and durably (the
 * store's `atomically`; the decisions of one look share one commit, each in a savepoint): a moved
 * cursor, a cleared retry or a run that ended is on disk together with the history rows that go
 * with it — a crash or a power cut keeps all of it or none, so nothing fires twice and nothing is
 * lost. Events and notifications go out after the commit, and a run starts only once its row is
 * on disk.
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
  private readonly writer: DecisionWriter;
  private readonly life: LifeRecord | undefined;
  /** Sees the wall clock being set while the scheduler runs (from its start: downtime is not a jump). */
  private clockWatch: ClockWatch | undefined;
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
    this.life = options.lifeFile === undefined ? undefined : new LifeRecord(options.lifeFile, options.log);
    this.writer = new DecisionWriter({
      store: options.store,
      events: options.events,
      notify: (title, body) => options.notify(title, body),
      log: options.log,
      launch: (task, run, now, resume) => this.launch(task, run, now, resume),
      deferred: this.deferred,
      capNotified: this.capNotified,
    });
  }

  /**
   * Deals with how the last daemon ended and the runs it left going — a clean stop suspended
   * them, a death did not; whether a death is put down to a task is judged in
   * crash-judgement.ts — then looks at what is due (runs missed while the daemon was down are
   * caught up now). Call before agent runs are resumed, so that a run whose task is turned off is
   * not resumed first, and so that the agent runs going when the last daemon died are seen.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    const { store, events, executor, log, clock } = this.options;
    const now = clock.now();
    const previous = this.life?.read();
    const boot = (this.options.boot ?? currentBoot)();
    this.life?.begin(now, boot);
    this.clockWatch = new ClockWatch(clock);
    recoverRuns(
      {
        store,
        events,
        executor,
        writer: this.writer,
        log,
        follow: (task, run, runId) => this.reattach(task, run, runId),
        previous,
        boot,
      },
      now,
    );
    // A database that cannot be written is noted in the life record while it lasts: if the
    // daemon dies meanwhile, the next one does not put the death down to a task.
    const health = store.health();
    const noteHealth = () => this.life?.storage(health.failing);
    noteHealth();
    this.unsubscribers.push(
      health.onChange(noteHealth),
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
        const decision = decideStop(store.getRun(historyId), now);
        if (decision.kind === 'suspend') {
          // The agent run is checkpointed and resumes at the next start; this row follows it then.
          this.writer.suspend(historyId, active.usedBefore + (clock.monotonic() - active.since));
          continue;
        }
        active.controller.abort(new AppError('DISCONNECTED', 'The daemon is stopping.'));
        active.execution.cancel('the daemon is stopping');
        this.writer.end(historyId, active.taskId, decision.end);
      } catch (error) {
        log.error('could not record a scheduled run the daemon stop cut short', {
          run: historyId,
          error: (error as Error).message,
        });
      }
    }
    this.active.clear();
    // Last: a stop that did not get this far is not a clean one.
    this.life?.stopped(now);
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
    const now = this.options.clock.now();
    const decision = decideRunNow({
      task,
      now,
      running: this.runningCount(task.id) > 0,
      emergency: this.options.emergency(),
      spentToday: () => this.spentToday(task, now),
    });
    if (decision.kind === 'refuse') throw decision.error;
    const run = this.options.store.atomically(() => this.writer.recordRun(task, decision, now));
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
    this.noticeClockJump();
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
              this.writer.apply(task, this.consider(task, times, presence, now), now, actions);
            });
            after.push(...actions);
            this.failedUntil.delete(id);
          } catch (error) {
            store.health().noteFailure(error);
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
      store.health().noteFailure(error);
      for (const { id } of due) this.failedUntil.set(id, clock.now() + this.maxSleepMs);
      this.options.log.error('could not record what the scheduler decided; looking again in a minute', {
        error: (error as Error).message,
      });
      return;
    }
    for (const action of after) action();
  }

  /**
   * Says so when the wall clock was set since the last look (see clock-watch.ts): in the log and
   * as a `clock.changed` event. Nothing else is needed — cursors keep a time that ran from coming
   * due again, and times jumped over are due now — but the person should not have to guess.
   */
  private noticeClockJump(): void {
    const jump = this.clockWatch?.look();
    if (!jump) return;
    const { log, events } = this.options;
    const fields = { minutes: jump.minutes, now: new Date(this.options.clock.now()).toISOString() };
    if (jump.direction === 'back') {
      log.warn(`the clock went back by ${jump.minutes} min; tasks already run are not run again`, fields);
    } else {
      log.info(
        `the clock moved ahead by ${jump.minutes} min (the machine slept, or the clock was set forward); ` +
          'times due meanwhile are caught up as each task’s catch-up policy says',
        fields,
      );
    }
    try {
      events.append('clock.changed', {
        direction: jump.direction,
        minutes: jump.minutes,
        message: jump.message.en,
        message_translations: translationsOf(jump.message),
      });
    } catch (error) {
      log.warn('could not record that the clock changed', { error: (error as Error).message });
    }
  }

  /** A cron time or a retry of the task is due. */
  private isDue(task: ScheduleTask, now: number): boolean {
    const next = this.cronOf(task).next(task.cursorAt);
    return (next !== null && next <= now) || (task.retry !== null && task.retry.at <= now);
  }

  /** What to do with a task that is due, with what the scheduler knows now (see {@link decideDue}). */
  private consider(task: ScheduleTask, due: DueTimes | undefined, presence: PresenceState, now: number): DueAction[] {
    return decideDue({
      task,
      due,
      now,
      running: this.runningCount(task.id) > 0,
      deferred: this.deferred.get(task.id),
      capNotified: this.capNotified,
      presence,
      sleeping: this.sleeping,
      graceMs: this.graceMs,
      batteryDeferMaxMs: this.batteryDeferMaxMs,
      emergency: () => this.options.emergency(),
      schedulerEnabled: () => (this.options.enabled ? this.options.enabled() : true),
      spentToday: () => this.spentToday(task, now),
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
    this.writer.emitRun(task.id, run);
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
    // one's. The time the daemon was down — a reboot, a night powered off — is not counted, nor
    // is a change of the wall clock: this daemon's share is measured on the monotonic clock, as
    // its timer runs.
    const usedBefore = run.usedMs;
    const since = clock.monotonic();
    const used = () => usedBefore + (clock.monotonic() - since);
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
        this.writer.emitRun(task.id, store.getRun(run.id));
        if (state === 'waiting_user') {
          this.writer.announce(
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
      this.writer.end(run.id, task.id, couldNotStart(error, clock.now()));
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
      (error: unknown) => this.onDone(run.id, failedUnexpectedly(error)),
    );
  }

  private onDone(historyId: string, result: ExecutionResult): void {
    const active = this.active.get(historyId);
    if (!active) return;
    this.active.delete(historyId);
    active.cancelWallTimer();
    try {
      this.writer.end(historyId, active.taskId, endOfExecution(result, active.timedOut, this.options.clock.now()));
    } catch (error) {
      this.options.log.error('could not record how a scheduled run ended', {
        run: historyId,
        error: (error as Error).message,
      });
    }
    this.poke();
  }

  /** Follows an agent run that resumes by itself (after a clean stop or a crash), as one it started. */
  private reattach(task: ScheduleTask, run: ScheduleRunRecord, runId: string): void {
    const budget = Math.max(0, task.definition.daily_cost_cap_usd - this.spentToday(task, this.options.clock.now()));
    this.track(task, run, budget, undefined, (context) => this.options.executor.reattach(task, runId, context));
  }

  /**
   * Cron times of a task due now, or undefined when none is. More than can be listed (a long
   * downtime of a frequent task) are counted, and the newest listed too: what is skipped, run or
   * kept always has its true count, its true first and last time (see DueTimes).
   */
  private dueTimes(task: ScheduleTask, now: number): DueTimes | undefined {
    const schedule = this.cronOf(task);
    const times = schedule.between(task.cursorAt, now, ENUMERATION_LIMIT);
    const last = times.at(-1);
    if (last === undefined) return undefined;
    if (times.length < ENUMERATION_LIMIT) return { times, total: times.length, latest: last };
    const recent = schedule.recent(task.cursorAt, now, MAX_CATCH_UP_EACH + 1);
    const total = Math.max(schedule.count(task.cursorAt, now), times.length);
    return { times, total, recent, latest: recent.at(-1) ?? last };
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
}
