import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { Bubblewrap, bubblewrapArgs, sandboxEnvironment, SANDBOX_UID_FOR_ROOT, type HostFacts } from './bubblewrap.js';
import type { SandboxProfile } from './profile.js';

const HOME = '/home/u';

function host(overrides: Partial<HostFacts> = {}, folders: string[] = [], files: string[] = []): HostFacts {
  return {
    root: false,
    kind: (target) => {
      if (folders.includes(target) || ['/home', '/root', HOME].includes(target)) return 'directory';
      return files.includes(target) ? 'file' : 'missing';
    },
    realpath: (target) => target,
    ...overrides,
  };
}

function profile(overrides: Partial<SandboxProfile> = {}): SandboxProfile {
  return {
    homeDir: HOME,
    writable: [`${HOME}/Projects`],
    readOnly: [],
    pinned: [],
    hidden: [],
    network: 'none',
    tmpDir: '/var/lib/nextai/run/tmp-1',
    visible: [],
    cwd: `${HOME}/Projects`,
    ...overrides,
  };
}

/** The pairs `--flag a b` as [flag, a, b] in order, for checking what comes after what. */
function mounts(args: string[]): string[] {
  const result: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const flag = args[index] as string;
    if (['--bind', '--ro-bind'].includes(flag)) result.push(`${flag} ${args[index + 1]} ${args[index + 2]}`);
    if (['--tmpfs', '--remount-ro', '--dev', '--proc'].includes(flag)) result.push(`${flag} ${args[index + 1]}`);
  }
  return result;
}

describe('bubblewrap arguments', () => {
  it('confine: read-only root, own namespaces, no capabilities, no new user namespaces, dies with the daemon', () => {
    const args = bubblewrapArgs(profile(), host(), { newSession: true });
    for (const flag of ['--die-with-parent', '--new-session', '--unshare-user', '--disable-userns', '--unshare-pid']) {
      expect(args).toContain(flag);
    }
    expect(args).toEqual(expect.arrayContaining(['--unshare-ipc', '--unshare-uts', '--unshare-net']));
    expect(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2)).toEqual(['--cap-drop', 'ALL']);
    expect(mounts(args).slice(0, 3)).toEqual(['--ro-bind / /', '--dev /dev', '--proc /proc']);
    expect(args.slice(-2)).toEqual(['--chdir', `${HOME}/Projects`]);
    // A daemon that is not root keeps its own uid inside.
    expect(args).not.toContain('--uid');
  });

  it('masks /run, /tmp, other homes and /root, then binds back the home (read-only) and the writable folders', () => {
    const list = mounts(bubblewrapArgs(profile(), host(), { newSession: true }));
    expect(list).toEqual([
      '--ro-bind / /',
      '--dev /dev',
      '--proc /proc',
      '--tmpfs /run',
      '--bind /var/lib/nextai/run/tmp-1 /tmp',
      '--tmpfs /home',
      '--tmpfs /root',
      `--ro-bind ${HOME} ${HOME}`,
      `--bind ${HOME}/Projects ${HOME}/Projects`,
      // Last, once every mount point in them is made: the masked areas stay empty and read-only.
      '--remount-ro /run',
      '--remount-ro /home',
      '--remount-ro /root',
    ]);
  });

  it('hides secrets after the writable folders (so a secret inside one stays hidden), files as empty ones', () => {
    const list = mounts(
      bubblewrapArgs(
        profile({
          hidden: [
            `${HOME}/.ssh`,
            `${HOME}/.ssh/id_rsa`,
            `${HOME}/Projects/app/.env.secret`,
            '/etc/shadow',
            '/nowhere',
          ],
          pinned: [`${HOME}/Projects/app`, `${HOME}/Projects/app/.git`],
          readOnly: [`${HOME}/Projects/app/.git/hooks`, `${HOME}/Projects/app/.git/config`],
        }),
        host(
          {},
          [`${HOME}/.ssh`, `${HOME}/Projects/app`, `${HOME}/Projects/app/.git`, `${HOME}/Projects/app/.git/hooks`],
          [
            `${HOME}/.ssh/id_rsa`,
            `${HOME}/Projects/app/.env.secret`,
            '/etc/shadow',
            `${HOME}/Projects/app/.git/config`,
          ],
        ),
        { newSession: true },
      ),
    );
    const after = (entry: string) => list.indexOf(entry);
    expect(after(`--bind ${HOME}/Projects/app ${HOME}/Projects/app`)).toBeGreaterThan(
      after(`--bind ${HOME}/Projects ${HOME}/Projects`),
    );
    expect(after(`--ro-bind ${HOME}/Projects/app/.git/hooks ${HOME}/Projects/app/.git/hooks`)).toBeGreaterThan(
      after(`--bind ${HOME}/Projects/app/.git ${HOME}/Projects/app/.git`),
    );
    expect(list).toContain(`--tmpfs ${HOME}/.ssh`);
    expect(list).toContain(`--remount-ro ${HOME}/.ssh`);
    expect(list).toContain('--ro-bind /dev/null /etc/shadow');
    expect(after(`--ro-bind /dev/null ${HOME}/Projects/app/.env.secret`)).toBeGreaterThan(
      after(`--bind ${HOME}/Projects ${HOME}/Projects`),
    );
    // Inside a hidden folder already, and missing: nothing to mount (and nothing could be).
    expect(list.join('\n')).not.toContain(`${HOME}/.ssh/id_rsa`);
    expect(list.join('\n')).not.toContain('/nowhere');
  });

  it('shows a session its own call files read-only, last, and gives the network only when the profile has it', () => {
    const args = bubblewrapArgs(
      profile({ visible: ['/data/run/terminals/nextai-terminal-x'], hidden: ['/data'], network: 'full' }),
      host({}, ['/data']),
      { newSession: false },
    );
    const list = mounts(args);
    expect(list.at(-4)).toBe('--ro-bind /data/run/terminals/nextai-terminal-x /data/run/terminals/nextai-terminal-x');
    expect(list).toContain('--tmpfs /data');
    expect(args).not.toContain('--unshare-net');
    // A shell session keeps its own pty as its terminal.
    expect(args).not.toContain('--new-session');
  });

  it('keeps DNS working where /etc/resolv.conf lives under /run', () => {
    const list = mounts(
      bubblewrapArgs(profile(), host({ resolvConf: '/run/systemd/resolve/stub-resolv.conf' }), { newSession: true }),
    );
    expect(list.indexOf('--ro-bind /run/systemd/resolve/stub-resolv.conf /run/systemd/resolve/stub-resolv.conf')).toBe(
      list.indexOf('--tmpfs /run') + 1,
    );
  });

  it('a home under /tmp (as in tests) shows through the private /tmp', () => {
    const home = '/tmp/nx-1/home';
    const list = mounts(
      bubblewrapArgs(profile({ homeDir: home, writable: [`${home}/Projects`], cwd: home }), host({}, [home]), {
        newSession: true,
      }),
    );
    expect(list.indexOf(`--ro-bind ${home} ${home}`)).toBeGreaterThan(
      list.indexOf('--bind /var/lib/nextai/run/tmp-1 /tmp'),
    );
  });

  it('a root daemon runs commands as an ordinary user inside', () => {
    const args = bubblewrapArgs(profile(), host({ root: true }), { newSession: true });
    expect(args.slice(args.indexOf('--uid'), args.indexOf('--uid') + 4)).toEqual([
      '--uid',
      String(SANDBOX_UID_FOR_ROOT),
      '--gid',
      String(SANDBOX_UID_FOR_ROOT),
    ]);
  });

  it('an app gets the display, settings folders of its own, a host name, and the host IPC (MIT-SHM)', () => {
    const args = bubblewrapArgs(
      profile({
        display: { name: ':99', socket: '/tmp/.X11-unix/X99', xauthority: `${HOME}/.Xauthority` },
        overlays: [{ source: '/data/apps/a/home/.config', target: `${HOME}/.config` }],
        hidden: [`${HOME}/.config/gh`],
        hostname: 'nextai-sandbox-abc',
        network: 'full',
      }),
      host({}, [`${HOME}/.config/gh`], [`${HOME}/.Xauthority`]),
      { newSession: true },
    );
    const list = mounts(args);
    expect(list).toContain('--ro-bind /tmp/.X11-unix/X99 /tmp/.X11-unix/X99');
    expect(list).toContain(`--ro-bind ${HOME}/.Xauthority ${HOME}/.Xauthority`);
    expect(list).toContain(`--bind /data/apps/a/home/.config ${HOME}/.config`);
    // The real ~/.config (with its secrets) is covered by the app's own: nothing to hide in it.
    expect(list).not.toContain(`--tmpfs ${HOME}/.config/gh`);
    expect(args.slice(args.indexOf('--hostname'), args.indexOf('--hostname') + 2)).toEqual([
      '--hostname',
      'nextai-sandbox-abc',
    ]);
    expect(args).not.toContain('--unshare-ipc');
  });
});

