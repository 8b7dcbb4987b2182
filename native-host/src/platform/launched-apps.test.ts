import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

import { afterEach, describe, expect, it, vi } from 'vitest';

import type { RunResult } from '../core/subprocess.js';
import type { CommandSpec } from './command-exec.js';
import { currentPlatform } from '../core/current-platform.js';
import {
  LaunchedApps,
  membersOf,
  parseProcStat,
  parsePsListing,
  parseTasklist,
  procTable,
  psListingCommand,
  sameImage,
  taskkillTreeCommand,
  tasklistCommand,
  type ProcessRow,
} from './launched-apps.js';

const onLinux = currentPlatform() === 'linux' && fs.existsSync('/proc/self/stat');
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});

/** Starts `script` as app_launch does on Linux: detached (its own process group and session), no pipes. */
function launch(script: string): number {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  started.push(child);
  return child.pid as number;
}

/** The live (non-zombie) processes of a group or session, from /proc. */
async function groupMembers(id: number): Promise<number[]> {
  const rows = await procTable().rows();
  return rows.filter((row) => !row.zombie && (row.pgid === id || row.sid === id)).map((row) => row.pid);
}

/** Polls `condition` every 20 ms until it holds, for at most `timeout` ms. */
const until = (condition: () => Promise<boolean>, what: string, timeout = 5000) =>
  vi.waitFor(
    async () => {
      if (!(await condition())) throw new Error(`waiting for ${what}`);
    },
    { timeout, interval: 20 },
  );

describe.runIf(onLinux)('LaunchedApps on Linux, with real processes', () => {
  it('ends an app, the processes in its group and one that left for a session of its own', async () => {
    const apps = new LaunchedApps({ platform: 'linux' });
    // A shell with two children in its group, and a grandchild that made a session of its own.
    const pid = launch('sleep 300 & sleep 300 & setsid sleep 301 & wait');
    apps.add(pid, 'busy');
    await until(async () => (await groupMembers(pid)).length >= 3, 'the children to start');
    const loner = await vi.waitFor(
      async () => {
        const rows = await procTable().rows();
        const found = rows.find((entry) => entry.ppid === pid && entry.sid !== pid && !entry.zombie);
        if (!found) throw new Error('waiting for the child in a session of its own');
        return found;
      },
      { timeout: 5000, interval: 20 },
    );

    const report = await apps.endAll();
    expect(report).toEqual({ ended: 1, still_running: 0, names: ['busy'] });
    expect(await groupMembers(pid)).toEqual([]);
    const after = (await procTable().rows()).find((entry) => entry.pid === loner.pid && entry.start === loner.start);
    expect(after === undefined || after.zombie).toBe(true);
  });

  it('kills with SIGKILL what ignores SIGTERM, within the grace', async () => {
    const apps = new LaunchedApps({ platform: 'linux', graceMs: 200 });
    const pid = launch("trap '' TERM; sleep 300 & wait; sleep 300");
    apps.add(pid, 'stubborn');
    await until(async () => (await groupMembers(pid)).length >= 2, 'the child to start');
    const report = await apps.endAll();
    expect(report.ended).toBe(1);
    expect(await groupMembers(pid)).toEqual([]);
  });

  it('does not count apps that had already ended, and forgets them', async () => {
    const apps = new LaunchedApps({ platform: 'linux' });
    const pid = launch('exit 0');
    apps.add(pid, 'quick');
    await until(async () => (await groupMembers(pid)).length === 0, 'the app to end');
    expect(await apps.endAll()).toEqual({ ended: 0, still_running: 0, names: [] });
    expect(apps.list()).toEqual([]);
  });

  it('an app whose first process ended before it was registered: what it left in its group is ended', async () => {
    const apps = new LaunchedApps({ platform: 'linux' });
    const pid = launch('sleep 300 & exit 0');
    await until(
      async () => !(await procTable().rows()).some((row) => row.pid === pid && !row.zombie),
      'the shell to end',
    );
    expect((await groupMembers(pid)).length).toBe(1);
    apps.add(pid, 'forked');
    // Its start time (if the kernel still shows the ended shell) or, when it is gone, its group as seen now.
    await until(
      async () => apps.list()[0]?.start !== undefined || apps.list()[0]?.seen !== undefined,
      'the app to be pinned',
    );
    expect(await apps.endAll()).toMatchObject({ ended: 1 });
    expect(await groupMembers(pid)).toEqual([]);
  });

  it('an app that starts while the stop is on is ended at once', async () => {
    const apps = new LaunchedApps({ platform: 'linux', stopped: () => true });
    const pid = launch('sleep 300');
    apps.add(pid, 'late');
    await until(async () => (await groupMembers(pid)).length === 0, 'the late app to be ended', 3000);
  });
});

