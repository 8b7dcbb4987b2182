import type { SandboxNetwork, SecurityConfig } from '@nextai/shared';

import { randomBytes } from 'node:crypto';

import { findGitMetadata } from './git-metadata.js';
import { hostPidInSandbox, SANDBOX_HOST_PREFIX } from './pids.js';
import type { SandboxPlatform } from './places.js';
import {
  describeHidden,
  realProfileFs,
  sandboxFolders,
  type ProfileFs,
  type SandboxFolders,
  type SandboxProfile,
} from './profile.js';
import type { PreparedCommand, PrepareOptions, Sandbox, SandboxStatus } from './types.js';

/** Folders are looked at again after this long: a folder created meanwhile becomes writable. */
const FOLDERS_TTL_MS = 2_000;

export interface SandboxServiceOptions {
  sandbox: Sandbox;
  platform: SandboxPlatform | 'windows';
  homeDir: string;
  /** The security settings in force, read at each use. */
  security: () => SecurityConfig;
  /** NextAI's own files: never visible inside. */
  own: readonly string[];
  files?: ProfileFs;
}

/** Where a process the sandbox starts gets its files and display, besides the folders of the policy. */
export interface ProfileRequest {
  /** A task's grant narrows the writable folders. */
  granted?: readonly string[] | undefined;
  network: SandboxNetwork;
  tmpDir: string;
  cwd: string;
  visible?: string[];
  display?: SandboxProfile['display'];
}

/**
 * The daemon's one sandbox: what the policy asks before deciding (is there one, which folders)
 * and what the tools use to start a process in it. The folders come from the same settings for
 * both, so what the approval card says is what the process gets.
 */
export class SandboxService {
  private cached: { security: SecurityConfig; key: string; at: number; folders: SandboxFolders } | undefined;
  private readonly files: ProfileFs;
  /** Apps started in the sandbox, by the host name they were given: tag → the pid started. */
  private readonly apps = new Map<string, number>();

  constructor(private readonly options: SandboxServiceOptions) {
    this.files = options.files ?? realProfileFs;
  }

  status(options?: { refresh?: boolean }): SandboxStatus {
    return this.options.sandbox.status(options);
  }

  folders(granted?: readonly string[]): SandboxFolders {
    const security = this.options.security();
    const key = granted === undefined ? '' : JSON.stringify(granted);
    const now = Date.now();
    const cached = this.cached;
    if (cached && cached.security === security && cached.key === key && now - cached.at < FOLDERS_TTL_MS) {
      return cached.folders;
    }
    const platform = this.options.platform === 'windows' ? 'linux' : this.options.platform;
    const folders = sandboxFolders(
      {
        platform,
        homeDir: this.options.homeDir,
        allowed: security.allowed_directories,
        granted,
        denied: security.denied_patterns,
        own: this.options.own,
      },
      this.files,
    );
    this.cached = { security, key, at: now, folders };
    return folders;
  }

  describeHidden(hidden: readonly string[]): string[] {
    return describeHidden(hidden, this.options.homeDir, this.files);
  }

  /** The whole profile for one process: the policy's folders, plus git metadata kept read-only. */
  profile(request: ProfileRequest): SandboxProfile {
    const folders = this.folders(request.granted);
    const git = findGitMetadata(folders.writable);
    return {
      homeDir: this.options.homeDir,
      writable: folders.writable,
      readOnly: git.readOnly,
      pinned: git.pinned,
      hidden: folders.hidden,
      network: request.network,
      tmpDir: request.tmpDir,
      visible: request.visible ?? [],
      display: request.display,
      cwd: request.cwd,
    };
  }

  prepare(
    command: readonly string[],
    profile: SandboxProfile,
    env: Record<string, string>,
    options?: PrepareOptions,
  ): PreparedCommand {
    return this.options.sandbox.prepare(command, profile, env, options);
  }

  commandPid(startedPid: number): number | undefined {
    return this.options.sandbox.commandPid(startedPid);
  }

  /** A host name for an app about to start in the sandbox, by which its windows are known. */
  newAppHostname(): string {
    return `${SANDBOX_HOST_PREFIX}${randomBytes(6).toString('hex')}`;
  }

  /** The app started as `launcherPid` under `hostname` runs. */
  registerApp(hostname: string, launcherPid: number): void {
    this.apps.set(hostname, launcherPid);
  }

  /**
   * A window's real pid: for a window of an app in the sandbox (by its `WM_CLIENT_MACHINE`), the
   * host pid of the process it names; null when that cannot be told (never a wrong process);
   * `pid` itself for any other window.
   */
  windowPid(machine: string | undefined, pid: number | null): number | null {
    if (pid === null || machine === undefined || !machine.startsWith(SANDBOX_HOST_PREFIX)) return pid;
    const launcher = this.apps.get(machine);
    if (launcher === undefined) return null;
    return hostPidInSandbox(launcher, pid) ?? null;
  }
}
