import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AGENT_PROCESS_ENV } from '@nextai/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  agentMarkFor,
  endMarkedProcesses,
  hasAgentMark,
  markedTargets,
  procMarkedFacts,
  type MarkedProcessFacts,
} from './agent-processes.js';
import { currentPlatform } from '../core/current-platform.js';
import type { ProcessRow } from './launched-apps.js';

const MARK = 'nx-0123456789abcdef';
const env = (...entries: string[]) => `${entries.join('\0')}\0`;
const row = (pid: number, ppid: number, start = `${pid}00`, zombie = false): ProcessRow => ({
  pid,
  ppid,
  pgid: pid,
  sid: pid,
  start,
  zombie,
});

/** A process table that changes as the test says, and records every signal. */
function fakeTable(initial: ProcessRow[], environs: Record<number, string>, uids: Record<number, number> = {}) {
  let rows = initial;
  const signals: [number, NodeJS.Signals][] = [];
  const facts: MarkedProcessFacts = {
    rows: async () => rows,
    startOf: (pid) => rows.find((entry) => entry.pid === pid && !entry.zombie)?.start,
    environOf: (pid) => environs[pid],
    uidOf: (pid) => uids[pid] ?? 1000,
  };
  const kill = (pid: number, signal: NodeJS.Signals) => {
    if (!rows.some((entry) => entry.pid === pid)) throw Object.assign(new Error('ESRCH'), { code: 'ESRCH' });
    signals.push([pid, signal]);
    if (signal === 'SIGKILL') rows = rows.filter((entry) => entry.pid !== pid);
  };
  return {
    facts,
    kill,
    signals,
    set: (next: ProcessRow[]) => {
      rows = next;
    },
    get rows() {
      return rows;
    },
  };
}

describe('the agent’s mark', () => {
  it('is one per data directory, the same however the directory is spelled', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-mark-'));
    try {
      expect(agentMarkFor(dir)).toMatch(/^nx-[0-9a-f]{16}$/);
      expect(agentMarkFor(`${dir}/`)).toBe(agentMarkFor(dir));
      expect(agentMarkFor(path.join(dir, 'sub', '..'))).toBe(agentMarkFor(dir));
      expect(agentMarkFor(path.join(dir, 'other'))).not.toBe(agentMarkFor(dir));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is found only as the exact variable and value', () => {
    expect(hasAgentMark(env('PATH=/bin', `${AGENT_PROCESS_ENV}=${MARK}`), MARK)).toBe(true);
    // Another NextAI's (another data directory), the old plain mark, a longer value, another name.
    expect(hasAgentMark(env(`${AGENT_PROCESS_ENV}=nx-ffffffffffffffff`), MARK)).toBe(false);
    expect(hasAgentMark(env(`${AGENT_PROCESS_ENV}=1`), MARK)).toBe(false);
    expect(hasAgentMark(env(`${AGENT_PROCESS_ENV}=${MARK}0`), MARK)).toBe(false);
    expect(hasAgentMark(env(`X${AGENT_PROCESS_ENV}=${MARK}`), MARK)).toBe(false);
    expect(hasAgentMark('', MARK)).toBe(false);
  });
});

describe('markedTargets', () => {
  it('takes what carries the mark and everything below it, never the daemon or its ancestors', () => {
    const rows = [
      row(1, 0),
      row(50, 1), // a terminal, the daemon's parent, marked (started from an agent's shell)
      row(100, 50), // the daemon, marked as well
      row(200, 1), // an escaped job (setsid, parent gone): marked
      row(201, 200), // its child that cleared its environment
      row(202, 201), // and a grandchild
      row(300, 1), // a subreaper of the person's (systemd --user): not marked
      row(301, 300), // an escaped job re-parented to it: marked
      row(400, 1, '40000', true), // a marked zombie
      row(500, 100), // a shell the daemon started: marked
    ];
    const marked = new Set([50, 100, 200, 301, 400, 500]);
    const found = markedTargets(rows, (entry) => marked.has(entry.pid), 100).map((entry) => entry.pid);
    expect(found.sort((a, b) => a - b)).toEqual([200, 201, 202, 301, 500]);
  });
});

