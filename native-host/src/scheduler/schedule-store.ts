import { randomUUID } from 'node:crypto';

import {
  AppError,
  say,
  localizedMessage,
  translationsOf,
  type Localized,
  type MessageTranslations,
  type ScheduleDefinition,
  type ScheduleLimits,
  type ScheduleOutcome,
  type ScheduleTrigger,
  type ScheduleRunView,
} from '@nextai/shared';

import type { RunResult, Statement } from 'better-sqlite3';

import { durably, RunStore } from '../agent/run-store.js';
import type { Db } from '../storage/database.js';
import { storageHealth, type StorageHealth } from '../storage/storage-health.js';

/** A task's definition as kept: validated, with its time zone and project filled in. */
export type TaskDefinition = Omit<ScheduleDefinition, 'limits'> & {
  timezone: string;
  project: string;
  limits: Required<ScheduleLimits>;
  /** The grant was not given but taken from the steps' tools (it follows the steps when they change). */
  implicit_grant?: true;
};

export interface ScheduleTask {
  id: string;
  name: string;
  definition: TaskDefinition;
  enabled: boolean;
  /** Why the task was turned off, in every language (English is the record). */
  disabledReason: Localized | null;
  /** Every cron time up to this instant has been dealt with. */
  cursorAt: number;
  /** A retry waiting: when, which attempt, for which cron time, and the history row it continues. */
  retry: RetryPlan | null;
  /** Runs of this task in a row the daemon died during, whatever else was going: sets the retry back-off. */
  consecutiveCrashes: number;
  /** The daemon's deaths in a row put down to this task alone (see crash-judgement.ts); at three it is turned off. */
  crashStreak: CrashRecord[];
  createdAt: string;
  updatedAt: string;
}

/** A death of the daemon put down to one task. */
export interface CrashRecord {
  /** When the next daemon found it (the death itself left no time behind). */
  foundAt: number;
  /** The run it died during (its history row), and when that run had started. */
  historyId: string;
  runStartedAt: number;
}

export interface RetryPlan {
  at: number;
  attempt: number;
  scheduledFor: number;
  /** The run this retry continues (a fixed-step retry goes on after the steps it finished). */
  from?: string | undefined;
}

export type RunState = ScheduleRunView['state'];

/**
 * One tool step of a fixed-step run: its intent is written before the call, its result after.
 * The position in the run's list is the step's position in the task's definition.
 */
export interface StepRecord {
  tool: string;
  call_id: string;
  started_at: string;
  /**
   * The step of the definition this was (a hash of its tool and input): a retry carries a
   * finished step over only while the task still has that same step in that place.
   */
  fingerprint?: string;
  /** Done by an earlier attempt of this run and carried over: not executed again by this one. */
  carried?: true;
  /** The call is waiting for the person's answer, so it has not executed; cleared once approved. */
  awaiting_approval?: true;
  /**
   * The call was aborted while it ran (the daemon stopping, the wall-time limit): it may have done
   * some or all of its work, whatever its result says.
   */
  cut_short?: true;
  finished_at?: string;
  ok?: boolean;
  error_code?: string;
  summary?: string;
}

export interface ScheduleRunRecord {
  id: string;
  scheduleId: string;
  scheduledFor: number;
  day: string;
  startedAt: number;
  finishedAt: number | null;
  state: RunState;
  outcome: ScheduleOutcome | null;
  trigger: ScheduleTrigger;
  attempt: number;
  /** Earlier cron times this run also stands for (catch-up `once`), or that a skip covers besides `scheduledFor`. */
  missed: number;
  /** The oldest of those, oldest first (at most 50: `missed` counts them all). */
  missedTimes: number[];
  durationMs: number | null;
  costUsd: number;
  /** How it went, in every language (English is the record; older rows have English only). */
  summary: Localized | null;
  errorCode: string | null;
  runId: string | null;
  steps: StepRecord[];
  suspended: boolean;
  /** Wall time the run has used while a daemon ran it (not the time the daemon was down). */
  usedMs: number;
}

interface TaskRow {
  id: string;
  name: string;
  definition: string;
  enabled: number;
  disabled_reason: string | null;
  disabled_reason_translations: string | null;
  cursor_at: string;
  retry_at: string | null;
  retry_attempt: number | null;
  retry_for: string | null;
  retry_from: string | null;
  consecutive_crashes: number;
  crash_streak: string | null;
  created_at: string;
  updated_at: string;
}

