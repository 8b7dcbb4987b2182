import fs from 'node:fs';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createFakeDesktop } from '../../platform/fake-desktop.js';
import { callTool, failureOf } from '../test-support.js';
import { createFileHandlers } from './index.js';
import { fileFixture, type FileFixture } from './test-fixture.js';

let fixture: FileFixture;
let handlers: ReturnType<typeof createFileHandlers>['handlers'];

beforeEach(() => {
  fixture = fileFixture();
  handlers = createFileHandlers(fixture.services).handlers;
});
afterEach(() => fixture.cleanup());

type Made = { success: boolean; path: string; message: string };
type Deleted = { success: boolean; original_path: string; deleted_to: string; message: string };
const mkdir = async (input: unknown) => (await callTool('create_directory', handlers.create_directory, input)) as Made;
const remove = async (input: unknown) => (await callTool('delete_file', handlers.delete_file, input)) as Deleted;

describe('create_directory', () => {
  it('creates a folder, and with parents the missing folders above it', async () => {
    const made = await mkdir({ path: 'one' });
    expect(made).toMatchObject({ success: true, path: path.join(fixture.home, 'one') });
    expect(fs.statSync(path.join(fixture.home, 'one')).isDirectory()).toBe(true);

    const deep = await mkdir({ path: 'a/b/c', parents: true });
    expect(deep.message).toContain(`missing folders from ${path.join(fixture.home, 'a')}`);
    expect(fs.statSync(path.join(fixture.home, 'a/b/c')).isDirectory()).toBe(true);
  });

  it('without parents, a missing parent is NOT_FOUND that suggests parents: true', async () => {
    const error = await failureOf(mkdir({ path: 'x/y' }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('parents: true');
    expect(fs.existsSync(path.join(fixture.home, 'x'))).toBe(false);
  });

  it('an existing folder is success that says nothing was created; a file in the way is an error', async () => {
    fs.mkdirSync(path.join(fixture.home, 'there'));
    expect(await mkdir({ path: 'there' })).toMatchObject({
      success: true,
      message: expect.stringContaining('already exists'),
    });
    fixture.put('file', 'x');
    expect((await failureOf(mkdir({ path: 'file' }))).message).toContain('is a file');
    expect((await failureOf(mkdir({ path: 'file/sub', parents: true }))).message).toContain('A file is in the way');
  });
});

describe('delete_file', () => {
  it('moves a file to the freedesktop trash by default, where it can be restored', async () => {
    const file = fixture.put('docs/report.txt', 'keep me');
    const result = await remove({ path: 'docs/report.txt' });
    const trashed = path.join(fixture.dataHome, 'Trash/files/report.txt');
    expect(result).toMatchObject({ success: true, original_path: file, deleted_to: trashed });
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readFileSync(trashed, 'utf8')).toBe('keep me');
    const info = fs.readFileSync(path.join(fixture.dataHome, 'Trash/info/report.txt.trashinfo'), 'utf8');
    expect(info).toContain(`Path=${file}`);
  });

  it('deletes a folder permanently only when asked', async () => {
    fixture.put('gone/inner/file.txt', 'x');
    const result = await remove({ path: 'gone', permanent: true });
    expect(result).toMatchObject({ success: true, deleted_to: 'deleted' });
    expect(result.message).toContain('permanently');
    expect(fs.existsSync(path.join(fixture.home, 'gone'))).toBe(false);
    expect(fs.existsSync(path.join(fixture.dataHome, 'Trash/files/gone'))).toBe(false);
  });

  it('deletes a symlink itself, not what it points to', async () => {
    const target = fixture.put('target.txt', 'stays');
    fs.symlinkSync(target, path.join(fixture.home, 'link'));
    await remove({ path: 'link', permanent: true });
    expect(fs.existsSync(path.join(fixture.home, 'link'))).toBe(false);
    expect(fs.readFileSync(target, 'utf8')).toBe('stays');
  });

  it('takes `..` after a symlink from the link target, as the policy judged it', async () => {
    // ~/projects/link → ~/elsewhere/deep, so ~/projects/link/../x is ~/elsewhere/x (as the kernel
    // resolves it), not ~/projects/x (as the text reads).
    const lookalike = fixture.put('projects/x', 'must stay');
    const meant = fixture.put('elsewhere/x', 'goes');
    fs.mkdirSync(path.join(fixture.home, 'elsewhere/deep'));
    fs.symlinkSync(path.join(fixture.home, 'elsewhere/deep'), path.join(fixture.home, 'projects/link'));
    const deleted = await remove({ path: 'projects/link/../x', permanent: true });
    expect(deleted.original_path).toBe(meant);
    expect(fs.existsSync(meant)).toBe(false);
    expect(fs.readFileSync(lookalike, 'utf8')).toBe('must stay');
  });

  it('refuses the root, the home directory, the data directory and what holds them', async () => {
    for (const [input, words] of [
      ['/', 'root of the file system'],
      ['~', 'is your home directory'],
      [fixture.dataDir, "is NextAI's data directory"],
      [path.dirname(fixture.home), 'contains your home directory'],
    ] as const) {
      const error = await failureOf(remove({ path: input, permanent: true }));
      expect(error.code).toBe('PERMISSION_DENIED');
      expect(error.message).toContain(words);
    }
    expect(fs.existsSync(fixture.dataDir)).toBe(true);
  });

  it('says NOT_FOUND for a path that does not exist', async () => {
    expect((await failureOf(remove({ path: 'nothing.txt' }))).code).toBe('NOT_FOUND');
  });

  it('uses whatever trash the desktop adapter has', async () => {
    const trashDir = path.join(fixture.home, 'fake-trash');
    fs.mkdirSync(trashDir);
    const other = fileFixture({ desktop: createFakeDesktop({ trashDir }).desktop });
    try {
      const file = other.put('a.txt', 'a');
      const otherHandlers = createFileHandlers(other.services).handlers;
      const result = (await callTool('delete_file', otherHandlers.delete_file, { path: file })) as Deleted;
      expect(result.deleted_to).toBe(path.join(trashDir, 'a.txt'));
    } finally {
      other.cleanup();
    }
  });
});
