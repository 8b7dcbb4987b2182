import fs from 'node:fs';
import path from 'node:path';

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
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

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  await home?.cleanup();
  await model?.close();
  home = undefined;
  model = undefined;
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
