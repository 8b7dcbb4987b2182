import fs from 'node:fs';
import path from 'node:path';

import { AppError } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { callTool, failureOf } from '../test-support.js';
import { writeFileAtomic } from './atomic-write.js';
import { createFileHandlers } from './index.js';
import { fileFixture, type FileFixture } from './test-fixture.js';

let fixture: FileFixture;
let handlers: ReturnType<typeof createFileHandlers>['handlers'];

beforeEach(() => {
  fixture = fileFixture();
  handlers = createFileHandlers(fixture.services).handlers;
});
afterEach(() => fixture.cleanup());

const write = (input: unknown) => callTool('file_write', handlers.file_write, input);
const edit = (input: unknown) => callTool('file_edit', handlers.file_edit, input);

const leftovers = (folder: string) => fs.readdirSync(folder).filter((name) => name.endsWith('.tmp'));

describe('file_write', () => {
  it('creates a file (and its missing folders) and reports the bytes written', async () => {
    const result = await write({ path: 'new/deep/hello.txt', content: 'héllo 世界\n' });
    const file = path.join(fixture.home, 'new/deep/hello.txt');
    expect(result).toEqual({ success: true, path: file, bytes_written: Buffer.byteLength('héllo 世界\n') });
    expect(fs.readFileSync(file, 'utf8')).toBe('héllo 世界\n');
    expect(leftovers(path.dirname(file))).toEqual([]);
  });

  it('replaces a file keeping its permission bits, and writes through a symlink to its target', async () => {
    const file = fixture.put('script.sh', 'old');
    fs.chmodSync(file, 0o751);
    await write({ path: 'script.sh', content: 'new' });
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    expect(fs.statSync(file).mode & 0o7777).toBe(0o751);

    const link = path.join(fixture.home, 'link.sh');
    fs.symlinkSync(file, link);
    await write({ path: 'link.sh', content: 'via link' });
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('via link');
  });

  it('never writes the target in place: the new content is complete beside it before one rename swaps it in', async () => {
    const size = 4 * 1024 * 1024;
    const file = fixture.put('big.txt', 'a'.repeat(size));
    const before = fs.statSync(file).ino;
    await writeFileAtomic(file, Buffer.from('b'.repeat(size)), {
      beforeRename: (temporary) => {
        // At the last moment before the swap the target is still wholly the old file.
        expect(fs.readFileSync(file, 'latin1')).toBe('a'.repeat(size));
        expect(fs.statSync(temporary).size).toBe(size);
      },
    });
    expect(fs.readFileSync(file, 'latin1')).toBe('b'.repeat(size));
    // A new inode: the file was replaced by rename, not truncated and rewritten.
    expect(fs.statSync(file).ino).not.toBe(before);
    // The tool goes the same way.
    const inode = fs.statSync(file).ino;
    await write({ path: 'big.txt', content: 'c' });
    expect(fs.statSync(file).ino).not.toBe(inode);
    expect(leftovers(fixture.home)).toEqual([]);
  });

  it('leaves the old content and no temporary file when the write fails before the swap', async () => {
    const file = fixture.put('keep.txt', 'precious');
    let temporary = '';
    const error = await writeFileAtomic(file, Buffer.from('half'), {
      beforeRename: (name) => {
        temporary = name;
        // The temporary file is complete and beside the target when the swap would happen.
        expect(path.dirname(name)).toBe(path.dirname(file));
        expect(fs.readFileSync(name, 'utf8')).toBe('half');
        throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
      },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).message).toContain('disk is full');
    expect(fs.readFileSync(file, 'utf8')).toBe('precious');
    expect(fs.existsSync(temporary)).toBe(false);
    expect(leftovers(fixture.home)).toEqual([]);
  });

  it('refuses to write over a directory, and content over max_file_size', async () => {
    fs.mkdirSync(path.join(fixture.home, 'folder'));
    expect((await failureOf(write({ path: 'folder', content: 'x' }))).message).toContain('is a directory');
    const small = fileFixture({ security: { max_file_size: 10 } });
    try {
      const tiny = createFileHandlers(small.services).handlers;
      const error = await failureOf(
        callTool('file_write', tiny.file_write, { path: 'a.txt', content: 'x'.repeat(11) }),
      );
      expect(error.message).toContain('security.max_file_size');
      expect(fs.existsSync(path.join(small.home, 'a.txt'))).toBe(false);
    } finally {
      small.cleanup();
    }
  });
});

