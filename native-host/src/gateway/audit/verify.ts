import type { Db } from '../../storage/database.js';
import { readAnchor } from './anchor.js';
import { GENESIS_HASH, rowHash, type AuditRow } from './chain.js';
import { auditEntrySchema, type AuditProblem, type AuditVerification } from './entry.js';

/** A row as SQLite returns it. Typed loosely: a tampered table may hold anything. */
interface StoredRow {
  seq: unknown;
  time: unknown;
  kind: unknown;
  entry: unknown;
  prev_hash: unknown;
  hash: unknown;
}

/** How far from its place a moved row is looked for when nothing points at it. */
const MOVE_SEARCH_WINDOW = 256;

/**
 * Walks the chain oldest first and names the first row that is wrong; then checks the end of
 * the log against SQLite's own row counter and against the anchor file. Reads only: a damaged
 * log is reported as it is, never repaired.
 */
export function verifyAuditLog(db: Db, anchorFile: string): AuditVerification {
  const anchor = readAnchor(anchorFile);
  const anchorSeq = anchor.state === 'present' ? anchor.anchor.seq : undefined;
  let anchoredHash: string | undefined;
  let previous: AuditRow | undefined;
  let walked = 0;
  let problem: AuditProblem | undefined;

  const rows = db
    .prepare<[], StoredRow>('SELECT seq, time, kind, entry, prev_hash, hash FROM audit_log ORDER BY seq')
    .iterate();
  for (const stored of rows) {
    problem = checkRow(db, stored, previous);
    if (problem) break;
    const row = stored as AuditRow;
    if (row.seq === anchorSeq) anchoredHash = row.hash;
    previous = row;
    walked++;
  }
  // (`break` ends the statement, so the connection is free for writes again.)
  if (problem) return failed(db, problem);

  const lastSeq = previous?.seq ?? 0;
  const counter = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'").pluck().get() as
    number | undefined;
  if (counter !== undefined && counter > lastSeq) {
    return failed(db, truncated(lastSeq, counter, "SQLite's row counter shows"));
  }

  switch (anchor.state) {
    case 'missing':
      if (previous) {
        return failed(db, {
          seq: lastSeq,
          kind: 'anchor_missing',
          message: `the anchor file ${anchorFile} is missing, but the log has ${walked} rows: whether rows were removed from its end cannot be checked`,
        });
      }
      break;
    case 'unreadable':
      return failed(db, {
        seq: lastSeq,
        kind: 'anchor_mismatch',
        message: `the anchor file ${anchorFile} cannot be used: ${anchor.reason}`,
      });
    case 'present': {
      const { seq, hash, rows: anchoredRows } = anchor.anchor;
      if (seq > lastSeq) {
        return failed(db, truncated(lastSeq, seq, `the anchor file ${anchorFile} records`));
      }
      if (anchoredHash !== hash) {
        return failed(db, {
          seq,
          kind: 'anchor_mismatch',
          message: `the anchor file says row ${seq} has hash ${short(hash)}, but row ${seq} in the log has hash ${short(anchoredHash ?? '(none)')}: the log was rewritten at or before row ${seq}, or the anchor file was replaced`,
        });
      }
      // The walk proved rows 1…seq are all present, so the log had exactly `seq` rows then.
      if (anchoredRows !== seq) {
        return failed(db, {
          seq,
          kind: 'anchor_mismatch',
          message: `the anchor file says the log had ${anchoredRows} rows when row ${seq} was written, but rows 1–${seq} are ${seq} rows: the anchor file was not written by NextAI Agent`,
        });
      }
      break;
    }
  }
  // An anchor behind the head is fine: a crash between committing a row and rewriting the anchor
  // leaves it one row behind, and rows added after the anchor are not what it guards against.
  return previous
    ? { ok: true, rows: walked, head: { seq: previous.seq, hash: previous.hash } }
    : { ok: true, rows: 0 };
}

function failed(db: Db, problem: AuditProblem): AuditVerification {
  const rows = db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get() as number;
  return { ok: false, rows, problem };
}

function truncated(lastSeq: number, knownSeq: number, evidence: string): AuditProblem {
  const removed = lastSeq + 1 === knownSeq ? `row ${knownSeq} was` : `rows ${lastSeq + 1}–${knownSeq} were`;
  const ends = lastSeq === 0 ? 'the log is empty' : `the log ends at row ${lastSeq}`;
  return {
    seq: lastSeq + 1,
    kind: 'truncated',
    message: `${ends}, but ${evidence} that it reached row ${knownSeq}: ${removed} removed from the end`,
  };
}

