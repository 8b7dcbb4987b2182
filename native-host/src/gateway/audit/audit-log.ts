import { AppError, describeZodError, say } from '@nextai/shared';

import type { Db } from '../../storage/database.js';
import { isStorageFailure } from '../../storage/storage-health.js';
import { asStorageError, requireWritable } from '../../storage/storage-writes.js';
import { readAnchor, writeAnchor, type AnchorState } from './anchor.js';
import { GENESIS_HASH, canonicalJson, rowHash, type AuditRow } from './chain.js';
import {
  auditEntrySchema,
  type AuditEntry,
  type AuditKind,
  type AuditRecord,
  type AuditVerification,
} from './entry.js';
import { redactForAudit } from './redact.js';
import { verifyAuditLog } from './verify.js';

export interface AuditListOptions {
  /** At most this many records (default 100, at most 10 000). */
  limit?: number;
  /** Only records with a smaller seq. */
  beforeSeq?: number;
  /** Only records with a larger seq. */
  afterSeq?: number;
  /**
   * Newest first by default. When only `afterSeq` is given the default is oldest first — the
   * `limit` records right after it — so a reader pages forward by passing the last seq it saw.
   */
  order?: 'newest_first' | 'oldest_first';
}

interface Inserted {
  seq: number;
  prev_hash: string;
  hash: string;
  anchorHolds: boolean;
}

/** Strings longer than this (a whole file written by a tool, say) are cut in the audit copy. */
const MAX_STRING_LENGTH = 16_384;
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 10_000;
const EXPORT_PAGE = 1_000;
const AUDIT_RECORD = say('the audit record', '审计记录');

/**
 * The tamper-evident audit log: an append-only, hash-chained SQLite table (each row carries the
 * hash of the row before it) plus an anchor file holding the head of the chain, so edits,
 * deletions and reordering show in the chain, and removing rows from the end shows against the
 * anchor. Secrets are redacted before anything is written.
 *
 * The chain has no secret key: it proves the log was not changed by anything that did not also
 * recompute every later hash and the anchor. It makes tampering evident, not impossible.
 */
export class AuditLog {
  private readonly insert;
  private readonly selectHead;
  private readonly selectCounter;
  private readonly selectHashAt;
  private readonly selectNewestFirst;
  private readonly selectOldestFirst;
  private readonly insertRow;
  private rows: number;

