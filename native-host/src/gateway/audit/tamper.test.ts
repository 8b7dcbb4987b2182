import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../core/logger.js';
import { openDatabase, type Db } from '../../storage/database.js';
import type { AuditRow } from './chain.js';
import { AUDIT_KINDS, AuditLog, GENESIS_HASH, canonicalJson, rowHash, type AuditEntry } from './index.js';

/*
 * Tamper tests. A real log is built once through openDatabase (real migrations) and AuditLog;
 * every attack then works on a copy of the database file and the anchor, the way someone with
 * access to the data directory would: plain SQL, triggers dropped first (they are defence in
 * depth, not the protection), hashes recomputed where that helps the attacker.
 */

const log = createLogger({ component: 'test', level: 'error' });
const ROWS = 300;
let root: string;
let original: { db: string; anchor: string };

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-audit-tamper-'));
  original = { db: path.join(root, 'data.db'), anchor: path.join(root, 'audit-anchor.json') };
  const db = await openDatabase(original.db, log);
  const audit = new AuditLog(db, original.anchor);
  for (let n = 1; n <= ROWS; n++) audit.append(variedEntry(n));
  // Closing the last connection checkpoints the WAL, so the copies below are whole databases.
  db.close();
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function variedEntry(n: number): AuditEntry {
  const kind = AUDIT_KINDS[n % AUDIT_KINDS.length] ?? 'decision';
  const tools = ['bash_execute', 'file_write', 'browser_navigate', 'screenshot', 'clipboard_read'];
  return {
    kind,
    call_id: `call-${Math.ceil(n / 3)}`,
    run_id: n % 4 === 0 ? `run-${n % 7}` : undefined,
    source: ['agent', 'cli', 'side_panel', 'mcp', 'schedule'][n % 5],
    project: n % 2 === 0 ? 'default' : '项目-β',
    tool: tools[n % tools.length],
    parameters: {
      command: `echo row ${n} && ls -la ~/dir-${n}`,
      nested: { list: [n, n * 1.5, null, true, 'ünïcødé ✓'], deep: { password: `pw-${n}` } },
    },
    risk: ['low', 'medium', 'high', 'critical'][n % 4],
    action: ['auto_approve', 'notify_only', 'require_approval', 'always_block'][n % 4],
    result: n % 3 === 0 ? 'failed' : 'success',
    layer: 'risk',
    reason: `row ${n}: "quoted" text with a newline\nand a tab\t`,
    duration_ms: n * 0.25,
    error: n % 3 === 0 ? `exit ${n % 256}` : undefined,
    actor: n % 10 === 0 ? 'person' : undefined,
    details: n % 5 === 0 ? { findings: [{ rule: 'sudo', at: n }] } : undefined,
  };
}

interface Copy {
  db: string;
  anchor: string;
}

let copies = 0;

/** A fresh copy of the original log to attack. */
function copyLog(): Copy {
  const dir = path.join(root, `copy-${++copies}`);
  fs.mkdirSync(dir);
  const copy = { db: path.join(dir, 'data.db'), anchor: path.join(dir, 'audit-anchor.json') };
  fs.copyFileSync(original.db, copy.db);
  fs.copyFileSync(original.anchor, copy.anchor);
  return copy;
}

/** Opens a copy with plain SQLite, as an attacker would, with the append-only triggers gone. */
function tamper(copy: Copy, attack: (db: Database.Database) => void): void {
  const db = new Database(copy.db);
  try {
    db.exec('DROP TRIGGER IF EXISTS audit_log_no_update; DROP TRIGGER IF EXISTS audit_log_no_delete;');
    attack(db);
  } finally {
    db.close();
  }
}

/** What the daemon would say about the copy. */
async function verifyCopy(copy: Copy) {
  const db: Db = await openDatabase(copy.db, log);
  try {
    return new AuditLog(db, copy.anchor).verify();
  } finally {
    db.close();
  }
}

async function attackAndVerify(attack: (db: Database.Database) => void) {
  const copy = copyLog();
  tamper(copy, attack);
  return verifyCopy(copy);
}

function row(db: Database.Database, seq: number): AuditRow {
  return db.prepare('SELECT * FROM audit_log WHERE seq = ?').get(seq) as AuditRow;
}

function writeRow(db: Database.Database, seq: number, fields: Omit<AuditRow, 'seq'>): void {
  db.prepare('UPDATE audit_log SET time = ?, kind = ?, entry = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(
    fields.time,
    fields.kind,
    fields.entry,
    fields.prev_hash,
    fields.hash,
    seq,
  );
}

