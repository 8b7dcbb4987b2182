import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  CONFIG_MAX_BYTES,
  CONFIG_MAX_DEPTH,
  editJson,
  parseConfigJson,
  parsePolicyConfig,
  readConfigFile,
} from './config-file.js';
import { NO_FIFOS, fifoWithoutWriter } from './testing/fifo.js';

let dir: string;
let file: string;
const cleanups: (() => void)[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-config-file-'));
  file = path.join(dir, 'config.json');
});
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const FIVE_MB = 5 * 1024 * 1024;

/** `read()` with how long it took. */
function timed<T>(read: () => T): { result: T; ms: number } {
  const started = Date.now();
  const result = read();
  return { result, ms: Date.now() - started };
}

describe('readConfigFile', () => {
  it('reads a regular file, and through a symbolic link to one; a missing file or a dangling link is missing', () => {
    expect(readConfigFile(file)).toEqual({ kind: 'missing' });
    fs.writeFileSync(file, '{ "ui": {} }');
    expect(readConfigFile(file)).toMatchObject({ kind: 'read', text: '{ "ui": {} }' });
    const link = path.join(dir, 'linked.json');
    fs.symlinkSync(file, link);
    expect(readConfigFile(link)).toMatchObject({ kind: 'read', text: '{ "ui": {} }' });
    fs.rmSync(file);
    expect(readConfigFile(link)).toEqual({ kind: 'missing' });
  });

  it.skipIf(NO_FIFOS)('refuses a named pipe at once instead of waiting for a writer', () => {
    cleanups.push(fifoWithoutWriter(file));
    const { result, ms } = timed(() => readConfigFile(file));
    expect(result).toEqual({
      kind: 'refused',
      problem: `${file}: not read: it is a named pipe (FIFO); config.json must be a regular file.`,
    });
    expect(ms).toBeLessThan(1000);
  });

  it.skipIf(NO_FIFOS)('refuses a symbolic link to a named pipe at once', () => {
    const fifo = path.join(dir, 'pipe');
    cleanups.push(fifoWithoutWriter(fifo));
    fs.symlinkSync(fifo, file);
    const { result, ms } = timed(() => readConfigFile(file));
    expect(result).toEqual({
      kind: 'refused',
      problem: `${file}: not read: it is a symbolic link to a named pipe (FIFO); config.json must be a regular file.`,
    });
    expect(ms).toBeLessThan(1000);
  });

  it('refuses a directory', () => {
    fs.mkdirSync(file);
    expect(readConfigFile(file)).toEqual({
      kind: 'refused',
      problem: `${file}: not read: it is a directory; config.json must be a regular file.`,
    });
  });

  it('refuses a file past the size limit without reading it', () => {
    fs.writeFileSync(file, `{"ui":{},"x":"${'x'.repeat(FIVE_MB)}"}`);
    const read = readConfigFile(file);
    expect(read.kind).toBe('refused');
    expect(read.kind === 'refused' && read.problem).toMatch(
      new RegExp(`^${file}: not read: it is 5\\.0 MiB \\(\\d+ bytes\\), and config\\.json may be at most 1 MiB\\.$`),
    );
  });

  it('reads a file of exactly the size limit', () => {
    const text = `{"x":"${'x'.repeat(CONFIG_MAX_BYTES - 8)}"}`;
    expect(Buffer.byteLength(text)).toBe(CONFIG_MAX_BYTES);
    fs.writeFileSync(file, text);
    expect(readConfigFile(file)).toMatchObject({ kind: 'read', text });
  });

  it('keeps the bytes as they are on disk, for fingerprints', () => {
    const bytes = Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]);
    fs.writeFileSync(file, bytes);
    const read = readConfigFile(file);
    expect(read.kind === 'read' && read.bytes.equals(bytes)).toBe(true);
  });
});

