import path from 'node:path';

import { NATIVE_HOST_NAME, type Platform } from '@nextai/shared';

/** Browsers `nextai install` registers the native-messaging host with. */
export const BROWSERS = ['chrome', 'chromium', 'edge', 'brave', 'firefox'] as const;
export type Browser = (typeof BROWSERS)[number];

/** What `--browser` accepts. */
export const BROWSER_CHOICES = [...BROWSERS, 'all'] as const;
export type BrowserChoice = (typeof BROWSER_CHOICES)[number];

/** The two manifest dialects: Chromium-based browsers name origins, Firefox names add-on ids. */
export type BrowserFamily = 'chromium' | 'firefox';

export function browserFamily(browser: Browser): BrowserFamily {
  return browser === 'firefox' ? 'firefox' : 'chromium';
}

/** The manifest file name. Linux and macOS require it to be the host name plus `.json`. */
export const MANIFEST_FILE_NAME = `${NATIVE_HOST_NAME}.json`;

export type Environment = Readonly<Record<string, string | undefined>>;

/** Where one browser looks for this host's manifest, for one user. */
export interface BrowserLocation {
  browser: Browser;
  /** Absolute path of the manifest file `nextai install` writes. */
  manifestPath: string;
  /**
   * Directories of which at least one exists once the person has used the browser; `--browser
   * all` skips the browser when none does. Absent on Windows, where browsers find hosts through
   * the registry and every key is written.
   */
  configRoots?: string[];
  /** Windows: the HKCU key whose default value is the manifest path. */
  registryKey?: string;
}

export interface LocationContext {
  homeDir: string;
  env: Environment;
  /** The data directory; on Windows the manifest files live under it. */
  dataDir: string;
}

/**
 * Per-user manifest locations of every browser on one OS. Pure: the platform, home directory and
 * environment are parameters, so the tables for all three systems are testable anywhere.
 *
 * Sources: Chrome "Native messaging host location"
 * (https://developer.chrome.com/docs/extensions/develop/concepts/native-messaging), Microsoft
 * Edge "Native messaging" (learn.microsoft.com), MDN "Native manifests" (Manifest location).
 */
export function browserLocations(platform: Platform, context: LocationContext): Record<Browser, BrowserLocation> {
  switch (platform) {
    case 'linux':
      return linuxLocations(context);
    case 'macos':
      return macosLocations(context);
    case 'windows':
      return windowsLocations(context);
  }
}

function linuxLocations({ homeDir, env }: LocationContext): Record<Browser, BrowserLocation> {
  const join = path.posix.join;
  const configHome = chromiumConfigHome(homeDir, env);
  const chromiumFamily = (browser: Browser, profileRoot: string): BrowserLocation => {
    const configRoot = join(configHome, profileRoot);
    return {
      browser,
      configRoots: [configRoot],
      manifestPath: join(configRoot, 'NativeMessagingHosts', MANIFEST_FILE_NAME),
    };
  };
  const mozilla = join(homeDir, '.mozilla');
  return {
    chrome: chromiumFamily('chrome', 'google-chrome'),
    chromium: chromiumFamily('chromium', 'chromium'),
    edge: chromiumFamily('edge', 'microsoft-edge'),
    brave: chromiumFamily('brave', join('BraveSoftware', 'Brave-Browser')),
    firefox: {
      browser: 'firefox',
      // Firefox 147 and later may keep profiles in $XDG_CONFIG_HOME/mozilla, but still read
      // per-user host manifests only from ~/.mozilla (https://bugzilla.mozilla.org/show_bug.cgi?id=2005167).
      configRoots: [mozilla, join(xdgConfigHome(homeDir, env), 'mozilla')],
      manifestPath: join(mozilla, 'native-messaging-hosts', MANIFEST_FILE_NAME),
    },
  };
}

