import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { AppError } from '@nextai/shared';

import { dataPaths } from '../core/paths.js';
import type { RunOptions, RunResult } from '../core/subprocess.js';
import { applyInstallPlan, applyUninstallPlan, type CommandRunner } from './apply.js';
import { installNativeHost, uninstallNativeHost, type InstallOptions } from './install.js';
import { buildUninstallPlan, type InstallPlan } from './plan.js';
import { readInstallRecord, sha256 } from './record.js';
import { regAddArgs } from './registry.js';
import { formatInstallReport, formatUninstallReport } from './report.js';

let root: string;
let home: string;
let options: InstallOptions;

/** Every file and directory under `dir` (relative, sorted), with file contents: a snapshot of the disk. */
function tree(dir: string): Record<string, string> {
  const result: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      const relative = path.relative(dir, full);
      if (entry.isDirectory()) {
        result[`${relative}/`] = '';
        walk(full);
      } else {
        result[relative] = fs.readFileSync(full, 'utf8');
      }
    }
  };
  walk(dir);
  return result;
}

const chromiumManifest = () => path.join(home, '.config', 'chromium', 'NativeMessagingHosts', 'com.nextai.agent.json');
const firefoxManifest = () => path.join(home, '.mozilla', 'native-messaging-hosts', 'com.nextai.agent.json');

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-install-'));
  home = path.join(root, 'home');
  fs.mkdirSync(path.join(home, '.config', 'chromium'), { recursive: true });
  fs.mkdirSync(path.join(home, '.mozilla', 'firefox'), { recursive: true });
  const cliPath = path.join(root, 'checkout', 'native-host', 'dist', 'nextai.js');
  fs.mkdirSync(path.dirname(cliPath), { recursive: true });
  fs.writeFileSync(cliPath, '// the bundle\n');
  options = {
    platform: 'linux',
    homeDir: home,
    env: {},
    paths: dataPaths(path.join(home, '.nextai-agent'), 'linux'),
    cliPath,
    nodePath: process.execPath,
    now: () => new Date('2025-06-01T12:00:00.000Z'),
    run: () => Promise.reject(new Error('no subprocess is expected on Linux')),
  };
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('install → uninstall', () => {
  it('writes the launcher and the manifests of the browsers present, records them, and removes exactly them', async () => {
    const before = tree(root);
    const report = await installNativeHost(options);

    const launcher = path.join(home, '.nextai-agent', 'bin', 'nextai-host');
    expect(fs.statSync(launcher).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(launcher, 'utf8')).toContain(`NEXTAI_HOME='${path.join(home, '.nextai-agent')}'`);
    expect(JSON.parse(fs.readFileSync(chromiumManifest(), 'utf8'))).toMatchObject({ path: launcher, type: 'stdio' });
    expect(JSON.parse(fs.readFileSync(firefoxManifest(), 'utf8'))).toMatchObject({ path: launcher, type: 'stdio' });
    expect(formatInstallReport(report)).toEqual([
      `wrote ${launcher} (launcher)`,
      `wrote ${chromiumManifest()} (chromium)`,
      `wrote ${firefoxManifest()} (firefox)`,
      `skipped chrome: not installed (${path.join(home, '.config', 'google-chrome')} does not exist)`,
      `skipped edge: not installed (${path.join(home, '.config', 'microsoft-edge')} does not exist)`,
      `skipped brave: not installed (${path.join(home, '.config', 'BraveSoftware', 'Brave-Browser')} does not exist)`,
      `recorded what was written in ${options.paths.installRecord}`,
    ]);

    const record = readInstallRecord(options.paths.installRecord);
    expect(record?.entries.map((entry) => entry.kind === 'file' && [entry.role, entry.path, entry.browser])).toEqual([
      ['launcher', launcher, undefined],
      ['manifest', chromiumManifest(), 'chromium'],
      ['manifest', firefoxManifest(), 'firefox'],
    ]);
    expect(record?.createdDirectories.sort()).toEqual(
      [
        path.join(home, '.nextai-agent'),
        path.join(home, '.nextai-agent', 'bin'),
        path.dirname(chromiumManifest()),
        path.dirname(firefoxManifest()),
      ].sort(),
    );

    // Someone else's host in the same directory is not ours to remove.
    const foreign = path.join(path.dirname(chromiumManifest()), 'org.example.other.json');
    fs.writeFileSync(foreign, '{"name":"org.example.other"}\n');

    const removal = await uninstallNativeHost(options);
    expect(removal.failures).toEqual([]);
    expect(formatUninstallReport(removal)).toEqual(
      expect.arrayContaining([
        `removed ${launcher} (launcher)`,
        `removed ${chromiumManifest()} (chromium)`,
        `removed ${firefoxManifest()} (firefox)`,
        `removed empty directory ${path.dirname(firefoxManifest())}`,
        `removed the install record ${options.paths.installRecord}`,
      ]),
    );
    expect(tree(root)).toEqual({
      ...before,
      [path.relative(root, path.dirname(chromiumManifest())) + '/']: '',
      [path.relative(root, foreign)]: '{"name":"org.example.other"}\n',
    });
  });

  it('is idempotent: installing twice records each path once, and one uninstall undoes both', async () => {
    const before = tree(root);
    await installNativeHost(options);
    const afterFirst = tree(root);
    await installNativeHost({ ...options, now: () => new Date('2025-06-02T12:00:00.000Z') });
    const record = readInstallRecord(options.paths.installRecord);
    expect(record?.entries).toHaveLength(3);
    expect(record?.updatedAt).toBe('2025-06-02T12:00:00.000Z');
    const { [path.relative(root, options.paths.installRecord)]: _firstRecord, ...firstFiles } = afterFirst;
    const { [path.relative(root, options.paths.installRecord)]: _secondRecord, ...secondFiles } = tree(root);
    expect(secondFiles).toEqual(firstFiles);

    await uninstallNativeHost(options);
    expect(tree(root)).toEqual(before);
  });

  it('with --browser, uninstalls only that browser and keeps the launcher the others still use', async () => {
    await installNativeHost(options);
    const removal = await uninstallNativeHost({ ...options, browser: 'firefox' });
    expect(removal.record.removed).toBe(false);
    expect(fs.existsSync(firefoxManifest())).toBe(false);
    expect(fs.existsSync(chromiumManifest())).toBe(true);
    expect(fs.existsSync(path.join(options.paths.binDir, 'nextai-host'))).toBe(true);
    expect(
      readInstallRecord(options.paths.installRecord)?.entries.map((entry) => entry.kind === 'file' && entry.role),
    ).toEqual(['launcher', 'manifest']);

    const nothing = await uninstallNativeHost({ ...options, browser: 'firefox' });
    expect(formatUninstallReport(nothing)).toEqual([
      'nothing to uninstall: the install record lists nothing for --browser firefox',
    ]);
  });

  it('with --user-data-dir, writes into <dir>/NativeMessagingHosts and uninstalls just that', async () => {
    const profile = path.join(root, 'chromium profile');
    await installNativeHost(options);
    await installNativeHost({ ...options, userDataDir: profile });
    const profileManifest = path.join(profile, 'NativeMessagingHosts', 'com.nextai.agent.json');
    expect(JSON.parse(fs.readFileSync(profileManifest, 'utf8')).allowed_origins).toHaveLength(1);

    await uninstallNativeHost({ ...options, userDataDir: profile });
    expect(fs.existsSync(profile)).toBe(false);
    expect(fs.existsSync(chromiumManifest())).toBe(true);
    expect(fs.existsSync(firefoxManifest())).toBe(true);
  });

  it('leaves alone a manifest that changed since install, and says so', async () => {
    await installNativeHost(options);
    fs.writeFileSync(chromiumManifest(), '{"rewritten":"by another data directory"}\n');
    const removal = await uninstallNativeHost(options);
    expect(fs.readFileSync(chromiumManifest(), 'utf8')).toBe('{"rewritten":"by another data directory"}\n');
    expect(formatUninstallReport(removal)).toContain(
      `left alone: ${chromiumManifest()} (chromium): changed since \`nextai install\` wrote it`,
    );
    expect(fs.existsSync(firefoxManifest())).toBe(false);
  });

  it('with no record, says there is nothing to uninstall', async () => {
    const removal = await uninstallNativeHost(options);
    expect(removal.failures).toEqual([]);
    expect(formatUninstallReport(removal)).toEqual([
      `nothing to uninstall: there is no install record at ${options.paths.installRecord}, so nextai has installed nothing for this data directory`,
    ]);
  });

  it('finds a Firefox that keeps its profiles in ~/.config/mozilla, and still writes to ~/.mozilla', async () => {
    fs.rmSync(path.join(home, '.mozilla'), { recursive: true });
    fs.mkdirSync(path.join(home, '.config', 'mozilla', 'firefox'), { recursive: true });
    await installNativeHost(options);
    expect(fs.existsSync(firefoxManifest())).toBe(true);
  });

  it('fails clearly when no browser is found, writing nothing', async () => {
    fs.rmSync(path.join(home, '.config'), { recursive: true });
    fs.rmSync(path.join(home, '.mozilla'), { recursive: true });
    const before = tree(root);
    await expect(installNativeHost(options)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(tree(root)).toEqual(before);
  });
});

describe('--dry-run', () => {
  it('writes nothing at all and reports every file with its full content', async () => {
    const before = tree(root);
    const report = await installNativeHost({ ...options, dryRun: true });
    expect(tree(root)).toEqual(before);
    const lines = formatInstallReport(report);
    expect(lines[0]).toBe(`would write ${path.join(options.paths.binDir, 'nextai-host')} (launcher, mode 0755):`);
    expect(lines).toContain('#!/bin/sh');
    expect(lines).toContain(`would write ${chromiumManifest()} (chromium, mode 0644):`);
    expect(lines).toContain('  "name": "com.nextai.agent",');
    expect(lines.at(-1)).toBe('dry run: nothing was written');
  });

  it('uninstall --dry-run removes nothing', async () => {
    await installNativeHost(options);
    const before = tree(root);
    const report = await uninstallNativeHost({ ...options, dryRun: true });
    expect(tree(root)).toEqual(before);
    expect(formatUninstallReport(report)).toContain(`would remove ${chromiumManifest()} (chromium)`);
  });
});

describe('an unwritable location', () => {
  it('fails with NOT_WRITABLE naming the path, and rolls back everything this run wrote', async () => {
    // A file where Firefox's host directory should be: mkdir fails with ENOTDIR (as root too).
    fs.writeFileSync(path.join(home, '.mozilla', 'native-messaging-hosts'), 'not a directory');
    const before = tree(root);
    const failure = await installNativeHost(options).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'NOT_WRITABLE', details: { path: firefoxManifest() } });
    expect((failure as AppError).message).toContain(`Cannot write ${firefoxManifest()}`);
    expect((failure as AppError).message).toContain('Nothing was installed');
    expect(tree(root)).toEqual(before);
  });

  it('restores the files an earlier install had written, old content and all', async () => {
    await installNativeHost({ ...options, browser: 'chromium' });
    fs.writeFileSync(path.join(home, '.mozilla', 'native-messaging-hosts'), 'not a directory');
    // The bundle moved, so this run rewrites the launcher and the Chromium manifest differently.
    const movedCli = path.join(root, 'moved', 'nextai.js');
    fs.mkdirSync(path.dirname(movedCli));
    fs.writeFileSync(movedCli, '// moved bundle\n');
    const before = tree(root);
    await expect(installNativeHost({ ...options, cliPath: movedCli })).rejects.toMatchObject({ code: 'NOT_WRITABLE' });
    expect(tree(root)).toEqual(before);
  });

  it('refuses to go on over a damaged install record', async () => {
    fs.mkdirSync(options.paths.dataDir, { recursive: true });
    fs.writeFileSync(options.paths.installRecord, '{ not json');
    const before = tree(root);
    await expect(installNativeHost(options)).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    await expect(uninstallNativeHost(options)).rejects.toMatchObject({ code: 'STORAGE_ERROR' });
    expect(tree(root)).toEqual(before);
  });
});

