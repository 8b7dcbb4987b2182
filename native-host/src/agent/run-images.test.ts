import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { openDatabase, type Db } from '../storage/database.js';
import { ImageStore } from '../storage/image-store.js';
import type { Message } from './providers/types.js';
import { RunImages, runHolder } from './run-images.js';

const log = createLogger({ component: 'test', level: 'error' });
// A 1×1 PNG.
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let dir: string;
let db: Db;
let store: ImageStore;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-run-images-'));
  db = await openDatabase(path.join(dir, 'data.db'), log);
  store = new ImageStore(db);
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const holds = (runId: string): string[] =>
  db.prepare('SELECT hash FROM image_holds WHERE holder = ?').pluck().all(runHolder(runId)) as string[];

describe('RunImages', () => {
  it('stores a conversation image once, held by the run, and resolves its reference for a request', () => {
    const images = new RunImages(store);
    const block = images.put('r1', { type: 'image', data: PNG_1X1, mediaType: 'image/jpeg' });
    expect(block).toEqual({
      type: 'image',
      data: expect.stringMatching(/^blob:[0-9a-f]{64}$/u),
      mediaType: 'image/png',
      width: 1,
      height: 1,
    });
    expect(images.put('r1', { type: 'image', data: PNG_1X1, mediaType: 'image/png' }).data).toBe(block.data);
    // Another run showing a reference holds it too.
    expect(images.put('r2', block)).toBe(block);
    expect(holds('r1')).toEqual([block.data.slice('blob:'.length)]);
    expect(holds('r2')).toEqual([block.data.slice('blob:'.length)]);

    const messages: Message[] = [
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: [block] }] },
      // A reference of the table before migration 13 that had no row to move.
      { role: 'user', content: [{ type: 'image', data: `runimg:${'a'.repeat(24)}`, mediaType: 'image/png' }] },
    ];
    const fresh = new RunImages(store);
    expect(fresh.resolve(messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 't1', content: [{ type: 'image', data: PNG_1X1, mediaType: 'image/png' }] },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: '[an image that is no longer available]' }] },
    ]);
  });

  it('holds every image a step result names, wherever it is in the result', () => {
    const images = new RunImages(store);
    const shot = store.put(Buffer.from('screenshot'), 'image/jpeg');
    const clip = store.put(Buffer.from('clipboard'), 'image/png');
    images.holdReferences('r1', {
      ok: true,
      output: {
        image: shot,
        nested: [{ content: clip }],
        text: 'blob: is mentioned here',
        gone: `blob:${'f'.repeat(64)}`,
      },
    });
    expect(holds('r1').sort()).toEqual([shot, clip].map((reference) => reference.slice('blob:'.length)).sort());
  });
});
