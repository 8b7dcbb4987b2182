import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { OpenFolder, copyTree, procNamesOpenFolders, removeTree } from './pinned-tree.js';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-pinned-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

// Linux with /proc: where the walk goes through open folders.
const linux = procNamesOpenFolders();

describe.runIf(linux)('folder trees walked through open folders', () => {
  it('an open folder is the folder that was opened, whatever its path names later', async () => {
    fs.mkdirSync(path.join(root, 'a'));
    const folder = await OpenFolder.open(path.join(root, 'a'));
    try {
      fs.renameSync(path.join(root, 'a'), path.join(root, 'moved'));
      fs.mkdirSync(path.join(root, 'a'));
      fs.writeFileSync(folder.entry('x.txt'), 'x');
      expect(fs.readFileSync(path.join(root, 'moved', 'x.txt'), 'utf8')).toBe('x');
      expect(fs.readdirSync(path.join(root, 'a'))).toEqual([]);
    } finally {
      folder.close();
    }
  });

  it('does not open a link as a folder, nor a folder other than the one looked at', async () => {
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
    // Linux says ENOTDIR for O_DIRECTORY | O_NOFOLLOW on a link (ELOOP elsewhere).
    const refused = await OpenFolder.open(path.join(root, 'link')).catch((error: NodeJS.ErrnoException) => error);
    expect(['ELOOP', 'ENOTDIR']).toContain((refused as NodeJS.ErrnoException).code);
    const looked = fs.lstatSync(path.join(root, 'real'));
    fs.renameSync(path.join(root, 'real'), path.join(root, 'old'));
    fs.mkdirSync(path.join(root, 'real'));
    await expect(OpenFolder.open(path.join(root, 'real'), 'real', looked)).rejects.toMatchObject({
      code: 'ECHANGED',
    });
  });

  it('copies files, folders, modes and links as links; refuses pipes', async () => {
    const source = path.join(root, 'source');
    fs.mkdirSync(path.join(source, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(source, 'sub', 'run.sh'), '#!/bin/sh\n', { mode: 0o750 });
    fs.writeFileSync(path.join(root, 'outside.txt'), 'outside');
    fs.symlinkSync(path.join(root, 'outside.txt'), path.join(source, 'link'));
    fs.symlinkSync(root, path.join(source, 'folder-link'));
    await copyTree(path.join(source), path.join(root, 'copy'));
    expect(fs.readFileSync(path.join(root, 'copy', 'sub', 'run.sh'), 'utf8')).toBe('#!/bin/sh\n');
    expect(fs.statSync(path.join(root, 'copy', 'sub', 'run.sh')).mode & 0o777).toBe(0o750);
    expect(fs.readlinkSync(path.join(root, 'copy', 'link'))).toBe(path.join(root, 'outside.txt'));
    expect(fs.lstatSync(path.join(root, 'copy', 'folder-link')).isSymbolicLink()).toBe(true);

    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    await expect(copyTree(path.join(root, 'pipe'), path.join(root, 'pipe-copy'))).rejects.toMatchObject({
      code: 'EINVAL',
    });
  });

  it('removes a tree and only the links in it, never what they point to', async () => {
    const tree = path.join(root, 'tree');
    const kept = path.join(root, 'kept');
    fs.mkdirSync(path.join(tree, 'a', 'b'), { recursive: true });
    fs.mkdirSync(kept);
    fs.writeFileSync(path.join(kept, 'keep.txt'), 'keep');
    fs.symlinkSync(kept, path.join(tree, 'a', 'b', 'to-kept'));
    fs.writeFileSync(path.join(tree, 'a', 'file'), 'x');
    const parent = await OpenFolder.open(root);
    try {
      await removeTree(parent.entry('tree'));
    } finally {
      parent.close();
    }
    expect(fs.existsSync(tree)).toBe(false);
    expect(fs.readFileSync(path.join(kept, 'keep.txt'), 'utf8')).toBe('keep');
  });

  it('never removes anything outside the tree while a folder in it keeps being swapped for a link', async () => {
    const allowed = path.join(root, 'allowed');
    const secret = path.join(root, 'secret');
    fs.mkdirSync(secret);
    for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(secret, `s${i}`), 'x');
    fs.mkdirSync(path.join(allowed, 'victim', 'd'), { recursive: true });
    for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(allowed, 'victim', `f${i}`), 'x');
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(allowed, 'victim', 'd', `g${i}`), 'x');
    fs.symlinkSync(secret, path.join(allowed, 'link'));
    // A process of the agent's exchanges victim/d and the link to the secret folder, over and over
    // (renameat2 RENAME_EXCHANGE): a walk by path lands in the secret folder now and then.
    const flipper = spawn(
      process.execPath,
      [
        '-e',
        `const koffi = require('koffi');
         const renameat2 = koffi.load('libc.so.6').func('int renameat2(int, const char*, int, const char*, unsigned int)');
         process.chdir(process.argv[1]);
         process.send('ready');
         for (;;) renameat2(-100, 'victim/d', -100, 'link', 2);`,
        allowed,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
    );
    try {
      await new Promise((resolve) => flipper.once('message', resolve));
      const parent = await OpenFolder.open(allowed);
      try {
        await removeTree(parent.entry('victim')).catch(() => undefined);
      } finally {
        parent.close();
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    expect(fs.readdirSync(secret)).toHaveLength(1000);
  });
});
