import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { closeMatches, editDistance } from './close-matches.js';
import type { DesktopEntry } from './desktop-entries.js';

describe('editDistance', () => {
  it.each([
    ['gedit', 'gedit', 0],
    ['gedit', 'gedt', 1],
    ['gedit', 'gedits', 1],
    ['gedit', 'gedot', 1],
    // Two letters swapped are two edits.
    ['gedit', 'gedti', 2],
    ['firefox', 'firefx', 1],
    ['', 'ab', 2],
    ['abc', 'xyz', 3],
  ])('%s to %s: %i', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected);
    expect(editDistance(b, a)).toBe(expected);
  });

  it('does not count when the lengths differ by more than 2', () => {
    expect(editDistance('abc', 'abcdef')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('counts further than 2 for strings of about the same length', () => {
    expect(editDistance('abcd', 'wxyz')).toBe(4);
  });
});

describe('closeMatches', () => {
  let root: string;
  let searchPath: string;

  const entry = (id: string, name: string, names: string[] = [name]): DesktopEntry => ({
    id,
    file: `/usr/share/applications/${id}.desktop`,
    name,
    names,
    exec: id,
    terminal: false,
  });

  const ENTRIES: DesktopEntry[] = [
    entry('firefox-esr', 'Firefox ESR', ['Firefox ESR', 'Web Browser', '网络浏览器']),
    entry('org.gnome.gedit', 'Text Editor', ['Text Editor', 'gedit']),
    entry('vim', 'Vim'),
  ];

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'nextai-close-'));
    for (const [dir, names] of [
      ['bin', ['gedit', 'firefox-esr', 'firefox', 'ls']],
      ['more', ['gedit-plugins', 'vi', 'vim']],
    ] as const) {
      await fs.mkdir(path.join(root, dir));
      for (const name of names) await fs.writeFile(path.join(root, dir, name), '');
    }
    searchPath = [path.join(root, 'bin'), path.join(root, 'missing'), path.join(root, 'more')].join(path.delimiter);
  });

  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('suggests menu entries first, then programs on the path, shortest first', async () => {
    expect(await closeMatches('firefx', ENTRIES, searchPath)).toEqual([
      'Firefox ESR (firefox-esr)',
      'firefox',
      'firefox-esr',
    ]);
  });

  it('matches any of an entry’s names and its desktop id', async () => {
    expect(await closeMatches('浏览器', ENTRIES, undefined)).toEqual(['Firefox ESR (firefox-esr)']);
    expect(await closeMatches('gnome', ENTRIES, undefined)).toEqual(['Text Editor (org.gnome.gedit)']);
  });

  it('matches names that contain the query, and names of 3 letters or more that it contains', async () => {
    expect(await closeMatches('gedi', [], searchPath)).toEqual(['gedit', 'gedit-plugins']);
    expect(await closeMatches('vim-gtk3', [], searchPath)).toEqual(['vim']);
  });

  it('matches a misspelt word of a longer name', async () => {
    expect(await closeMatches('pluginz', [], searchPath)).toEqual(['gedit-plugins']);
  });

  it('compares without case', async () => {
    expect(await closeMatches('GEDIT', ENTRIES, searchPath)).toEqual([
      'Text Editor (org.gnome.gedit)',
      'gedit',
      'gedit-plugins',
    ]);
  });

  it('suggests nothing when nothing is close', async () => {
    expect(await closeMatches('qqqqqqqqqq', ENTRIES, searchPath)).toEqual([]);
  });

  it('gives at most 10 suggestions', async () => {
    const many = Array.from({ length: 12 }, (_, index) => entry(`app${index}`, `App ${index}`));
    expect(await closeMatches('app', many, searchPath)).toHaveLength(10);
  });
});
