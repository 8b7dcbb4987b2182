import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AppError, say, type Localized } from '@nextai/shared';

import { inside } from './places.js';
import { findDescendant } from './process-tree.js';
import type { SandboxProfile } from './profile.js';
import { seccompArch, seccompBytes } from './seccomp.js';
import type { PreparedCommand, PrepareOptions, Sandbox, SandboxStatus } from './types.js';

/** The uid and gid a root daemon's commands have inside the sandbox (the first ordinary user). */
export const SANDBOX_UID_FOR_ROOT = 1000;

/** Where bubblewrap is looked for: system folders only, never a folder on PATH a command could write. */
const BWRAP_LOCATIONS = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];

/** What the host looks like, for building the arguments (tests give their own). */
export interface HostFacts {
  /** The daemon runs as root: capabilities must be dropped explicitly. */
  root: boolean;
  /** /etc/resolv.conf's real path when it lives under /run (systemd-resolved, NetworkManager). */
  resolvConf?: string | undefined;
  /** Whether a path exists, and whether it is a folder (to hide it the right way). */
  kind(target: string): 'directory' | 'file' | 'missing';
  realpath(target: string): string;
}

export const realHostFacts = (): HostFacts => {
  let resolvConf: string | undefined;
  try {
    const real = fs.realpathSync('/etc/resolv.conf');
    if (inside(real, '/run') || inside(real, '/var/run')) resolvConf = real;
  } catch {
    // No resolver configuration: names do not resolve inside either, as outside.
    resolvConf = undefined;
  }
  return {
    root: process.getuid?.() === 0,
    resolvConf,
    kind: (target) => {
      try {
        return fs.statSync(target).isDirectory() ? 'directory' : 'file';
      } catch {
        return 'missing';
      }
    },
    realpath: (target) => {
      try {
        return fs.realpathSync(target);
      } catch {
        return target;
      }
    },
  };
};

/**
 * bubblewrap's arguments for a profile, in the order that makes them right: bubblewrap applies
 * them one after another, so areas are masked first, then what must show through is bound back,
 * then the writable folders, then what stays read-only or pinned inside them, then the secrets
 * hidden (also inside writable folders), then the session's own files.
 */