/** A registry in memory behind a fake `reg.exe`, for the Windows code paths. */
function fakeRegistry(initial: Record<string, string> = {}, failOnAdd?: string) {
  const keys = new Map(Object.entries(initial));
  const calls: string[][] = [];
  const run: CommandRunner = (command: string, args: readonly string[], _options?: RunOptions): Promise<RunResult> => {
    calls.push([command, ...args]);
    const [verb, key = ''] = args;
    const failed = () =>
      Promise.reject(new AppError('TOOL_FAILED', `\`${command} ${args.join(' ')}\` exited with code 1: ERROR`));
    if (verb === 'query') {
      const value = keys.get(key);
      if (value === undefined) return failed();
      return Promise.resolve({
        stdout: `\r\n${key}\r\n    (Default)    REG_SZ    ${value}\r\n\r\n`,
        stderr: '',
        exitCode: 0,
      });
    }
    if (verb === 'add') {
      if (key === failOnAdd) return failed();
      keys.set(key, args[6] ?? '');
    } else if (verb === 'delete') {
      if (!keys.delete(key)) return failed();
    }
    return Promise.resolve({ stdout: '', stderr: '', exitCode: 0 });
  };
  return { keys, calls, run };
}

describe('registry operations (Windows, with a fake reg.exe)', () => {
  const chromeKey = 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.nextai.agent';
  const firefoxKey = 'HKCU\\Software\\Mozilla\\NativeMessagingHosts\\com.nextai.agent';

  function windowsLikePlan(): InstallPlan {
    const manifest = (browser: string) => path.join(root, 'data', 'native-messaging', browser, 'com.nextai.agent.json');
    return {
      platform: 'windows',
      files: [
        {
          role: 'launcher',
          path: path.join(root, 'data', 'bin', 'nextai-host.cmd'),
          content: '@echo off\r\n',
          mode: 0o755,
        },
        { role: 'manifest', path: manifest('chrome'), content: '{}\n', mode: 0o644, browser: 'chrome' },
        { role: 'manifest', path: manifest('firefox'), content: '{}\n', mode: 0o644, browser: 'firefox' },
      ],
      registry: [
        {
          browser: 'chrome',
          key: chromeKey,
          value: manifest('chrome'),
          command: 'reg.exe',
          args: regAddArgs(chromeKey, manifest('chrome')),
        },
        {
          browser: 'firefox',
          key: firefoxKey,
          value: manifest('firefox'),
          command: 'reg.exe',
          args: regAddArgs(firefoxKey, manifest('firefox')),
        },
      ],
      skipped: [],
    };
  }
  const recordPath = () => path.join(root, 'data', 'install-record.json');
  const now = new Date('2025-06-01T12:00:00.000Z');

  it('adds the keys, records them, and on uninstall deletes only keys that still point at our manifest', async () => {
    const registry = fakeRegistry();
    const plan = windowsLikePlan();
    const record = await applyInstallPlan(plan, {
      record: undefined,
      recordPath: recordPath(),
      run: registry.run,
      now,
    });
    expect(registry.calls).toContainEqual(['reg.exe', ...regAddArgs(chromeKey, plan.registry[0]?.value ?? '')]);
    expect(Object.fromEntries(registry.keys)).toEqual({
      [chromeKey]: plan.registry[0]?.value,
      [firefoxKey]: plan.registry[1]?.value,
    });
    expect(record.entries.filter((entry) => entry.kind === 'registry')).toHaveLength(2);

    // Another installation took the Firefox key over since.
    registry.keys.set(firefoxKey, 'C:\\elsewhere\\com.nextai.agent.json');
    const outcome = await applyUninstallPlan(buildUninstallPlan(record, {}), {
      record,
      recordPath: recordPath(),
      run: registry.run,
      now,
      dryRun: false,
    });
    expect(registry.calls).toContainEqual(['reg.exe', 'delete', chromeKey, '/f']);
    expect(registry.calls).not.toContainEqual(['reg.exe', 'delete', firefoxKey, '/f']);
    expect(Object.fromEntries(registry.keys)).toEqual({ [firefoxKey]: 'C:\\elsewhere\\com.nextai.agent.json' });
    expect(outcome.actions).toContainEqual({
      type: 'keep',
      target: firefoxKey,
      browser: 'firefox',
      reason: 'it points to C:\\elsewhere\\com.nextai.agent.json now, not to our manifest',
    });
    expect(fs.existsSync(path.join(root, 'data'))).toBe(false);
  });

  it('when a key cannot be set, restores the keys and files this run changed', async () => {
    const registry = fakeRegistry({ [chromeKey]: 'C:\\previous\\com.nextai.agent.json' }, firefoxKey);
    const before = tree(root);
    await expect(
      applyInstallPlan(windowsLikePlan(), { record: undefined, recordPath: recordPath(), run: registry.run, now }),
    ).rejects.toMatchObject({ code: 'NOT_WRITABLE', message: expect.stringContaining(firefoxKey) });
    expect(Object.fromEntries(registry.keys)).toEqual({ [chromeKey]: 'C:\\previous\\com.nextai.agent.json' });
    expect(tree(root)).toEqual(before);
  });
});

describe('the record', () => {
  it('stores the hash of each file as written', async () => {
    await installNativeHost({ ...options, browser: 'chromium' });
    const record = readInstallRecord(options.paths.installRecord);
    const manifestEntry = record?.entries.find((entry) => entry.kind === 'file' && entry.role === 'manifest');
    expect(manifestEntry).toMatchObject({ sha256: sha256(fs.readFileSync(chromiumManifest())) });
  });
});
