import { afterEach, beforeAll, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { startFakeModelServer, type FakeModelServer } from '../support/fake-model-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * Pausing, steering and resuming a run from the CLI, and the loop asking for help when it is
 * stuck, against the real daemon and the fake model server.
 */
let home: TestHome;
let server: FakeModelServer;

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  await home.cleanup();
  await server.close();
});

function env(): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {
    ...home.env,
    ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-controls',
  };
  delete environment.OPENAI_API_KEY;
  delete environment.OPENAI_BASE_URL;
  return environment;
}

async function show(
  id: string,
): Promise<{ state: string; result: string | null; question: { kind: string; question: string } | null }> {
  const result = await runCli(['runs', 'show', id, '--json'], env());
  expect(result.code, result.stderr).toBe(0);
  const parsed = JSON.parse(result.stdout) as { run?: unknown };
  return (parsed.run ?? parsed) as never;
}

/** Polls the run every 100 ms, for at most 20 s, until it is in `state`. */
async function until(id: string, state: string): Promise<void> {
  const message = `waiting for run ${id} to be ${state}`;
  await expect.poll(async () => (await show(id)).state, { timeout: 20_000, interval: 100, message }).toBe(state);
}

it('pauses a run, takes a new instruction while paused, and resumes it to the end', async () => {
  home = makeHome();
  server = await startFakeModelServer([{ kind: 'hang' }, { kind: 'text', text: 'Done, in French as asked.' }]);
  const started = await runCli(['run', '--detach', 'Write a greeting'], env());
  expect(started.code, started.stderr).toBe(0);
  const id = started.stdout.trim();
  await server.waitForRequests(1);

  expect((await runCli(['runs', 'pause', id], env())).code).toBe(0);
  await until(id, 'paused');
  const steer = await runCli(['runs', 'steer', id, 'Write it in French.'], env());
  expect(steer.code, steer.stderr).toBe(0);
  expect((await runCli(['runs', 'resume', id], env())).code).toBe(0);
  await until(id, 'finished');
  expect((await show(id)).result).toBe('Done, in French as asked.');
  // The model call abandoned by the pause was made again, with the instruction.
  expect(server.requests).toHaveLength(2);
  expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('Write it in French.');
});

it('asks the person when actions keep failing, and goes on with the answer', async () => {
  home = makeHome();
  // A model that keeps trying to read files that do not exist: six failures in a row.
  const missing = (n: number) => ({ name: 'file_read', input: { path: `/nonexistent-nextai-${n}.txt` } });
  server = await startFakeModelServer([
    ...[1, 2, 3, 4, 5, 6].map((n) => ({ kind: 'tool_calls' as const, calls: [missing(n)] })),
    { kind: 'text', text: 'Understood, I will stop looking.' },
  ]);
  const started = await runCli(['run', '--detach', 'Find my notes'], env());
  const id = started.stdout.trim();
  await until(id, 'waiting_user');
  const waiting = await show(id);
  expect(waiting.question).toMatchObject({ kind: 'stuck', question: expect.stringContaining('I am stuck') });
  const answered = await runCli(['runs', 'answer', id, 'They are gone; stop looking.'], env());
  expect(answered.code, answered.stderr).toBe(0);
  await until(id, 'finished');
  expect(JSON.stringify(server.requests.at(-1)?.body.messages)).toContain('They are gone; stop looking.');
});