export function bubblewrapArgs(profile: SandboxProfile, host: HostFacts, options: { newSession: boolean }): string[] {
  const args: string[] = [
    '--die-with-parent',
    ...(options.newSession ? ['--new-session'] : []),
    // Its own user, PID, IPC, host-name and cgroup namespaces; no new user namespaces inside
    // (the kernel's mount locks then hold), and no capabilities even when the daemon is root.
    '--unshare-user',
    // A daemon running as root (containers, CI) runs its commands as an ordinary user inside:
    // programs that believe they are root without being able to act as root fail in odd ways
    // (xterm quits; package managers think they may install). Outside it is still the same user.
    ...(host.root ? ['--uid', String(SANDBOX_UID_FOR_ROOT), '--gid', String(SANDBOX_UID_FOR_ROOT)] : []),
    '--disable-userns',
    '--unshare-pid',
    // An app on the X display shares System V memory with the X server (MIT-SHM): without the
    // host's IPC namespace its windows stay black. Commands get an IPC namespace of their own.
    ...(profile.display ? [] : ['--unshare-ipc']),
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(profile.network === 'none' ? ['--unshare-net'] : []),
    ...(profile.hostname ? ['--hostname', profile.hostname] : []),
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  const home = profile.homeDir;
  // Masked areas: sockets of services that would act for the process (/run), the host's /tmp
  // (X and agent sockets, other programs' files), other people's home folders.
  const masked: string[] = ['/run'];
  args.push('--tmpfs', '/run');
  if (host.resolvConf) args.push('--ro-bind', host.resolvConf, host.resolvConf);
  args.push('--bind', profile.tmpDir, '/tmp');
  masked.push('/tmp');
  if (host.kind('/home') === 'directory' && !inside('/home', home)) {
    args.push('--tmpfs', '/home');
    masked.push('/home');
  }
  if (home !== '/root' && host.kind('/root') === 'directory' && !inside(home, '/root')) {
    args.push('--tmpfs', '/root');
    masked.push('/root');
  }
  // The person's home shows through, read-only, where a mask above covered it.
  if (masked.some((area) => inside(home, area)) && host.kind(home) === 'directory') {
    args.push('--ro-bind', home, home);
  }
  const overlays = profile.overlays ?? [];
  const visible = (target: string) =>
    !overlays.some((overlay) => inside(target, overlay.target)) &&
    (!masked.some((area) => inside(target, area)) ||
      inside(target, home) ||
      profile.writable.some((folder) => inside(target, folder)));
  for (const folder of profile.writable) args.push('--bind', folder, folder);
  for (const overlay of overlays) args.push('--bind', overlay.source, overlay.target);
  for (const pin of profile.pinned) {
    if (host.kind(pin) === 'directory') args.push('--bind', pin, pin);
  }
  for (const entry of profile.readOnly) {
    if (host.kind(entry) !== 'missing') args.push('--ro-bind', entry, entry);
  }
  // Hidden places: a folder becomes an empty read-only folder, a file an empty one. A place
  // inside another hidden place is covered already (and could not be mounted on).
  const hidden = [...new Set(profile.hidden.map((place) => host.realpath(place)))]
    .filter((place) => host.kind(place) !== 'missing' && visible(place))
    .sort((a, b) => a.length - b.length);
  const done: string[] = [];
  for (const place of hidden) {
    if (done.some((outer) => inside(place, outer))) continue;
    done.push(place);
    if (host.kind(place) === 'directory') args.push('--tmpfs', place, '--remount-ro', place);
    else args.push('--ro-bind', '/dev/null', place);
  }
  for (const entry of profile.visible) args.push('--ro-bind', entry, entry);
  if (profile.display) {
    args.push('--ro-bind', profile.display.socket, profile.display.socket);
    const auth = profile.display.xauthority;
    if (auth && host.kind(auth) === 'file') args.push('--ro-bind', auth, auth);
  }
  // The masked areas are empty and stay so: a write there fails as outside, rather than
  // seeming to work in a folder that vanishes. (Last: mount points were made in them above.)
  for (const area of masked) if (area !== '/tmp') args.push('--remount-ro', area);
  args.push('--chdir', profile.cwd);
  return args;
}

/** The environment a sandboxed process gets: no sockets of services it cannot reach anyway. */
export function sandboxEnvironment(
  env: Record<string, string>,
  profile: Pick<SandboxProfile, 'display'>,
): Record<string, string> {
  const result: Record<string, string> = {};
  const dropped = new Set([
    'DBUS_SESSION_BUS_ADDRESS',
    'XDG_RUNTIME_DIR',
    'SSH_AUTH_SOCK',
    'SSH_AGENT_PID',
    'GPG_AGENT_INFO',
    'WAYLAND_DISPLAY',
    'DISPLAY',
    'XAUTHORITY',
  ]);
  for (const [name, value] of Object.entries(env)) if (!dropped.has(name)) result[name] = value;
  result.TMPDIR = '/tmp';
  // The home folder is read-only here: caches go to the private temporary folder.
  result.XDG_CACHE_HOME = '/tmp/.cache';
  result.npm_config_cache = '/tmp/.npm';
  result.NEXTAI_SANDBOX = '1';
  if (profile.display) {
    result.DISPLAY = profile.display.name;
    if (profile.display.xauthority) result.XAUTHORITY = profile.display.xauthority;
  }
  return result;
}

/** Linux: bubblewrap (Debian package `bubblewrap`). */
export class Bubblewrap implements Sandbox {
  readonly mechanism = 'bubblewrap' as const;
  private probed: SandboxStatus | undefined;
  private file: string | undefined;

  private readonly filterFiles = new Map<string, string>();

  constructor(
    private readonly options: {
      /** Where to look for bwrap (tests point at a program of their own). */
      locations?: readonly string[];
      host?: () => HostFacts;
      procRoot?: string;
      /** A private folder for the seccomp filter file (the daemon's run folder); a new temporary one otherwise. */
      stateDir?: string;
    } = {},
  ) {}

  status(options: { refresh?: boolean } = {}): SandboxStatus {
    if (this.probed && !options.refresh) return this.probed;
    this.probed = this.probe();
    return this.probed;
  }

  prepare(
    command: readonly string[],
    profile: SandboxProfile,
    env: Record<string, string>,
    options: PrepareOptions = {},
  ): PreparedCommand {
    const status = this.status();
    if (!status.available || !this.file) {
      const reason = status.available ? say('bubblewrap was not found', '找不到 bubblewrap') : status.reason;
      throw sandboxUnavailable(reason);
    }
    const host = (this.options.host ?? realHostFacts)();
    // A shell session's pty is its own: it keeps it as its controlling terminal (the session's
    // processes are found and stopped by that terminal session). Anything else starts a new one.
    const args = [...bubblewrapArgs(profile, host, { newSession: options.ownTerminal !== true }), '--', ...command];
    if (profile.display) return { file: this.file, args, env: sandboxEnvironment(env, profile) };
    // Commands also get the seccomp filter (seccomp.ts).
    return {
      file: '/bin/sh',
      args: withSeccompFilter(this.seccompFilter(profile.network), this.file, args),
      env: sandboxEnvironment(env, profile),
    };
  }

  commandPid(startedPid: number): number | undefined {
    return firstDescendantNotNamed(startedPid, 'bwrap', this.options.procRoot ?? '/proc');
  }

  /** The filter file for a network setting, written once (0600) in a folder only this user can enter. */
  private seccompFilter(network: SandboxProfile['network']): string {
    const arch = seccompArch();
    if (!arch) {
      throw sandboxUnavailable(
        say(`there is no seccomp filter for ${process.arch}`, `没有适用于 ${process.arch} 的 seccomp 过滤器`),
      );
    }
    const known = this.filterFiles.get(network);
    if (known && fs.existsSync(known)) return known;
    const dir = this.options.stateDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-sandbox-'));
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `seccomp-${arch}-${network}.bpf`);
    fs.writeFileSync(file, seccompBytes(arch, { unixSockets: network === 'none' }), { mode: 0o600 });
    this.filterFiles.set(network, file);
    return file;
  }

  private probe(): SandboxStatus {
    const file = (this.options.locations ?? BWRAP_LOCATIONS).find((candidate) => isExecutable(candidate));
    if (!file) {
      return {
        available: false,
        mechanism: 'bubblewrap',
        reason: say('bubblewrap (bwrap) is not installed', '没有安装 bubblewrap（bwrap）'),
        fix: 'sudo apt install bubblewrap',
      };
    }
    this.file = file;
    // A real sandbox of the kind commands get: user namespaces may be switched off, or a
    // container may forbid mounts; either shows here, not at the first command.
    let filter: string;
    try {
      filter = this.seccompFilter('full');
    } catch (error) {
      return {
        available: false,
        mechanism: 'bubblewrap',
        reason: say(
          `the sandbox's seccomp filter cannot be made (${(error as Error).message})`,
          `无法生成沙箱的 seccomp 过滤器（${(error as Error).message}）`,
        ),
      };
    }
    const trial = spawnSync(
      '/bin/sh',
      withSeccompFilter(filter, file, [
        '--unshare-user', '--disable-userns', '--unshare-pid', '--unshare-net', '--cap-drop', 'ALL', '--ro-bind', '/', '/',
        '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--die-with-parent', '--', 'true']), // prettier-ignore
      { timeout: 10_000, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } },
    );
    const version = spawnSync(file, ['--version'], { timeout: 5_000, encoding: 'utf8' }).stdout?.trim();
    if (trial.status !== 0) {
      const why = (trial.stderr || trial.error?.message || `exit code ${String(trial.status)}`).trim().split('\n')[0];
      return {
        available: false,
        mechanism: 'bubblewrap',
        reason: say(`bubblewrap cannot create a sandbox here (${why})`, `bubblewrap 无法在这里创建沙箱（${why}）`),
        fix: 'Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04+ an AppArmor profile for bwrap), or run outside a container that forbids them.',
      };
    }
    return { available: true, mechanism: 'bubblewrap', version: version?.replace(/^bubblewrap\s*/, '') };
  }
}

/**
 * Arguments for `/bin/sh` that run bubblewrap with the seccomp filter in `filter`: bubblewrap reads
 * it from a file descriptor, so a tiny shell opens the file as fd 9 and becomes bubblewrap.
 */
function withSeccompFilter(filter: string, bwrap: string, args: readonly string[]): string[] {
  return ['-c', 'exec 9<"$0" && exec "$@"', filter, bwrap, '--seccomp', '9', ...args];
}

/** The refusal when no sandbox can start: nothing runs unconfined in its place. */
export function sandboxUnavailable(reason: Localized): AppError {
  return new AppError(
    'SANDBOX_UNAVAILABLE',
    say(
      `The sandbox cannot start: ${reason.en}. Nothing was run.`,
      `沙箱无法启动：${reason['zh-CN']}。什么都没有运行。`,
    ),
  );
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The first process below `pid` whose name is not `helper`: bubblewrap starts the command as
 * a grandchild (its own init in the new PID namespace sits in between).
 */
export function firstDescendantNotNamed(pid: number, helper: string, procRoot = '/proc'): number | undefined {
  return findDescendant(pid, (entry) => entry.name !== helper, procRoot)?.pid;
}
