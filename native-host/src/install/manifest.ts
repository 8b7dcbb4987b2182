import { ALLOWED_CHROME_ORIGINS, ALLOWED_FIREFOX_EXTENSIONS, NATIVE_HOST_NAME } from '@nextai/shared';

import type { BrowserFamily } from './browsers.js';

const DESCRIPTION = 'NextAI Agent: bridge between the browser extension and the local agent';

interface ManifestBase {
  name: string;
  description: string;
  /** Absolute path of the launcher the browser starts. */
  path: string;
  type: 'stdio';
}

export interface ChromiumHostManifest extends ManifestBase {
  allowed_origins: string[];
}

export interface FirefoxHostManifest extends ManifestBase {
  allowed_extensions: string[];
}

export type HostManifest = ChromiumHostManifest | FirefoxHostManifest;

/**
 * The native-messaging host manifest. The allowed callers come from `@nextai/shared` and are
 * exact extension ids: Chrome rejects wildcards in `allowed_origins`, and an id that is not ours
 * must never be able to start the host.
 */
export function buildHostManifest(family: BrowserFamily, launcherPath: string): HostManifest {
  const base: ManifestBase = { name: NATIVE_HOST_NAME, description: DESCRIPTION, path: launcherPath, type: 'stdio' };
  return family === 'firefox'
    ? { ...base, allowed_extensions: [...ALLOWED_FIREFOX_EXTENSIONS] }
    : { ...base, allowed_origins: [...ALLOWED_CHROME_ORIGINS] };
}

export function renderHostManifest(family: BrowserFamily, launcherPath: string): string {
  return `${JSON.stringify(buildHostManifest(family, launcherPath), null, 2)}\n`;
}
