import fs from 'node:fs';
import path from 'node:path';

import type { AppError, EventData } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { callTool } from '../test-support.js';
import { createFileHandlers } from './index.js';
import { fileFixture, type FileFixture } from './test-fixture.js';

let fixture: FileFixture;
let group: ReturnType<typeof createFileHandlers>;

beforeEach(() => {
  fixture = fileFixture();
  group = createFileHandlers(fixture.services, { watchLimits: { watches: 3, directories: 100, settleMs: 40 } });
});
afterEach(async () => {
  await group.dispose?.();
  fixture.cleanup();
});

type Output = { watch_id?: string; path?: string; watches?: { watch_id: string }[]; message?: string };
const watch = async (input: Record<string, unknown>) =>
  (await callTool('file_watch', group.handlers.file_watch, input)) as Output;

const changesOf = (file: string) => fixture.events.filter((event) => event.path === file).map((event) => event.change);

/** Polls `changes` every 10 ms, for at most 5 s, until it has `count` entries; returns them. */
const settleOn = (changes: () => string[], count: number, what: string) =>
  vi.waitFor(
    () => {
      const seen = changes();
      if (seen.length < count) throw new Error(`waiting for ${what}`);
      return seen;
    },
    { timeout: 5000, interval: 10 },
  );

/** Waits until `file` has had `count` events and returns its changes. */
const settle = (file: string, count: number) => settleOn(() => changesOf(file), count, `${count} event(s) for ${file}`);