describe('file_edit', () => {
  it('replaces the one occurrence and nothing else', async () => {
    const file = fixture.put('code.ts', 'const a = 1;\nconst b = 2;\n');
    expect(await edit({ path: 'code.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' })).toEqual({
      success: true,
      path: file,
      replacements: 1,
    });
    expect(fs.readFileSync(file, 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('says when old_string is absent, pointing at a loose (whitespace) match with its line', async () => {
    const file = fixture.put('code.py', 'def f():\n    return 1\n\ndef g():\n    return 2\n');
    const error = await failureOf(edit({ path: 'code.py', old_string: 'def g():\n  return 2', new_string: 'x' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('does not occur');
    expect(error.message).toContain('compared loosely — at line 4');
    expect(fs.readFileSync(file, 'utf8')).toContain('return 2');
  });

  it('says when old_string is absent and names the most similar line', async () => {
    fixture.put('config.ini', '[server]\nport = 8080\nhost = example.org\n');
    const error = await failureOf(edit({ path: 'config.ini', old_string: 'port = 8081', new_string: 'port = 9090' }));
    expect(error.message).toContain('most similar line is line 2: "port = 8080"');
    const nothing = await failureOf(edit({ path: 'config.ini', old_string: 'zzzz qqqq', new_string: 'y' }));
    expect(nothing.message).toContain('Nothing similar');
  });

  it('refuses an ambiguous old_string, naming how many times and on which lines', async () => {
    const file = fixture.put('list.txt', 'item\nother\nitem\nitem\n');
    const error = await failureOf(edit({ path: 'list.txt', old_string: 'item', new_string: 'thing' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('occurs 3 times');
    expect(error.message).toContain('lines 1, 3, 4');
    expect(fs.readFileSync(file, 'utf8')).toBe('item\nother\nitem\nitem\n');
  });

  it('keeps CRLF line endings when the strings use bare newlines', async () => {
    const file = fixture.put('win.txt', 'first\r\nsecond\r\nthird\r\n');
    await edit({ path: 'win.txt', old_string: 'first\nsecond', new_string: 'first\ninserted\nsecond' });
    expect(fs.readFileSync(file, 'utf8')).toBe('first\r\ninserted\r\nsecond\r\nthird\r\n');
  });

  it('keeps a UTF-8 byte-order mark and the file mode', async () => {
    const file = fixture.put('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hello\n')]));
    fs.chmodSync(file, 0o600);
    await edit({ path: 'bom.txt', old_string: 'hello', new_string: 'bye' });
    expect([...fs.readFileSync(file).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(fs.readFileSync(file).subarray(3).toString()).toBe('bye\n');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a binary file, a missing file and an edit that changes nothing', async () => {
    fixture.put('blob.bin', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
    expect((await failureOf(edit({ path: 'blob.bin', old_string: 'E', new_string: 'x' }))).message).toContain(
      'ELF executable',
    );
    expect((await failureOf(edit({ path: 'missing.txt', old_string: 'a', new_string: 'b' }))).code).toBe('NOT_FOUND');
    fixture.put('same.txt', 'abc');
    expect((await failureOf(edit({ path: 'same.txt', old_string: 'abc', new_string: 'abc' }))).message).toContain(
      'nothing to change',
    );
  });

  it('applies concurrent edits of one file one after the other, losing none', async () => {
    const file = fixture.put('counter.txt', 'a=0\nb=0\nc=0\n');
    await Promise.all([
      edit({ path: 'counter.txt', old_string: 'a=0', new_string: 'a=1' }),
      edit({ path: 'counter.txt', old_string: 'b=0', new_string: 'b=1' }),
      edit({ path: 'counter.txt', old_string: 'c=0', new_string: 'c=1' }),
    ]);
    expect(fs.readFileSync(file, 'utf8')).toBe('a=1\nb=1\nc=1\n');
  });
});