  constructor(
    private readonly db: Db,
    private readonly anchorFile: string,
  ) {
    try {
      this.insert = db.prepare<[number, string, string, string, string, string]>(
        'INSERT INTO audit_log (seq, time, kind, entry, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)',
      );
      this.selectHead = db.prepare<[], { seq: number; hash: string }>(
        'SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1',
      );
      this.selectCounter = db.prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'").pluck();
      this.selectHashAt = db.prepare<[number], string>('SELECT hash FROM audit_log WHERE seq = ?').pluck();
      const columns = 'seq, time, kind, entry, prev_hash, hash';
      this.selectNewestFirst = db.prepare<[number, number, number], AuditRow>(
        `SELECT ${columns} FROM audit_log WHERE seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
      );
      this.selectOldestFirst = db.prepare<[number, number, number], AuditRow>(
        `SELECT ${columns} FROM audit_log WHERE seq > ? AND seq < ? ORDER BY seq LIMIT ?`,
      );
      this.rows = db.prepare<[], number>('SELECT COUNT(*) FROM audit_log').pluck().get() ?? 0;
    } catch (error) {
      throw new AppError(
        'STORAGE_ERROR',
        `The audit log table in the database is missing or damaged (${(error as Error).message}). Nothing was changed; keep a copy of the data directory for inspection.`,
        { cause: error },
      );
    }
    this.insertRow = db.transaction((time: string, kind: AuditKind, entry: string, anchor: AnchorState): Inserted => {
      const head = this.selectHead.get();
      const counter = this.selectCounter.get() ?? 0;
      // Never reuse a number: if rows were removed from the end, the gap stays visible.
      const seq = Math.max(counter, head?.seq ?? 0) + 1;
      const prev_hash = head?.hash ?? GENESIS_HASH;
      const hash = rowHash({ seq, time, kind, entry, prev_hash });
      const anchorHolds = this.anchorHolds(anchor, head === undefined && counter === 0);
      this.insert.run(seq, time, kind, entry, prev_hash, hash);
      return { seq, prev_hash, hash, anchorHolds };
    });
  }

  /**
   * Redacts and appends one entry, then moves the anchor to the new head. Synchronous: the row and
   * the anchor are written before this returns. Must not be called inside a transaction (if that
   * rolled back, the anchor would name a row that does not exist).
   */
  append(entry: AuditEntry): AuditRecord {
    const parsed = auditEntrySchema.safeParse(entry);
    if (!parsed.success) {
      throw new AppError('INTERNAL', `Audit entry is invalid: ${describeZodError(parsed.error)}`);
    }
    if (this.db.inTransaction) {
      throw new AppError('INTERNAL', 'AuditLog.append was called inside a database transaction; call it after commit.');
    }
    // While the database is known not to take writes the record is refused at once, not after
    // the busy timeout (the action it records is refused with it).
    requireWritable(this.db, AUDIT_RECORD);
    const clean = redactForAudit(parsed.data, { maxStringLength: MAX_STRING_LENGTH }) as AuditEntry;
    const entryText = canonicalJson(clean);
    const time = new Date().toISOString();
    const anchor = readAnchor(this.anchorFile);

    let written: Inserted;
    try {
      written = this.insertRow.immediate(time, clean.kind, entryText, anchor);
    } catch (error) {
      // A full disk, a read-only file, a lock: said so, with what to do about it.
      if (isStorageFailure(error)) throw asStorageError(this.db, AUDIT_RECORD, error);
      throw new AppError('STORAGE_ERROR', `Could not write to the audit log: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.rows++;
    const { seq, prev_hash, hash, anchorHolds } = written;
    if (anchorHolds) {
      try {
        writeAnchor(this.anchorFile, { seq, hash, rows: this.rows });
      } catch (error) {
        // The row is committed; the anchor stays one row behind, which verify accepts, and the
        // next append tries again. Still an error: the caller is told the log's guard is weak.
        throw new AppError(
          'STORAGE_ERROR',
          `Audit record ${seq} was written, but the anchor file ${this.anchorFile} could not be updated: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    return { seq, time, kind: clean.kind, entry: clean, prev_hash, hash };
  }

  /** Records newest first (see AuditListOptions for paging forward). */
  list(options: AuditListOptions = {}): AuditRecord[] {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new AppError('INVALID_ARGUMENT', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}, not ${limit}.`);
    }
    for (const [name, value] of [
      ['beforeSeq', options.beforeSeq],
      ['afterSeq', options.afterSeq],
    ] as const) {
      if (value !== undefined && !Number.isSafeInteger(value)) {
        throw new AppError('INVALID_ARGUMENT', `${name} must be a whole number, not ${value}.`);
      }
    }
    const order =
      options.order ??
      (options.afterSeq !== undefined && options.beforeSeq === undefined ? 'oldest_first' : 'newest_first');
    const statement = order === 'oldest_first' ? this.selectOldestFirst : this.selectNewestFirst;
    const after = options.afterSeq ?? Number.MIN_SAFE_INTEGER;
    const before = options.beforeSeq ?? Number.MAX_SAFE_INTEGER;
    return statement.all(after, before, limit).map(toRecord);
  }

  /**
   * Every record, oldest first, read in pages. Not one long `.iterate()`: an open iterator keeps
   * the connection busy, and an append while a caller awaits between records would then fail
   * ("This database connection is busy executing a query") — and with it the tool call it records.
   */
  *exportAll(): Generator<AuditRecord, void, undefined> {
    let after = Number.MIN_SAFE_INTEGER;
    for (;;) {
      const page = this.selectOldestFirst.all(after, Number.MAX_SAFE_INTEGER, EXPORT_PAGE);
      for (const row of page) yield toRecord(row);
      const last = page.at(-1);
      if (!last || page.length < EXPORT_PAGE) return;
      after = last.seq;
    }
  }

  /** The newest record of one kind (undefined when there is none). */
  latest(kind: AuditKind): AuditRecord | undefined {
    const row = this.db
      .prepare<[string], AuditRow>(
        'SELECT seq, time, kind, entry, prev_hash, hash FROM audit_log WHERE kind = ? ORDER BY seq DESC LIMIT 1',
      )
      .get(kind);
    return row ? toRecord(row) : undefined;
  }

  /** Checks the whole chain and the anchor; names the first bad row. Changes nothing. */
  verify(): AuditVerification {
    return verifyAuditLog(this.db, this.anchorFile);
  }

  /**
   * Whether the anchor may move on. Only when it still vouches for the log — it names a row that
   * is there with that hash, or there is no anchor because there never was a row. Otherwise the
   * anchor is evidence of tampering, and overwriting it would silently repair the log.
   */
  private anchorHolds(anchor: AnchorState, neverWritten: boolean): boolean {
    switch (anchor.state) {
      case 'present':
        return this.selectHashAt.get(anchor.anchor.seq) === anchor.anchor.hash;
      case 'missing':
        return neverWritten;
      case 'unreadable':
        return false;
    }
  }
}

/**
 * Rows are returned as stored, even from a tampered log — `verify` is what judges them; an entry
 * that is not a JSON object is passed on inside `details` rather than hidden.
 */
function toRecord(row: AuditRow): AuditRecord {
  const kind = row.kind as AuditKind;
  let entry: AuditEntry;
  try {
    const json: unknown = JSON.parse(row.entry);
    entry =
      typeof json === 'object' && json !== null && !Array.isArray(json)
        ? (json as AuditEntry)
        : { kind, details: { unreadable_entry: row.entry } };
  } catch (error) {
    entry = { kind, details: { unreadable_entry: row.entry, error: (error as Error).message } };
  }
  return { seq: row.seq, time: row.time, kind, entry, prev_hash: row.prev_hash, hash: row.hash };
}
