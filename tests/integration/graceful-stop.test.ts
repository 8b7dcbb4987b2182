import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { runCli, startCli } from '../support/cli.js';
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from '../support/fake-model-server.js';
import { isAlive, makeHome, readPid, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * A graceful stop (issue #18): `nextai daemon stop`, and SIGTERM from a service manager, let the
 * tool call a run is executing finish — its result committed — before the daemon stops, so the
 * run resumes after the restart with that result, not "outcome unknown". `--now`, and a second
 * signal, abort it at once. A real daemon, a real sandboxed shell, the fake model server.
 */
let home: TestHome | undefined;
let model: FakeModelServer | undefined;
let panel: DaemonClient | undefined;
let outside: string | undefined;

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  panel?.close();
  await home?.cleanup();
  await model?.close();
  if (outside) fs.rmSync(outside, { recursive: true, force: true });
  home = undefined;
  model = undefined;
  panel = undefined;
  outside = undefined;
});

interface Step {
  kind: string;
  intent: { tool?: string };
  result: { ok?: boolean; outcome?: string; output?: unknown } | null;
}

/** A home whose daemon runs `command` for the model, then gets `after` as the model's next turn. */
async function setUp(command: string, after: string, config: object = {}): Promise<NodeJS.ProcessEnv> {
  home = makeHome('nx-drain-');
  model = await startFakeModelServer([
    { kind: 'tool_calls', calls: [{ name: 'bash_execute', input: { command } }] },
    { kind: 'text', text: after },
  ] satisfies ScriptedTurn[]);
  // Full auto: the shell command runs without a person, so nothing waits for an approval.
  fs.writeFileSync(
    path.join(home.dir, 'config.json'),
    JSON.stringify({ projects: { default_approval_template: 'full-auto' }, ...config }),
    { mode: 0o600 },
  );
  const env: NodeJS.ProcessEnv = {
    ...home.env,
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-graceful-stop',
  };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const explained = await runCli(['policy', 'explain', 'bash_execute', JSON.stringify({ command }), '--json'], env);
  expect(JSON.parse(explained.stdout), explained.stderr).toMatchObject({ decision: 'auto_approve' });
  return env;
}

async function show(id: string, env: NodeJS.ProcessEnv): Promise<{ run: { state: string }; steps: Step[] }> {
  const result = await runCli(['runs', 'show', id, '--steps', '--json'], env);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as never;
}

const shellStep = (steps: Step[]) =>
  steps.find((step) => step.kind === 'tool_call' && step.intent.tool === 'bash_execute');

/** Starts a run and returns once its shell command is executing (its intent written, no result yet). */
async function runUntilCommandRuns(env: NodeJS.ProcessEnv): Promise<string> {
  const started = await runCli(['run', '--detach', 'Run the slow command'], env);
  expect(started.code, started.stderr).toBe(0);
  const id = started.stdout.trim();
  await expect
    .poll(async () => shellStep((await show(id, env)).steps), { timeout: 20_000, interval: 100 })
    .toMatchObject({ result: null });
  return id;
}

/** Starts the daemon again and waits for the run it resumes to finish. */
async function restartAndFinish(id: string, env: NodeJS.ProcessEnv): Promise<Step[]> {
  const restarted = await runCli(['daemon', '--detach'], env);
  expect(restarted.code, restarted.stderr).toBe(0);
  await expect.poll(async () => (await show(id, env)).run.state, { timeout: 20_000, interval: 100 }).toBe('finished');
  return (await show(id, env)).steps;
}

/** What the model was sent after the restart. */
const resumedConversation = () => JSON.stringify(model?.requests[1]?.body.messages ?? null);

function daemonPid(): number {
  const pid = readPid(path.join(home?.dir ?? '', 'run', 'daemon.pid'));
  expect(pid).toBeDefined();
  return pid as number;
}

function daemonLog(): string {
  try {
    return fs.readFileSync(path.join(home?.dir ?? '', 'logs', 'daemon.log'), 'utf8');
  } catch {
    return '';
  }
}

