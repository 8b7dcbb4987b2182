import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { expandGlob, globReach, isGlob, MAX_GLOB_MATCHES } from './shell-glob.js';

describe('isGlob', () => {
  it('recognises glob characters', () => {
    expect(['a*', 'a?', '[ab]', '@(x)', '!(x)', '+(x)'].every(isGlob)).toBe(true);
    expect(['a', 'a[', 'a]', '{a,b}', 'x.y', '%2a'].some(isGlob)).toBe(false);
  });

  it.each(['*', '**', '**/x', '[!a]', '[^a]', '[a-z]', '*(x)', '?(x)', 'a[]', 'a?', '[ab]', '@(x)', '!(x)', '+(x)'])(
    'takes %s as a glob',
    (value) => {
      expect(isGlob(value)).toBe(true);
    },
  );

  it.each(['a{b,c}', '{1..3}', '(x)', 'a+b', 'a!b', 'a@b', '~/x', '', 'a', 'a[', 'a]', 'x.y', '%2a'])(
    'takes %s as a plain name',
    (value) => {
      expect(isGlob(value)).toBe(false);
    },
  );
});

describe('globReach', () => {
  it.each([
    ['/h/.nextai-*/config.json', '/h/.nextai-agent', 'linux', 'inside'],
    ['/h/.nextai-agent', '/h/.nextai-agent', 'linux', 'inside'],
    ['/h/*', '/h/.nextai-agent', 'linux', undefined],
    ['/h/.*', '/h/.nextai-agent', 'linux', 'inside'],
    ['/*', '/h/.nextai-agent', 'linux', 'ancestor'],
    ['/h/**/x', '/h/.nextai-agent', 'linux', 'inside'],
    ['/h/.NEXTAI-*', '/h/.nextai-agent', 'linux', undefined],
    ['/h/.NEXTAI-*', '/h/.nextai-agent', 'macos', 'inside'],
    ['C:\\Users\\*\\.nextai-agent\\*', 'c:\\users\\me\\.nextai-agent', 'windows', 'inside'],
    ['D:\\*', 'C:\\x', 'windows', undefined],
    ['/h/[.]nextai-agent', '/h/.nextai-agent', 'linux', 'inside'],
    ['/h/?nextai-agent', '/h/.nextai-agent', 'linux', undefined],
  ] as const)('%s reaches %s on %s: %s', (glob, target, platform, expected) => {
    expect(globReach(glob, target, platform)).toBe(expected);
  });

  it.each([
    // `?` is exactly one character, `[…]` one of a set, `[^…]` one outside it.
    ['/h/fil?', '/h/file', 'inside'],
    ['/h/fil?', '/h/fil', undefined],
    ['/h/fil?', '/h/files', undefined],
    ['/h/[a-f]ile', '/h/file', 'inside'],
    ['/h/[^f]ile', '/h/file', undefined],
    ['/h/[^g]ile', '/h/file', 'inside'],
    // `*` stays within one name; `**` could reach anything below.
    ['/h/*', '/h/a/b/c', 'ancestor'],
    ['/h/*/*/*', '/h/a/b/c', 'inside'],
    ['/h/*/c', '/h/a/b/c', undefined],
    ['/**', '/h/a/b/c', 'inside'],
    ['/h/a*/**', '/h/a', 'inside'],
    ['/h/b*/**', '/h/a', undefined],
    // A deeper glob under the target still lands inside it; one that branches off reaches nothing.
    ['/h/a/*/*', '/h/a', 'inside'],
    ['/h/x/*', '/h/a', undefined],
  ] as const)('%s reaches %s on linux: %s', (glob, target, expected) => {
    expect(globReach(glob, target, 'linux')).toBe(expected);
  });

  // Bash reads `[!…]` as one character outside the set, like `[^…]`. picomatch does so only with
  // its `posix` option, which the one-name matchers do not set: such a glob matches too little.
  it('reads `[!…]` as a negated set, as bash does', () => {
    expect(globReach('/h/[!g]ile', '/h/file', 'linux')).toBe('inside');
  });

  it('takes paths already split', () => {
    expect(globReach({ root: '/', segments: ['h', '*'] }, { root: '/', segments: ['h', 'x'] }, 'linux')).toBe('inside');
    expect(globReach({ root: '/', segments: ['*'] }, '/h/x', 'linux')).toBe('ancestor');
  });

  it('compares Windows roots without case and with either slash', () => {
    expect(globReach('c:/users/*', 'C:\\Users\\me', 'windows')).toBe('inside');
    expect(globReach('\\\\server\\share\\*', '\\\\SERVER\\share\\x', 'windows')).toBe('inside');
    expect(globReach('\\\\server\\share\\*', '\\\\other\\share\\x', 'windows')).toBeUndefined();
  });
});

