/**
 * The database schema, as an ordered list of migrations. A migration is never edited after it
 * has shipped; changes come as new entries. `PRAGMA user_version` records how far a database is.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
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
];