describe('endMarkedProcesses', () => {
  it('freezes every marked process and what is below it, then kills them all', async () => {
    const table = fakeTable([row(1, 0), row(100, 1), row(200, 1), row(201, 200), row(300, 1)], {
      100: env(`${AGENT_PROCESS_ENV}=${MARK}`),
      200: env(`${AGENT_PROCESS_ENV}=${MARK}`),
      201: env('PATH=/bin'),
    });
    const result = await endMarkedProcesses({
      platform: 'linux',
      mark: MARK,
      facts: table.facts,
      kill: table.kill,
      self: 100,
      uid: 1000,
    });
    expect(result).toEqual({ ended: 2, still_running: 0, pids: [200, 201] });
    // Frozen first, all of them, and only then killed.
    expect(table.signals).toEqual([
      [200, 'SIGSTOP'],
      [201, 'SIGSTOP'],
      [200, 'SIGKILL'],
      [201, 'SIGKILL'],
    ]);
    expect(table.rows.map((entry) => entry.pid)).toEqual([1, 100, 300]);
  });

  it('looks again for what was forked meanwhile, until a look finds nothing new', async () => {
    const marked = env(`${AGENT_PROCESS_ENV}=${MARK}`);
    const table = fakeTable([row(200, 1)], { 200: marked, 201: marked, 202: env() });
    let looks = 0;
    const rows = table.facts.rows;
    table.facts.rows = async () => {
      looks += 1;
      // It forked a child just before it was frozen, which forked one more that cleared its environment.
      if (looks === 2) table.set([...table.rows, row(201, 200), row(202, 201)]);
      return rows();
    };
    const result = await endMarkedProcesses({
      platform: 'linux',
      mark: MARK,
      facts: table.facts,
      kill: table.kill,
      uid: 1000,
    });
    expect(result.pids.sort()).toEqual([200, 201, 202]);
    expect(looks).toBe(3);
    expect(table.rows).toEqual([]);
  });

  it('leaves alone a reused pid, another user’s process, and another NextAI’s', async () => {
    const table = fakeTable(
      [row(200, 1), row(300, 1), row(400, 1)],
      {
        200: env(`${AGENT_PROCESS_ENV}=${MARK}`),
        300: env(`${AGENT_PROCESS_ENV}=${MARK}`),
        400: env(`${AGENT_PROCESS_ENV}=nx-ffffffffffffffff`),
      },
      { 300: 0 },
    );
    const startOf = table.facts.startOf;
    // Between the listing and the signal, 200 ended and its pid went to a new process.
    table.facts.startOf = (pid) => (pid === 200 ? 'reused' : startOf(pid));
    const result = await endMarkedProcesses({
      platform: 'linux',
      mark: MARK,
      facts: table.facts,
      kill: table.kill,
      uid: 1000,
    });
    expect(result).toEqual({ ended: 0, still_running: 0, pids: [] });
    expect(table.signals).toEqual([]);
  });

  it('says what it could not end, and never leaves a process frozen', async () => {
    const table = fakeTable([row(200, 1)], { 200: env(`${AGENT_PROCESS_ENV}=${MARK}`) });
    const signals: NodeJS.Signals[] = [];
    // A process that does not die (uninterruptible sleep on a dead mount).
    const result = await endMarkedProcesses({
      platform: 'linux',
      mark: MARK,
      facts: table.facts,
      kill: (_pid, signal) => void signals.push(signal),
      uid: 1000,
      killWaitMs: 50,
    });
    expect(result).toEqual({ ended: 0, still_running: 1, pids: [200] });
    expect(signals).toEqual(['SIGSTOP', 'SIGKILL']);
  });

  it('does nothing where there is no /proc', async () => {
    const table = fakeTable([row(200, 1)], { 200: env(`${AGENT_PROCESS_ENV}=${MARK}`) });
    for (const platform of ['macos', 'windows'] as const) {
      expect(await endMarkedProcesses({ platform, mark: MARK, facts: table.facts, kill: table.kill })).toEqual({
        ended: 0,
        still_running: 0,
        pids: [],
      });
    }
    expect(table.signals).toEqual([]);
  });
});

const onLinux = currentPlatform() === 'linux' && fs.existsSync('/proc/self/environ');
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

/** Live processes whose command line is exactly `sleep <seconds>`. */
function sleeping(seconds: string): number[] {
  const rows: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ').trim();
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (args === `sleep ${seconds}` && state !== 'Z' && state !== 'X') rows.push(Number(entry));
    } catch {
      // ended while we looked
    }
  }
  return rows;
}

function start(script: string, mark: string | undefined): void {
  const environment: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  if (mark !== undefined) environment[AGENT_PROCESS_ENV] = mark;
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore', env: environment });
  child.unref();
  started.push(child);
}

describe.runIf(onLinux)('endMarkedProcesses with real processes', () => {
  it('ends what carries the mark wherever it went, and nothing else', async () => {
    const mark = `nx-test-${randomBytes(8).toString('hex')}`;
    const tag = String(300_000 + Math.floor(Math.random() * 600_000));
    const seconds = (n: number) => `${tag}${n}`;
    // An agent's job in its own session whose parent is gone (re-parented to init), one below a
    // marked parent with its environment cleared, and a plain background job.
    start(`(setsid sleep ${seconds(1)} &); env -i sleep ${seconds(2)} & sleep ${seconds(3)} & wait`, mark);
    // The person's own program, and another NextAI's (another data directory).
    start(`exec sleep ${seconds(4)}`, undefined);
    start(`exec sleep ${seconds(5)}`, 'nx-someone-else');
    await vi.waitFor(
      () => {
        if (![1, 2, 3, 4, 5].every((n) => sleeping(seconds(n)).length === 1)) {
          throw new Error('waiting for the processes to start');
        }
      },
      { timeout: 5_000, interval: 20 },
    );
    const [escaped] = sleeping(seconds(1));
    expect(fs.readFileSync(`/proc/${escaped}/stat`, 'latin1')).not.toContain(` ${process.pid} `);

    const result = await endMarkedProcesses({ platform: 'linux', mark, facts: procMarkedFacts() });
    expect(result.still_running).toBe(0);
    // The shell, and the three sleeps.
    expect(result.ended).toBe(4);
    for (const n of [1, 2, 3]) expect(sleeping(seconds(n))).toEqual([]);
    expect(sleeping(seconds(4))).toHaveLength(1);
    expect(sleeping(seconds(5))).toHaveLength(1);
  });
});
