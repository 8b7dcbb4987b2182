import { randomUUID } from 'node:crypto';

import {
  AppError,
  type GrantedToolSet,
  type MessageTranslations,
  type RunResultKind,
  type RunStateName,
} from '@nextai/shared';

import type { Statement } from 'better-sqlite3';

import { writeTransaction, type Db } from '../storage/database.js';

/** The states of shared/'s protocol (RUN_STATES): the wire and the table speak the same names. */
export type RunState = RunStateName;

/** Why a run failed; `translations` holds the message in the panel's other languages. */
export interface RunError {
  code: string;
  message: string;
  translations?: MessageTranslations;
}

/**
 * `queued → running ⇄ waiting_user / waiting_approval / paused → finished | failed | stopped`.
 * Only a running run finishes; any run that has not ended can fail or be stopped (an emergency
 * stop or a run that cannot be resumed); the three end states are final.
 */
export const RUN_TRANSITIONS: Readonly<Record<RunState, readonly RunState[]>> = {
  queued: ['running', 'failed', 'stopped'],
  running: ['waiting_user', 'waiting_approval', 'paused', 'finished', 'failed', 'stopped'],
  waiting_user: ['running', 'failed', 'stopped'],
  waiting_approval: ['running', 'failed', 'stopped'],
  paused: ['running', 'failed', 'stopped'],
  finished: [],
  failed: [],
  stopped: [],
};

const ENDED: readonly RunState[] = ['finished', 'failed', 'stopped'];

export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  /** Parts of `inputTokens` read from and written to the provider's prompt cache. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Part of `outputTokens` the model spent thinking. */
  reasoningTokens?: number;
  costUsd: number;
  /** False once a model call could not be priced: costUsd is then a lower bound. */
  costKnown: boolean;
}

export interface RunRecord {
  id: string;
  sessionId: string | null;
  goal: string;
  project: string;
  state: RunState;
  limits: Record<string, unknown>;
  usage: RunUsage;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  error: RunError | null;
  /** The agent's final answer, once finished. */
  result: string | null;
  /** How it finished: its answer, or none (declined, filtered, no answer); null before, and for older runs. */
  resultKind: RunResultKind | null;
  /** The model the run uses (recorded at its first model call). */
  model: string | null;
  /** Model turns taken. */
  turns: number;
  /** What the run may use (a scheduled task's grant): every tool call is decided with it. */
  grant: GrantedToolSet | null;
  /** Who started it when not a person's request: "schedule", "heartbeat". */
  source: string | null;
}

export interface NewRun {
  goal: string;
  project: string;
  sessionId?: string | null | undefined;
  limits?: Record<string, unknown> | undefined;
  grant?: GrantedToolSet | undefined;
  source?: string | undefined;
}

/** What is about to be done: `kind` says what sort of action (e.g. "tool_call"), the rest is its data. */
export interface StepIntent {
  kind: string;
  [key: string]: unknown;
}

export interface StepRecord {
  runId: string;
  step: number;
  kind: string;
  intent: StepIntent;
  result: unknown;
  intentAt: string;
  resultAt: string | null;
}

export interface Checkpoint {
  runId: string;
  step: number;
  state: unknown;
  createdAt: string;
}

interface RunRow {
  id: string;
  session_id: string | null;
  goal: string;
  project: string;
  state: RunState;
  limits: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  error_code: string | null;
  error: string | null;
  error_translations: string | null;
  result: string | null;
  result_kind: RunResultKind | null;
  model: string | null;
  turns: number;
  cost_known: number;
  granted_tools: string | null;
  source: string | null;
}

interface StepRow {
  run_id: string;
  step: number;
  kind: string;
  intent: string;
  result: string | null;
  intent_at: string;
  result_at: string | null;
}

/**
 * Runs `write` with the connection at `synchronous = FULL`, then puts back what it was. The
 * database is opened at NORMAL (in WAL mode a crash of the process loses nothing, but a power cut
 * can lose the last commits); intents, results and checkpoints must survive even that, because
 * resuming relies on them. The pragma is per connection, so it is raised only around these writes.
 */
export function durably<T>(db: Db, write: () => T): T {
  const previous = db.pragma('synchronous', { simple: true }) as number;
  if (previous >= 2) return write();
  db.pragma('synchronous = FULL');
  try {
    return write();
  } finally {
    db.pragma(`synchronous = ${previous}`);
  }
}

