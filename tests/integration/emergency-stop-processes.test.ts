import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AGENT_PROCESS_ENV } from '@nextai/shared';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { Daemon } from '../../native-host/src/daemon/daemon.js';
import { createLogger } from '../../native-host/src/core/logger.js';
import { dataPaths, type DataPaths } from '../../native-host/src/core/paths.js';
import { agentMarkFor } from '../../native-host/src/platform/agent-processes.js';
import { createFakeDesktop } from '../../native-host/src/platform/fake-desktop.js';
import { FakePresence } from '../../native-host/src/scheduler/presence/fake-presence.js';

/**
 * The emergency stop must end everything the agent started, background
 * jobs of its shells included. A real daemon — in this process, so its own wiring is tested and
 * not a build of it; called directly, as its own process may not call it over its socket — real
 * shells on a real pty, in the sandbox (bubblewrap) and outside it (as a person lets a command
 * run), and real processes: `sleep … &`, `setsid sleep … &` (a session of its own, its parent
 * gone, so it hangs from init), `nohup`, a call still running. After the stop (what `safety.stop`
 * runs) they are all gone, while a program of the person's and one of another NextAI's still run.
 * And what a shell left running before the daemon restarted is ended by the next daemon's stop.
 */

const log = createLogger({ component: 'test', level: 'error' });
let root: string;
let personHome: string;
const realHome = process.env.HOME;
const spawned: ChildProcess[] = [];
const open: Daemon[] = [];
const PERSON = 'the person (test)';

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-stopp-')));
  personHome = path.join(root, 'home');
  fs.mkdirSync(path.join(personHome, 'Projects'), { recursive: true });
  // The daemon's shells get its HOME (as the person's daemon has the person's): the test's own home.
  process.env.HOME = personHome;
});

afterEach(async () => {
  for (const daemon of open.splice(0)) await daemon.stop('test done');
});

afterAll(() => {
  if (realHome === undefined) delete process.env.HOME;
  else process.env.HOME = realHome;
  for (const child of spawned) child.kill('SIGKILL');
  for (const pid of tagged.splice(0).flatMap((tag) => sleeping(tag))) process.kill(pid, 'SIGKILL');
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** Every tag used, so whatever a failed test left running is ended after it. */
const tagged: string[] = [];
/** A number no other process has in its command line: the test's processes are `sleep <tag>`. */
function tag(): string {
  const value = String(300_000 + Math.floor(Math.random() * 600_000));
  tagged.push(value);
  return value;
}

/** Live (not zombie) processes whose command line is exactly `sleep <seconds>`. */
function sleeping(seconds: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ').trim();
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
      if (args === `sleep ${seconds}` && state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // ended while we looked
    }
  }
  return found;
}

/** Session id and parent of a live process, from /proc/<pid>/stat. */
function statOf(pid: number): { ppid: number; sid: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), sid: Number(fields[3]) };
}

/** Polls `condition` every 25 ms until it holds, for at most 10 s. */
const until = (condition: () => boolean, what: string) =>
  vi.waitFor(
    () => {
      if (!condition()) throw new Error(`waiting for ${what}`);
    },
    { timeout: 10_000, interval: 25 },
  );

async function startDaemon(paths: DataPaths): Promise<Daemon> {
  const daemon = await Daemon.start({
    paths,
    platform: 'linux',
    log,
    desktop: createFakeDesktop().desktop,
    homeDir: personHome,
    presence: new FakePresence(),
  });
  open.push(daemon);
  return daemon;
}

async function stopDaemon(daemon: Daemon): Promise<void> {
  open.splice(open.indexOf(daemon), 1);
  await daemon.stop('restart');
}

function freshPaths(): DataPaths {
  return dataPaths(fs.mkdtempSync(path.join(root, 'd-')));
}

