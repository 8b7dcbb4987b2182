import { createHash } from 'node:crypto';

import type Database from 'better-sqlite3';

/**
 * The database schema, as an ordered list of migrations. A migration is never edited after it
 * has shipped; changes come as new entries. `PRAGMA user_version` records how far a database is.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** Moves data SQL alone cannot (hashing, rewriting JSON); runs after `sql`, in the same transaction. */
  data?: (db: Database.Database) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'event log',
    sql: `
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        time TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'safety core: audit log, approvals, safety state',
    sql: `
      -- Hash-chained and append-only: each row carries the hash of the row before it.
      CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        time TEXT NOT NULL,
        kind TEXT NOT NULL,
        entry TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
      );
      CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
      CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;

      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        call_id TEXT NOT NULL,
        run_id TEXT,
        project TEXT NOT NULL,
        source TEXT NOT NULL,
        tool TEXT NOT NULL,
        input TEXT NOT NULL,
        risk TEXT NOT NULL,
        layer TEXT NOT NULL,
        reason TEXT NOT NULL,
        findings TEXT NOT NULL,
        per_call INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'cancelled')),
        scope TEXT CHECK (scope IN ('once', 'run')),
        message TEXT,
        answered_at TEXT,
        answered_by TEXT
      );
      CREATE INDEX approvals_pending ON approvals (status, created_at);

      -- "Approve for the rest of this run" grants, and denial counts for the circuit breaker.
      CREATE TABLE run_safety (
        run_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        approved_for_run INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, tool)
      );
      CREATE TABLE run_denials (
        run_id TEXT PRIMARY KEY,
        consecutive INTEGER NOT NULL DEFAULT 0,
        total INTEGER NOT NULL DEFAULT 0
      );

      -- Latched states that must survive a restart (the emergency stop), and the last good policy.
      CREATE TABLE safety_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'agent sessions, runs, steps and checkpoints',
    sql: `
      -- Chat sessions. Deleting one deletes its messages; its runs stay (session_id becomes NULL).
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        project TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX sessions_recent ON sessions (updated_at DESC);

      CREATE TABLE session_messages (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
        content TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) WITHOUT ROWID;

      -- Agent runs: a state machine (see native-host/src/agent/run-store.ts for the transitions).
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        session_id TEXT REFERENCES sessions (id) ON DELETE SET NULL,
        goal TEXT NOT NULL,
        project TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN
          ('queued', 'running', 'waiting_user', 'waiting_approval', 'paused', 'finished', 'failed', 'stopped')),
        limits TEXT NOT NULL,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT,
        error_code TEXT,
        error TEXT
      );
      CREATE INDEX runs_by_state ON runs (state, created_at);
      CREATE INDEX runs_by_session ON runs (session_id, created_at);
      CREATE INDEX runs_recent ON runs (created_at DESC);

      -- One row per action: the intent is written before acting, the result after.
      CREATE TABLE run_steps (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        kind TEXT NOT NULL,
        intent TEXT NOT NULL,
        result TEXT,
        intent_at TEXT NOT NULL,
        result_at TEXT,
        PRIMARY KEY (run_id, step)
      ) WITHOUT ROWID;
      CREATE INDEX run_steps_open ON run_steps (run_id, step) WHERE result_at IS NULL;

      -- The loop state (conversation included) after a step; only the latest per run is kept.
      CREATE TABLE run_checkpoints (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        state TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (run_id, step)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 4,
    name: 'agent loop: run results, model, turns, questions',
    sql: `
      ALTER TABLE runs ADD COLUMN result TEXT;
      ALTER TABLE runs ADD COLUMN model TEXT;
      ALTER TABLE runs ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
      -- 0 once a model call could not be priced (unknown model): cost_usd is then a lower bound.
      ALTER TABLE runs ADD COLUMN cost_known INTEGER NOT NULL DEFAULT 1;

      -- What a run asks the person (ask_user, or the loop asking for help when stuck). The run
      -- waits in waiting_user until the answer is written here; it survives restarts.
      CREATE TABLE run_questions (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        call_id TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('ask_user', 'stuck')),
        question TEXT NOT NULL,
        options TEXT NOT NULL,
        asked_at TEXT NOT NULL,
        answer TEXT,
        answered_at TEXT,
        answered_by TEXT
      );
      CREATE INDEX run_questions_open ON run_questions (run_id) WHERE answered_at IS NULL;
      CREATE UNIQUE INDEX run_questions_by_call ON run_questions (run_id, call_id) WHERE call_id IS NOT NULL;
    `,
  },
  {
    version: 5,
    name: 'agent loop: images of a run held by reference',
    sql: `
      -- Screenshots in a run's conversation. The checkpoint names them instead of carrying their
      -- base64, so saving the loop state after every step stays small; rows the conversation no
      -- longer shows as images are deleted.
      CREATE TABLE run_images (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        media_type TEXT NOT NULL,
        data BLOB NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX run_images_by_run ON run_images (run_id);
    `,
  },
  {
    version: 6,
    name: 'what people are shown, in the panel languages besides English',
    sql: `
      -- JSON: { "zh-CN": { "reason": …, "findings": [...] } }. Rows from before stay '{}' and show in English.
      ALTER TABLE approvals ADD COLUMN translations TEXT NOT NULL DEFAULT '{}';
      -- JSON: { "zh-CN": "…" }, the error that ended a run; NULL shows its English message.
      ALTER TABLE runs ADD COLUMN error_translations TEXT;
    `,
  },
  {
    version: 7,
    name: 'scheduled tasks, their history, and what a run was granted',
    sql: `
      -- Scheduled tasks (issue #8). A task is an instruction for an agent run or a fixed list of
      -- tool steps; the full definition is kept as JSON, the columns are what the scheduler asks.
      CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        definition TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        disabled_reason TEXT,
        -- Every cron time up to this one has been dealt with (fired, skipped or caught up).
        cursor_at TEXT NOT NULL,
        -- A failed run is tried again at retry_at, as attempt retry_attempt, for retry_for.
        retry_at TEXT,
        retry_attempt INTEGER,
        retry_for TEXT,
        -- Runs of this task in a row that ended with the daemon dying (crash-loop protection).
        consecutive_crashes INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );

      -- One row per run of a task, and per skip (outcome 'skipped'), newest last.
      CREATE TABLE schedule_runs (
        id TEXT PRIMARY KEY,
        schedule_id TEXT NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
        scheduled_for TEXT NOT NULL,
        -- The calendar day of scheduled_for in the task's time zone: the per-day cost cap sums by it.
        day TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        state TEXT NOT NULL CHECK (state IN ('running', 'waiting_approval', 'waiting_user', 'finished')),
        outcome TEXT,
        trigger TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        missed INTEGER NOT NULL DEFAULT 0,
        duration_ms REAL,
        cost_usd REAL NOT NULL DEFAULT 0,
        summary TEXT,
        error_code TEXT,
        run_id TEXT,
        -- The tool steps done so far (fixed-step tasks): each one's intent, then its result.
        steps TEXT,
        -- Set when the daemon stopped cleanly while this run was going; a run left 'running'
        -- without it means the daemon died during it.
        suspended INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX schedule_runs_by_schedule ON schedule_runs (schedule_id, started_at);
      CREATE INDEX schedule_runs_open ON schedule_runs (state) WHERE state != 'finished';
      CREATE INDEX schedule_runs_by_day ON schedule_runs (schedule_id, day);

      -- What an agent run was granted (a scheduled task's granted_tools) and who started it:
      -- every tool call of the run is decided with that grant, which can only tighten.
      ALTER TABLE runs ADD COLUMN granted_tools TEXT;
      ALTER TABLE runs ADD COLUMN source TEXT;
    `,
  },
  {
    version: 8,
    name: 'the sensitive page action an approval was asked for',
    sql: `
      -- The sensitive kind (credential_submit, payment_submit…) the person was shown, so an answer
      -- given before a restart is reused only for the same kind (issue #7).
      ALTER TABLE approvals ADD COLUMN sensitive_kind TEXT;
    `,
  },
  {
    version: 9,
    name: 'scheduled runs: what a retry continues, and the running time a run has used',
    sql: `
      -- The history row a waiting retry continues: a fixed-step retry goes on after the steps
      -- that run finished instead of doing them again. NULL for retries recorded before.
      ALTER TABLE schedules ADD COLUMN retry_from TEXT;
      -- Milliseconds of the wall-time limit a run has used while a daemon was running it (written
      -- at each sign of progress and at a clean stop): a run resumed after a restart is not
      -- charged for the time the daemon was down.
      ALTER TABLE schedule_runs ADD COLUMN used_ms REAL NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 10,
    name: 'scheduled runs and tasks: what people are shown, in the panel languages besides English',
    sql: `
      -- JSON {"zh-CN": "…"} beside the English summary of a run and the reason a task was turned
      -- off; NULL for rows written before (the panel then shows the English).
      ALTER TABLE schedule_runs ADD COLUMN summary_translations TEXT;
      ALTER TABLE schedules ADD COLUMN disabled_reason_translations TEXT;
    `,
  },
  {
    version: 11,
    name: 'approvals: the sandbox a command would run in, or why it asks to leave it',
    sql: `
      -- JSON of the decision's sandbox (issue #15): confined or not, writable folders, hidden
      -- places, network, and the sentence the card shows; NULL for tools that start nothing and
      -- for requests written before.
      ALTER TABLE approvals ADD COLUMN sandbox TEXT;
    `,
  },
  {
    version: 12,
    name: 'audit log: rows of one kind found quickly (the emergency stop is read from the chain)',
    sql: `
      CREATE INDEX audit_log_kind ON audit_log (kind, seq);
    `,
  },
  {
    version: 13,
    name: 'one content-addressed image store, whose images runs hold',
    sql: `
      -- Screenshots and other large payloads, named blob:<hash> by the SHA-256 of their bytes: the
      -- same bytes are one row, whether a tool returned them, a step record or a run's conversation
      -- names them (storage/image-store.ts). Replaces run_images and the screenshots/blobs folder.
      CREATE TABLE images (
        hash TEXT PRIMARY KEY,
        media_type TEXT NOT NULL,
        data BLOB NOT NULL,
        created_at TEXT NOT NULL,
        used_at TEXT NOT NULL
      );
      CREATE INDEX images_by_use ON images (used_at);

      -- Who keeps an image: run:<run id> for the images a run's steps and conversation name. An
      -- image nobody holds goes an hour after its last use; a held one cannot be deleted.
      CREATE TABLE image_holds (
        holder TEXT NOT NULL,
        hash TEXT NOT NULL REFERENCES images (hash),
        PRIMARY KEY (holder, hash)
      ) WITHOUT ROWID;
      CREATE INDEX image_holds_by_image ON image_holds (hash);

      -- A run holds its images for as long as it exists.
      CREATE TRIGGER runs_release_images AFTER DELETE ON runs
        BEGIN DELETE FROM image_holds WHERE holder = 'run:' || OLD.id; END;
    `,
    data: moveRunImages,
  },
  {
    version: 14,
    name: 'scheduled tasks: the daemon deaths put down to a task alone, and the times a catch-up row stands for',
    sql: `
      -- The daemon's deaths in a row put down to this task alone (JSON list: when each was found,
      -- the run it died during and when that run started); at three the task is turned off.
      -- consecutive_crashes still counts every death during one of its runs, whatever else was
      -- going: it sets how long a retry waits.
      ALTER TABLE schedules ADD COLUMN crash_streak TEXT;
      -- The oldest of the earlier cron times a run also stands for (catch-up 'once') or a skip
      -- covers (JSON list of ISO times, at most 50; NULL for none): 'missed' counts all of them.
      ALTER TABLE schedule_runs ADD COLUMN missed_times TEXT;
    `,
  },
  {
    version: 15,
    name: 'agent runs: how a finished run ended (an answer, or the model declined, a content filter, no answer)',
    sql: `
      -- 'answer', 'declined', 'filtered' or 'no_answer' once the run finished; NULL before, and for
      -- runs finished earlier (they finished with an answer).
      ALTER TABLE runs ADD COLUMN result_kind TEXT;
    `,
  },
  {
    version: 16,
    name: 'agent runs: prompt-cache and reasoning tokens (parts of the input and output counts)',
    sql: `
      ALTER TABLE runs ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
    `,
  },
];

/**
 * Migration 13: every row of run_images becomes an image held by its run, and the checkpoints'
 * `runimg:<id>` references become the images' `blob:<hash>` references; then run_images goes.
 * Rows are read one at a time: a database can hold many runs' screenshots.
 */
function moveRunImages(db: Database.Database): void {
  const ids = db.prepare('SELECT id FROM run_images ORDER BY run_id, created_at').pluck().all() as string[];
  const read = db.prepare('SELECT run_id, media_type, data, created_at FROM run_images WHERE id = ?');
  const insert = db.prepare(
    'INSERT INTO images (hash, media_type, data, created_at, used_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING',
  );
  const hold = db.prepare('INSERT OR IGNORE INTO image_holds (holder, hash) VALUES (?, ?)');
  const renamed = new Map<string, string>();
  for (const id of ids) {
    const row = read.get(id) as { run_id: string; media_type: string; data: Buffer; created_at: string };
    const hash = createHash('sha256').update(row.data).digest('hex');
    insert.run(hash, row.media_type, row.data, row.created_at, row.created_at);
    hold.run(`run:${row.run_id}`, hash);
    renamed.set(`runimg:${id}`, `blob:${hash}`);
  }
  const rewrite = (value: unknown): unknown => {
    if (typeof value === 'string') return renamed.get(value) ?? value;
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rewrite(inner)]));
    }
    return value;
  };
  const checkpoints = db
    .prepare(`SELECT run_id, step FROM run_checkpoints WHERE instr(state, '"runimg:') > 0`)
    .all() as { run_id: string; step: number }[];
  const readState = db.prepare('SELECT state FROM run_checkpoints WHERE run_id = ? AND step = ?').pluck();
  const writeState = db.prepare('UPDATE run_checkpoints SET state = ? WHERE run_id = ? AND step = ?');
  for (const { run_id: runId, step } of checkpoints) {
    const state = JSON.parse(readState.get(runId, step) as string) as unknown;
    writeState.run(JSON.stringify(rewrite(state)), runId, step);
  }
  db.exec('DROP TABLE run_images');
}
