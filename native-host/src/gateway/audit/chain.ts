import { createHash } from 'node:crypto';

/** The `prev_hash` of the first row: there is nothing before it. */
export const GENESIS_HASH = '0'.repeat(64);

export const HASH_PATTERN = /^[0-9a-f]{64}$/;

/**
 * JSON with object keys in a stable (code-unit) order and no whitespace, so the same value always
 * gives the same text — and therefore the same hash — whoever serialises it. Keys whose value is
 * `undefined` are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Plain loops rather than map/filter/join: this runs for every append and every verified row.
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ',';
      text += canonicalJson(value[index]);
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let text = '{';
  for (const key of Object.keys(record).sort()) {
    const child = record[key];
    if (child === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${canonicalJson(child)}`;
  }
  return `${text}}`;
}

export interface HashedFields {
  seq: number;
  time: string;
  kind: string;
  /** The `entry` column as stored: the canonical JSON of the entry. */
  entry: string;
  prev_hash: string;
}

/** A row of the audit_log table as stored. */
export interface AuditRow extends HashedFields {
  hash: string;
}

/**
 * sha256 (hex) of `canonicalJson({ seq, time, kind, entry, prev_hash })`. The text is assembled
 * around the stored entry text instead of re-serialising a parsed entry, so any byte changed in
 * the column changes the hash (a re-parse would forgive whitespace or key-order edits). For a row
 * written by AuditLog the two are the same string; a test holds them together.
 */
export function rowHash(fields: HashedFields): string {
  const text =
    `{"entry":${fields.entry},"kind":${JSON.stringify(fields.kind)},` +
    `"prev_hash":${JSON.stringify(fields.prev_hash)},"seq":${fields.seq},"time":${JSON.stringify(fields.time)}}`;
  return createHash('sha256').update(text).digest('hex');
}
