import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import type { BlobStore } from '../tools/blob-store.js';
import { openDatabase, type Db } from './database.js';
import { ImageStore, UNHELD_MAX_AGE_MS, imageReference, isImageReference } from './image-store.js';

const log = createLogger({ component: 'test', level: 'error' });
const MINUTE = 60_000;

let dir: string;
let db: Db;
let now: number;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-images-'));
  db = await openDatabase(path.join(dir, 'data.db'), log);
  now = Date.parse('2030-01-01T00:00:00Z');
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function store(inlineLimit?: number): ImageStore {
  return new ImageStore(db, { clock: () => new Date(now), ...(inlineLimit !== undefined ? { inlineLimit } : {}) });
}

const count = (table: string): number => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

describe('ImageStore', () => {
  it('is the BlobStore the tools and blobs.read use', () => {
    const blobs: BlobStore = store(8);
    expect(blobs.inlineOrReference(Buffer.from('abcdef'), 'image/png')).toBe(Buffer.from('abcdef').toString('base64'));
    const big = Buffer.from('0123456789abcdef');
    const reference = blobs.inlineOrReference(big, 'image/jpeg');
    expect(reference).toBe(`blob:${createHash('sha256').update(big).digest('hex')}`);
    expect(blobs.get(reference)).toEqual({ data: big, mimeType: 'image/jpeg' });
    // A bare hash names it too.
    expect(blobs.get(reference.slice('blob:'.length)).data).toEqual(big);
  });

  it('names images by the SHA-256 of their bytes: the same bytes put twice are one row', () => {
    const images = store();
    const first = images.put(Buffer.from('same bytes'), 'image/png');
    const again = images.put(Buffer.from('same bytes'), 'image/png', 'run:r1');
    const other = images.put(Buffer.from('other bytes'), 'image/png');
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(isImageReference(first)).toBe(true);
    expect(imageReference(Buffer.from('same bytes'))).toBe(first);
    expect(count('images')).toBe(2);
  });

  it('says what is wrong with a malformed, unknown or pre-upgrade reference', () => {
    const images = store();
    expect(() => images.get('blob:../../etc/passwd')).toThrow(/not a payload reference/u);
    expect(() => images.get(`blob:${'a'.repeat(64)}`)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringMatching(/is gone.*kept for an hour/u) }),
    );
    // What the file store of earlier versions handed out.
    expect(() => images.get(`blob:${'a'.repeat(24)}`)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: expect.stringMatching(/earlier version/u) }),
    );
    expect(images.hold('run:r1', `blob:${'a'.repeat(64)}`)).toBe(false);
    expect(images.hold('run:r1', `blob:${'a'.repeat(24)}`)).toBe(false);
  });

  it('prunes only images nobody holds that were last used more than an hour ago', () => {
    const images = store();
    const unheld = images.put(Buffer.from('screenshot from the CLI'), 'image/jpeg');
    const held = images.put(Buffer.from('screenshot of a run'), 'image/jpeg', 'run:r1');
    const heldLater = images.put(Buffer.from('clipboard image'), 'image/png');
    expect(images.hold('run:r2', heldLater)).toBe(true);

    now += UNHELD_MAX_AGE_MS - MINUTE;
    expect(images.prune()).toBe(0);
    now += 2 * MINUTE;
    expect(images.prune()).toBe(1);
    expect(() => images.get(unheld)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(images.get(held).data).toEqual(Buffer.from('screenshot of a run'));
    expect(images.get(heldLater).data).toEqual(Buffer.from('clipboard image'));
  });

  it('counts a read or a second put as a use', () => {
    const images = store();
    const read = images.put(Buffer.from('read again'), 'image/png');
    const putAgain = images.put(Buffer.from('put again'), 'image/png');
    now += 50 * MINUTE;
    images.get(read);
    images.put(Buffer.from('put again'), 'image/png');
    now += 50 * MINUTE;
    expect(images.prune()).toBe(0);
    now += 11 * MINUTE;
    expect(images.prune()).toBe(2);
    expect(() => images.get(putAgain)).toThrow(/is gone/u);
  });

  it('prunes by itself on a put, at most once a minute', () => {
    const images = store();
    const old = images.put(Buffer.from('old'), 'image/png');
    now += UNHELD_MAX_AGE_MS + MINUTE;
    images.put(Buffer.from('new'), 'image/png');
    expect(() => images.get(old)).toThrow(/is gone/u);
  });

  it('release drops one holder’s holds; the image goes once nobody holds it and it is an hour old', () => {
    const images = store();
    const shared = images.put(Buffer.from('shown by two runs'), 'image/png', 'run:r1');
    images.hold('run:r2', shared);
    const own = images.put(Buffer.from('only r1'), 'image/png', 'run:r1');
    expect(images.release('run:r1')).toBe(2);
    expect(images.release('run:r1')).toBe(0);
    // Released but recently used: still there.
    expect(images.prune()).toBe(0);
    expect(images.get(own).data).toEqual(Buffer.from('only r1'));
    now += UNHELD_MAX_AGE_MS + MINUTE;
    expect(images.prune()).toBe(1);
    expect(() => images.get(own)).toThrow(/is gone/u);
    expect(images.get(shared).data).toEqual(Buffer.from('shown by two runs'));
  });

  it('cannot delete an image someone holds, and a deleted run releases its holds', () => {
    const images = store();
    const time = new Date(now).toISOString();
    db.prepare(
      `INSERT INTO runs (id, goal, project, state, limits, created_at, updated_at)
         VALUES ('r1', 'look', 'default', 'finished', '{}', ?, ?)`,
    ).run(time, time);
    const reference = images.put(Buffer.from('held by r1'), 'image/png', 'run:r1');
    const hash = reference.slice('blob:'.length);
    expect(() => db.prepare('DELETE FROM images WHERE hash = ?').run(hash)).toThrow(/FOREIGN KEY/u);
    db.prepare("DELETE FROM runs WHERE id = 'r1'").run();
    expect(count('image_holds')).toBe(0);
    now += UNHELD_MAX_AGE_MS + MINUTE;
    expect(images.prune()).toBe(1);
  });
});