describe('the environment inside', () => {
  it('drops the sockets of services outside, points temporary files and caches at the private /tmp', () => {
    const env = sandboxEnvironment(
      {
        PATH: '/usr/bin',
        HOME,
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
        SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1',
        XDG_RUNTIME_DIR: '/run/user/1000',
        DISPLAY: ':0',
      },
      {},
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME,
      TMPDIR: '/tmp',
      XDG_CACHE_HOME: '/tmp/.cache',
      npm_config_cache: '/tmp/.npm',
      NEXTAI_SANDBOX: '1',
    });
    expect(sandboxEnvironment({}, { display: { name: ':5', socket: '/tmp/.X11-unix/X5' } })).toMatchObject({
      DISPLAY: ':5',
    });
  });
});

describe('when bubblewrap cannot start', () => {
  it('is missing: the sandbox is unavailable, says how to install it, and prepares nothing', () => {
    const sandbox = new Bubblewrap({ locations: ['/nonexistent/bwrap'] });
    expect(sandbox.status()).toEqual({
      available: false,
      mechanism: 'bubblewrap',
      reason: { en: 'bubblewrap (bwrap) is not installed', 'zh-CN': '没有安装 bubblewrap（bwrap）' },
      fix: 'sudo apt install bubblewrap',
    });
    expect(() => sandbox.prepare(['/bin/true'], profile(), {})).toThrow(
      'The sandbox cannot start: bubblewrap (bwrap) is not installed. Nothing was run.',
    );
  });

  it('fails (user namespaces off, a container that forbids mounts): unavailable with its own words', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-fake-bwrap-'));
    const fake = path.join(dir, 'bwrap');
    fs.writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    try {
      const sandbox = new Bubblewrap({ locations: [fake], stateDir: dir });
      const status = sandbox.status();
      expect(status).toMatchObject({ available: false, mechanism: 'bubblewrap' });
      expect(status.available ? '' : status.reason.en).toBe(
        'bubblewrap cannot create a sandbox here (bwrap: No permissions to create new namespace)',
      );
      expect(() => sandbox.prepare(['/bin/true'], profile(), {})).toThrow(/Nothing was run/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
