import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AppError } from '@nextai/shared';

import { findExecutable, resolveLaunchCommand } from './launch-resolution.js';

async function rejected(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('resolveLaunchCommand', () => {
  let root: string;
  let bin: string;
  let env: NodeJS.ProcessEnv;

  async function writeFile(file: string, text: string, mode = 0o644): Promise<string> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text, { mode });
    return file;
  }

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'nextai-launch-'));
    bin = path.join(root, 'bin');
    const script = '#!/bin/sh\nexit 0\n';
    await writeFile(path.join(bin, 'gedit'), script, 0o755);
    await writeFile(path.join(bin, 'firefox-esr'), script, 0o755);
    await writeFile(path.join(bin, 'xterm'), script, 0o755);
    await writeFile(path.join(bin, 'vim'), script, 0o755);
    await writeFile(path.join(bin, 'notes.txt'), 'not a program\n');
    await writeFile(path.join(root, 'home', 'tools', 'run.sh'), script, 0o755);
    await writeFile(path.join(root, 'home', 'tools', 'readme'), 'text\n');
    const apps = path.join(root, 'data', 'applications');
    // Trimmed from Debian's firefox-esr.desktop and vim.desktop.
    await writeFile(
      path.join(apps, 'firefox-esr.desktop'),
      `[Desktop Entry]
Name=Firefox ESR
GenericName=Web Browser
GenericName[zh_CN]=网络浏览器
Exec=/usr/lib/firefox-esr/firefox-esr %u
Type=Application
`.replace('/usr/lib/firefox-esr/firefox-esr', path.join(bin, 'firefox-esr')),
    );
    await writeFile(
      path.join(apps, 'vim.desktop'),
      `[Desktop Entry]
Name[zh_CN]=Vim
Name=Vim
TryExec=vim
Exec=vim %F
Terminal=true
Type=Application
`,
    );
    await writeFile(
      path.join(apps, 'gone.desktop'),
      `[Desktop Entry]
Name=Gone App
Exec=not-installed-program --flag
Type=Application
`,
    );
    await writeFile(
      path.join(apps, 'org.example.Notes.desktop'),
      `[Desktop Entry]
Name=Notes
Name[zh_CN]=笔记
Exec=gedit --new-window %U
Type=Application
`,
    );
    await writeFile(
      path.join(apps, 'link.desktop'),
      `[Desktop Entry]
Name=A Link
URL=https://example.com
Type=Link
`,
    );
    await writeFile(path.join(root, 'vim-only', 'vim'), script, 0o755);
    env = {
      HOME: path.join(root, 'home'),
      PATH: bin,
      XDG_DATA_HOME: path.join(root, 'data'),
      XDG_DATA_DIRS: path.join(root, 'no-such-dir'),
    };
  });

  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('runs a program on PATH by its name, with the arguments', async () => {
    expect(await resolveLaunchCommand(' gedit ', ['a.txt'], env)).toEqual([path.join(bin, 'gedit'), 'a.txt']);
  });

  it('runs an absolute path and a path under ~', async () => {
    const script = path.join(root, 'home', 'tools', 'run.sh');
    expect(await resolveLaunchCommand(script, ['-v'], env)).toEqual([script, '-v']);
    expect(await resolveLaunchCommand('~/tools/run.sh', [], env)).toEqual([script]);
  });

  it('refuses a file without execute permission and a directory', async () => {
    const file = await rejected(resolveLaunchCommand('~/tools/readme', [], env));
    expect(file.code).toBe('PERMISSION_DENIED');
    expect(file.message).toContain('no execute permission');
    const dir = await rejected(resolveLaunchCommand('~/tools', [], env));
    expect(dir.code).toBe('PERMISSION_DENIED');
    expect(dir.message).toContain('directory');
  });

  it('says NOT_FOUND for a path that does not exist', async () => {
    expect((await rejected(resolveLaunchCommand('/no/such/app', [], env))).code).toBe('NOT_FOUND');
  });

  it('does not run a non-executable file on PATH', async () => {
    expect((await rejected(resolveLaunchCommand('notes.txt', [], env))).code).toBe('NOT_FOUND');
  });

  it('finds an installed app by its menu name, in any language, or by its desktop id', async () => {
    const firefox = [path.join(bin, 'firefox-esr'), 'https://example.com'];
    expect(await resolveLaunchCommand('firefox esr', ['https://example.com'], env)).toEqual(firefox);
    expect(await resolveLaunchCommand('Web Browser', ['https://example.com'], env)).toEqual(firefox);
    expect(await resolveLaunchCommand('网络浏览器', ['https://example.com'], env)).toEqual(firefox);
    expect(await resolveLaunchCommand('笔记', [], env)).toEqual([path.join(bin, 'gedit'), '--new-window']);
    expect(await resolveLaunchCommand('org.example.Notes', ['x'], env)).toEqual([
      path.join(bin, 'gedit'),
      '--new-window',
      'x',
    ]);
  });

  it('opens a Terminal=true app in a terminal', async () => {
    // "vim" is on PATH and wins; the menu name "Vim" with another case goes to the entry.
    expect(await resolveLaunchCommand('vim', [], env)).toEqual([path.join(bin, 'vim')]);
    expect(await resolveLaunchCommand('VIM', ['a.txt'], env)).toEqual([
      path.join(bin, 'xterm'),
      '-e',
      path.join(bin, 'vim'),
      'a.txt',
    ]);
  });

  it('launches a .desktop file given by path', async () => {
    const file = path.join(root, 'data', 'applications', 'firefox-esr.desktop');
    expect(await resolveLaunchCommand(file, [], env)).toEqual([path.join(bin, 'firefox-esr')]);
  });

  it('refuses a .desktop file that cannot be launched', async () => {
    const file = path.join(root, 'data', 'applications', 'link.desktop');
    const error = await rejected(resolveLaunchCommand(file, [], env));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('not a launchable desktop entry');
  });

  it('says UNAVAILABLE when a Terminal=true app has no terminal to run in', async () => {
    const error = await rejected(resolveLaunchCommand('VIM', [], { ...env, PATH: path.join(root, 'vim-only') }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('no terminal emulator');
  });

  it('says UNAVAILABLE when an entry runs a program that is not installed', async () => {
    const error = await rejected(resolveLaunchCommand('Gone App', [], env));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('not-installed-program');
  });

  it('says NOT_FOUND for a misspelled name, with the close matches', async () => {
    const error = await rejected(resolveLaunchCommand('firefx', [], env));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.details).toEqual({ suggestions: ['Firefox ESR (firefox-esr)', 'firefox-esr'] });
    expect(error.message).toContain('Close matches: Firefox ESR (firefox-esr), firefox-esr.');
    const typo = await rejected(resolveLaunchCommand('gedti', [], env));
    expect(typo.details).toEqual({ suggestions: ['gedit'] });
  });

  it('says NOT_FOUND without suggestions when nothing is close', async () => {
    const error = await rejected(resolveLaunchCommand('qqqqqqqqqq', [], env));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.details).toEqual({ suggestions: [] });
    expect(error.message).not.toContain('Close matches');
  });
});