/** The careful attacker's edit: valid canonical JSON, so only the hash can give it away. */
function editedEntry(entry: string): string {
  const parsed = JSON.parse(entry) as Record<string, unknown>;
  return canonicalJson({ ...parsed, tool: 'clipboard_read', reason: 'nothing happened here' });
}

describe('audit log tamper detection', () => {
  it('verifies the untouched copy as intact', async () => {
    const result = await verifyCopy(copyLog());
    expect(result).toMatchObject({ ok: true, rows: ROWS, head: { seq: ROWS } });
  });

  it('has triggers that refuse UPDATE and DELETE on an untouched database', async () => {
    const copy = copyLog();
    const db = await openDatabase(copy.db, log);
    try {
      expect(() => db.prepare("UPDATE audit_log SET kind = 'policy' WHERE seq = 5").run()).toThrow(/append-only/);
      expect(() => db.prepare('DELETE FROM audit_log WHERE seq = 5').run()).toThrow(/append-only/);
      expect(() => db.prepare('DELETE FROM audit_log').run()).toThrow(/append-only/);
    } finally {
      db.close();
    }
    expect(await verifyCopy(copy)).toMatchObject({ ok: true, rows: ROWS });
  });

  it.each(['time', 'kind', 'entry', 'prev_hash', 'hash'] as const)(
    'catches an edit of the %s of a middle row',
    async (column) => {
      const result = await attackAndVerify((db) => {
        const target = row(db, 150);
        const changed: Record<typeof column, string> = {
          time: '2001-01-01T00:00:00.000Z',
          kind: target.kind === 'policy' ? 'decision' : 'policy',
          entry: editedEntry(target.entry),
          prev_hash: 'a'.repeat(64),
          hash: 'b'.repeat(64),
        };
        db.prepare(`UPDATE audit_log SET ${column} = ? WHERE seq = 150`).run(changed[column]);
      });
      expect(result).toEqual({
        ok: false,
        rows: ROWS,
        problem: {
          seq: 150,
          kind: 'edited',
          message: 'row 150 was changed after it was written: its hash does not match its content',
        },
      });
    },
  );

  it('catches an edit made with SQL string functions (not canonical JSON any more)', async () => {
    const result = await attackAndVerify((db) =>
      db.exec(`UPDATE audit_log SET entry = json_set(entry, '$.result', 'success') WHERE seq = 201`),
    );
    expect(result).toMatchObject({ ok: false, problem: { seq: 201, kind: 'edited' } });
  });

  it('catches a deleted middle row', async () => {
    const result = await attackAndVerify((db) => db.exec('DELETE FROM audit_log WHERE seq = 57'));
    expect(result).toEqual({
      ok: false,
      rows: ROWS - 1,
      problem: { seq: 57, kind: 'deleted', message: 'row 57 was deleted: row 58 follows row 56' },
    });
  });

  it('catches several deleted middle rows and names the first', async () => {
    const result = await attackAndVerify((db) => db.exec('DELETE FROM audit_log WHERE seq BETWEEN 57 AND 59'));
    expect(result).toMatchObject({
      ok: false,
      problem: { seq: 57, kind: 'deleted', message: 'rows 57–59 were deleted: row 60 follows row 56' },
    });
  });

  it('catches deleted first rows', async () => {
    const result = await attackAndVerify((db) => db.exec('DELETE FROM audit_log WHERE seq <= 3'));
    expect(result).toMatchObject({ ok: false, problem: { seq: 1, kind: 'deleted' } });
  });

  it('catches the last rows deleted', async () => {
    const result = await attackAndVerify((db) => db.exec('DELETE FROM audit_log WHERE seq > 290'));
    expect(result).toEqual({
      ok: false,
      rows: 290,
      problem: {
        seq: 291,
        kind: 'truncated',
        message: `the log ends at row 290, but SQLite's row counter shows that it reached row ${ROWS}: rows 291–${ROWS} were removed from the end`,
      },
    });
  });

  it("catches the last rows deleted even when SQLite's row counter is reset too (the anchor)", async () => {
    const result = await attackAndVerify((db) =>
      db.exec(`DELETE FROM audit_log WHERE seq > 290; UPDATE sqlite_sequence SET seq = 290 WHERE name = 'audit_log'`),
    );
    expect(result).toMatchObject({ ok: false, rows: 290, problem: { seq: 291, kind: 'truncated' } });
    expect(result.ok || result.problem.message).toMatch(/anchor file .* records that it reached row 300/);
  });

  it('catches a truncated table', async () => {
    const result = await attackAndVerify((db) => db.exec('DELETE FROM audit_log'));
    expect(result).toMatchObject({ ok: false, rows: 0, problem: { seq: 1, kind: 'truncated' } });
    expect(result.ok || result.problem.message).toMatch(/^the log is empty, but .*rows 1–300 were removed/);
  });

  it('catches a truncated table with its row counter removed', async () => {
    const result = await attackAndVerify((db) =>
      db.exec(`DELETE FROM audit_log; DELETE FROM sqlite_sequence WHERE name = 'audit_log'`),
    );
    expect(result).toMatchObject({ ok: false, rows: 0, problem: { seq: 1, kind: 'truncated' } });
  });

  it('catches two rows whose contents were swapped', async () => {
    const result = await attackAndVerify((db) => {
      const a = row(db, 100);
      const b = row(db, 200);
      writeRow(db, 100, b);
      writeRow(db, 200, a);
    });
    expect(result).toMatchObject({
      ok: false,
      problem: {
        seq: 100,
        kind: 'reordered',
        message: 'row 100 holds the record that was written as row 200: rows were moved',
      },
    });
  });

  it('catches two neighbouring rows swapped', async () => {
    const result = await attackAndVerify((db) => {
      const a = row(db, 150);
      const b = row(db, 151);
      writeRow(db, 150, b);
      writeRow(db, 151, a);
    });
    expect(result).toMatchObject({ ok: false, problem: { seq: 150, kind: 'reordered' } });
  });

  it('catches swapped rows whose hashes were recomputed for their new places', async () => {
    const result = await attackAndVerify((db) => {
      const a = row(db, 100);
      const b = row(db, 200);
      writeRow(db, 100, { ...b, hash: rowHash({ ...b, seq: 100 }) });
      writeRow(db, 200, { ...a, hash: rowHash({ ...a, seq: 200 }) });
    });
    expect(result).toMatchObject({
      ok: false,
      problem: {
        seq: 100,
        kind: 'reordered',
        message: 'row 100 is out of order: it was written right after row 199, but follows row 99',
      },
    });
  });

  it('catches an edited row whose own hash was recomputed: the next row is chained to the old version', async () => {
    const result = await attackAndVerify((db) => {
      const target = row(db, 120);
      const entry = editedEntry(target.entry);
      writeRow(db, 120, { ...target, entry, hash: rowHash({ ...target, entry }) });
    });
    expect(result).toEqual({
      ok: false,
      rows: ROWS,
      problem: {
        seq: 120,
        kind: 'edited',
        message:
          'row 120 was changed after it was written and its hash recomputed: row 121 was chained to a different version of it',
      },
    });
  });

  it('catches an edit with the whole chain recomputed after it, because the anchor was left alone', async () => {
    const result = await attackAndVerify((db) => {
      let prev = row(db, 119).hash;
      for (let seq = 120; seq <= ROWS; seq++) {
        const current = row(db, seq);
        const entry = seq === 120 ? editedEntry(current.entry) : current.entry;
        const rewritten = { ...current, entry, prev_hash: prev };
        prev = rowHash(rewritten);
        writeRow(db, seq, { ...rewritten, hash: prev });
      }
    });
    expect(result).toMatchObject({ ok: false, rows: ROWS, problem: { seq: ROWS, kind: 'anchor_mismatch' } });
    expect(result.ok || result.problem.message).toMatch(
      /^the anchor file says row 300 has hash [0-9a-f]{16}…, but row 300 in the log has hash [0-9a-f]{16}…/,
    );
  });

  it('catches a row that was rewritten with a valid hash but is not an audit entry', async () => {
    const result = await attackAndVerify((db) => {
      let prev = row(db, 249).hash;
      for (let seq = 250; seq <= ROWS; seq++) {
        const current = row(db, seq);
        const entry = seq === 250 ? '{"kind":"decision","tool":["not","text"]}' : current.entry;
        const rewritten = { ...current, entry, prev_hash: prev };
        prev = rowHash(rewritten);
        writeRow(db, seq, { ...rewritten, hash: prev });
      }
    });
    expect(result).toMatchObject({ ok: false, problem: { seq: 250, kind: 'malformed' } });
    expect(result.ok || result.problem.message).toMatch(
      /^row 250 is malformed: its entry is not an audit entry \(tool/,
    );
  });

  it('catches a replaced anchor', async () => {
    const copy = copyLog();
    fs.writeFileSync(copy.anchor, JSON.stringify({ seq: ROWS, hash: 'c'.repeat(64), rows: ROWS }));
    expect(await verifyCopy(copy)).toMatchObject({ ok: false, problem: { seq: ROWS, kind: 'anchor_mismatch' } });
  });

  it('catches an anchor taken from another log', async () => {
    const copy = copyLog();
    const other = path.join(root, 'other');
    fs.mkdirSync(other);
    const db = await openDatabase(path.join(other, 'data.db'), log);
    const audit = new AuditLog(db, path.join(other, 'audit-anchor.json'));
    for (let n = 1; n <= ROWS; n++) audit.append({ kind: 'policy', reason: `other ${n}` });
    db.close();
    fs.copyFileSync(path.join(other, 'audit-anchor.json'), copy.anchor);
    expect(await verifyCopy(copy)).toMatchObject({ ok: false, problem: { seq: ROWS, kind: 'anchor_mismatch' } });
  });

  it('catches an anchor whose row count was changed', async () => {
    const copy = copyLog();
    const anchor = JSON.parse(fs.readFileSync(copy.anchor, 'utf8')) as { seq: number; hash: string; rows: number };
    fs.writeFileSync(copy.anchor, JSON.stringify({ ...anchor, rows: anchor.rows + 5 }));
    expect(await verifyCopy(copy)).toMatchObject({ ok: false, problem: { seq: ROWS, kind: 'anchor_mismatch' } });
  });

  it('catches an anchor pointing past the end of the log', async () => {
    const copy = copyLog();
    fs.writeFileSync(copy.anchor, JSON.stringify({ seq: ROWS + 50, hash: 'd'.repeat(64), rows: ROWS + 50 }));
    expect(await verifyCopy(copy)).toMatchObject({ ok: false, problem: { seq: ROWS + 1, kind: 'truncated' } });
  });

  it('catches a deleted anchor', async () => {
    const copy = copyLog();
    fs.rmSync(copy.anchor);
    const result = await verifyCopy(copy);
    expect(result).toMatchObject({ ok: false, rows: ROWS, problem: { seq: ROWS, kind: 'anchor_missing' } });
    expect(result.ok || result.problem.message).toMatch(/is missing, but the log has 300 rows/);
  });

  it('catches an anchor that is not an anchor', async () => {
    for (const text of ['', '{not json', '{"seq": 300}', JSON.stringify({ seq: ROWS, hash: 'xyz', rows: ROWS })]) {
      const copy = copyLog();
      fs.writeFileSync(copy.anchor, text);
      expect(await verifyCopy(copy), text).toMatchObject({ ok: false, problem: { kind: 'anchor_mismatch' } });
    }
  });

  it('never changes the database or the anchor while verifying a damaged copy', async () => {
    const copy = copyLog();
    tamper(copy, (db) => db.exec('DELETE FROM audit_log WHERE seq IN (10, 299, 300)'));
    const before = { db: fs.readFileSync(copy.db), anchor: fs.readFileSync(copy.anchor) };
    await verifyCopy(copy);
    await verifyCopy(copy);
    expect(fs.readFileSync(copy.db).equals(before.db)).toBe(true);
    expect(fs.readFileSync(copy.anchor).equals(before.anchor)).toBe(true);
  });

  it('starts the chain at 64 zeros', async () => {
    const copy = copyLog();
    const db = new Database(copy.db, { readonly: true });
    try {
      expect(row(db, 1).prev_hash).toBe(GENESIS_HASH);
    } finally {
      db.close();
    }
  });
});

describe('audit log verification at scale', () => {
  async function bigLog(rows: number): Promise<{ db: Db; audit: AuditLog }> {
    const dir = path.join(root, `big-${rows}`);
    fs.mkdirSync(dir);
    const db = await openDatabase(path.join(dir, 'data.db'), log);
    const audit = new AuditLog(db, path.join(dir, 'audit-anchor.json'));
    // Rows written in one batch through the real append path, one transaction each.
    for (let n = 1; n <= rows; n++) audit.append(variedEntry(n));
    return { db, audit };
  }

  it('verifies an intact log of 1000 rows', async () => {
    const { db, audit } = await bigLog(1_000);
    try {
      expect(audit.verify()).toMatchObject({ ok: true, rows: 1_000, head: { seq: 1_000 } });
    } finally {
      db.close();
    }
  });

  // How fast this goes is measured by `npm run bench -- safety` (goal: 10 000 rows in ≤ 3 s).
  it('verifies 10 000 rows', async () => {
    const { db, audit } = await bigLog(10_000);
    try {
      expect(audit.verify()).toMatchObject({ ok: true, rows: 10_000 });
    } finally {
      db.close();
    }
  }, 60_000);
});
