import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { runCli, startCli } from '../support/cli.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';
import { startXServer, type XServer } from '../support/x-server.js';

/**
 * Apps the agent started with app_launch must not outlive the emergency stop (one that did could
 * lift the stop seconds later by typing into the person's terminal). Through the whole product —
 * the built CLI, a real daemon, the real launcher (detached, in bubblewrap when confined), a real X
 * server: launch a long-running program, engage the stop with `nextai stop`, and every process of
 * the app (its group, what it started, a child that made a session of its own) is gone.
 */
let server: XServer;
let home: TestHome | undefined;
let personRoot: string | undefined;

beforeAll(async () => {
  requireBuilt(CLI_BUNDLE);
  server = await startXServer();
}, 40_000);
afterAll(async () => server?.stop());
afterEach(async () => {
  for (const proc of leftovers) {
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {
      // ended, as it should have
    }
  }
  leftovers.length = 0;
  await home?.cleanup();
  home = undefined;
  if (personRoot) fs.rmSync(personRoot, { recursive: true, force: true });
  personRoot = undefined;
});

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  start: string;
  args: string;
}
const leftovers: Proc[] = [];

/** Every live process (zombies count as gone), from /proc. */
function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' || fields[0] === 'X') continue;
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ').trim();
      found.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        sid: Number(fields[3]),
        start: fields[19] ?? '',
        args,
      });
    } catch {
      // ended while we looked
    }
  }
  return found;
}

/** The same processes (pid and start time), if they still run. */
function stillRunning(procs: Proc[]): Proc[] {
  const now = processes();
  return procs.filter((proc) => now.some((other) => other.pid === proc.pid && other.start === proc.start));
}

/** Polls `probe` every 50 ms, for at most 10 s, until it gives a value (not undefined); returns it. */
const until = <T>(probe: () => T | undefined, what: string) =>
  vi.waitFor(
    () => {
      const value = probe();
      if (value === undefined) throw new Error(`waiting for ${what}`);
      return value;
    },
    { timeout: 10_000, interval: 50 },
  );

/**
 * A fresh NEXTAI_HOME and home folder (HOME: `~` of the daemon and of what it starts), with its
 * daemon started (so two commands never race to start it).
 */
async function freshHome(): Promise<{ env: NodeJS.ProcessEnv; personHome: string }> {
  home = makeHome('nx-stopapps-');
  // Not inside NEXTAI_HOME: that is NextAI's own, hidden from the sandbox and refused to tools.
  personRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-person-')));
  const personHome = path.join(personRoot, 'home');
  fs.mkdirSync(path.join(personHome, 'Projects'), { recursive: true });
  const env = { ...home.env, DISPLAY: server.display, HOME: personHome };
  const started = await runCli(['daemon', '--detach'], env);
  expect(started.code, started.stderr).toBe(0);
  return { env, personHome };
}

/** A number no other process has in its command line: the app's processes are `sleep <tag>`. */
const uniqueSeconds = () => String(100_000 + Math.floor(Math.random() * 800_000));

/**
 * The app's processes: the ones whose command line is `sleep <tag>`, everything in their groups and
 * sessions, and the processes above them up to the daemon (the shell, bubblewrap).
 */
function appProcesses(tag: string, expected: number): Proc[] | undefined {
  const all = processes();
  const tagged = all.filter((proc) => proc.args === `sleep ${tag}` || proc.args === `/usr/bin/sleep ${tag}`);
  if (tagged.length < expected) return undefined;
  const groups = new Set(tagged.flatMap((proc) => [proc.pgid, proc.sid]));
  const found = new Set(all.filter((proc) => tagged.includes(proc) || groups.has(proc.pgid) || groups.has(proc.sid)));
  for (const proc of tagged) {
    let parent = all.find((other) => other.pid === proc.ppid);
    while (parent && !parent.args.includes('nextai.js') && parent.pid > 1) {
      found.add(parent);
      const next = parent.ppid;
      parent = all.find((other) => other.pid === next);
    }
  }
  return [...found];
}

async function engageStop(env: NodeJS.ProcessEnv): Promise<string> {
  const stop = await runCli(['stop', '--reason', 'test'], env);
  expect(stop.code, stop.stderr).toBe(0);
  return stop.stdout;
}

describe('the emergency stop ends the apps the agent launched', () => {
  it('an app in the sandbox (bubblewrap), with the processes it started', async () => {
    const { env } = await freshHome();
    const tag = uniqueSeconds();
    // The analyser finds `sleep … & sleep … & wait` harmless: it runs confined, unasked.
    const launched = await runCli(
      ['tool', 'app_launch', JSON.stringify({ name: 'sh', args: ['-c', `sleep ${tag} & sleep ${tag} & wait`] })],
      env,
      30_000,
    );
    // No window appears (sleep has none): the call says so; the app runs on.
    const procs = await until(() => appProcesses(tag, 2), 'the launched app to run');
    leftovers.push(...procs);
    expect(
      procs.some((proc) => proc.args.includes('bwrap')),
      launched.stdout + launched.stderr,
    ).toBe(true);

    const t0 = Date.now();
    const report = await engageStop(env);
    await expect
      .poll(() => stillRunning(procs), { timeout: 3_000, interval: 50, message: 'waiting for the app to be gone' })
      .toEqual([]);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(report).toContain('apps the agent started, ended: 1');
  });

  it('an app a person let run outside the sandbox, a child in a session of its own included', async () => {
    const { env, personHome } = await freshHome();
    const tag = uniqueSeconds();
    const marker = path.join(personHome, 'outside-marker');
    // Writing to ~ (outside the allowed folders) makes it ask to leave the sandbox; the person agrees.
    const script = `touch ~/outside-marker; sleep ${tag} & setsid sleep ${tag} & wait`;
    const call = startCli(['tool', 'app_launch', JSON.stringify({ name: 'sh', args: ['-c', script] })], env);
    const pending = await vi.waitFor(
      async () => {
        const listed = await runCli(['approvals', 'list', '--json'], env);
        const entries = JSON.parse(listed.stdout || '[]') as { id: string; tool: string }[];
        const found = entries.find((entry) => entry.tool === 'app_launch');
        if (!found) throw new Error(`waiting for the approval request: ${JSON.stringify(call.output())}`);
        return found;
      },
      { timeout: 15_000, interval: 100 },
    );
    const approved = await runCli(['approvals', 'approve', pending.id], env);
    expect(approved.code, approved.stderr).toBe(0);
    await call.exited;
    const procs = await until(() => appProcesses(tag, 2), 'the launched app to run');
    leftovers.push(...procs);
    expect(fs.existsSync(marker)).toBe(true); // it did run outside the sandbox
    expect(procs.some((proc) => proc.args.includes('bwrap'))).toBe(false);
    // The setsid child is in a session (and group) of its own.
    expect(new Set(procs.filter((proc) => proc.args.includes(tag)).map((proc) => proc.sid)).size).toBe(2);

    const report = await engageStop(env);
    await expect
      .poll(() => stillRunning(procs), { timeout: 3_000, interval: 50, message: 'waiting for the app to be gone' })
      .toEqual([]);
    expect(report).toContain('apps the agent started, ended: 1');
  });
});