describe('which processes are an app’s', () => {
  const row = (
    pid: number,
    ppid: number,
    pgid: number,
    start: string,
    extra: Partial<ProcessRow> = {},
  ): ProcessRow => ({
    pid,
    ppid,
    pgid,
    sid: pgid,
    start,
    zombie: false,
    ...extra,
  });

  it('its group, session and descendants; zombies and the daemon are never counted', () => {
    const rows = [
      row(100, 1, 100, 's100'),
      row(101, 100, 100, 's101'),
      row(102, 101, 102, 's102', { sid: 102 }), // a session of its own, below the app
      row(103, 1, 100, 's103', { sid: 100 }), // re-parented to init, still in the app's group
      row(104, 100, 100, 's104', { zombie: true }),
      row(200, 1, 200, 's200'), // someone else's
    ];
    const found = membersOf({ pid: 100, name: 'app', start: 's100' }, rows, new Map());
    expect([...found.keys()].sort()).toEqual([100, 101, 102, 103]);
  });

  it('nothing when the pid now belongs to another process (reused)', () => {
    const rows = [row(100, 1, 100, 'other-start'), row(101, 100, 100, 's101')];
    expect(membersOf({ pid: 100, name: 'app', start: 's100' }, rows, new Map()).size).toBe(0);
  });

  it('a pid whose start time was never known is trusted only briefly after it was registered', () => {
    const rows = [row(100, 1, 100, 's-new')];
    const fresh = { pid: 100, name: 'app', addedAt: performance.now() };
    expect([...membersOf(fresh, rows, new Map()).keys()]).toEqual([100]);
    const old = { pid: 100, name: 'app', addedAt: performance.now() - 60_000 };
    expect(membersOf(old, rows, new Map()).size).toBe(0);
    // …unless a process seen in its group when it was registered is still there.
    const withSeen = [row(100, 1, 100, 's-new'), row(101, 1, 100, 's101')];
    expect([...membersOf(old, withSeen, new Map([[101, 's101']])).keys()].sort()).toEqual([100, 101]);
  });

  it('keeps following a process seen before after its parent ended (same start time only)', () => {
    const rows = [row(300, 1, 300, 's300', { sid: 300 })];
    const known = new Map([[300, 's300']]);
    expect([...membersOf({ pid: 100, name: 'app', start: 's100' }, rows, known).keys()]).toEqual([300]);
    expect(membersOf({ pid: 100, name: 'app', start: 's100' }, rows, new Map([[300, 'older']])).size).toBe(0);
  });

  it('signals the group and each member, and never a reused pid', async () => {
    const sent: [number, string][] = [];
    let rows = [row(100, 1, 100, 's100'), row(101, 100, 100, 's101')];
    const apps = new LaunchedApps({
      platform: 'linux',
      processes: { rows: async () => rows, startOf: (pid) => rows.find((r) => r.pid === pid)?.start },
      kill: (pid, signal) => {
        sent.push([pid, signal]);
        rows = []; // everything ends on the first signal
      },
      graceMs: 50,
    });
    apps.add(100, 'app');
    rows = [row(100, 1, 100, 's100'), row(101, 100, 100, 's101'), row(500, 1, 500, 's500')];
    expect(await apps.endAll()).toEqual({ ended: 1, still_running: 0, names: ['app'] });
    expect(sent[0]).toEqual([-100, 'SIGTERM']);
    expect(sent.map(([pid]) => pid)).not.toContain(500);

    // The same pid, another process: left alone.
    sent.length = 0;
    rows = [row(100, 1, 100, 's100')];
    apps.add(100, 'again');
    rows = [row(100, 1, 100, 'reused')];
    expect(await apps.endAll()).toEqual({ ended: 0, still_running: 0, names: [] });
    expect(sent).toEqual([]);
  });
});

