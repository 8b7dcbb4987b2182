import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { currentPlatform } from '../core/current-platform.js';
import { posixQuote } from '../core/posix-quote.js';
import { defaultNodeSearch, renderPosixLauncher, renderWindowsLauncher, type NodeSearch } from './launcher.js';

const NO_SEARCH: NodeSearch = { paths: [], versionDirectories: [] };

describe('renderWindowsLauncher', () => {
  const options = {
    cliPath: 'C:\\Users\\ada\\100% node\\nextai\\dist\\nextai.js',
    dataDir: 'C:\\Users\\ada\\.nextai-agent',
    nodePath: 'C:\\Program Files\\nodejs\\node.exe',
  };

  it('sets NEXTAI_HOME, falls back to node on PATH, and passes every argument on', () => {
    const script = renderWindowsLauncher(options);
    const lines = script.split('\r\n');
    expect(lines[0]).toBe('@echo off');
    expect(lines).toContain('set "NEXTAI_HOME=C:\\Users\\ada\\.nextai-agent"');
    expect(lines).toContain('set "NEXTAI_NODE=C:\\Program Files\\nodejs\\node.exe"');
    expect(script).toContain(`('where node 2^>nul')`);
    expect(script).toContain('exit /b 127');
    expect(lines.at(-2)).toBe('"%NEXTAI_NODE%" "C:\\Users\\ada\\100%% node\\nextai\\dist\\nextai.js" host %*');
    expect(script.endsWith('\r\n')).toBe(true);
    expect(script.replace(/\r\n/g, '')).not.toMatch(/\n/);
  });

  it('refuses a path with a double quote', () => {
    expect(() => renderWindowsLauncher({ ...options, dataDir: 'C:\\a"b' })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});

describe('defaultNodeSearch', () => {
  it('covers the usual install locations and version managers of the installing user', () => {
    const search = defaultNodeSearch('/home/ada');
    expect(search.paths).toEqual(
      expect.arrayContaining([
        '/usr/local/bin/node',
        '/opt/homebrew/bin/node',
        '/usr/bin/node',
        '/home/ada/.volta/bin/node',
      ]),
    );
    expect(search.versionDirectories).toContainEqual({ root: '/home/ada/.nvm/versions/node', nodeInside: 'bin/node' });
    expect(search.versionDirectories).toContainEqual({
      root: '/home/ada/.local/share/fnm/node-versions',
      nodeInside: 'installation/bin/node',
    });
  });
});

/**
 * The launcher is run for real, the way a browser starts it: a nearly empty environment, the
 * caller's arguments, and a fake CLI that reports what it received.
 */
describe.skipIf(currentPlatform() === 'windows')('the POSIX launcher, run for real', () => {
  let root: string;
  let dataDir: string;
  let cliPath: string;
  let launcherPath: string;

  beforeEach(() => {
    // Spaces and a single quote in every path the launcher quotes.
    root = fs.mkdtempSync(path.join(os.tmpdir(), "nextai launcher 'test' "));
    dataDir = path.join(root, "Ada's data");
    cliPath = path.join(root, 'dist dir', 'nextai.js');
    launcherPath = path.join(dataDir, 'bin', 'nextai-host');
    fs.mkdirSync(path.dirname(cliPath), { recursive: true });
    fs.writeFileSync(
      cliPath,
      'process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), home: process.env.NEXTAI_HOME, ' +
        'picked: process.env.PICKED ?? null, pid: process.pid }));\n',
    );
  });

  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  function writeLauncher(nodePath: string, nodeSearch: NodeSearch): void {
    fs.mkdirSync(path.dirname(launcherPath), { recursive: true });
    fs.writeFileSync(launcherPath, renderPosixLauncher({ cliPath, dataDir, nodePath, nodeSearch }), { mode: 0o755 });
  }

  /** A stand-in node that marks which candidate the launcher chose, then runs the real node. */
  function fakeNode(file: string, mark: string): string {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `#!/bin/sh\nPICKED=${posixQuote(mark)} exec ${posixQuote(process.execPath)} "$@"\n`, {
      mode: 0o755,
    });
    return file;
  }

  function launch(args: string[], env: Record<string, string>) {
    const result = spawnSync(launcherPath, args, { env, encoding: 'utf8', timeout: 20_000 });
    return { ...result, report: result.status === 0 ? (JSON.parse(result.stdout) as Record<string, unknown>) : null };
  }

  it('with PATH=/usr/bin:/bin, runs the CLI with the install-time node, NEXTAI_HOME and every argument', () => {
    writeLauncher(process.execPath, defaultNodeSearch(root));
    const chromeCall = launch(['chrome-extension://hheemnlpcofneohjkcjfmmiflnfifjmo/'], { PATH: '/usr/bin:/bin' });
    expect(chromeCall.stderr).toBe('');
    expect(chromeCall.status).toBe(0);
    expect(chromeCall.report).toEqual({
      argv: ['host', 'chrome-extension://hheemnlpcofneohjkcjfmmiflnfifjmo/'],
      home: dataDir,
      picked: null,
      // `exec`: the process the browser started is node itself, so killing it stops the host.
      pid: chromeCall.pid,
    });

    const firefoxCall = launch(["/home/ada/.mozilla/native hosts/it's.json", 'nextai-agent@nextai.dev'], {});
    expect(firefoxCall.status).toBe(0);
    expect(firefoxCall.report?.argv).toEqual([
      'host',
      "/home/ada/.mozilla/native hosts/it's.json",
      'nextai-agent@nextai.dev',
    ]);
  });

  it('falls back to node on PATH when the install-time node is gone', () => {
    const pathDir = path.join(root, 'path bin');
    fakeNode(path.join(pathDir, 'node'), 'from PATH');
    writeLauncher(path.join(root, 'removed', 'node'), NO_SEARCH);
    const result = launch(['x'], { PATH: `/nonexistent:${pathDir}` });
    expect(result.stderr).toBe('');
    expect(result.report).toMatchObject({ argv: ['host', 'x'], home: dataDir, picked: 'from PATH' });
  });

  it('then tries the fixed locations in order', () => {
    const fixed = fakeNode(path.join(root, 'fixed', 'node'), 'fixed');
    writeLauncher(path.join(root, 'removed', 'node'), {
      paths: [path.join(root, 'missing', 'node'), fixed],
      versionDirectories: [],
    });
    expect(launch([], { PATH: '/nonexistent' }).report).toMatchObject({ picked: 'fixed' });
  });

  it('then picks the newest version in a version manager directory, comparing numerically', () => {
    const nvm = path.join(root, 'home', '.nvm', 'versions', 'node');
    for (const version of ['v9.11.2', 'v18.20.4', 'v20.9.0', 'v20.10.0']) {
      fakeNode(path.join(nvm, version, 'bin', 'node'), version);
    }
    // Newer, but unusable: no node inside, a node that is not executable, a name that is no version.
    fs.mkdirSync(path.join(nvm, 'v22.0.0', 'bin'), { recursive: true });
    fs.mkdirSync(path.join(nvm, 'v23.1.0', 'bin'), { recursive: true });
    fs.writeFileSync(path.join(nvm, 'v23.1.0', 'bin', 'node'), '', { mode: 0o644 });
    fakeNode(path.join(nvm, 'v99.x', 'bin', 'node'), 'not a version');
    writeLauncher(path.join(root, 'removed', 'node'), {
      paths: [],
      versionDirectories: [
        { root: path.join(root, 'home', '.fnm', 'node-versions'), nodeInside: 'installation/bin/node' },
        { root: nvm, nodeInside: 'bin/node' },
      ],
    });
    expect(launch(['a'], { PATH: '/nonexistent' }).report).toMatchObject({ argv: ['host', 'a'], picked: 'v20.10.0' });
  });

  it('exits 127 with a clear message on stderr when there is no node anywhere', () => {
    const missingNode = path.join(root, 'removed', 'node');
    writeLauncher(missingNode, {
      paths: [path.join(root, 'missing', 'node')],
      versionDirectories: [{ root: path.join(root, 'no-nvm'), nodeInside: 'bin/node' }],
    });
    const result = launch([], { PATH: '/nonexistent' });
    expect(result.status).toBe(127);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('nextai-host: cannot find Node.js');
    expect(result.stderr).toContain(missingNode);
    expect(result.stderr).toContain('`nextai install`');
  });
});
