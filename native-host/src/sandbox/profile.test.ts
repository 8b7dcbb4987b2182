import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { findGitMetadata } from './git-metadata.js';
import { describeHidden, sandboxFolders, type SandboxFolderSettings } from './profile.js';

let root: string;
let home: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-profile-')));
  home = path.join(root, 'home');
  for (const dir of ['Projects/app/.git/hooks', 'Documents', '.ssh', 'Desktop']) {
    fs.mkdirSync(path.join(home, dir), { recursive: true });
  }
  fs.writeFileSync(path.join(home, 'Projects/app/.git/config'), '[core]\n');
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function settings(overrides: Partial<SandboxFolderSettings> = {}): SandboxFolderSettings {
  return {
    platform: 'linux',
    homeDir: home,
    allowed: ['~/Projects', '~/Documents/NextAI', '~/Desktop'],
    denied: ['~/.ssh/*', '**/node_modules/**', '/etc/**', '~/private/**'],
    own: [path.join(root, 'data')],
    ...overrides,
  };
}

describe('the folders of a sandbox', () => {
  it('makes the allowed folders that exist writable, and says why the others are not', () => {
    const folders = sandboxFolders(settings());
    expect(folders.writable).toEqual([path.join(home, 'Projects'), path.join(home, 'Desktop')]);
    expect(folders.notes.map((note) => note.en)).toEqual([
      '~/Documents/NextAI does not exist, so nothing there is writable until it is created.',
    ]);
    expect(folders.notes[0]?.['zh-CN']).toContain('不存在');
  });

  it('never makes / , the home folder, a folder holding it or a system folder writable — also through a link', () => {
    fs.symlinkSync('/', path.join(home, 'Projects', 'to-root'));
    fs.symlinkSync(home, path.join(root, 'link-to-home'));
    const folders = sandboxFolders(
      settings({ allowed: ['~/Projects/to-root', '~', root, path.join(root, 'link-to-home'), '/usr/local', '/etc'] }),
    );
    expect(folders.writable).toEqual([]);
    const notes = folders.notes.map((note) => note.en);
    expect(notes[0]).toBe(
      '~/Projects/to-root (a link to /) is the whole file system: the sandbox never makes that writable. Allow folders inside it instead.',
    );
    expect(notes[1]).toMatch(/^~ is your home folder or a folder holding it/);
    expect(notes[2]).toMatch(/is your home folder or a folder holding it/);
    expect(notes[3]).toMatch(/\(a link to .*\/home\) is your home folder/);
    expect(notes[4]).toMatch(/^\/usr\/local is a system folder/);
    expect(notes[5]).toMatch(/^\/etc is a system folder/);
  });

  it('refuses what is not an absolute folder, a file, and a folder inside a hidden place', () => {
    fs.writeFileSync(path.join(home, 'Projects', 'file.txt'), 'x');
    const folders = sandboxFolders(settings({ allowed: ['Projects', '~/Projects/file.txt', '~/.ssh/keys', '~/.ssh'] }));
    expect(folders.writable).toEqual([]);
    expect(folders.notes.map((note) => note.en)).toEqual([
      'Projects is not an absolute folder, so the sandbox does not make it writable.',
      '~/Projects/file.txt is not a folder, so it is not writable.',
      '~/.ssh/keys does not exist, so nothing there is writable until it is created.',
      "~/.ssh is inside a place the sandbox hides (NextAI's own files or your keys and passwords).",
    ]);
  });

  it('says so when no folder is allowed at all: only the private temporary folder is writable', () => {
    const folders = sandboxFolders(settings({ allowed: [] }));
    expect(folders.writable).toEqual([]);
    expect(folders.notes.map((note) => note.en)).toEqual([
      'No folders are allowed (security.allowed_directories is empty): the sandbox writes only to its private temporary folder.',
    ]);
  });

  it("narrows to a task's grant and never widens: both lists must admit a folder", () => {
    fs.mkdirSync(path.join(home, 'Other'));
    const folders = sandboxFolders(settings({ granted: ['~/Projects/app', '~/Other', '~/Desktop'] }));
    expect(folders.writable).toEqual([path.join(home, 'Projects', 'app'), path.join(home, 'Desktop')]);
    expect(sandboxFolders(settings({ granted: [] })).writable).toEqual([]);
  });

  it("hides NextAI's own files, secrets, and denied patterns that name a place in the home folder", () => {
    const folders = sandboxFolders(settings());
    expect(folders.hidden).toEqual(
      expect.arrayContaining([
        path.join(root, 'data'),
        path.join(home, '.ssh'),
        path.join(home, '.aws'),
        path.join(home, '.mozilla'),
        path.join(home, '.bash_history'),
        path.join(home, 'private'),
        '/etc/shadow',
      ]),
    );
    // A denied system folder stays visible (read-only): programs cannot run without /etc.
    expect(folders.hidden).not.toContain('/etc');
    expect(describeHidden(folders.hidden, home)).toEqual(expect.arrayContaining(['~/.ssh']));
    expect(describeHidden(folders.hidden, home)).not.toContain('~/.aws');
  });
});

describe('git metadata in the writable folders', () => {
  it('keeps hooks and config read-only and pins each repository and its .git in place', () => {
    fs.mkdirSync(path.join(home, 'Projects/org/deep/.git'), { recursive: true });
    fs.mkdirSync(path.join(home, 'Projects/app/node_modules/dep/.git'), { recursive: true });
    const found = findGitMetadata([path.join(home, 'Projects')]);
    expect(found.pinned.sort()).toEqual(
      [
        path.join(home, 'Projects/app'),
        path.join(home, 'Projects/app/.git'),
        path.join(home, 'Projects/org/deep'),
        path.join(home, 'Projects/org/deep/.git'),
      ].sort(),
    );
    expect(found.readOnly.sort()).toEqual(
      [path.join(home, 'Projects/app/.git/config'), path.join(home, 'Projects/app/.git/hooks')].sort(),
    );
  });
});
