import fs from 'node:fs';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { callTool, failureOf } from '../test-support.js';
import { createFileHandlers } from './index.js';
import { fileFixture, type FileFixture } from './test-fixture.js';

let fixture: FileFixture;
let handlers: ReturnType<typeof createFileHandlers>['handlers'];

beforeEach(() => {
  fixture = fileFixture({ security: { max_file_size: 4096 } });
  handlers = createFileHandlers(fixture.services).handlers;
});
afterEach(() => fixture.cleanup());

const read = (input: unknown) => callTool('file_read', handlers.file_read, input);

describe('file_read', () => {
  it('reads a whole file relative to the home directory, with ~ and absolute paths alike', async () => {
    const file = fixture.put('notes/a.txt', 'one\ntwo\nthree\n');
    const expected = { content: 'one\ntwo\nthree\n', total_lines: 3, truncated: false };
    expect(await read({ path: 'notes/a.txt' })).toEqual(expected);
    expect(await read({ path: '~/notes/a.txt' })).toEqual(expected);
    expect(await read({ path: file })).toEqual(expected);
  });

  it('returns a range of lines from offset (1-based) and limit', async () => {
    fixture.put('a.txt', 'l1\nl2\nl3\nl4\nl5');
    expect(await read({ path: 'a.txt', offset: 2, limit: 2 })).toEqual({
      content: 'l2\nl3\n',
      total_lines: 5,
      truncated: true,
    });
    // The last line has no newline in the file, and none is added.
    expect(await read({ path: 'a.txt', offset: 4 })).toEqual({ content: 'l4\nl5', total_lines: 5, truncated: false });
    const past = await failureOf(read({ path: 'a.txt', offset: 9 }));
    expect(past.code).toBe('INVALID_INPUT');
    expect(past.message).toContain('has 5 lines');
  });

  it('keeps CRLF line endings and reads UTF-8 with a byte-order mark and UTF-16', async () => {
    fixture.put('crlf.txt', 'a\r\nb\r\n');
    expect(await read({ path: 'crlf.txt' })).toMatchObject({ content: 'a\r\nb\r\n', total_lines: 2 });
    fixture.put('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo\n')]));
    expect(await read({ path: 'bom.txt' })).toMatchObject({ content: 'héllo\n', total_lines: 1 });
    fixture.put('utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('中文\nok\n', 'utf16le')]));
    expect(await read({ path: 'utf16.txt' })).toMatchObject({ content: '中文\nok\n', total_lines: 2 });
  });

  it('reads an empty file as no lines', async () => {
    fixture.put('empty.txt', '');
    expect(await read({ path: 'empty.txt' })).toEqual({ content: '', total_lines: 0, truncated: false });
  });

  it('refuses a binary file, saying what it looks like and how big it is', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100)]);
    fixture.put('image.png', png);
    const error = await failureOf(read({ path: 'image.png' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toMatch(/binary file \(PNG image, 108 bytes\)/);
    // Invalid UTF-8 without NUL bytes is binary too.
    fixture.put('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6f, 0x6b]));
    expect((await failureOf(read({ path: 'latin1.txt' }))).message).toContain('binary file');
  });

  it('does not take a character cut at the 8 KiB sniffing boundary for binary', async () => {
    // 8191 ASCII bytes, then a 3-byte character that straddles byte 8192.
    fixture.put('edge.txt', `${'a'.repeat(8191)}中\n`);
    expect(await read({ path: 'edge.txt', offset: 1 })).toMatchObject({ total_lines: 1 });
  });

  it('refuses a file over max_file_size unless a range is asked for, and then reads only that range', async () => {
    const lines = Array.from({ length: 1000 }, (_, index) => `line ${index + 1}`);
    fixture.put('big.log', `${lines.join('\n')}\n`);
    const error = await failureOf(read({ path: 'big.log' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('offset and limit');
    expect(error.message).toContain('security.max_file_size');
    expect(await read({ path: 'big.log', offset: 998, limit: 5 })).toEqual({
      content: 'line 998\nline 999\nline 1000\n',
      total_lines: 1000,
      truncated: false,
    });
  });

  it('says to use file_search for a directory, and NOT_FOUND for a missing file', async () => {
    fs.mkdirSync(path.join(fixture.home, 'folder'));
    const directory = await failureOf(read({ path: 'folder' }));
    expect(directory.code).toBe('INVALID_INPUT');
    expect(directory.message).toContain('file_search');
    const missing = await failureOf(read({ path: 'nope.txt' }));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain(path.join(fixture.home, 'nope.txt'));
  });

  it('refuses a FIFO instead of waiting on it forever', async () => {
    const fifo = path.join(fixture.home, 'pipe');
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [fifo]);
    expect((await failureOf(read({ path: fifo }))).message).toContain('special file');
  });

  it('reads through a symlink (where the policy resolved the path to)', async () => {
    fixture.put('real/target.txt', 'through the link\n');
    fs.symlinkSync(path.join(fixture.home, 'real'), path.join(fixture.home, 'link'));
    expect(await read({ path: 'link/target.txt' })).toMatchObject({ content: 'through the link\n' });
  });

  it('caps what one call returns at 2000 lines by default and says it is truncated', async () => {
    const roomy = fileFixture();
    try {
      const many = createFileHandlers(roomy.services).handlers;
      roomy.put('many.txt', 'x\n'.repeat(2500));
      const result = (await callTool('file_read', many.file_read, { path: 'many.txt' })) as {
        content: string;
        total_lines: number;
        truncated: boolean;
      };
      expect(result.content.split('\n').length - 1).toBe(2000);
      expect(result).toMatchObject({ total_lines: 2500, truncated: true });
    } finally {
      roomy.cleanup();
    }
  });
});