function checkRow(db: Db, stored: StoredRow, previous: AuditRow | undefined): AuditProblem | undefined {
  const { seq } = stored;
  if (typeof seq !== 'number' || !Number.isInteger(seq)) {
    const after = previous ? `after row ${previous.seq}` : 'at the start';
    return { seq: (previous?.seq ?? 0) + 1, kind: 'malformed', message: `the row ${after} has no valid row number` };
  }
  const expectedSeq = (previous?.seq ?? 0) + 1;
  if (seq !== expectedSeq) {
    const missing = seq - 1 === expectedSeq ? `row ${expectedSeq} was` : `rows ${expectedSeq}–${seq - 1} were`;
    const follows = previous ? `row ${seq} follows row ${previous.seq}` : `the log starts at row ${seq}`;
    return { seq: expectedSeq, kind: 'deleted', message: `${missing} deleted: ${follows}` };
  }
  for (const column of ['time', 'kind', 'entry', 'prev_hash', 'hash'] as const) {
    if (typeof stored[column] !== 'string') {
      return { seq, kind: 'malformed', message: `row ${seq} is malformed: its ${column} is not text` };
    }
  }
  const row = stored as AuditRow;

  if (rowHash(row) !== row.hash) {
    const writtenAs = findOriginalSeq(db, row);
    if (writtenAs !== undefined) {
      return {
        seq,
        kind: 'reordered',
        message: `row ${seq} holds the record that was written as row ${writtenAs}: rows were moved`,
      };
    }
    return {
      seq,
      kind: 'edited',
      message: `row ${seq} was changed after it was written: its hash does not match its content`,
    };
  }

  const expectedPrev = previous?.hash ?? GENESIS_HASH;
  if (row.prev_hash !== expectedPrev) {
    const writtenAfter = seqsWith(db, 'hash', row.prev_hash).find((other) => other !== seq);
    if (writtenAfter !== undefined) {
      const follows = previous ? `follows row ${previous.seq}` : 'starts the log';
      return {
        seq,
        kind: 'reordered',
        message: `row ${seq} is out of order: it was written right after row ${writtenAfter}, but ${follows}`,
      };
    }
    if (!previous) {
      return {
        seq,
        kind: 'deleted',
        message: `row ${seq} does not start the chain: it was written after a row that is no longer in the log`,
      };
    }
    return {
      seq: previous.seq,
      kind: 'edited',
      message: `row ${previous.seq} was changed after it was written and its hash recomputed: row ${seq} was chained to a different version of it`,
    };
  }

  const content = entryProblem(row);
  if (content) {
    return {
      seq,
      kind: 'malformed',
      message: `row ${seq} is malformed: ${content} (it was not written by NextAI Agent)`,
    };
  }
  return undefined;
}

/**
 * A row whose hash does not fit its place may be intact but moved: its hash then fits the row
 * number it was written with. Candidates: right after the row its prev_hash names, right before
 * the row that names it, and the rows nearby.
 */
function findOriginalSeq(db: Db, row: AuditRow): number | undefined {
  const candidates = new Set<number>();
  if (row.prev_hash === GENESIS_HASH) candidates.add(1);
  for (const seq of seqsWith(db, 'hash', row.prev_hash)) candidates.add(seq + 1);
  for (const seq of seqsWith(db, 'prev_hash', row.hash)) candidates.add(seq - 1);
  for (let offset = 1; offset <= MOVE_SEARCH_WINDOW; offset++) {
    candidates.add(row.seq - offset);
    candidates.add(row.seq + offset);
  }
  for (const candidate of candidates) {
    if (candidate >= 1 && candidate !== row.seq && rowHash({ ...row, seq: candidate }) === row.hash) return candidate;
  }
  return undefined;
}

/** Full-table lookups, only on the path that has already found a problem. */
function seqsWith(db: Db, column: 'hash' | 'prev_hash', value: string): number[] {
  return db
    .prepare(`SELECT seq FROM audit_log WHERE ${column} = ? ORDER BY seq LIMIT 8`)
    .pluck()
    .all(value) as number[];
}

function entryProblem(row: AuditRow): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T/.test(row.time) || Number.isNaN(Date.parse(row.time))) {
    return `its time "${row.time}" is not a date`;
  }
  let json: unknown;
  try {
    json = JSON.parse(row.entry);
  } catch {
    return 'its entry is not JSON';
  }
  const parsed = auditEntrySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `its entry is not an audit entry (${issue ? `${issue.path.join('.') || 'entry'}: ${issue.message}` : 'invalid'})`;
  }
  // Not checked: whether the text is canonical JSON. The hash covers the stored bytes, so the
  // form adds nothing to integrity, and re-serialising every row would be a third of the time.
  if (parsed.data.kind !== row.kind) return `its kind "${row.kind}" differs from its entry's "${parsed.data.kind}"`;
  return undefined;
}

function short(hash: string): string {
  return hash.length > 16 ? `${hash.slice(0, 16)}…` : hash;
}
