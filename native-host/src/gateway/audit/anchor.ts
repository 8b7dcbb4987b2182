import fs from 'node:fs';

import { z } from 'zod';

import { HASH_PATTERN } from './chain.js';

/**
 * The head of the chain, kept in a file outside the database. Rows removed from the end of the
 * table leave a chain that is intact in itself; only something outside the table can tell that
 * it used to be longer.
 */
export interface AuditAnchor {
  seq: number;
  hash: string;
  /** Rows in the log when the anchor was written. */
  rows: number;
}

const anchorSchema = z
  .object({
    seq: z.number().int().positive(),
    hash: z.string().regex(HASH_PATTERN),
    rows: z.number().int().nonnegative(),
  })
  .strict();

export type AnchorState =
  { state: 'present'; anchor: AuditAnchor } | { state: 'missing' } | { state: 'unreadable'; reason: string };

export function readAnchor(file: string): AnchorState {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'unreadable', reason: (error as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { state: 'unreadable', reason: `it is not JSON (${(error as Error).message})` };
  }
  const parsed = anchorSchema.safeParse(json);
  if (!parsed.success) return { state: 'unreadable', reason: 'it is not { seq, hash, rows }' };
  return { state: 'present', anchor: parsed.data };
}

/**
 * Replaces the anchor atomically: a reader sees the old file or the new one, never half of one.
 * Not fsync'd — the database runs with synchronous=NORMAL, so both survive a crash of the
 * process and both may lose their last write on power loss; syncing only this file would cost a
 * disk flush per append without making the pair consistent.
 */
export function writeAnchor(file: string, anchor: AuditAnchor): void {
  // One writer (the daemon holds the instance lock), so a fixed temp name cannot collide. A temp
  // left by a failed write is removed first: creating the file afresh ('wx') is what makes the
  // 0600 mode certain, refuses to follow a link planted there, and skips a truncate.
  const temp = `${file}.tmp`;
  fs.rmSync(temp, { force: true });
  const descriptor = fs.openSync(temp, 'wx', 0o600);
  try {
    fs.writeSync(descriptor, `${JSON.stringify(anchor)}\n`);
  } finally {
    fs.closeSync(descriptor);
  }
  fs.renameSync(temp, file);
}