/** Runs bash_execute; a call that must leave the sandbox is approved, as a person would. */
async function run(daemon: Daemon, command: string) {
  const call = daemon.gateway.call({ name: 'bash_execute', input: { command } }, { source: 'cli', actor: PERSON });
  let settled = false;
  void call.finally(() => (settled = true)).catch(() => undefined);
  const approver = (async () => {
    while (!settled) {
      for (const pending of daemon.approvals.list('pending', 10)) {
        daemon.approvals.answer(pending.id, { decision: 'approve', scope: 'once' }, PERSON);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  try {
    return await call;
  } finally {
    await approver;
  }
}

/** The person's own program, and one of another NextAI's (another data directory): never ended. */
function bystanders(): string[] {
  const mine = tag();
  const other = tag();
  spawned.push(spawn('sleep', [mine], { stdio: 'ignore' }));
  spawned.push(
    spawn('sleep', [other], { stdio: 'ignore', env: { ...process.env, [AGENT_PROCESS_ENV]: 'nx-0000000000000000' } }),
  );
  return [mine, other];
}

describe('the emergency stop ends what the agent’s shells started', () => {
  it('in the sandbox: background jobs and ones that made a session of their own', async () => {
    const started = await startDaemon(freshPaths());
    const others = bystanders();
    const [job, loner, nested, unmarked] = [tag(), tag(), tag(), tag()];
    // The last one also drops the agent's mark: the sandbox's PID namespace still holds it.
    const ran = await run(
      started,
      `sleep ${job} & setsid sleep ${loner} & (setsid sleep ${nested} &); (env -i setsid sleep ${unmarked} &); echo started`,
    );
    expect(ran, JSON.stringify(ran)).toMatchObject({ ok: true, output: { stdout: 'started\n', sandbox: 'confined' } });
    const agents = [job, loner, nested, unmarked];
    await until(() => [...agents, ...others].every((seconds) => sleeping(seconds).length === 1), 'the sleeps to start');

    const report = await started.emergency.engage('test', PERSON);
    expect(report.already_active).toBe(false);
    for (const seconds of agents) expect(sleeping(seconds), seconds).toEqual([]);
    for (const seconds of others) expect(sleeping(seconds), seconds).toHaveLength(1);

    // After the reset the default session is a new shell, and says so.
    started.emergency.reset(PERSON);
    const again = await run(started, 'echo again');
    expect(again).toMatchObject({
      ok: true,
      output: { stdout: 'again\n', notices: [expect.stringContaining('the emergency stop ended the previous one')] },
    });
  });

  it('outside the sandbox: sleep &, setsid sleep &, nohup, and the call still running', async () => {
    const started = await startDaemon(freshPaths());
    const others = bystanders();
    const [job, loner, nested, hangup, running, runningLoner] = [tag(), tag(), tag(), tag(), tag(), tag()];
    // Writing to ~ (outside the folders the sandbox may change) makes it leave the sandbox; the person agrees.
    const ran = await run(
      started,
      `touch ~/outside; sleep ${job} & setsid sleep ${loner} & (setsid sleep ${nested} &); ` +
        `nohup sleep ${hangup} >/dev/null 2>&1 & echo started`,
    );
    expect(ran, JSON.stringify(ran)).toMatchObject({ ok: true, output: { stdout: 'started\n' } });
    expect(fs.existsSync(path.join(personHome, 'outside')), JSON.stringify(ran)).toBe(true);
    await until(
      () => [job, loner, nested, hangup].every((seconds) => sleeping(seconds).length === 1),
      'the sleeps to start',
    );
    // The setsid jobs left the shell's session, and their parent is gone (re-parented away from it).
    const shellSession = statOf(sleeping(job)[0]!).sid;
    for (const seconds of [loner, nested]) {
      const escaped = statOf(sleeping(seconds)[0]!);
      expect(escaped.sid).not.toBe(shellSession);
      expect(escaped.ppid).not.toBe(shellSession);
    }
    // A call still running when the stop comes, with a job of its own in a session of its own.
    const inFlight = run(started, `touch ~/outside; setsid sleep ${runningLoner} & sleep ${running}`);
    await until(
      () => sleeping(running).length === 1 && sleeping(runningLoner).length === 1,
      'the running call to start',
    );

    const report = await started.emergency.engage('test', PERSON);
    expect(report.aborted_calls).toBe(1);
    await inFlight.catch(() => undefined);
    for (const seconds of [job, loner, nested, hangup, running, runningLoner]) {
      expect(sleeping(seconds), seconds).toEqual([]);
    }
    for (const seconds of others) expect(sleeping(seconds), seconds).toHaveLength(1);
  });

  it('after a restart: what a shell left running under the previous daemon', async () => {
    const paths = freshPaths();
    const first = await startDaemon(paths);
    const [loner, nested] = [tag(), tag()];
    await run(first, `touch ~/outside; setsid sleep ${loner} & (setsid sleep ${nested} &); echo started`);
    await until(() => sleeping(loner).length === 1 && sleeping(nested).length === 1, 'the sleeps to start');
    // The daemon's own end closes its shells; what left their sessions runs on.
    await stopDaemon(first);
    expect(sleeping(loner)).toHaveLength(1);
    expect(sleeping(nested)).toHaveLength(1);
    // It carries this data directory's mark, which the next daemon looks for.
    const environ = fs.readFileSync(`/proc/${sleeping(loner)[0]}/environ`, 'latin1').split('\0');
    expect(environ).toContain(`${AGENT_PROCESS_ENV}=${agentMarkFor(paths.dataDir)}`);

    const second = await startDaemon(paths);
    const others = bystanders();
    await until(() => others.every((seconds) => sleeping(seconds).length === 1), 'the bystanders to start');
    await second.emergency.engage('test', PERSON);
    expect(sleeping(loner)).toEqual([]);
    expect(sleeping(nested)).toEqual([]);
    for (const seconds of others) expect(sleeping(seconds), seconds).toHaveLength(1);
    second.emergency.reset(PERSON);
  });
});