function checkStep(step: number): void {
  if (!Number.isSafeInteger(step) || step < 0) {
    throw new AppError('INVALID_ARGUMENT', `A step number is a whole number from 0 up; got ${String(step)}.`);
  }
}

/**
 * Agent runs in SQLite: the state machine, the intent/result of each action, and the latest
 * checkpoint of the loop. After a crash `unfinishedRuns()` says what to resume, and
 * `stepsWithoutResult()` which actions may or may not have happened ("outcome unknown — observe
 * before acting"); such a step is never repeated blindly.
 */
export class RunStore {
  constructor(
    private readonly db: Db,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Statements compiled once per store: the loop runs several of them at every step. */
  private readonly statements = new Map<string, Statement>();

  private now(): string {
    return this.clock().toISOString();
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  create(run: NewRun): RunRecord {
    const goal = run.goal.trim();
    if (goal === '') throw new AppError('INVALID_ARGUMENT', 'A run needs a goal: say what the agent should do.');
    const sessionId = run.sessionId ?? null;
    if (sessionId !== null && !this.statement('SELECT 1 FROM sessions WHERE id = ?').get(sessionId)) {
      throw new AppError(
        'NOT_FOUND',
        `There is no session ${sessionId} to start the run in. Create the session first.`,
        {
          details: { sessionId },
        },
      );
    }
    const id = randomUUID();
    const time = this.now();
    this.statement(
      `INSERT INTO runs (id, session_id, goal, project, state, limits, created_at, updated_at, granted_tools, source)
         VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)`,
    ).run(
      id,
      sessionId,
      goal,
      run.project,
      JSON.stringify(run.limits ?? {}),
      time,
      time,
      run.grant === undefined ? null : JSON.stringify(run.grant),
      run.source ?? null,
    );
    return this.get(id);
  }

  get(id: string): RunRecord {
    const row = this.statement('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
    if (!row) {
      throw new AppError('NOT_FOUND', `There is no run ${id}. List the runs to see which ids exist.`, {
        details: { runId: id },
      });
    }
    return toRun(row);
  }

  /** Newest first; optionally only one session's or one state's runs. */
  list(filter: { sessionId?: string; state?: RunState; limit?: number } = {}): RunRecord[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.sessionId !== undefined) {
      where.push('session_id = ?');
      params.push(filter.sessionId);
    }
    if (filter.state !== undefined) {
      where.push('state = ?');
      params.push(filter.state);
    }
    params.push(filter.limit ?? 100);
    const rows = this.statement(
      `SELECT * FROM runs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY created_at DESC, rowid DESC LIMIT ?`,
    ).all(...params) as RunRow[];
    return rows.map(toRun);
  }

  /**
   * Moves a run to `to`; an illegal move throws and changes nothing. Entering `failed` can carry
   * the error that ended the run.
   */
  transition(id: string, to: RunState, error?: RunError): RunRecord {
    const move = () => {
      const from = this.get(id).state;
      const allowed = RUN_TRANSITIONS[from];
      if (!allowed.includes(to)) {
        const next = allowed.length > 0 ? `it can go to ${allowed.join(', ')}` : 'it has ended and cannot change';
        throw new AppError('INVALID_ARGUMENT', `Run ${id} is ${from} and cannot become ${to}; ${next}.`, {
          details: { runId: id, state: from, to, allowed },
        });
      }
      const time = this.now();
      this.statement(
        `UPDATE runs SET state = ?, updated_at = ?, finished_at = ?, error_code = ?, error = ?, error_translations = ?
           WHERE id = ? AND state = ?`,
      ).run(
        to,
        time,
        ENDED.includes(to) ? time : null,
        error?.code ?? null,
        error?.message ?? null,
        error?.translations ? JSON.stringify(error.translations) : null,
        id,
        from,
      );
    };
    durably(this.db, () => writeTransaction(this.db, move));
    return this.get(id);
  }

  /**
   * Changes what a paused run shows as the reason it waits (its error), without moving it: a run
   * that waited for the database becomes one the person paused, or back. False when it is not paused.
   */
  setPauseReason(id: string, error: RunError | null): boolean {
    const changed = durably(this.db, () =>
      this.statement(
        `UPDATE runs SET error_code = ?, error = ?, error_translations = ?, updated_at = ?
           WHERE id = ? AND state = 'paused'`,
      ).run(
        error?.code ?? null,
        error?.message ?? null,
        error?.translations ? JSON.stringify(error.translations) : null,
        this.now(),
        id,
      ),
    );
    return changed.changes > 0;
  }

  /** Adds one model call's tokens and cost to the run's totals; `turns` counts model calls. */
  addUsage(id: string, usage: Partial<RunUsage> & { turns?: number; model?: string }): RunRecord {
    const changed = this.statement(
      `UPDATE runs SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
         cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
         reasoning_tokens = reasoning_tokens + ?,
         cost_usd = cost_usd + ?, turns = turns + ?, cost_known = MIN(cost_known, ?),
         model = COALESCE(?, model), updated_at = ? WHERE id = ?`,
    ).run(
      usage.inputTokens ?? 0,
      usage.outputTokens ?? 0,
      usage.cacheReadTokens ?? 0,
      usage.cacheWriteTokens ?? 0,
      usage.reasoningTokens ?? 0,
      usage.costUsd ?? 0,
      usage.turns ?? 0,
      usage.costKnown === false ? 0 : 1,
      usage.model ?? null,
      this.now(),
      id,
    );
    if (changed.changes === 0) return this.get(id); // throws NOT_FOUND
    return this.get(id);
  }

  /** The agent's final words, kept with the run, and whether they are its answer or why there is none. */
  setResult(id: string, result: string, kind: RunResultKind = 'answer'): void {
    this.statement('UPDATE runs SET result = ?, result_kind = ?, updated_at = ? WHERE id = ?').run(
      result,
      kind,
      this.now(),
      id,
    );
  }

  /** Written before the action starts. The run must be running, and the step must be new. */
  recordIntent(runId: string, step: number, intent: StepIntent): void {
    checkStep(step);
    const write = () => {
      const run = this.get(runId);
      if (run.state !== 'running') {
        throw new AppError(
          'INVALID_ARGUMENT',
          `Run ${runId} is ${run.state}; an action can only start while it is running. Resume it first.`,
          { details: { runId, state: run.state } },
        );
      }
      const existing = this.statement('SELECT 1 FROM run_steps WHERE run_id = ? AND step = ?').get(runId, step);
      if (existing) {
        throw new AppError(
          'INVALID_ARGUMENT',
          `Step ${step} of run ${runId} already has an intent; give each action its own step number.`,
          { details: { runId, step } },
        );
      }
      this.statement('INSERT INTO run_steps (run_id, step, kind, intent, intent_at) VALUES (?, ?, ?, ?, ?)').run(
        runId,
        step,
        intent.kind,
        JSON.stringify(intent),
        this.now(),
      );
    };
    durably(this.db, () => writeTransaction(this.db, write));
  }

  /**
   * Written after the action. Allowed whatever state the run is in by then (a stop does not undo
   * what already happened), but only once, and only for a step whose intent was recorded.
   */
  recordResult(runId: string, step: number, result: unknown): void {
    checkStep(step);
    const write = () => {
      this.get(runId);
      const row = this.statement('SELECT result_at FROM run_steps WHERE run_id = ? AND step = ?').get(runId, step) as
        { result_at: string | null } | undefined;
      if (!row) {
        throw new AppError(
          'INVALID_ARGUMENT',
          `Step ${step} of run ${runId} has no recorded intent; record the intent before acting, then the result.`,
          { details: { runId, step } },
        );
      }
      if (row.result_at !== null) {
        throw new AppError(
          'INVALID_ARGUMENT',
          `Step ${step} of run ${runId} already has a result (recorded ${row.result_at}); a result is written once.`,
          { details: { runId, step } },
        );
      }
      this.statement('UPDATE run_steps SET result = ?, result_at = ? WHERE run_id = ? AND step = ?').run(
        JSON.stringify(result ?? null),
        this.now(),
        runId,
        step,
      );
    };
    durably(this.db, () => writeTransaction(this.db, write));
  }

  /**
   * A step whose intent was not needed before acting (a model call, an observation: nothing they
   * do can happen twice) written whole, intent and result together, whatever the run's state.
   */
  recordStep(runId: string, step: number, intent: StepIntent, result: unknown): void {
    checkStep(step);
    const time = this.now();
    durably(this.db, () =>
      this.statement(
        'INSERT INTO run_steps (run_id, step, kind, intent, result, intent_at, result_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(runId, step, intent.kind, JSON.stringify(intent), JSON.stringify(result ?? null), time, time),
    );
  }

  /**
   * Several writes as one durable transaction (one sync to disk instead of one each): e.g. a
   * step's result and the checkpoint that follows it. All happen or none.
   */
  atomically<T>(writes: () => T): T {
    return durably(this.db, () => writeTransaction(this.db, writes));
  }

  steps(runId: string, from = 0): StepRecord[] {
    this.get(runId);
    const rows = this.statement('SELECT * FROM run_steps WHERE run_id = ? AND step >= ? ORDER BY step').all(
      runId,
      from,
    ) as StepRow[];
    return rows.map(toStep);
  }

  /** Actions whose intent was written but whose result was not: their outcome is unknown. */
  stepsWithoutResult(runId: string): StepRecord[] {
    this.get(runId);
    const rows = this.statement('SELECT * FROM run_steps WHERE run_id = ? AND result_at IS NULL ORDER BY step').all(
      runId,
    ) as StepRow[];
    return rows.map(toStep);
  }

  /**
   * Saves the loop state after `step`, replacing the previous checkpoint, in one transaction.
   * A checkpoint older than the one already saved is refused.
   */
  checkpoint(runId: string, step: number, state: unknown): Checkpoint {
    checkStep(step);
    const time = this.now();
    const write = () => {
      this.get(runId);
      // Only the step is compared: the saved state (the whole conversation) is not parsed again.
      const latest = this.statement('SELECT step FROM run_checkpoints WHERE run_id = ? ORDER BY step DESC LIMIT 1').get(
        runId,
      ) as { step: number } | undefined;
      if (latest && latest.step > step) {
        throw new AppError(
          'INVALID_ARGUMENT',
          `Run ${runId} already has a checkpoint after step ${latest.step}; a checkpoint for step ${step} would go back in time.`,
          { details: { runId, step, latest: latest.step } },
        );
      }
      this.statement('DELETE FROM run_checkpoints WHERE run_id = ?').run(runId);
      this.statement('INSERT INTO run_checkpoints (run_id, step, state, created_at) VALUES (?, ?, ?, ?)').run(
        runId,
        step,
        JSON.stringify(state ?? null),
        time,
      );
      this.statement('UPDATE runs SET updated_at = ? WHERE id = ?').run(time, runId);
    };
    durably(this.db, () => writeTransaction(this.db, write));
    return { runId, step, state, createdAt: time };
  }

  latestCheckpoint(runId: string): Checkpoint | null {
    const row = this.statement(
      'SELECT step, state, created_at FROM run_checkpoints WHERE run_id = ? ORDER BY step DESC LIMIT 1',
    ).get(runId) as { step: number; state: string; created_at: string } | undefined;
    if (!row) {
      this.get(runId);
      return null;
    }
    return { runId, step: row.step, state: JSON.parse(row.state) as unknown, createdAt: row.created_at };
  }

  /** Runs that have not ended, oldest first: what the daemon resumes after a restart. */
  unfinishedRuns(): RunRecord[] {
    const rows = this.statement(
      `SELECT * FROM runs WHERE state NOT IN ('finished', 'failed', 'stopped') ORDER BY created_at, rowid`,
    ).all() as RunRow[];
    return rows.map(toRun);
  }
}

function toRun(row: RunRow): RunRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    goal: row.goal,
    project: row.project,
    state: row.state,
    limits: JSON.parse(row.limits) as Record<string, unknown>,
    usage: {
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      ...(row.cache_read_tokens ? { cacheReadTokens: row.cache_read_tokens } : {}),
      ...(row.cache_write_tokens ? { cacheWriteTokens: row.cache_write_tokens } : {}),
      ...(row.reasoning_tokens ? { reasoningTokens: row.reasoning_tokens } : {}),
      costUsd: row.cost_usd,
      costKnown: row.cost_known !== 0,
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    error: row.error_code !== null || row.error !== null ? runErrorOf(row) : null,
    result: row.result,
    resultKind: row.result_kind,
    model: row.model,
    turns: row.turns,
    grant: row.granted_tools === null ? null : (JSON.parse(row.granted_tools) as GrantedToolSet),
    source: row.source,
  };
}

function toStep(row: StepRow): StepRecord {
  return {
    runId: row.run_id,
    step: row.step,
    kind: row.kind,
    intent: JSON.parse(row.intent) as StepIntent,
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    intentAt: row.intent_at,
    resultAt: row.result_at,
  };
}

function runErrorOf(row: RunRow): RunError {
  const error: RunError = { code: row.error_code ?? '', message: row.error ?? '' };
  if (row.error_translations !== null) error.translations = JSON.parse(row.error_translations) as MessageTranslations;
  return error;
}
