import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

import type { Platform } from '@nextai/shared';

import { currentPlatform } from './current-platform.js';

/** Every file and directory the product keeps, derived from one data directory. */
export interface DataPaths {
  dataDir: string;
  configFile: string;
  database: string;
  /** The audit chain's head, kept outside the database so truncating the log shows. */
  auditAnchor: string;
  runDir: string;
  /** Unix socket path, or a Windows named pipe. */
  socket: string;
  lockFile: string;
  pidFile: string;
  /** Present while the daemon is stopped on purpose (`nextai daemon stop`): nothing auto-starts it. */
  stoppedMarker: string;
  logsDir: string;
  daemonLog: string;
  hostLog: string;
  screenshotsDir: string;
  binDir: string;
  installRecord: string;
}

export const DEFAULT_DATA_DIR_NAME = '.nextai-agent';

/** `NEXTAI_HOME`, or `~/.nextai-agent`. A relative `NEXTAI_HOME` is taken from the current directory. */
export function resolveDataDir(env: NodeJS.ProcessEnv = process.env, homeDir: string = os.homedir()): string {
  const override = env.NEXTAI_HOME?.trim();
  return override ? path.resolve(override) : path.join(homeDir, DEFAULT_DATA_DIR_NAME);
}

export function dataPaths(
  dataDir: string = resolveDataDir(),
  platform: Platform = currentPlatform(),
  userName: string = safeUserName(),
): DataPaths {
  const pathApi = platform === 'windows' ? path.win32 : path.posix;
  const join = (...parts: string[]) => pathApi.join(dataDir, ...parts);
  const runDir = join('run');
  return {
    dataDir,
    configFile: join('config.json'),
    database: join('data.db'),
    auditAnchor: join('audit-anchor.json'),
    runDir,
    socket: platform === 'windows' ? windowsPipeName(dataDir, userName) : pathApi.join(runDir, 'daemon.sock'),
    lockFile: pathApi.join(runDir, 'daemon.lock'),
    pidFile: pathApi.join(runDir, 'daemon.pid'),
    stoppedMarker: pathApi.join(runDir, 'stopped.json'),
    logsDir: join('logs'),
    daemonLog: join('logs', 'daemon.log'),
    hostLog: join('logs', 'host.log'),
    screenshotsDir: join('screenshots'),
    binDir: join('bin'),
    installRecord: join('install-record.json'),
  };
}

/**
 * Named pipes live in one machine-wide namespace, so the name carries the user and — for a
 * non-default data directory — a hash of it, keeping two homes of one user apart.
 */
function windowsPipeName(dataDir: string, userName: string): string {
  const suffix = createHash('sha256').update(dataDir.toLowerCase()).digest('hex').slice(0, 8);
  return `\\\\.\\pipe\\nextai-agent-${userName}-${suffix}`;
}

function safeUserName(): string {
  try {
    return os.userInfo().username.replace(/[^A-Za-z0-9_.-]/g, '_') || 'user';
  } catch {
    // os.userInfo() throws when the uid has no passwd entry (some containers); the uid will do.
    return typeof process.getuid === 'function' ? `uid${process.getuid()}` : 'user';
  }
}
