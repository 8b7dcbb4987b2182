import fs from 'node:fs';

import { say } from '@nextai/shared';

import { sandboxEnvironment, sandboxUnavailable } from './bubblewrap.js';
import type { SandboxProfile } from './profile.js';
import type { PreparedCommand, PrepareOptions, Sandbox, SandboxStatus } from './types.js';

/** Hard-coded, as Apple ships it: a `sandbox-exec` found on PATH could be anything. */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** A string literal of the Seatbelt profile language. */
function quote(value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/**
 * The Seatbelt (SBPL) profile for a sandbox profile. Closed by default; reading is allowed
 * everywhere but the hidden places; writing only in the writable folders, the private temporary
 * folder and the terminal devices, except what stays read-only there; signals only within the
 * sandbox; the network only when the profile has it. Later rules win over earlier ones, so the
 * denials come after the allowances they narrow.
 *
 * macOS keeps its own /tmp (it cannot be replaced per process as on Linux): the private folder
 * is given as TMPDIR and the shared /tmp stays read-only.
 */
export function seatbeltProfile(profile: SandboxProfile): string {
  const lines: string[] = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))',
    '(allow mach-lookup (global-name "com.apple.system.logger"))',
    '(allow ipc-posix-sem)',
    '(allow ipc-posix-shm-read-data ipc-posix-shm-write-data ipc-posix-shm-write-create)',
    '(allow pseudo-tty)',
    '(allow file-ioctl (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$") (literal "/dev/tty"))',
    '(allow file-read*)',
  ];
  if (profile.hidden.length > 0) {
    lines.push(`(deny file-read* ${profile.hidden.map((place) => `(subpath ${quote(place)})`).join(' ')})`);
  }
  const writable = [...profile.writable, profile.tmpDir];
  lines.push(
    `(allow file-write* ${writable.map((folder) => `(subpath ${quote(folder)})`).join(' ')} ` +
      '(literal "/dev/null") (literal "/dev/tty") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))',
  );
  const keep = [
    ...profile.readOnly.map((entry) => `(subpath ${quote(entry)})`),
    ...profile.hidden.map((place) => `(subpath ${quote(place)})`),
  ];
  if (keep.length > 0) lines.push(`(deny file-write* ${keep.join(' ')})`);
  // A pinned folder (a project, its .git) cannot itself be renamed or removed; what is inside can change.
  if (profile.pinned.length > 0) {
    lines.push(
      `(deny file-write-unlink file-write-mode file-write-owner ${profile.pinned.map((pin) => `(literal ${quote(pin)})`).join(' ')})`,
    );
  }
  if (profile.network === 'full') {
    lines.push(
      '(allow network*)',
      '(allow system-socket)',
      '(allow mach-lookup (global-name "com.apple.dnssd.service"))',
    );
    lines.push('(allow mach-lookup (global-name "com.apple.trustd.agent"))');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * macOS: Seatbelt through `sandbox-exec`. Its profile is generated from the same profile object
 * as bubblewrap's arguments and unit-tested as text; it has not been run on a Mac here.
 */
export class Seatbelt implements Sandbox {
  readonly mechanism = 'seatbelt' as const;
  private probed: SandboxStatus | undefined;

  constructor(private readonly executable = SANDBOX_EXEC) {}

  status(options: { refresh?: boolean } = {}): SandboxStatus {
    if (this.probed && !options.refresh) return this.probed;
    let found = false;
    try {
      fs.accessSync(this.executable, fs.constants.X_OK);
      found = true;
    } catch {
      found = false;
    }
    this.probed = found
      ? { available: true, mechanism: 'seatbelt' }
      : {
          available: false,
          mechanism: 'seatbelt',
          reason: say(`${this.executable} is missing`, `缺少 ${this.executable}`),
        };
    return this.probed;
  }

  prepare(
    command: readonly string[],
    profile: SandboxProfile,
    env: Record<string, string>,
    _options: PrepareOptions = {},
  ): PreparedCommand {
    const status = this.status();
    if (!status.available) throw sandboxUnavailable(status.reason);
    const environment = sandboxEnvironment(env, profile);
    environment.TMPDIR = `${profile.tmpDir}/`;
    environment.XDG_CACHE_HOME = `${profile.tmpDir}/.cache`;
    environment.npm_config_cache = `${profile.tmpDir}/.npm`;
    return {
      file: this.executable,
      args: ['-p', seatbeltProfile(profile), '--', ...command],
      env: environment,
    };
  }

  /** sandbox-exec replaces itself with the command: same pid. */
  commandPid(startedPid: number): number {
    return startedPid;
  }
}
