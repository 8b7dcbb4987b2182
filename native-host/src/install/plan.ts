import path from 'node:path';

import { AppError, type Platform } from '@nextai/shared';

import {
  BROWSERS,
  browserFamily,
  browserLocations,
  userDataDirManifestPath,
  type Browser,
  type BrowserChoice,
  type Environment,
} from './browsers.js';
import { defaultNodeSearch, launcherFileName, renderLauncher, type NodeSearch } from './launcher.js';
import { renderHostManifest } from './manifest.js';
import type { FileRecordEntry, InstallRecord, RecordEntry, RegistryRecordEntry } from './record.js';
import { REG_COMMAND, regAddArgs } from './registry.js';

export interface PlannedFile {
  role: 'launcher' | 'manifest';
  path: string;
  content: string;
  mode: number;
  browser?: Browser;
  userDataDir?: string;
}

export interface RegistryOperation {
  browser: Browser;
  key: string;
  /** The key's default value: the manifest path. */
  value: string;
  command: string;
  args: string[];
}

export interface SkippedBrowser {
  browser: Browser;
  reason: string;
}

/** Everything one `nextai install` would do, computed without touching the disk. */
export interface InstallPlan {
  platform: Platform;
  /** The launcher first, then the manifests. */
  files: PlannedFile[];
  registry: RegistryOperation[];
  skipped: SkippedBrowser[];
}

export interface InstallPlanInput {
  platform: Platform;
  homeDir: string;
  env: Environment;
  dataDir: string;
  binDir: string;
  /** Absolute path of the bundled CLI the launcher runs. */
  cliPath: string;
  /** Absolute path of the node running the install. */
  nodePath: string;
  browser: BrowserChoice;
  userDataDir?: string;
  /** Browsers whose configuration directory exists; consulted only for `all` on Linux and macOS. */
  installedBrowsers: ReadonlySet<Browser>;
  /** Where the POSIX launcher looks for node; defaults to {@link defaultNodeSearch}. */
  nodeSearch?: NodeSearch;
}

const LAUNCHER_MODE = 0o755;
const MANIFEST_MODE = 0o644;
const CHROMIUM_FAMILY = BROWSERS.filter((browser) => browserFamily(browser) === 'chromium');

export function buildInstallPlan(input: InstallPlanInput): InstallPlan {
  const { platform } = input;
  const pathApi = platform === 'windows' ? path.win32 : path.posix;
  requireAbsolute(pathApi, { 'the data directory': input.dataDir, 'the CLI bundle': input.cliPath });
  requireAbsolute(pathApi, { 'the node executable': input.nodePath });

  const launcherPath = pathApi.join(input.binDir, launcherFileName(platform));
  const launcher: PlannedFile = {
    role: 'launcher',
    path: launcherPath,
    mode: LAUNCHER_MODE,
    content: renderLauncher(platform, {
      cliPath: input.cliPath,
      dataDir: input.dataDir,
      nodePath: input.nodePath,
      nodeSearch: input.nodeSearch ?? defaultNodeSearch(input.homeDir),
    }),
  };
  const manifestFile = (browser: Browser, manifestPath: string, userDataDir?: string): PlannedFile => ({
    role: 'manifest',
    path: manifestPath,
    mode: MANIFEST_MODE,
    content: renderHostManifest(browserFamily(browser), launcherPath),
    browser,
    ...(userDataDir === undefined ? {} : { userDataDir }),
  });

  if (input.userDataDir !== undefined) {
    const userDataDir = input.userDataDir;
    checkUserDataDir(platform, input.browser);
    requireAbsolute(pathApi, { '--user-data-dir': userDataDir });
    // One profile directory belongs to one browser; without --browser it is a Chromium profile.
    const browser = input.browser === 'all' ? 'chromium' : input.browser;
    const manifest = manifestFile(browser, userDataDirManifestPath(userDataDir), userDataDir);
    return { platform, files: [launcher, manifest], registry: [], skipped: [] };
  }

  const locations = browserLocations(platform, { homeDir: input.homeDir, env: input.env, dataDir: input.dataDir });
  const chosen: Browser[] = [];
  const skipped: SkippedBrowser[] = [];
  for (const browser of input.browser === 'all' ? BROWSERS : [input.browser]) {
    const { configRoots } = locations[browser];
    const detect = input.browser === 'all' && configRoots !== undefined;
    if (detect && !input.installedBrowsers.has(browser)) {
      skipped.push({ browser, reason: `not installed (${describeMissing(configRoots)})` });
    } else {
      chosen.push(browser);
    }
  }
  if (chosen.length === 0) {
    const looked = BROWSERS.flatMap((browser) => locations[browser].configRoots ?? []).join(', ');
    throw new AppError(
      'NOT_FOUND',
      `No supported browser was found for this user (looked for ${looked}). ` +
        `Name one with --browser ${BROWSERS.join('|')} to register it anyway, ` +
        'or pass --user-data-dir DIR for a Chromium profile directory.',
      { details: { looked: skipped } },
    );
  }

  const files = [launcher, ...chosen.map((browser) => manifestFile(browser, locations[browser].manifestPath))];
  const registry = chosen.flatMap((browser): RegistryOperation[] => {
    const { registryKey, manifestPath } = locations[browser];
    if (registryKey === undefined) return [];
    return [
      {
        browser,
        key: registryKey,
        value: manifestPath,
        command: REG_COMMAND,
        args: regAddArgs(registryKey, manifestPath),
      },
    ];
  });
  return { platform, files, registry, skipped };
}