/**
 * Chromium derives its default profile directory on Linux from `CHROME_CONFIG_HOME`, then
 * `XDG_CONFIG_HOME`, then `~/.config` (chrome_paths_linux.cc), and looks for per-user hosts in
 * `<profile directory>/NativeMessagingHosts`, so the manifest has to follow the same rule. A
 * relative value is ignored, as the XDG base-directory specification says.
 */
function chromiumConfigHome(homeDir: string, env: Environment): string {
  const chromeConfigHome = env.CHROME_CONFIG_HOME;
  return chromeConfigHome && path.posix.isAbsolute(chromeConfigHome) ? chromeConfigHome : xdgConfigHome(homeDir, env);
}

function xdgConfigHome(homeDir: string, env: Environment): string {
  const value = env.XDG_CONFIG_HOME;
  return value && path.posix.isAbsolute(value) ? value : path.posix.join(homeDir, '.config');
}

function macosLocations({ homeDir }: LocationContext): Record<Browser, BrowserLocation> {
  const join = path.posix.join;
  const support = join(homeDir, 'Library', 'Application Support');
  const chromiumFamily = (browser: Browser, profileRoot: string): BrowserLocation => {
    const configRoot = join(support, profileRoot);
    return {
      browser,
      configRoots: [configRoot],
      manifestPath: join(configRoot, 'NativeMessagingHosts', MANIFEST_FILE_NAME),
    };
  };
  return {
    chrome: chromiumFamily('chrome', join('Google', 'Chrome')),
    chromium: chromiumFamily('chromium', 'Chromium'),
    edge: chromiumFamily('edge', 'Microsoft Edge'),
    brave: chromiumFamily('brave', join('BraveSoftware', 'Brave-Browser')),
    firefox: {
      browser: 'firefox',
      // Firefox keeps its profiles under `Firefox` but reads host manifests from `Mozilla`,
      // which may not exist yet even when Firefox is in daily use.
      configRoots: [join(support, 'Firefox')],
      manifestPath: join(support, 'Mozilla', 'NativeMessagingHosts', MANIFEST_FILE_NAME),
    },
  };
}

const WINDOWS_REGISTRY_PARENTS: Record<Browser, string> = {
  chrome: 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts',
  chromium: 'HKCU\\Software\\Chromium\\NativeMessagingHosts',
  edge: 'HKCU\\Software\\Microsoft\\Edge\\NativeMessagingHosts',
  brave: 'HKCU\\Software\\BraveSoftware\\Brave-Browser\\NativeMessagingHosts',
  firefox: 'HKCU\\Software\\Mozilla\\NativeMessagingHosts',
};

/**
 * On Windows the browsers find a host through a registry key whose default value is the path of
 * its manifest; the manifest itself can live anywhere, so it goes under the data directory, one
 * per browser, which lets `nextai uninstall --browser X` remove exactly X's file.
 */
function windowsLocations({ dataDir }: LocationContext): Record<Browser, BrowserLocation> {
  const entry = (browser: Browser): BrowserLocation => ({
    browser,
    manifestPath: path.win32.join(dataDir, 'native-messaging', browser, MANIFEST_FILE_NAME),
    registryKey: `${WINDOWS_REGISTRY_PARENTS[browser]}\\${NATIVE_HOST_NAME}`,
  });
  return {
    chrome: entry('chrome'),
    chromium: entry('chromium'),
    edge: entry('edge'),
    brave: entry('brave'),
    firefox: entry('firefox'),
  };
}

/**
 * A Chromium-family browser started with `--user-data-dir DIR` looks for per-user hosts in
 * `DIR/NativeMessagingHosts` on Linux and macOS (chrome::DIR_USER_NATIVE_MESSAGING). Windows
 * has no such directory: hosts are found only through the registry.
 */
export function userDataDirManifestPath(userDataDir: string): string {
  return path.posix.join(userDataDir, 'NativeMessagingHosts', MANIFEST_FILE_NAME);
}
