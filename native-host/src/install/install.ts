import fs from 'node:fs';

import { AppError, type Platform } from '@nextai/shared';

import type { DataPaths } from '../core/paths.js';
import { runCommand } from '../core/subprocess.js';
import {
  applyInstallPlan,
  applyUninstallPlan,
  type CommandRunner,
  type UninstallAction,
  type UninstallFailure,
} from './apply.js';
import { BROWSERS, browserLocations, type Browser, type BrowserChoice, type Environment } from './browsers.js';
import type { NodeSearch } from './launcher.js';
import { buildInstallPlan, buildUninstallPlan, checkUserDataDir } from './plan.js';
import { readInstallRecord } from './record.js';
import { formatWindowsCommand } from './registry.js';

interface CommonOptions {
  /** From `currentPlatform()` at the command layer; a parameter so tests cover every OS. */
  platform: Platform;
  homeDir: string;
  env: Environment;
  paths: Pick<DataPaths, 'dataDir' | 'binDir' | 'installRecord'>;
  browser?: BrowserChoice;
  /** Absolute path of a Chromium profile directory (`--user-data-dir`). */
  userDataDir?: string;
  dryRun?: boolean;
  /** Runs `reg.exe` on Windows; defaults to {@link runCommand}. */
  run?: CommandRunner;
  now?: () => Date;
}

export interface InstallOptions extends CommonOptions {
  /** Absolute path of the bundled CLI the launcher runs (`native-host/dist/nextai.js`). */
  cliPath: string;
  /** Absolute path of the node running the install (`process.execPath`). */
  nodePath: string;
  /** Where the launcher looks for node after the install-time one; tests narrow it. */
  nodeSearch?: NodeSearch;
}

export type InstallAction =
  | {
      type: 'write';
      role: 'launcher' | 'manifest';
      path: string;
      mode: number;
      content: string;
      browser?: Browser;
      userDataDir?: string;
    }
  | { type: 'registry-add'; browser: Browser; key: string; value: string; command: string }
  | { type: 'skip'; browser: Browser; reason: string }
  | { type: 'record'; path: string };

export interface InstallReport {
  command: 'install';
  dryRun: boolean;
  platform: Platform;
  actions: InstallAction[];
}

/**
 * `nextai install`: registers the native-messaging host for the chosen browsers. Builds the
 * whole plan first; with `dryRun` returns it without touching anything, otherwise applies it all
 * or nothing and records what it wrote.
 */
export async function installNativeHost(options: InstallOptions): Promise<InstallReport> {
  const { platform, paths } = options;
  const browser = options.browser ?? 'all';
  const dryRun = options.dryRun ?? false;
  const plan = buildInstallPlan({
    platform,
    homeDir: options.homeDir,
    env: options.env,
    dataDir: paths.dataDir,
    binDir: paths.binDir,
    cliPath: options.cliPath,
    nodePath: options.nodePath,
    browser,
    ...(options.userDataDir === undefined ? {} : { userDataDir: options.userDataDir }),
    installedBrowsers: browser === 'all' && options.userDataDir === undefined ? detectBrowsers(options) : new Set(),
    ...(options.nodeSearch === undefined ? {} : { nodeSearch: options.nodeSearch }),
  });
  if (!fs.existsSync(options.cliPath)) {
    throw new AppError(
      'NOT_FOUND',
      `The nextai program ${options.cliPath} does not exist, so the browser would have nothing to start. ` +
        'Build it with `npm run build` in the repository, then run `nextai install` again.',
    );
  }
  if (!dryRun) {
    // Read before writing anything: a damaged record stops the install instead of being replaced.
    const record = readInstallRecord(paths.installRecord);
    await applyInstallPlan(plan, {
      record,
      recordPath: paths.installRecord,
      run: options.run ?? runCommand,
      now: (options.now ?? (() => new Date()))(),
    });
  }
  const actions: InstallAction[] = [
    ...plan.files.map((file): InstallAction => ({
      type: 'write',
      role: file.role,
      path: file.path,
      mode: file.mode,
      content: file.content,
      ...(file.browser === undefined ? {} : { browser: file.browser }),
      ...(file.userDataDir === undefined ? {} : { userDataDir: file.userDataDir }),
    })),
    ...plan.registry.map((operation): InstallAction => ({
      type: 'registry-add',
      browser: operation.browser,
      key: operation.key,
      value: operation.value,
      command: formatWindowsCommand(operation.command, operation.args),
    })),
    ...plan.skipped.map((skipped): InstallAction => ({ type: 'skip', ...skipped })),
    { type: 'record', path: paths.installRecord },
  ];
  return { command: 'install', dryRun, platform, actions };
}

/** Browsers whose per-user configuration directory exists (Linux and macOS). */
function detectBrowsers(options: InstallOptions): Set<Browser> {
  const locations = browserLocations(options.platform, {
    homeDir: options.homeDir,
    env: options.env,
    dataDir: options.paths.dataDir,
  });
  return new Set(BROWSERS.filter((browser) => (locations[browser].configRoots ?? []).some(isDirectory)));
}

function isDirectory(candidate: string): boolean {
  try {
    return fs.statSync(candidate).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

export type UninstallOptions = CommonOptions;

export interface UninstallReport {
  command: 'uninstall';
  dryRun: boolean;
  platform: Platform;
  /** Set when there was nothing to do, saying why. */
  nothingToUninstall?: string;
  actions: UninstallAction[];
  /** What could not be removed; the command exits non-zero when this is not empty. */
  failures: UninstallFailure[];
  /** The record's path, and whether it is gone after this run (nothing left that install wrote). */
  record: { path: string; removed: boolean };
}

/**
 * `nextai uninstall`: removes exactly what the install record lists (narrowed by `browser` and
 * `userDataDir`), and nothing else.
 */
export async function uninstallNativeHost(options: UninstallOptions): Promise<UninstallReport> {
  const { platform, paths } = options;
  const dryRun = options.dryRun ?? false;
  if (options.userDataDir !== undefined) checkUserDataDir(platform, options.browser);
  const base = { command: 'uninstall', dryRun, platform } as const;
  const record = readInstallRecord(paths.installRecord);
  if (record === undefined) {
    return {
      ...base,
      actions: [],
      failures: [],
      nothingToUninstall: `there is no install record at ${paths.installRecord}, so nextai has installed nothing for this data directory`,
      record: { path: paths.installRecord, removed: true },
    };
  }
  const filter = {
    ...(options.browser === undefined ? {} : { browser: options.browser }),
    ...(options.userDataDir === undefined ? {} : { userDataDir: options.userDataDir }),
  };
  const plan = buildUninstallPlan(record, filter);
  if (plan.files.length === 0 && plan.registry.length === 0) {
    const narrowed = [
      options.browser !== undefined && options.browser !== 'all' ? `--browser ${options.browser}` : undefined,
      options.userDataDir === undefined ? undefined : `--user-data-dir ${options.userDataDir}`,
    ].filter((part) => part !== undefined);
    return {
      ...base,
      actions: [],
      failures: [],
      nothingToUninstall: `the install record lists nothing for ${narrowed.join(' ')}`,
      record: { path: paths.installRecord, removed: false },
    };
  }
  const outcome = await applyUninstallPlan(plan, {
    record,
    recordPath: paths.installRecord,
    run: options.run ?? runCommand,
    now: (options.now ?? (() => new Date()))(),
    dryRun,
  });
  return {
    ...base,
    actions: outcome.actions,
    failures: outcome.failures,
    record: { path: paths.installRecord, removed: outcome.record === undefined },
  };
}