describe('expandGlob', () => {
  let root: string;
  /** The matches as paths relative to the temporary root, sorted; undefined stays undefined. */
  const expand = (rest: string[], platform: 'linux' | 'macos' = 'linux') => {
    const matches = expandGlob(root, rest, platform);
    return matches
      ?.map((match) => ({ ...match, path: path.relative(root, match.path) }))
      .sort((a, b) => a.path.localeCompare(b.path));
  };
  const paths = (rest: string[], platform: 'linux' | 'macos' = 'linux') => expand(rest, platform)?.map((m) => m.path);

  beforeAll(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-glob-')));
    for (const file of [
      'a.txt',
      'b.txt',
      'c.md',
      'File.TXT',
      '.hidden',
      'sub/x.txt',
      'sub/deep/y.txt',
      'other/x.txt',
    ]) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), '');
    }
    fs.symlinkSync(path.join(root, 'sub'), path.join(root, 'link-sub'));
    fs.symlinkSync(path.join(root, 'a.txt'), path.join(root, 'link-a.txt'));
  });

  afterAll(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('matches `*` within one folder, without names that start with a dot', () => {
    expect(paths(['*.txt'])).toEqual(['a.txt', 'b.txt', 'link-a.txt']);
    expect(paths(['*'])).toEqual(['a.txt', 'b.txt', 'c.md', 'File.TXT', 'link-a.txt', 'link-sub', 'other', 'sub']);
    expect(paths(['.*'])).toEqual(['.hidden']);
  });

  it('matches `?` and `[…]`', () => {
    expect(paths(['?.txt'])).toEqual(['a.txt', 'b.txt']);
    expect(paths(['[ac].*'])).toEqual(['a.txt', 'c.md']);
    expect(paths(['[^a].txt'])).toEqual(['b.txt']);
  });

  // See globReach above: `[!…]` is not read as a negated set yet.
  it('matches `[!…]` as a negated set, as bash does', () => {
    expect(paths(['[!a].txt'])).toEqual(['b.txt']);
  });

  it('matches extglobs', () => {
    expect(paths(['@(a|c).*'])).toEqual(['a.txt', 'c.md']);
  });

  it('takes `**` as `*`, as bash does without globstar', () => {
    expect(paths(['**', 'x.txt'])).toEqual(['link-sub/x.txt', 'other/x.txt', 'sub/x.txt']);
    expect(paths(['**.md'])).toEqual(['c.md']);
  });

  it('matches each name of a path in turn, literal names included', () => {
    expect(paths(['*', 'deep', '*.txt'])).toEqual(['link-sub/deep/y.txt', 'sub/deep/y.txt']);
    expect(paths(['sub', '*'])).toEqual(['sub/deep', 'sub/x.txt']);
  });

  it('compares without case on macOS', () => {
    expect(paths(['f*'])).toEqual([]);
    expect(paths(['f*'], 'macos')).toEqual(['File.TXT']);
  });

  it('marks as plain only the matches that came from listings and are not symlinks', () => {
    expect(expand(['*.txt'])).toEqual([
      { path: 'a.txt', plain: true },
      { path: 'b.txt', plain: true },
      { path: 'link-a.txt', plain: false },
    ]);
    // Below a symlink, and after a literal name (which may be a symlink itself), nothing is plain.
    expect(expand(['link-*', 'x.txt'])).toEqual([{ path: 'link-sub/x.txt', plain: false }]);
    expect(expand(['sub', '*.txt'])).toEqual([{ path: 'sub/x.txt', plain: false }]);
    expect(expand(['*', 'x.txt'])).toEqual([
      { path: 'link-sub/x.txt', plain: false },
      { path: 'other/x.txt', plain: false },
      { path: 'sub/x.txt', plain: false },
    ]);
  });

  it('drops literal names that do not exist, and finds nothing in what is not a folder', () => {
    expect(paths(['*', 'nope.txt'])).toEqual([]);
    expect(paths(['a.txt', '*'])).toEqual([]);
    expect(paths(['missing', '*'])).toEqual([]);
    expect(paths(['*.none'])).toEqual([]);
  });

  it('gives the base itself for an empty rest', () => {
    expect(expandGlob(root, [], 'linux')).toEqual([{ path: root, plain: true }]);
  });

  it('gives up on more than MAX_GLOB_MATCHES matches', () => {
    const many = path.join(root, 'many');
    fs.mkdirSync(many);
    try {
      for (let index = 0; index < MAX_GLOB_MATCHES; index += 1) fs.writeFileSync(path.join(many, `f${index}`), '');
      expect(expandGlob(many, ['f*'], 'linux')).toHaveLength(MAX_GLOB_MATCHES);
      fs.writeFileSync(path.join(many, 'f-one-more'), '');
      expect(expandGlob(many, ['f*'], 'linux')).toBeUndefined();
      expect(expandGlob(many, ['f1*'], 'linux')?.length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(many, { recursive: true });
    }
  });

  it('gives up on reading more than 256 folders', () => {
    const wide = path.join(root, 'wide');
    try {
      // One listing of `wide`, then one per folder in it.
      for (let index = 0; index < 255; index += 1) fs.mkdirSync(path.join(wide, `d${index}`), { recursive: true });
      expect(expandGlob(wide, ['d*', '*'], 'linux')).toEqual([]);
      fs.mkdirSync(path.join(wide, 'd-one-more'));
      expect(expandGlob(wide, ['d*', '*'], 'linux')).toBeUndefined();
      // A literal name costs no listing.
      expect(expandGlob(wide, ['d*', 'x'], 'linux')).toEqual([]);
    } finally {
      fs.rmSync(wide, { recursive: true, force: true });
    }
  });
});