describe('file_watch', () => {
  it('reports create, modify and delete of a file in a watched folder, in order', async () => {
    const folder = path.join(fixture.home, 'watched');
    fs.mkdirSync(folder);
    const started = await watch({ path: 'watched' });
    expect(started.path).toBe(folder);
    expect(started.watch_id).toMatch(/^watch_/);

    const file = path.join(folder, 'a.txt');
    fs.writeFileSync(file, 'one');
    await settle(file, 1);
    fs.appendFileSync(file, 'two');
    await settle(file, 2);
    fs.unlinkSync(file);
    expect(await settle(file, 3)).toEqual(['create', 'modify', 'delete']);
    expect(fixture.events.every((event: EventData<'file.changed'>) => event.watch_id === started.watch_id)).toBe(true);
  });

  it('follows subfolders, including ones created after the watch started, and skips node_modules', async () => {
    fs.mkdirSync(path.join(fixture.home, 'tree/existing'), { recursive: true });
    fs.mkdirSync(path.join(fixture.home, 'tree/node_modules'), { recursive: true });
    await watch({ path: 'tree' });
    const deep = path.join(fixture.home, 'tree/existing/deep.txt');
    fs.writeFileSync(deep, 'x');
    expect(await settle(deep, 1)).toEqual(['create']);

    const fresh = path.join(fixture.home, 'tree/fresh');
    fs.mkdirSync(fresh);
    await settle(fresh, 1);
    const inside = path.join(fresh, 'inside.txt');
    fs.writeFileSync(inside, 'y');
    expect(await settle(inside, 1)).toEqual(['create']);

    // A marker after the dependency write proves the dependency event would have arrived by now.
    fs.writeFileSync(path.join(fixture.home, 'tree/node_modules/dep.js'), 'z');
    const marker = path.join(fixture.home, 'tree/marker');
    fs.writeFileSync(marker, '');
    await settle(marker, 1);
    expect(fixture.events.some((event) => event.path.includes('node_modules'))).toBe(false);
  });

  it('reports the files inside a deleted folder and the folder itself', async () => {
    fixture.put('tree/sub/a.txt', 'a');
    await watch({ path: 'tree' });
    const sub = path.join(fixture.home, 'tree/sub');
    fs.rmSync(sub, { recursive: true });
    await settle(sub, 1);
    expect(changesOf(path.join(sub, 'a.txt'))).toEqual(['delete']);
    expect(changesOf(sub)).toEqual(['delete']);
  });

  it('watches a single file through its folder, so a replace-on-save is a modify', async () => {
    const file = fixture.put('single/config.json', '{}');
    const sibling = path.join(fixture.home, 'single/other.txt');
    await watch({ path: 'single/config.json' });
    fs.writeFileSync(sibling, 'not reported');
    const temporary = path.join(fixture.home, 'single/.config.json.tmp');
    fs.writeFileSync(temporary, '{"a":1}');
    fs.renameSync(temporary, file);
    expect(await settle(file, 1)).toEqual(['modify']);
    expect(changesOf(sibling)).toEqual([]);
  });

  it('reports only the changes asked for', async () => {
    fs.mkdirSync(path.join(fixture.home, 'only'));
    const deletes = await watch({ path: 'only', events: ['delete'] });
    // A second, unfiltered watch of the same folder shows when each change has been processed.
    const everything = await watch({ path: 'only' });
    const file = path.join(fixture.home, 'only/f.txt');
    const of = (id: string | undefined) =>
      fixture.events.filter((event) => event.watch_id === id && event.path === file).map((event) => event.change);
    fs.writeFileSync(file, '1');
    await settleOn(() => of(everything.watch_id), 1, 'the create');
    fs.appendFileSync(file, '2');
    await settleOn(() => of(everything.watch_id), 2, 'the modify');
    fs.unlinkSync(file);
    await settleOn(() => of(everything.watch_id), 3, 'the delete');
    expect(of(everything.watch_id)).toEqual(['create', 'modify', 'delete']);
    await settleOn(() => of(deletes.watch_id), 1, 'the filtered delete');
    expect(of(deletes.watch_id)).toEqual(['delete']);
  });

  it('lists and stops watches; after stop no more events arrive', async () => {
    fs.mkdirSync(path.join(fixture.home, 'a'));
    fs.mkdirSync(path.join(fixture.home, 'b'));
    const first = await watch({ path: 'a' });
    const second = await watch({ path: 'b' });
    const listed = await watch({ action: 'list' });
    expect(listed.watches?.map((entry) => entry.watch_id).sort()).toEqual([first.watch_id, second.watch_id].sort());

    const stopped = await watch({ action: 'stop', watch_id: first.watch_id });
    expect(stopped.watches?.map((entry) => entry.watch_id)).toEqual([second.watch_id]);
    const ignored = path.join(fixture.home, 'a/ignored.txt');
    const seen = path.join(fixture.home, 'b/seen.txt');
    fs.writeFileSync(ignored, 'x');
    fs.writeFileSync(seen, 'x');
    // The still-active watch's event arrives; the stopped one's, written first, never does.
    await settle(seen, 1);
    expect(changesOf(ignored)).toEqual([]);
  });

  it('refuses unknown watch ids, missing paths and more watches than the limit', async () => {
    const unknown = await watch({ action: 'stop', watch_id: 'watch_nope' }).catch((caught: unknown) => caught);
    expect((unknown as AppError).code).toBe('NOT_FOUND');
    const missing = await watch({ path: 'nowhere' }).catch((caught: unknown) => caught);
    expect((missing as AppError).code).toBe('NOT_FOUND');
    for (const name of ['1', '2', '3']) {
      fs.mkdirSync(path.join(fixture.home, name));
      await watch({ path: name });
    }
    fs.mkdirSync(path.join(fixture.home, '4'));
    const tooMany = await watch({ path: '4' }).catch((caught: unknown) => caught);
    expect((tooMany as AppError).code).toBe('INVALID_INPUT');
    expect((tooMany as AppError).message).toContain('Stop one first');
  });

  it('closes every watch on dispose', async () => {
    fs.mkdirSync(path.join(fixture.home, 'd'));
    await watch({ path: 'd' });
    await group.dispose?.();
    expect((await watch({ action: 'list' })).watches).toEqual([]);
  });
});