describe('parseConfigJson', () => {
  it('refuses 3 000 nested arrays with the line and the column, instead of overflowing the stack', () => {
    const parsed = parseConfigJson(nestedArrays(3000), 'config.json');
    expect(parsed).toEqual({
      ok: false,
      problems: [
        `config.json line 1, column 65: 0.0.0.0.…(58 more)….0.0: nested more than 64 levels deep; config.json may nest at most 64.`,
      ],
    });
  });

  it('refuses 3 000 nested objects, naming the field path where the limit is passed', () => {
    const text = `{\n  "model": ${nestedObjects(3000)}\n}`;
    const parsed = parseConfigJson(text, 'config.json');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problems).toEqual([
      `config.json line 2, column ${12 + 5 * (CONFIG_MAX_DEPTH - 1)}: model.a.a.a.…(58 more)….a.a: nested more than 64 levels deep; config.json may nest at most 64.`,
    ]);
  });

  it('refuses deep nesting hidden behind mismatched closing brackets', () => {
    expect(parseConfigJson('['.repeat(3000) + '}'.repeat(3000), 'c').ok).toBe(false);
    expect(parseConfigJson('[{]'.repeat(3000), 'c').ok).toBe(false);
  });

  it('accepts nesting up to the limit', () => {
    expect(parseConfigJson(nestedArrays(CONFIG_MAX_DEPTH), 'c').ok).toBe(true);
    expect(parseConfigJson(nestedArrays(CONFIG_MAX_DEPTH + 1), 'c').ok).toBe(false);
    // Brackets inside strings and comments are not nesting.
    const quoted = `{ "a": "${'['.repeat(3000)}" /* ${'{'.repeat(3000)} */ }`;
    expect(parseConfigJson(quoted, 'c')).toMatchObject({ ok: true, value: { a: '['.repeat(3000) } });
  });

  it('refuses a text past the size limit, naming where the limit falls', () => {
    const text = `{\n"x": "${'x'.repeat(FIVE_MB)}"\n}`;
    expect(parseConfigJson(text, 'config.json')).toEqual({
      ok: false,
      problems: [
        `config.json line 2, column ${CONFIG_MAX_BYTES - 1}: the file goes past 1 MiB here (it is 5.0 MiB); config.json may be at most 1 MiB.`,
      ],
    });
  });

  it('lists the first 20 syntax errors and counts the rest, in a time that grows with the file, not its square', () => {
    const text = `[${'1 '.repeat(100_000)}]`;
    const parsed = parseConfigJson(text, 'config.json');
    expect(!parsed.ok && parsed.problems).toHaveLength(21);
    expect(!parsed.ok && parsed.problems[0]).toBe('config.json line 1, column 4: expected ","');
    expect(!parsed.ok && parsed.problems[20]).toBe('… and 99979 more problems.');
  });
});

describe('parsePolicyConfig', () => {
  it('refuses a deeply nested section it does not own, as it refuses a syntax error', () => {
    const parsed = parsePolicyConfig(`{ "ui": ${nestedArrays(3000)} }`, 'config.json');
    expect(!parsed.ok && parsed.problems).toEqual([
      `config.json line 1, column 72: ui.0.0.0.…(58 more)….0.0: nested more than 64 levels deep; config.json may nest at most 64.`,
    ]);
  });

  it('lists the first 20 wrong values and counts the rest', () => {
    const text = JSON.stringify({ security: { allowed_directories: Array.from({ length: 50_000 }, () => 1) } });
    const parsed = parsePolicyConfig(text, 'config.json');
    expect(!parsed.ok && parsed.problems).toHaveLength(21);
    expect(!parsed.ok && parsed.problems[1]).toMatch(
      /^config\.json line 1, column 39: security\.allowed_directories\.1: /,
    );
    expect(!parsed.ok && parsed.problems[20]).toBe('… and 49980 more problems.');
  });
});

describe('editJson', () => {
  it('refuses to edit a text nested past the limit (the editor would parse it recursively)', () => {
    expect(() => editJson(nestedArrays(3000), ['ui', 'language'], 'en', 'config.json')).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('line 1, column 65') }),
    );
    expect(editJson('{ // mine\n}', ['ui', 'language'], 'en')).toContain('// mine');
  });
});