describe('nextai daemon stop', () => {
  it('lets the command in flight finish; after the restart the step has its real result and the run finishes', async () => {
    const env = await setUp('sleep 2; echo finished-after-sleep', 'The command finished.');
    const id = await runUntilCommandRuns(env);

    const stop = await runCli(['daemon', 'stop'], env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain('waiting for 1 running tool call to finish (up to 30 s)…');
    expect(stop.stdout).toContain('the running tool calls finished');
    expect(stop.stdout).toContain('daemon stopped');
    // It stopped before the run's next model turn.
    expect(model?.requests).toHaveLength(1);

    const steps = await restartAndFinish(id, env);
    expect(shellStep(steps)?.result).toMatchObject({ ok: true });
    expect(JSON.stringify(shellStep(steps)?.result)).toContain('finished-after-sleep');
    expect(resumedConversation()).toContain('finished-after-sleep');
    expect(resumedConversation()).not.toContain('Outcome unknown');
  });

  it('--now aborts the command in flight at once; the run resumes with "outcome unknown" for it', async () => {
    const env = await setUp('sleep 120; echo never-printed', 'I will look before doing anything.');
    const id = await runUntilCommandRuns(env);

    // Waiting for the command would take the whole grace period (30 s), past this time-out.
    const stop = await runCli(['daemon', 'stop', '--now'], env, 20_000);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain('stopping now: aborting 1 running tool call');
    expect(stop.stdout).toContain('daemon stopped');

    const steps = await restartAndFinish(id, env);
    expect(shellStep(steps)?.result).toMatchObject({ ok: false, outcome: 'unknown' });
    expect(resumedConversation()).toContain('Outcome unknown');
  });

  it('aborts the command once the grace period set in config.json is over', async () => {
    const env = await setUp('sleep 120; echo never-printed', 'I will look before doing anything.', {
      daemon: { stop_grace_seconds: 1 },
    });
    const id = await runUntilCommandRuns(env);

    const stop = await runCli(['daemon', 'stop'], env, 20_000);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain('waiting for 1 running tool call to finish (up to 1 s)…');
    expect(stop.stdout).toContain('the grace period is over: aborting 1 running tool call still going');
    expect(stop.stdout).toContain('daemon stopped');

    const steps = await restartAndFinish(id, env);
    expect(shellStep(steps)?.result).toMatchObject({ ok: false, outcome: 'unknown' });
  });

  it('a second stop while the first waits says a stop is in progress and waits for it to end', async () => {
    const env = await setUp('sleep 3; echo finished-after-sleep', 'The command finished.');
    const id = await runUntilCommandRuns(env);
    const pid = daemonPid();
    const first = startCli(['daemon', 'stop'], env);
    await expect.poll(() => first.output().stdout, { timeout: 10_000 }).toContain('waiting for 1 running tool call');

    const again = await runCli(['daemon', 'stop'], env, 30_000);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('a stop is already in progress (waiting for it)');
    expect(again.stdout).toContain(`daemon stopped (pid ${pid})`);
    expect(isAlive(pid)).toBe(false);
    expect(await first.exited).toBe(0);

    // The first stop went on as asked: the command finished and its result was committed.
    const steps = await restartAndFinish(id, env);
    expect(JSON.stringify(shellStep(steps)?.result)).toContain('finished-after-sleep');
  });
});

describe('an approval answered while the daemon stops', () => {
  it('is refused: nothing starts, the request stays pending, and its run takes it up after the restart', async () => {
    home = makeHome('nx-drain-');
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-drain-out-'));
    const marker = path.join(outside, 'approved-command-ran');
    const asks = `touch ${marker}`;
    const slow = 'sleep 3; echo slow-done';
    // Each run's first turn by its goal; then each is done.
    model = await startFakeModelServer((request) => {
      const messages = request.body.messages as unknown[];
      if (messages.length > 1) return { kind: 'text', text: 'Done.' };
      const command = JSON.stringify(messages[0]).includes('GOAL-SLOW') ? slow : asks;
      return { kind: 'tool_calls', calls: [{ name: 'bash_execute', input: { command } }] };
    });
    const env: NodeJS.ProcessEnv = {
      ...home.env,
      ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-test-graceful-stop',
    };
    delete env.OPENAI_API_KEY;
    delete env.OPENAI_BASE_URL;
    const decision = async (command: string) =>
      (
        JSON.parse(
          (await runCli(['policy', 'explain', 'bash_execute', JSON.stringify({ command }), '--json'], env)).stdout,
        ) as {
          decision: string;
        }
      ).decision;
    expect(await decision(asks)).toBe('require_approval');
    expect(await decision(slow)).toBe('auto_approve');

    expect((await runCli(['daemon', '--detach'], env)).code).toBe(0);
    const connectPanel = () =>
      DaemonClient.connect(dataPaths(home?.dir), { start: false, client: { kind: 'test', name: 'graceful-stop' } });
    panel = await connectPanel();
    const client = panel;
    const asking = (await runCli(['run', '--detach', 'GOAL-ASK'], env)).stdout.trim();
    const pending = async () => (await client.peer.request('approvals.list', { status: 'pending' })).approvals;
    await expect.poll(async () => (await pending()).length, { timeout: 20_000, interval: 100 }).toBe(1);
    const [approval] = await pending();
    // Another run keeps the stop waiting: its command is executing.
    const slowRun = (await runCli(['run', '--detach', 'GOAL-SLOW'], env)).stdout.trim();
    await expect
      .poll(async () => shellStep((await show(slowRun, env)).steps), { timeout: 20_000, interval: 100 })
      .toMatchObject({ result: null });

    const stop = startCli(['daemon', 'stop'], env);
    await expect.poll(() => stop.output().stdout, { timeout: 10_000 }).toContain('waiting for 1 running tool call');
    // The panel, connected before the stop, answers now.
    await expect(
      client.peer.request('approvals.answer', { id: approval!.id, decision: 'approve' }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('daemon is stopping') });
    expect(await stop.exited).toBe(0);
    expect(stop.output().stdout).toContain('daemon stopped');
    expect(fs.existsSync(marker)).toBe(false);

    // After the restart the same request waits, unanswered; answered now, the command runs once.
    panel.close();
    expect((await runCli(['daemon', '--detach'], env)).code).toBe(0);
    panel = await connectPanel();
    const again = panel;
    await expect.poll(async () => (await show(asking, env)).run.state, { timeout: 20_000 }).toBe('waiting_approval');
    expect((await again.peer.request('approvals.list', { status: 'pending' })).approvals.map((a) => a.id)).toEqual([
      approval!.id,
    ]);
    await again.peer.request('approvals.answer', { id: approval!.id, decision: 'approve' });
    await expect.poll(async () => (await show(asking, env)).run.state, { timeout: 20_000 }).toBe('finished');
    expect(fs.existsSync(marker)).toBe(true);
    const steps = (await show(asking, env)).steps.filter((step) => step.kind === 'tool_call');
    expect(steps).toHaveLength(1);
    expect(steps[0]?.result).toMatchObject({ ok: true });
  });
});

describe('a service stop (SIGTERM)', () => {
  it('lets the command in flight finish too', async () => {
    const env = await setUp('sleep 2; echo finished-after-sleep', 'The command finished.');
    const id = await runUntilCommandRuns(env);
    const pid = daemonPid();
    process.kill(pid, 'SIGTERM');
    await expect.poll(() => isAlive(pid), { timeout: 20_000 }).toBe(false);
    expect(model?.requests).toHaveLength(1);

    const steps = await restartAndFinish(id, env);
    expect(JSON.stringify(shellStep(steps)?.result)).toContain('finished-after-sleep');
    expect(resumedConversation()).not.toContain('Outcome unknown');
  });

  it('a second SIGTERM while it waits stops at once', async () => {
    const env = await setUp('sleep 120; echo never-printed', 'I will look before doing anything.');
    const id = await runUntilCommandRuns(env);
    const pid = daemonPid();
    process.kill(pid, 'SIGTERM');
    await expect.poll(daemonLog, { timeout: 10_000 }).toContain('waiting for running tool calls to finish');
    process.kill(pid, 'SIGTERM');
    // Well before the grace period (30 s) would be over.
    await expect.poll(() => isAlive(pid), { timeout: 15_000 }).toBe(false);

    const steps = await restartAndFinish(id, env);
    expect(shellStep(steps)?.result).toMatchObject({ ok: false, outcome: 'unknown' });
  });
});
