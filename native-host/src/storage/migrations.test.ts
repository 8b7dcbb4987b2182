import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { openDatabase } from './database.js';
import { ImageStore } from './image-store.js';
import { MIGRATIONS } from './migrations.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

describe('migration 13: run_images into the one image store', () => {
  it('moves every run image, held by its run, and rewrites the checkpoints to the new references', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-migrate-'));
    const file = path.join(dir, 'data.db');
    const before = MIGRATIONS.filter((migration) => migration.version < 13);
    const old = await openDatabase(file, log, before);
    const time = '2030-01-01T00:00:00.000Z';
    const insertRun = old.prepare(
      `INSERT INTO runs (id, goal, project, state, limits, created_at, updated_at)
         VALUES (?, 'look', 'default', ?, '{}', ?, ?)`,
    );
    insertRun.run('r1', 'paused', time, time);
    insertRun.run('r2', 'finished', time, time);
    const first = Buffer.from('first screenshot');
    const second = Buffer.from('second screenshot');
    const insertImage = old.prepare(
      'INSERT INTO run_images (id, run_id, media_type, data, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    insertImage.run('a'.repeat(24), 'r1', 'image/jpeg', first, time);
    insertImage.run('b'.repeat(24), 'r1', 'image/png', second, time);
    // Another run showed the same bytes: one image, held by both.
    insertImage.run('c'.repeat(24), 'r2', 'image/jpeg', first, time);
    const state = (ids: string[]) => ({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'look at runimg:aaaa (text, not a reference)' }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              toolUseId: 't1',
              content: ids.map((id) => ({ type: 'image', data: `runimg:${id}`, mediaType: 'image/jpeg', width: 8 })),
            },
          ],
        },
      ],
      pending: { results: [], calls: [] },
    });
    const insertCheckpoint = old.prepare(
      'INSERT INTO run_checkpoints (run_id, step, state, created_at) VALUES (?, ?, ?, ?)',
    );
    insertCheckpoint.run('r1', 4, JSON.stringify(state(['a'.repeat(24), 'b'.repeat(24)])), time);
    insertCheckpoint.run('r2', 2, JSON.stringify(state(['c'.repeat(24)])), time);
    old.close();

    const db = await openDatabase(file, log);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)?.version);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'run_images'").all()).toEqual([]);
    expect(db.prepare('SELECT count(*) FROM images').pluck().get()).toBe(2);
    const holds = db.prepare('SELECT holder, hash FROM image_holds').all();
    expect(holds).toHaveLength(3);
    expect(holds).toEqual(
      expect.arrayContaining([
        { holder: 'run:r1', hash: sha256(first) },
        { holder: 'run:r1', hash: sha256(second) },
        { holder: 'run:r2', hash: sha256(first) },
      ]),
    );

    const checkpoint = JSON.parse(
      db.prepare("SELECT state FROM run_checkpoints WHERE run_id = 'r1'").pluck().get() as string,
    ) as ReturnType<typeof state>;
    const blocks = (checkpoint.messages[1]?.content[0] as { content: { data: string; width: number }[] }).content;
    expect(blocks.map((block) => block.data)).toEqual([`blob:${sha256(first)}`, `blob:${sha256(second)}`]);
    expect(blocks[0]?.width).toBe(8);
    expect(checkpoint.messages[0]?.content[0]).toEqual({
      type: 'text',
      text: 'look at runimg:aaaa (text, not a reference)',
    });

    // The same images are reachable through the store, and pruning (hours later) keeps them.
    const images = new ImageStore(db, { clock: () => new Date('2031-01-01T00:00:00Z') });
    expect(images.prune()).toBe(0);
    expect(images.get(blocks[0]?.data ?? '')).toEqual({ data: first, mimeType: 'image/jpeg' });
    expect(images.get(blocks[1]?.data ?? '')).toEqual({ data: second, mimeType: 'image/png' });
    db.close();
  });
});