describe('/proc and ps listings', () => {
  it('parses /proc/<pid>/stat, names with spaces and parentheses included', () => {
    const fields = ['S', '1', '4242', '4242', ...Array.from({ length: 15 }, () => '0'), '987654'];
    expect(parseProcStat(`4242 (my (odd) app) ${fields.join(' ')} 0 0`)).toEqual({
      pid: 4242,
      ppid: 1,
      pgid: 4242,
      sid: 4242,
      start: '987654',
      zombie: false,
    });
    expect(parseProcStat(`7 (z) Z 1 7 7 ${Array.from({ length: 15 }, () => '0').join(' ')} 5`)?.zombie).toBe(true);
  });

  it.runIf(onLinux)('reads this process from /proc with the start time the kernel gives', async () => {
    const own = (await procTable().rows()).find((entry) => entry.pid === process.pid);
    expect(own).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(procTable().startOf?.(process.pid)).toBe(own?.start);
  });

  it('macOS: one ps for every process with its group, state and start time', () => {
    expect(psListingCommand()).toEqual({ command: 'ps', args: ['-A', '-o', 'pid=,ppid=,pgid=,stat=,lstart='] });
    const listing = [
      '    1     0     1 Ss   Mon Nov 24 08:00:01 2025',
      '  512     1   512 S    Tue Nov 25 10:11:12 2025',
      '  513   512   512 Z    Tue Nov 25 10:11:13 2025',
      'garbage',
    ].join('\n');
    expect(parsePsListing(listing)).toEqual([
      { pid: 1, ppid: 0, pgid: 1, zombie: false, start: 'Mon Nov 24 08:00:01 2025' },
      { pid: 512, ppid: 1, pgid: 512, zombie: false, start: 'Tue Nov 25 10:11:12 2025' },
      { pid: 513, ppid: 512, pgid: 512, zombie: true, start: 'Tue Nov 25 10:11:13 2025' },
    ]);
  });

  it('macOS: ends an app found in the ps listing (group and children)', async () => {
    let listing = '  600     1   600 S    Tue Nov 25 10:11:12 2025\n  601   600   600 S    Tue Nov 25 10:11:13 2025\n';
    const ran: CommandSpec[] = [];
    const sent: [number, string][] = [];
    const apps = new LaunchedApps({
      platform: 'macos',
      exec: async (spec) => {
        ran.push(spec);
        return { stdout: listing, stderr: '', exitCode: 0 } as RunResult;
      },
      kill: (pid, signal) => {
        sent.push([pid, signal]);
        listing = '';
      },
      graceMs: 50,
    });
    apps.add(600, 'TextEdit');
    await new Promise((resolve) => setTimeout(resolve, 10)); // its start time, from the first listing
    expect(apps.list()[0]?.start).toBe('Tue Nov 25 10:11:12 2025');
    expect(await apps.endAll()).toEqual({ ended: 1, still_running: 0, names: ['TextEdit'] });
    expect(ran.every((spec) => spec.command === 'ps')).toBe(true);
    expect(sent).toContainEqual([-600, 'SIGTERM']);
    expect(sent).toContainEqual([601, 'SIGTERM']);
  });
});

describe('Windows: taskkill of the tree, after tasklist confirms the image', () => {
  it('builds the commands', () => {
    expect(tasklistCommand(4321)).toEqual({
      command: 'tasklist.exe',
      args: ['/FI', 'PID eq 4321', '/FO', 'CSV', '/NH'],
    });
    expect(taskkillTreeCommand(4321)).toEqual({ command: 'taskkill.exe', args: ['/PID', '4321', '/T', '/F'] });
  });

  it('reads tasklist and matches image names', () => {
    expect(parseTasklist('"notepad.exe","4321","Console","1","12,345 K"\r\n')).toBe('notepad.exe');
    expect(parseTasklist('INFO: No tasks are running which match the specified criteria.\r\n')).toBeUndefined();
    expect(sameImage('Code.exe', 'code')).toBe(true);
    expect(sameImage('notepad.exe', 'C:\\Windows\\System32\\notepad.exe')).toBe(true);
    expect(sameImage('evil.exe', 'notepad')).toBe(false);
  });

  it('ends a running app, skips a pid that now runs another program', async () => {
    const ran: string[][] = [];
    const apps = new LaunchedApps({
      platform: 'windows',
      exec: async (spec) => {
        ran.push([spec.command, ...spec.args]);
        const stdout =
          spec.command === 'tasklist.exe'
            ? spec.args[1] === 'PID eq 10'
              ? '"notepad.exe","10","Console","1","1 K"'
              : '"svchost.exe","20","Services","0","1 K"'
            : 'SUCCESS';
        return { stdout, stderr: '', exitCode: 0 } as RunResult;
      },
    });
    apps.add(10, 'notepad');
    apps.add(20, 'mspaint');
    expect(await apps.endAll()).toEqual({ ended: 1, still_running: 0, names: ['notepad'] });
    expect(ran).toContainEqual(['taskkill.exe', '/PID', '10', '/T', '/F']);
    expect(ran.some((command) => command[0] === 'taskkill.exe' && command[2] === '20')).toBe(false);
  });
});
