import path from 'node:path';

import type { Platform } from '@nextai/shared';

import { browserLocations } from '../install/browsers.js';
import { readInstallRecord } from '../install/record.js';
import type { Logger } from '../core/logger.js';
import type { DataPaths } from '../core/paths.js';

/**
 * NextAI's own files, which no tool call may write (or read: config.json holds API keys): the
 * data directory (config, database, audit anchor, logs, launcher), every native-messaging
 * manifest location, the manifests the install record lists, and the service units.
 */
export function protectedPaths(
  paths: DataPaths,
  platform: Platform,
  homeDir: string,
  env: NodeJS.ProcessEnv,
  log: Logger,
): string[] {
  const list = new Set<string>([paths.dataDir]);
  for (const location of Object.values(browserLocations(platform, { homeDir, env, dataDir: paths.dataDir }))) {
    list.add(location.manifestPath);
  }
  try {
    for (const entry of readInstallRecord(paths.installRecord)?.entries ?? []) {
      if (entry.kind === 'file') list.add(entry.path);
    }
  } catch (error) {
    // A damaged record must not stop the daemon; the well-known locations above still apply.
    log.warn('cannot read the install record for protected paths', { error: (error as Error).message });
  }
  // Service units (`nextai install --service` writes them, always under these names).
  list.add(path.join(homeDir, '.config', 'systemd', 'user', 'nextai-agent.service'));
  list.add(path.join(homeDir, 'Library', 'LaunchAgents', 'com.nextai-agent.plist'));
  return [...list];
}
