import fs from 'node:fs';

import { describe, expect, it } from 'vitest';

import {
  linuxSessionAndBelow,
  linuxSessionProcesses,
  macSessionProcesses,
  parseElapsed,
  parseLinuxStat,
  parseMacPs,
  windowsTreeKillArgs,
} from './processes.js';

describe('Linux', () => {
  it('parses /proc/<pid>/stat, including a command name with spaces and parentheses', () => {
    const fields = ['S', '10', '12', '9', '34816', '12', '4194560', ...Array(12).fill('0'), '98765', '0'];
    const stat = parseLinuxStat(`42 (we(ird) name) ${fields.join(' ')}`);
    expect(stat).toEqual({
      pid: 42,
      state: 'S',
      ppid: 10,
      processGroup: 12,
      session: 9,
      foregroundGroup: 12,
      startTicks: 98765,
    });
    expect(parseLinuxStat('garbage')).toBeUndefined();
  });

  it('takes a session’s processes and every process below them, also one that made a session of its own', () => {
    const stat = (pid: number, ppid: number, session: number) => ({
      pid,
      state: 'S',
      ppid,
      processGroup: pid,
      session,
      foregroundGroup: -1,
      startTicks: pid,
    });
    const table = [
      stat(1, 0, 1),
      stat(10, 1, 10), // the shell, leader of session 10
      stat(11, 10, 10), // a background job
      stat(12, 10, 12), // `setsid -w …` while its parent waits: a session of its own, still below the shell
      stat(13, 12, 12), // and its child
      stat(14, 1, 10), // orphaned but still in session 10
      stat(20, 1, 20), // someone else's session
      stat(21, 20, 20),
    ];
    expect(
      linuxSessionAndBelow(table, 10)
        .map((entry) => entry.pid)
        .sort((a, b) => a - b),
    ).toEqual([10, 11, 12, 13, 14]);
  });

  it('lists the live processes of this process’s own session', () => {
    const session = parseLinuxStat(fs.readFileSync('/proc/self/stat', 'utf8'))?.session;
    const own = linuxSessionProcesses(session as number);
    expect(own.map((entry) => entry.pid)).toContain(process.pid);
  });
});

describe('macOS', () => {
  it('parses ps output and elapsed times', () => {
    expect(parseElapsed('05')).toBeUndefined();
    expect(parseElapsed('01:05')).toBe(65);
    expect(parseElapsed('2:01:05')).toBe(7265);
    expect(parseElapsed('1-00:00:01')).toBe(86401);
    expect(parseMacPs('  100     1   100   01:00\n  101   100   101   00:02\nbad line\n')).toEqual([
      { pid: 100, ppid: 1, processGroup: 100, elapsedSeconds: 60 },
      { pid: 101, ppid: 100, processGroup: 101, elapsedSeconds: 2 },
    ]);
  });

  it('finds a shell’s descendants and the members of the groups they lead', () => {
    const table = [
      { pid: 100, ppid: 1, processGroup: 100, elapsedSeconds: 9 },
      { pid: 101, ppid: 100, processGroup: 101, elapsedSeconds: 5 },
      { pid: 102, ppid: 101, processGroup: 101, elapsedSeconds: 5 },
      // Double-forked: re-parented to launchd but still in the job's group.
      { pid: 103, ppid: 1, processGroup: 101, elapsedSeconds: 4 },
      { pid: 200, ppid: 1, processGroup: 200, elapsedSeconds: 4 },
    ];
    expect(
      macSessionProcesses(table, 100)
        .map((entry) => entry.pid)
        .sort(),
    ).toEqual([101, 102, 103]);
  });
});

describe('Windows', () => {
  it('kills the whole tree with taskkill', () => {
    expect(windowsTreeKillArgs(1234)).toEqual(['/PID', '1234', '/T', '/F']);
  });
});