interface RunRow {
  id: string;
  schedule_id: string;
  scheduled_for: string;
  day: string;
  started_at: string;
  finished_at: string | null;
  state: RunState;
  outcome: ScheduleOutcome | null;
  trigger: ScheduleTrigger;
  attempt: number;
  missed: number;
  missed_times: string | null;
  duration_ms: number | null;
  cost_usd: number;
  summary: string | null;
  summary_translations: string | null;
  error_code: string | null;
  run_id: string | null;
  steps: string | null;
  suspended: number;
  used_ms: number;
}

const iso = (time: number) => new Date(time).toISOString();

/**
 * A cursor set to "now" (a task turned on, its time changed) never moves back: after the wall clock
 * was set back, "now" can be before a cron time that already ran, which would then come due again.
 * The times are all `toISOString()` text, whose order is the order of the times.
 */
const CURSOR_FORWARD = 'MAX(cursor_at, ?)';

/**
 * Scheduled tasks and their history in SQLite (tables `schedules` and `schedule_runs`). Every
 * write is durable (synchronous = FULL for its commit): the scheduler's cursor, retries and run
 * rows decide whether something runs, or runs again, after a power cut — the database is opened at
 * NORMAL, which may lose the last commits then. {@link atomically} groups the writes of one decision.
 */
export class ScheduleStore {
  /** Statements compiled once: a minute with hundreds of tasks due runs each of them hundreds of times. */
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs `write` as one transaction, committed durably: a decision of the scheduler (a cursor or
   * retry change and the history row that goes with it) is on disk whole or not at all, so a crash
   * or a power cut cannot keep one half (a moved cursor without its run, a cleared retry without
   * the run it became). Nested calls join the outer transaction, whose commit is the durable one
   * (SQLite cannot change `synchronous` inside a transaction).
   */
  atomically<T>(write: () => T): T {
    const transaction = this.db.transaction(write);
    return this.db.inTransaction ? transaction() : durably(this.db, transaction);
  }

  /** One statement, durably (see {@link atomically}). */
  private write(sql: string, ...params: unknown[]): RunResult {
    return this.atomically(() => this.prepare(sql).run(...params));
  }

