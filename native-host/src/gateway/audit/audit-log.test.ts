import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AppError } from '@nextai/shared';
import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../core/logger.js';
import { openDatabase, type Db } from '../../storage/database.js';
import { storageHealth } from '../../storage/storage-health.js';
import { AuditLog, GENESIS_HASH, canonicalJson, type AuditEntry } from './index.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let db: Db | undefined;

async function freshLog(): Promise<{ audit: AuditLog; anchor: string; db: Db }> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-audit-'));
  db = await openDatabase(path.join(dir, 'data.db'), log);
  const anchor = path.join(dir, 'audit-anchor.json');
  return { audit: new AuditLog(db, anchor), anchor, db };
}

afterEach(() => {
  db?.close();
  db = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const decision = (n: number): AuditEntry => ({
  kind: 'decision',
  call_id: `call-${n}`,
  tool: 'bash_execute',
  parameters: { command: `echo ${n}` },
  risk: 'high',
  action: 'require_approval',
  layer: 'risk',
  reason: 'runs a shell command',
});

describe('AuditLog.append', () => {
  it('refuses a record the database cannot take with a STORAGE_ERROR that says why and what to do', async () => {
    const { audit, db } = await freshLog();
    audit.append(decision(1));
    db.pragma('query_only = ON');
    let refused: unknown;
    try {
      audit.append(decision(2));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'STORAGE_ERROR', details: { problem: 'read_only', data_dir: dir } });
    expect((refused as Error).message).toMatch(/^Could not save the audit record: .* Make .* writable/);
    expect((refused as AppError).translations?.['zh-CN']).toMatch(/^无法保存审计记录：/);
    expect(storageHealth(db).failing).toMatchObject({ code: 'SQLITE_READONLY' });

    db.pragma('query_only = OFF');
    // The chain is whole, and goes on once it can be written.
    expect(audit.verify()).toMatchObject({ ok: true, rows: 1 });
    expect(audit.append(decision(3))).toMatchObject({ seq: 2 });
    expect(audit.verify()).toMatchObject({ ok: true, rows: 2 });
  });

  it('chains each row to the one before, starting from 64 zeros', async () => {
    const { audit } = await freshLog();
    const first = audit.append(decision(1));
    const second = audit.append({ kind: 'execution', call_id: 'call-1', result: 'success', duration_ms: 12.5 });
    expect(first).toMatchObject({ seq: 1, kind: 'decision', prev_hash: GENESIS_HASH });
    expect(second).toMatchObject({ seq: 2, kind: 'execution', prev_hash: first.hash });
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes the canonical JSON of { seq, time, kind, entry, prev_hash }', async () => {
    const { audit } = await freshLog();
    const record = audit.append({ ...decision(1), details: { z: 1, a: [{ y: 2, b: 3 }] } });
    const { seq, time, kind, entry, prev_hash } = record;
    const expected = createHash('sha256').update(canonicalJson({ time, seq, prev_hash, entry, kind })).digest('hex');
    expect(record.hash).toBe(expected);
  });

  it('redacts secrets before anything is written', async () => {
    const { audit, db } = await freshLog();
    const record = audit.append({
      kind: 'execution',
      tool: 'bash_execute',
      parameters: { command: 'PGPASSWORD=hunter2 psql -h db', env: { API_KEY: 'k-123' } },
      details: { headers: { Authorization: 'Bearer abcdefgh12345678' } },
      error: 'mysql -u root -phunter2 failed',
      reason: 'asked to use --token s3cr3tvalue',
    });
    const stored = db.prepare('SELECT entry FROM audit_log WHERE seq = ?').pluck().get(record.seq) as string;
    for (const secret of ['hunter2', 'k-123', 'abcdefgh12345678', 's3cr3tvalue']) {
      expect(stored).not.toContain(secret);
    }
    expect(record.entry).toMatchObject({
      parameters: { command: 'PGPASSWORD=[REDACTED] psql -h db', env: { API_KEY: '[REDACTED]' } },
      error: 'mysql -u root -p[REDACTED] failed',
    });
    expect(audit.verify()).toMatchObject({ ok: true, rows: 1 });
  });

  it('cuts very long strings, so a whole written file does not go into the log', async () => {
    const { audit } = await freshLog();
    const record = audit.append({ kind: 'decision', tool: 'file_write', parameters: { content: 'a'.repeat(100_000) } });
    const content = (record.entry.parameters as { content: string }).content;
    expect(content.length).toBeLessThan(17_000);
    expect(content).toMatch(/… \[83616 more characters not recorded\]$/);
  });

  it('writes the head to the anchor file (mode 0600) after every append', async () => {
    const { audit, anchor } = await freshLog();
    expect(fs.existsSync(anchor)).toBe(false);
    audit.append(decision(1));
    const last = audit.append(decision(2));
    expect(JSON.parse(fs.readFileSync(anchor, 'utf8'))).toEqual({ seq: 2, hash: last.hash, rows: 2 });
    expect(fs.statSync(anchor).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(`${anchor}.tmp`)).toBe(false);
  });

  it('refuses entries that do not fit the schema, and writes nothing', async () => {
    const { audit } = await freshLog();
    const bad = [
      { kind: 'gossip' },
      { kind: 'decision', tool: 42 },
      { kind: 'decision', toool: 'misspelt' },
      { kind: 'execution', duration_ms: Number.POSITIVE_INFINITY },
    ];
    for (const entry of bad) {
      expect(() => audit.append(entry as unknown as AuditEntry)).toThrow(AppError);
    }
    expect(audit.list()).toEqual([]);
  });

  it('refuses to run inside a transaction, whose rollback would leave the anchor naming a lost row', async () => {
    const { audit, db } = await freshLog();
    expect(() => db.transaction(() => audit.append(decision(1)))()).toThrow(/inside a database transaction/);
    expect(audit.list()).toEqual([]);
  });
});

describe('AuditLog.list and exportAll', () => {
  it('lists newest first, with a limit and paging backwards by beforeSeq', async () => {
    const { audit } = await freshLog();
    for (let n = 1; n <= 10; n++) audit.append(decision(n));
    expect(audit.list({ limit: 3 }).map((record) => record.seq)).toEqual([10, 9, 8]);
    expect(audit.list({ limit: 3, beforeSeq: 8 }).map((record) => record.seq)).toEqual([7, 6, 5]);
    expect(audit.list({ beforeSeq: 8, afterSeq: 5 }).map((record) => record.seq)).toEqual([7, 6]);
    expect(audit.list({ limit: 2, order: 'oldest_first' }).map((record) => record.seq)).toEqual([1, 2]);
    expect(audit.list({ limit: 1 })[0]?.entry).toEqual(decision(10));
  });

  it('pages forward oldest first when only afterSeq is given', async () => {
    const { audit } = await freshLog();
    for (let n = 1; n <= 10; n++) audit.append(decision(n));
    expect(audit.list({ afterSeq: 0, limit: 4 }).map((record) => record.seq)).toEqual([1, 2, 3, 4]);
    expect(audit.list({ afterSeq: 8, limit: 4 }).map((record) => record.seq)).toEqual([9, 10]);
  });

  it('says what is wrong with a bad limit or seq', async () => {
    const { audit } = await freshLog();
    expect(() => audit.list({ limit: 0 })).toThrow(/limit must be a whole number from 1 to 10000/);
    expect(() => audit.list({ limit: 1.5 })).toThrow(AppError);
    expect(() => audit.list({ afterSeq: Number.NaN })).toThrow(/afterSeq must be a whole number/);
  });

  it('exports every record oldest first, across pages, while appends go on', async () => {
    const { audit } = await freshLog();
    for (let n = 1; n <= 2_500; n++) audit.append(decision(n));
    const seen: number[] = [];
    for (const record of audit.exportAll()) {
      seen.push(record.seq);
      // A reader between records must not block the log (an open .iterate() would).
      if (record.seq === 1_500) audit.append(decision(9_999));
    }
    expect(seen).toEqual(Array.from({ length: 2_501 }, (_, index) => index + 1));
  });
});

describe('AuditLog on a damaged log', () => {
  it('verifies an empty log with no anchor as intact', async () => {
    const { audit } = await freshLog();
    expect(audit.verify()).toEqual({ ok: true, rows: 0 });
  });

  it('accepts an anchor one row behind (a crash between commit and anchor write)', async () => {
    const { audit, anchor } = await freshLog();
    for (let n = 1; n <= 5; n++) audit.append(decision(n));
    const behind = fs.readFileSync(anchor);
    const last = audit.append(decision(6));
    fs.writeFileSync(anchor, behind);
    expect(audit.verify()).toEqual({ ok: true, rows: 6, head: { seq: 6, hash: last.hash } });
  });

  it('does not recreate a deleted anchor: the problem stays reported after more appends', async () => {
    const { audit, anchor } = await freshLog();
    for (let n = 1; n <= 5; n++) audit.append(decision(n));
    fs.rmSync(anchor);
    audit.append(decision(6));
    expect(fs.existsSync(anchor)).toBe(false);
    expect(audit.verify()).toMatchObject({ ok: false, problem: { kind: 'anchor_missing', seq: 6 } });
  });

  it('does not move an anchor that no longer matches the log', async () => {
    const { audit, anchor } = await freshLog();
    for (let n = 1; n <= 5; n++) audit.append(decision(n));
    const forged = JSON.stringify({ seq: 5, hash: 'f'.repeat(64), rows: 5 });
    fs.writeFileSync(anchor, forged);
    audit.append(decision(6));
    expect(fs.readFileSync(anchor, 'utf8')).toBe(forged);
    expect(audit.verify()).toMatchObject({ ok: false, problem: { kind: 'anchor_mismatch', seq: 5 } });
  });

  it('keeps numbering after rows were cut from the end, so the cut stays visible', async () => {
    const { audit, anchor, db } = await freshLog();
    for (let n = 1; n <= 10; n++) audit.append(decision(n));
    db.exec('DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE seq > 7');
    const anchorBefore = fs.readFileSync(anchor, 'utf8');
    expect(audit.verify()).toMatchObject({ ok: false, problem: { kind: 'truncated', seq: 8 } });
    expect(audit.append(decision(11)).seq).toBe(11);
    expect(fs.readFileSync(anchor, 'utf8')).toBe(anchorBefore);
    expect(audit.verify()).toMatchObject({ ok: false, problem: { kind: 'deleted', seq: 8 } });
  });

  it('lists the rows of a tampered log as they are stored', async () => {
    const { audit, db } = await freshLog();
    audit.append(decision(1));
    db.exec(`DROP TRIGGER audit_log_no_update; UPDATE audit_log SET entry = 'not json' WHERE seq = 1`);
    expect(audit.list()[0]?.entry).toMatchObject({ kind: 'decision', details: { unreadable_entry: 'not json' } });
    expect(audit.verify()).toMatchObject({ ok: false, problem: { kind: 'edited', seq: 1 } });
  });

  it('explains a missing audit table instead of crashing later', async () => {
    const { db, anchor } = await freshLog();
    db.exec('DROP TABLE audit_log');
    expect(() => new AuditLog(db, anchor)).toThrow(/audit log table in the database is missing or damaged/);
  });
});
