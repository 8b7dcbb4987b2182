import { createHash } from 'node:crypto';

import { AppError } from '@nextai/shared';

import type { Statement } from 'better-sqlite3';

import type { Db } from './database.js';
import { storageHealth } from './storage-health.js';

/** Base64 characters returned inline; larger payloads are stored and referenced (well under a 1 MiB frame). */
export const DEFAULT_INLINE_LIMIT = 512 * 1024;
/** An image nobody holds is pruned once it has not been used for this long. */
export const UNHELD_MAX_AGE_MS = 60 * 60 * 1000;
/** Pruning runs at most this often (on a put), and a read marks an image used at most this often. */
const TOUCH_INTERVAL_MS = 60 * 1000;

const REFERENCE = /^blob:([0-9a-f]{64})$/u;
const BARE_HASH = /^[0-9a-f]{64}$/u;
/** What the file store of earlier versions handed out; those payloads were kept an hour and are gone. */
const LEGACY_REFERENCE = /^(?:blob:)?[0-9a-f]{24}$/u;

/** Whether `value` is a reference to an image in the store (`blob:<64 hex digits>`). */
export function isImageReference(value: string): boolean {
  return REFERENCE.test(value);
}

/** The reference to `data`: `blob:` and the SHA-256 of the bytes. */
export function imageReference(data: Buffer): string {
  return `blob:${createHash('sha256').update(data).digest('hex')}`;
}

export interface ImageStoreOptions {
  /** Largest payload (in base64 characters) returned inline by inlineOrReference. */
  inlineLimit?: number;
  clock?: () => Date;
}

/**
 * The one store of images and other large payloads (screenshots, clipboard images), in SQLite
 * (tables `images` and `image_holds`). An image is named by the SHA-256 of its bytes,
 * `blob:<64 hex>`, so the same bytes put twice are one row and one reference, wherever they
 * appear: a tool's output, a run's step record, a run's conversation.
 *
 * A holder (`run:<run id>`) keeps the images it holds until `release(holder)`; deleting a run
 * releases its holds (a trigger on `runs`). Pruning removes only the images nobody holds that
 * have not been used for an hour (what `nextai tool screenshot` returns is held by nobody), so a
 * record that holds its images never points at something pruned.
 *
 * It has the shape of tools/blob-store.ts's BlobStore (this layer cannot import it), which is
 * how the tools and the `blobs.read` method use it. Writes are not synced by themselves: the
 * durable write that first names an image (a run's checkpoint or step) syncs it with it.
 */
export class ImageStore {
  readonly inlineLimit: number;
  private readonly clock: () => Date;
  private readonly statements = new Map<string, Statement>();
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Db,
    options: ImageStoreOptions = {},
  ) {
    this.inlineLimit = options.inlineLimit ?? DEFAULT_INLINE_LIMIT;
    this.clock = options.clock ?? (() => new Date());
  }

  /** Returns the base64 itself when small enough, else a reference `blob:<hash>` to the stored bytes. */
  inlineOrReference(data: Buffer, mimeType: string): string {
    // base64 grows by 4/3: decide on the encoded size without encoding a large payload twice.
    if (Math.ceil(data.length / 3) * 4 <= this.inlineLimit) return data.toString('base64');
    return this.put(data, mimeType);
  }

  /**
   * Stores `data` (once: the same bytes are the same row) and returns its reference; with a
   * holder, held by it in the same transaction. A put marks the image used.
   */
  put(data: Buffer, mimeType: string, holder?: string): string {
    const reference = imageReference(data);
    const hash = reference.slice('blob:'.length);
    const now = this.clock();
    const time = now.toISOString();
    this.db.transaction(() => {
      this.statement(
        `INSERT INTO images (hash, media_type, data, created_at, used_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (hash) DO UPDATE SET used_at = excluded.used_at`,
      ).run(hash, mimeType, data, time, time);
      if (holder !== undefined)
        this.statement('INSERT OR IGNORE INTO image_holds (holder, hash) VALUES (?, ?)').run(holder, hash);
    })();
    if (now.getTime() - this.lastPrune >= TOUCH_INTERVAL_MS) this.prune();
    return reference;
  }

  /** Bytes of a stored payload, for a reference or a bare hash; NOT_FOUND when unknown or pruned. */
  get(reference: string): { data: Buffer; mimeType: string } {
    const hash = this.hashOf(reference);
    if (hash === undefined) throw gone(reference);
    const row = this.statement('SELECT media_type, data, used_at FROM images WHERE hash = ?').get(hash) as
      { media_type: string; data: Buffer; used_at: string } | undefined;
    if (!row) throw gone(reference);
    const now = this.clock();
    if (now.getTime() - Date.parse(row.used_at) >= TOUCH_INTERVAL_MS) {
      try {
        this.statement('UPDATE images SET used_at = ? WHERE hash = ?').run(now.toISOString(), hash);
      } catch (error) {
        // Marking it used is bookkeeping: a read works while the database cannot be written.
        if (!storageHealth(this.db).noteFailure(error)) throw error;
      }
    }
    return { data: row.data, mimeType: row.media_type };
  }

  /** Keeps a stored image for `holder` until release(holder). False when there is no such image (any more). */
  hold(holder: string, reference: string): boolean {
    const hash = this.hashOf(reference);
    if (hash === undefined || !this.statement('SELECT 1 FROM images WHERE hash = ?').get(hash)) return false;
    this.statement('INSERT OR IGNORE INTO image_holds (holder, hash) VALUES (?, ?)').run(holder, hash);
    return true;
  }

  /**
   * Drops every hold of `holder`; returns how many. The images stay until pruning finds them
   * unheld and unused for an hour.
   */
  release(holder: string): number {
    return this.statement('DELETE FROM image_holds WHERE holder = ?').run(holder).changes;
  }

  /**
   * Deletes the images nobody holds that have not been used for an hour; returns how many. While
   * the database cannot be written it deletes nothing (0) and says nothing: the next prune does it.
   */
  prune(): number {
    const now = this.clock().getTime();
    this.lastPrune = now;
    const cutoff = new Date(now - UNHELD_MAX_AGE_MS).toISOString();
    try {
      return this.statement(
        `DELETE FROM images WHERE used_at < ?
           AND NOT EXISTS (SELECT 1 FROM image_holds WHERE image_holds.hash = images.hash)`,
      ).run(cutoff).changes;
    } catch (error) {
      if (!storageHealth(this.db).noteFailure(error)) throw error;
      return 0;
    }
  }

  /** The hash a reference names; undefined for a reference of the earlier file store (never stored here). */
  private hashOf(reference: string): string | undefined {
    const match = REFERENCE.exec(reference);
    if (match?.[1] !== undefined) return match[1];
    if (BARE_HASH.test(reference)) return reference;
    if (LEGACY_REFERENCE.test(reference)) return undefined;
    throw new AppError(
      'INVALID_INPUT',
      `"${reference}" is not a payload reference (they look like blob:<64 hex digits>).`,
    );
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

function gone(reference: string): AppError {
  if (LEGACY_REFERENCE.test(reference)) {
    return new AppError(
      'NOT_FOUND',
      `The payload ${reference} is gone: it was stored by an earlier version of NextAI, which kept payloads for an hour. Take a new screenshot.`,
    );
  }
  return new AppError(
    'NOT_FOUND',
    `The payload ${reference} is gone: a payload no run holds is kept for an hour after it was last used. Take a new screenshot.`,
  );
}