  create(definition: TaskDefinition, now: number): ScheduleTask {
    const id = randomUUID();
    try {
      this.write(
        `INSERT INTO schedules (id, name, definition, enabled, cursor_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        id,
        definition.name,
        JSON.stringify(definition),
        definition.enabled ? 1 : 0,
        iso(now),
        iso(now),
        iso(now),
      );
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new AppError(
          'INVALID_ARGUMENT',
          say(
            `A scheduled task named "${definition.name}" already exists. Pick another name, or change that one.`,
            `已经有名为"${definition.name}"的定时任务。请换一个名称，或修改那个任务。`,
          ),
          { cause: error },
        );
      }
      throw error;
    }
    return this.get(id);
  }

  /**
   * Replaces the definition. A changed cron starts counting from `now` (nothing "missed" before it)
   * — or from the cursor, if the clock was set back behind it (see {@link CURSOR_FORWARD}).
   */
  update(id: string, definition: TaskDefinition, now: number, options: { resetCursor: boolean }): ScheduleTask {
    try {
      this.write(
        `UPDATE schedules SET name = ?, definition = ?, enabled = ?, updated_at = ?,
             cursor_at = CASE WHEN ? THEN ${CURSOR_FORWARD} ELSE cursor_at END
           WHERE id = ?`,
        definition.name,
        JSON.stringify(definition),
        definition.enabled ? 1 : 0,
        iso(now),
        options.resetCursor ? 1 : 0,
        iso(now),
        id,
      );
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new AppError('INVALID_ARGUMENT', `A scheduled task named "${definition.name}" already exists.`, {
          cause: error,
        });
      }
      throw error;
    }
    return this.get(id);
  }

  /**
   * Turns a task on or off. Turning it on forgets what it missed while off (see {@link update} for
   * where it counts from), and any crashes counted against it.
   */
  setEnabled(id: string, enabled: boolean, now: number, reason: Localized | null): ScheduleTask {
    return this.atomically(() => this.setEnabledNow(id, enabled, now, reason));
  }

  private setEnabledNow(id: string, enabled: boolean, now: number, reason: Localized | null): ScheduleTask {
    const task = this.get(id);
    const definition = { ...task.definition, enabled };
    this.write(
      `UPDATE schedules SET enabled = ?, definition = ?, disabled_reason = ?, disabled_reason_translations = ?, updated_at = ?,
           cursor_at = CASE WHEN ? THEN ${CURSOR_FORWARD} ELSE cursor_at END,
           consecutive_crashes = CASE WHEN ? THEN 0 ELSE consecutive_crashes END,
           crash_streak = CASE WHEN ? THEN NULL ELSE crash_streak END,
           retry_at = CASE WHEN ? THEN NULL ELSE retry_at END
         WHERE id = ?`,
      enabled ? 1 : 0,
      JSON.stringify(definition),
      enabled || !reason ? null : reason.en,
      enabled || !reason ? null : JSON.stringify(translationsOf(reason)),
      iso(now),
      enabled && !task.enabled ? 1 : 0,
      iso(now),
      enabled ? 1 : 0,
      enabled ? 1 : 0,
      enabled ? 0 : 1,
      id,
    );
    return this.get(id);
  }

  delete(id: string): void {
    this.write('DELETE FROM schedules WHERE id = ?', id);
  }

  get(id: string): ScheduleTask {
    const row = this.prepare('SELECT * FROM schedules WHERE id = ?').get(id) as TaskRow | undefined;
    if (!row) throw new AppError('NOT_FOUND', `There is no scheduled task ${id}. See \`nextai schedule list\`.`);
    return toTask(row);
  }

  /** A task by id or by name. */
  find(ref: string): ScheduleTask {
    const row = this.prepare('SELECT * FROM schedules WHERE id = ? OR name = ? LIMIT 1').get(ref, ref) as
      TaskRow | undefined;
    if (!row) {
      throw new AppError(
        'NOT_FOUND',
        `There is no scheduled task with the id or name "${ref}". See \`nextai schedule list\`.`,
        { details: { ref } },
      );
    }
    return toTask(row);
  }

  list(): ScheduleTask[] {
    return (this.prepare('SELECT * FROM schedules ORDER BY created_at, rowid').all() as TaskRow[]).map(toTask);
  }

  enabled(): ScheduleTask[] {
    return (
      this.prepare('SELECT * FROM schedules WHERE enabled = 1 ORDER BY created_at, rowid').all() as TaskRow[]
    ).map(toTask);
  }

  setCursor(id: string, at: number): void {
    this.write('UPDATE schedules SET cursor_at = ? WHERE id = ?', iso(at), id);
  }

  setRetry(id: string, retry: ScheduleTask['retry']): void {
    this.write(
      'UPDATE schedules SET retry_at = ?, retry_attempt = ?, retry_for = ?, retry_from = ? WHERE id = ?',
      retry ? iso(retry.at) : null,
      retry ? retry.attempt : null,
      retry ? iso(retry.scheduledFor) : null,
      retry?.from ?? null,
      id,
    );
  }

  /** A run of the task ended without the daemon dying: no crash counts against it any more. */
  resetCrashes(id: string): void {
    this.write('UPDATE schedules SET consecutive_crashes = 0, crash_streak = NULL WHERE id = ?', id);
  }

  /**
   * The bookkeeping of one death of the daemon: every task with a run going at it has one more
   * crash for its back-off; the death is added to the streak of the task it is put down to, if
   * any, and ends every other task's streak (a streak is of deaths in a row).
   */
  recordCrash(inFlight: readonly string[], suspect: { taskId: string; crash: CrashRecord } | undefined): void {
    this.atomically(() => {
      for (const id of new Set(inFlight)) {
        this.write('UPDATE schedules SET consecutive_crashes = consecutive_crashes + 1 WHERE id = ?', id);
      }
      this.write(
        'UPDATE schedules SET crash_streak = NULL WHERE crash_streak IS NOT NULL AND id != ?',
        suspect?.taskId ?? '',
      );
      if (!suspect) return;
      const streak = [...this.get(suspect.taskId).crashStreak, suspect.crash];
      this.write(
        'UPDATE schedules SET crash_streak = ? WHERE id = ?',
        JSON.stringify(streak.map(crashRow)),
        suspect.taskId,
      );
    });
  }

  /**
   * Agent runs of any kind that are going (queued or running, not waiting for a person): read at
   * start, before they are resumed, they are what was going when the last daemon died.
   */
  agentRunsGoing(): { id: string; source: string | null }[] {
    return new RunStore(this.db)
      .unfinishedRuns()
      .filter((run) => run.state === 'queued' || run.state === 'running')
      .map((run) => ({ id: run.id, source: run.source }));
  }

  /** Whether the database can be written, as the daemon's writes found (shared by everything writing to it). */
  health(): StorageHealth {
    return storageHealth(this.db);
  }

  // -------------------------------------------------------------------------------------------
  // History

  insertRun(run: {
    scheduleId: string;
    scheduledFor: number;
    day: string;
    startedAt: number;
    trigger: ScheduleTrigger;
    attempt: number;
    missed: number;
    missedTimes?: readonly number[];
    state: RunState;
    outcome?: ScheduleOutcome;
    summary?: Localized;
  }): ScheduleRunRecord {
    const id = randomUUID();
    const finished = run.state === 'finished';
    this.write(
      `INSERT INTO schedule_runs (id, schedule_id, scheduled_for, day, started_at, finished_at, state, outcome,
           trigger, attempt, missed, missed_times, duration_ms, summary, summary_translations)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      run.scheduleId,
      iso(run.scheduledFor),
      run.day,
      iso(run.startedAt),
      finished ? iso(run.startedAt) : null,
      run.state,
      run.outcome ?? null,
      run.trigger,
      run.attempt,
      run.missed,
      run.missedTimes && run.missedTimes.length > 0 ? JSON.stringify(run.missedTimes.map(iso)) : null,
      finished ? 0 : null,
      run.summary?.en ?? null,
      run.summary ? JSON.stringify(translationsOf(run.summary)) : null,
    );
    return this.getRun(id);
  }

  setRunState(id: string, state: Exclude<RunState, 'finished'>): void {
    this.write(`UPDATE schedule_runs SET state = ? WHERE id = ? AND state != 'finished'`, state, id);
  }

  setRunAgent(id: string, runId: string): void {
    this.write('UPDATE schedule_runs SET run_id = ? WHERE id = ?', runId, id);
  }

  setRunSteps(id: string, steps: StepRecord[]): void {
    this.write('UPDATE schedule_runs SET steps = ? WHERE id = ?', JSON.stringify(steps), id);
  }

  setSuspended(id: string, suspended: boolean): void {
    this.write('UPDATE schedule_runs SET suspended = ? WHERE id = ?', suspended ? 1 : 0, id);
  }

  /** The wall time the run has used so far, counting only while a daemon ran it. */
  setRunUsed(id: string, usedMs: number): void {
    this.write('UPDATE schedule_runs SET used_ms = ? WHERE id = ?', Math.max(0, usedMs), id);
  }

  /** Ends a run; a run that already ended is left as it was (false). */
  finishRun(
    id: string,
    end: { at: number; outcome: ScheduleOutcome; costUsd: number; summary: Localized; errorCode?: string | undefined },
  ): boolean {
    return this.atomically(() => {
      const run = this.getRun(id);
      if (run.state === 'finished') return false;
      this.write(
        `UPDATE schedule_runs SET state = 'finished', finished_at = ?, outcome = ?, duration_ms = ?, cost_usd = ?,
           summary = ?, summary_translations = ?, error_code = ?, suspended = 0
         WHERE id = ?`,
        iso(end.at),
        end.outcome,
        Math.max(0, end.at - run.startedAt),
        end.costUsd,
        end.summary.en,
        JSON.stringify(translationsOf(end.summary)),
        end.errorCode ?? null,
        id,
      );
      return true;
    });
  }

  getRun(id: string): ScheduleRunRecord {
    const row = this.prepare('SELECT * FROM schedule_runs WHERE id = ?').get(id) as RunRow | undefined;
    if (!row) throw new AppError('NOT_FOUND', `There is no run ${id} of a scheduled task.`);
    return toRun(row);
  }

  /** Runs that have not ended, of one task or of all. */
  openRuns(scheduleId?: string): ScheduleRunRecord[] {
    const rows =
      scheduleId === undefined
        ? this.prepare(`SELECT * FROM schedule_runs WHERE state != 'finished' ORDER BY started_at`).all()
        : this.prepare(
            `SELECT * FROM schedule_runs WHERE state != 'finished' AND schedule_id = ? ORDER BY started_at`,
          ).all(scheduleId);
    return (rows as RunRow[]).map(toRun);
  }

  /** Newest first. */
  history(scheduleId: string | undefined, limit: number): ScheduleRunRecord[] {
    const rows =
      scheduleId === undefined
        ? this.prepare('SELECT * FROM schedule_runs ORDER BY started_at DESC, rowid DESC LIMIT ?').all(limit)
        : this.prepare(
            'SELECT * FROM schedule_runs WHERE schedule_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?',
          ).all(scheduleId, limit);
    return (rows as RunRow[]).map(toRun);
  }

  lastRun(scheduleId: string): ScheduleRunRecord | undefined {
    return this.history(scheduleId, 1)[0];
  }

  /** What the runs of a task recorded as spent on one day (runs still going count what they have so far). */
  costOnDay(scheduleId: string, day: string): number {
    return (
      (this.prepare('SELECT COALESCE(SUM(cost_usd), 0) FROM schedule_runs WHERE schedule_id = ? AND day = ?')
        .pluck()
        .get(scheduleId, day) as number) ?? 0
    );
  }

  setRunCost(id: string, costUsd: number): void {
    this.write('UPDATE schedule_runs SET cost_usd = ? WHERE id = ?', costUsd, id);
  }
}

/** A {@link CrashRecord} as stored (JSON, times in ISO). */
interface CrashRow {
  found_at: string;
  history_id: string;
  run_started_at: string;
}

function crashRow(crash: CrashRecord): CrashRow {
  return { found_at: iso(crash.foundAt), history_id: crash.historyId, run_started_at: iso(crash.runStartedAt) };
}

function toTask(row: TaskRow): ScheduleTask {
  return {
    id: row.id,
    name: row.name,
    definition: JSON.parse(row.definition) as TaskDefinition,
    enabled: row.enabled === 1,
    disabledReason: localized(row.disabled_reason, row.disabled_reason_translations),
    cursorAt: Date.parse(row.cursor_at),
    retry:
      row.retry_at !== null && row.retry_attempt !== null && row.retry_for !== null
        ? {
            at: Date.parse(row.retry_at),
            attempt: row.retry_attempt,
            scheduledFor: Date.parse(row.retry_for),
            ...(row.retry_from === null ? {} : { from: row.retry_from }),
          }
        : null,
    consecutiveCrashes: row.consecutive_crashes,
    crashStreak:
      row.crash_streak === null
        ? []
        : (JSON.parse(row.crash_streak) as CrashRow[]).map((crash) => ({
            foundAt: Date.parse(crash.found_at),
            historyId: crash.history_id,
            runStartedAt: Date.parse(crash.run_started_at),
          })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRun(row: RunRow): ScheduleRunRecord {
  return {
    id: row.id,
    scheduleId: row.schedule_id,
    scheduledFor: Date.parse(row.scheduled_for),
    day: row.day,
    startedAt: Date.parse(row.started_at),
    finishedAt: row.finished_at === null ? null : Date.parse(row.finished_at),
    state: row.state,
    outcome: row.outcome,
    trigger: row.trigger,
    attempt: row.attempt,
    missed: row.missed,
    missedTimes: row.missed_times === null ? [] : (JSON.parse(row.missed_times) as string[]).map(Date.parse),
    durationMs: row.duration_ms,
    costUsd: row.cost_usd,
    summary: localized(row.summary, row.summary_translations),
    errorCode: row.error_code,
    runId: row.run_id,
    steps: row.steps === null ? [] : (JSON.parse(row.steps) as StepRecord[]),
    suspended: row.suspended === 1,
    usedMs: row.used_ms,
  };
}

export function runView(run: ScheduleRunRecord): ScheduleRunView {
  return {
    id: run.id,
    schedule_id: run.scheduleId,
    scheduled_for: iso(run.scheduledFor),
    started_at: iso(run.startedAt),
    finished_at: run.finishedAt === null ? null : iso(run.finishedAt),
    state: run.state,
    outcome: run.outcome,
    trigger: run.trigger,
    attempt: run.attempt,
    missed: run.missed,
    missed_times: run.missedTimes.map(iso),
    duration_ms: run.durationMs,
    cost_usd: run.costUsd,
    summary: run.summary?.en ?? null,
    summary_translations: run.summary ? translationsOf(run.summary) : null,
    error_code: run.errorCode,
    run_id: run.runId,
  };
}

/** English and its stored translations as one message; a language not stored shows the English. */
function localized(en: string | null, translations: string | null): Localized | null {
  if (en === null) return null;
  return localizedMessage(en, translations === null ? undefined : (JSON.parse(translations) as MessageTranslations));
}