describe('findExecutable', () => {
  let root: string;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'nextai-find-exec-'));
    for (const dir of ['first', 'second']) await fs.mkdir(path.join(root, dir));
    await fs.writeFile(path.join(root, 'first', 'tool'), 'text\n', { mode: 0o644 });
    await fs.writeFile(path.join(root, 'second', 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    await fs.mkdir(path.join(root, 'first', 'folder'), { mode: 0o755 });
  });

  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  const searchPath = () =>
    [path.join(root, 'missing'), path.join(root, 'first'), '', path.join(root, 'second')].join(path.delimiter);

  it('takes the first executable file on the path, skipping files without execute permission', async () => {
    expect(await findExecutable('tool', searchPath())).toBe(path.join(root, 'second', 'tool'));
  });

  it('finds nothing for a directory, a missing name or an empty path', async () => {
    expect(await findExecutable('folder', searchPath())).toBeNull();
    expect(await findExecutable('nope', searchPath())).toBeNull();
    expect(await findExecutable('tool', undefined)).toBeNull();
    expect(await findExecutable('tool', '')).toBeNull();
  });

  it('checks a name with a slash as a path, not on the search path', async () => {
    const file = path.join(root, 'second', 'tool');
    expect(await findExecutable(file, undefined)).toBe(file);
    expect(await findExecutable(path.join(root, 'first', 'tool'), searchPath())).toBeNull();
  });
});