function describeMissing(directories: readonly string[]): string {
  return directories.length === 1 ? `${directories[0]} does not exist` : `none of ${directories.join(', ')} exists`;
}

/** `--user-data-dir` names a Chromium profile directory; reject the combinations that cannot work. */
export function checkUserDataDir(platform: Platform, browser: BrowserChoice | undefined): void {
  if (browser === 'firefox') {
    throw new AppError(
      'INVALID_ARGUMENT',
      `--user-data-dir is for Chromium-family browsers (${CHROMIUM_FAMILY.join(', ')}): Firefox has no per-profile ` +
        'host directory. Leave out --user-data-dir to use Firefox’s per-user location.',
    );
  }
  if (platform === 'windows') {
    throw new AppError(
      'INVALID_ARGUMENT',
      '--user-data-dir is not supported on Windows: browsers there find native-messaging hosts only through ' +
        'the registry, whatever the profile directory. Leave it out.',
    );
  }
}

function requireAbsolute(pathApi: typeof path.posix, values: Record<string, string>): void {
  for (const [what, value] of Object.entries(values)) {
    if (!pathApi.isAbsolute(value)) {
      throw new AppError('INVALID_ARGUMENT', `The path of ${what} must be absolute, got "${value}".`);
    }
  }
}

export interface UninstallFilter {
  /** Only this browser's entries; `all` or undefined for every browser. */
  browser?: BrowserChoice;
  /** Only the manifest written into this (absolute) profile directory. */
  userDataDir?: string;
}

/** Which recorded entries one `nextai uninstall` removes, and which stay in the record. */
export interface UninstallPlan {
  files: FileRecordEntry[];
  registry: RegistryRecordEntry[];
  remaining: RecordEntry[];
}

/**
 * Selects the recorded entries matching every filter given. The launcher serves every browser,
 * so it goes only when no manifest or registry key that uses it would remain.
 */
export function buildUninstallPlan(record: InstallRecord, filter: UninstallFilter): UninstallPlan {
  const matches = (entry: RecordEntry): boolean => {
    if (entry.kind === 'file' && entry.role === 'launcher') return false;
    if (filter.browser !== undefined && filter.browser !== 'all' && entry.browser !== filter.browser) return false;
    if (filter.userDataDir !== undefined && (entry.kind !== 'file' || entry.userDataDir !== filter.userDataDir)) {
      return false;
    }
    return true;
  };
  const selected = record.entries.filter(matches);
  let remaining = record.entries.filter((entry) => !matches(entry));
  const launcherStillNeeded = remaining.some((entry) => !(entry.kind === 'file' && entry.role === 'launcher'));
  if (!launcherStillNeeded) {
    selected.push(...remaining);
    remaining = [];
  }
  return {
    files: selected.filter((entry): entry is FileRecordEntry => entry.kind === 'file'),
    registry: selected.filter((entry): entry is RegistryRecordEntry => entry.kind === 'registry'),
    remaining,
  };
}
