import fs from 'node:fs';
import path from 'node:path';

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { runCli, startCli } from '../support/cli.js';
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from '../support/fake-model-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * `nextai run`, `nextai runs` and `nextai sessions` against a real daemon whose model is the
 * scripted fake server (ANTHROPIC_BASE_URL), so every run goes through the real provider client,
 * the loop, the policy and the event stream.
 */

let home: TestHome;
let server: FakeModelServer;
const KEY = 'sk-ant-test-0123456789abcdef';
const EXIT_STOPPED = 5;
const EXIT_INTERRUPTED = 130;

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  await home.cleanup();
  await server.close();
});

async function setUp(script: ScriptedTurn[]): Promise<void> {
  home = makeHome();
  server = await startFakeModelServer(script);
}

/** The home's environment with the fake server as the model, and no model settings of the machine running the tests. */
function env(): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {
    ...home.env,
    ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    ANTHROPIC_API_KEY: KEY,
  };
  delete environment.OPENAI_API_KEY;
  delete environment.OPENAI_BASE_URL;
  return environment;
}

async function cli(args: string[]) {
  return runCli(args, env(), 60_000);
}

async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const result = await cli([...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

interface RunView {
  id: string;
  state: string;
  goal: string;
  session_id: string | null;
  result: string | null;
  result_kind?: string;
  error: { code: string; message: string } | null;
  turns: number;
}

/** The run id from the first line of `nextai run` (`run <id> · project …`). */
function runIdOf(stdout: string): string | undefined {
  return /^run (\S+) ·/m.exec(stdout)?.[1];
}

const systemInfoThenText: ScriptedTurn[] = [
  {
    kind: 'tool_calls',
    text: 'Let me check the system.',
    calls: [{ name: 'system_info', input: { categories: ['os'] } }],
  },
  { kind: 'text', text: 'This machine runs Linux.' },
];

describe('nextai run', () => {
  it('streams a run that calls a tool and finishes: text, the tool and its result, the cost, exit 0', async () => {
    await setUp(systemInfoThenText);
    const result = await cli(['run', 'Which', 'OS', 'is', 'this?']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = result.stdout;
    expect(runIdOf(out)).toBeDefined();
    expect(out).toMatch(/^\s+\d+ {2}Let me check the system\.$/m);
    expect(out).toMatch(/^\s+\d+ {2}→ system_info categories=\["os"\]$/m);
    expect(out).toMatch(/^\s+\d+ {2}✓ system_info/m);
    expect(out).toMatch(/tokens so far$/m);
    expect(out).toMatch(/^\s+\d+ {2}This machine runs Linux\.$/m);
    expect(out).toMatch(/^✓ finished · 2 model turns · /m);
    // The answer streamed already: it is not printed a second time.
    expect(out.split('This machine runs Linux.').length).toBe(2);
    // The model got the tool's result back in its second request.
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('tool_result');
  });

  it('--json prints one JSON object a line: the events, then the final run view', async () => {
    await setUp(systemInfoThenText);
    const result = await cli(['run', 'Which OS is this?', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    const objects = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const final = objects.at(-1) as { run: RunView };
    expect(final.run).toMatchObject({ state: 'finished', result: 'This machine runs Linux.', turns: 2 });
    const events = objects.slice(0, -1) as { seq: number; type: string; data: Record<string, unknown> }[];
    expect(events.length).toBeGreaterThan(3);
    for (const event of events) expect(event.data.run_id).toBe(final.run.id);
    expect(events.map((event) => event.seq)).toEqual([...events.map((event) => event.seq)].sort((a, b) => a - b));
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'run.step',
        data: expect.objectContaining({ kind: 'tool_call', phase: 'finished', tool: 'system_info', ok: true }),
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'run.state', data: { state: 'finished' } });
  });

  it('fails with the reason when the model endpoint rejects the key', async () => {
    const rejected: ScriptedTurn = { kind: 'error', status: 401, message: 'invalid x-api-key' };
    await setUp([rejected, rejected]);
    const result = await cli(['run', 'Say hello']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✗ failed · /m);
    expect(result.stdout).toContain('invalid x-api-key');
    const json = await cli(['run', 'Say hello again', '--json']);
    expect(json.code).toBe(1);
    const final = JSON.parse(json.stdout.trimEnd().split('\n').at(-1)!) as { run: RunView };
    expect(final.run.state).toBe('failed');
    expect(final.run.error?.message).toContain('invalid x-api-key');
    // Authentication is not retried: one request a run.
    expect(server.requests).toHaveLength(2);
  });

  it('--detach prints the run id at once; `runs show --follow` follows it to the end', async () => {
    await setUp(systemInfoThenText);
    const started = await cli(['run', 'Which OS is this?', '--detach']);
    expect(started.code, started.stderr).toBe(0);
    const id = started.stdout.trim();
    expect(id).toMatch(/^\S+$/);
    expect(started.stderr).toContain(`nextai runs stop ${id}`);
    const followed = await cli(['runs', 'show', id, '--follow']);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toContain(`run        ${id}`);
    expect(followed.stdout).toMatch(/^✓ finished · /m);
    expect(followed.stdout).toContain('This machine runs Linux.');
  });
});

describe('a run the model does not answer', () => {
  const EXIT_NO_ANSWER = 6;
  const lastView = (stdout: string) => (JSON.parse(stdout.trimEnd().split('\n').at(-1)!) as { run: RunView }).run;

  it('an Anthropic refusal ends as declined with its explanation: ⊘ declined, exit 6, never ✓ finished', async () => {
    const explanation = 'This request was declined because it could enable cyber harm.';
    await setUp([
      { kind: 'text', text: '', stopReason: 'refusal', refusal: explanation },
      { kind: 'text', text: 'Hello..', stopReason: 'refusal' },
    ]);
    const result = await cli(['run', 'Write malware']);
    expect(result.code, result.stdout + result.stderr).toBe(EXIT_NO_ANSWER);
    expect(result.stdout).toMatch(/^⊘ declined · 1 model turn · /m);
    expect(result.stdout).toContain(`The model declined: ${explanation}`);
    expect(result.stdout).not.toContain('✓ finished');

    // With no reason given (the text before the refusal is none), it still says so; the view marks it.
    const json = await cli(['run', 'Write malware again', '--json']);
    expect(json.code).toBe(EXIT_NO_ANSWER);
    expect(lastView(json.stdout)).toMatchObject({ state: 'finished', result: '', result_kind: 'declined' });
    const shown = await cli(['runs', 'show', lastView(json.stdout).id]);
    expect(shown.stdout).toContain('outcome    The model declined to answer.');
  });

  it('an OpenAI-compatible refusal (its `refusal` text) and content filter end the run as such', async () => {
    await setUp([
      { kind: 'text', text: '', refusal: 'I’m sorry, but I can’t help with that.' },
      { kind: 'text', text: 'Here is how to', stopReason: 'content_filter' },
    ]);
    const openai: NodeJS.ProcessEnv = { ...env(), OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: KEY };
    delete openai.ANTHROPIC_API_KEY;
    delete openai.ANTHROPIC_BASE_URL;
    const declined = await runCli(['run', 'Something it will not do', '--json'], openai, 60_000);
    expect(declined.code, declined.stderr).toBe(EXIT_NO_ANSWER);
    expect(lastView(declined.stdout)).toMatchObject({
      state: 'finished',
      result: 'I’m sorry, but I can’t help with that.',
      result_kind: 'declined',
    });
    const filtered = await runCli(['run', 'Something filtered'], openai, 60_000);
    expect(filtered.code, filtered.stdout + filtered.stderr).toBe(EXIT_NO_ANSWER);
    expect(filtered.stdout).toMatch(/^⊘ filtered · /m);
    expect(filtered.stdout).toContain("The provider's content filter stopped the answer.");
    expect(server.requests.map((request) => request.format)).toEqual(['openai', 'openai']);
  });

  it('a paused turn (pause_turn) is sent back as it is and the run goes on to its answer', async () => {
    await setUp([
      { kind: 'text', text: 'Searching the web… ', stopReason: 'pause_turn' },
      { kind: 'text', text: 'Found it: 42.' },
    ]);
    const result = await cli(['run', 'Look it up', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(lastView(result.stdout)).toMatchObject({
      state: 'finished',
      result: 'Found it: 42.',
      result_kind: 'answer',
    });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Searching the web…' }],
    });
  });

  it('a first turn that fills the context window fails at once: the conversation is too long for the model', async () => {
    await setUp([{ kind: 'text', text: 'The', stopReason: 'model_context_window_exceeded' }]);
    const result = await cli(['run', 'Read everything']);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^✗ failed · /m);
    expect(result.stdout).toContain('INVALID_ARGUMENT: The conversation is too long for the model');
  });
});

describe('nextai runs and nextai sessions', () => {
  it('list and show runs and sessions; an unknown id is a clear error', async () => {
    await setUp(systemInfoThenText);
    const result = await cli(['run', 'Which OS is this?']);
    expect(result.code, result.stderr).toBe(0);
    const id = runIdOf(result.stdout)!;

    const runs = await json<RunView[]>(['runs', 'list']);
    expect(runs).toEqual([expect.objectContaining({ id, state: 'finished', goal: 'Which OS is this?' })]);
    expect(await json<RunView[]>(['runs', 'list', '--active'])).toEqual([]);
    const table = await cli(['runs', 'list']);
    expect(table.stdout).toMatch(/^ID +STATE +TURNS +COST +STARTED +GOAL$/m);
    expect(table.stdout).toContain(id);

    const shown = await json<{ run: RunView; steps: { kind: string }[] }>(['runs', 'show', id, '--steps']);
    expect(shown.run).toMatchObject({ id, state: 'finished' });
    expect(shown.steps.map((step) => step.kind)).toEqual(expect.arrayContaining(['model_call', 'tool_call']));
    const human = await cli(['runs', 'show', id, '--steps']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('state      finished');
    expect(human.stdout).toMatch(/tool_call +system_info categories=\["os"\] +→ ok/);

    const sessionId = shown.run.session_id!;
    expect(sessionId).toBeTruthy();
    const sessions = await json<{ id: string; title: string }[]>(['sessions', 'list']);
    expect(sessions).toEqual([expect.objectContaining({ id: sessionId })]);
    const session = await json<{ session: { id: string }; runs: RunView[]; messages: unknown[] }>([
      'sessions',
      'show',
      sessionId,
    ]);
    expect(session.session.id).toBe(sessionId);
    expect(session.runs.map((run) => run.id)).toEqual([id]);
    expect(session.messages.length).toBeGreaterThan(0);
    const sessionText = await cli(['sessions', 'show', sessionId]);
    expect(sessionText.stdout).toContain('Which OS is this?');

    expect((await cli(['sessions', 'rename', sessionId, 'OS', 'check'])).stdout).toContain('OS check');
    expect(await json<{ title: string }[]>(['sessions', 'list', '--search', 'OS check'])).toEqual([
      expect.objectContaining({ id: sessionId, title: 'OS check' }),
    ]);

    const missing = await cli(['runs', 'show', 'no-such-run']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^nextai: .*no run no-such-run/im);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    expect((await cli(['runs', 'stop', 'no-such-run'])).code).toBe(1);
    expect((await cli(['sessions', 'show', 'no-such-session'])).code).toBe(1);

    expect((await cli(['sessions', 'delete', sessionId])).code).toBe(0);
    expect(await json(['sessions', 'list'])).toEqual([]);
    // The run stays in the history.
    expect(await json<RunView[]>(['runs', 'list'])).toEqual([expect.objectContaining({ id })]);
  });
});

describe('a run that waits for the person', () => {
  it('prints how to approve a tool call; once approved the run finishes', async () => {
    // It writes in a folder outside every folder the sandbox may change (and not in /tmp, which
    // the sandbox has its own of): it asks to leave.
    const outside = fs.mkdtempSync('/var/tmp/nx-outside-');
    const command = `echo approved-run | tee ${outside}/approved.txt`;
    await setUp([
      { kind: 'tool_calls', calls: [{ name: 'bash_execute', input: { command } }] },
      { kind: 'text', text: 'The command printed approved-run.' },
    ]);
    const explained = await json(['policy', 'explain', 'bash_execute', JSON.stringify({ command })]);
    expect(explained).toMatchObject({ decision: 'require_approval', layer: 'sandbox', sandboxed: false });

    const run = startCli(['run', 'Run echo approved-run'], env());
    await expect.poll(() => run.output().stdout, { timeout: 30_000 }).toContain('nextai approvals approve ');
    const approvalId = /nextai approvals approve (\S+)/.exec(run.output().stdout)?.[1];
    expect(run.output().stdout).toContain(`nextai approvals deny ${approvalId}`);
    const pending = await json<{ id: string; tool: string }[]>(['approvals', 'list']);
    expect(pending).toEqual([expect.objectContaining({ id: approvalId, tool: 'bash_execute' })]);
    const waiting = await json<{ run: RunView & { approvals: string[] } }>([
      'runs',
      'show',
      runIdOf(run.output().stdout)!,
    ]);
    expect(waiting.run).toMatchObject({ state: 'waiting_approval', approvals: [approvalId] });

    expect((await cli(['approvals', 'approve', approvalId!])).code).toBe(0);
    expect(await run.exited).toBe(0);
    const out = run.output().stdout;
    expect(out).toMatch(/✓ approved by /);
    expect(out).toMatch(/✓ bash_execute/);
    expect(out).toMatch(/^✓ finished · /m);
    expect(fs.readFileSync(path.join(outside, 'approved.txt'), 'utf8')).toBe('approved-run\n');
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('prints a question with the command that answers it; `runs answer` lets the run finish', async () => {
    await setUp([
      {
        kind: 'tool_calls',
        calls: [{ name: 'ask_user', input: { question: 'Which colour?', options: ['red', 'blue'] } }],
      },
      { kind: 'text', text: 'Blue it is.' },
    ]);
    const run = startCli(['run', 'Pick a colour with me'], env());
    await expect.poll(() => run.output().stdout, { timeout: 30_000 }).toContain('nextai runs answer ');
    const id = runIdOf(run.output().stdout)!;
    expect(run.output().stdout).toContain('? The agent asks: Which colour?');
    expect(run.output().stdout).toContain('options: red · blue');
    expect(run.output().stdout).toContain(`nextai runs answer ${id} "<answer>"`);
    const waiting = await json<{ run: RunView & { question: { question: string } | null } }>(['runs', 'show', id]);
    expect(waiting.run).toMatchObject({ state: 'waiting_user', question: { question: 'Which colour?' } });
    expect((await runCli(['runs', 'list', '--state', 'waiting_user'], env())).stdout).toContain(id);

    const answered = await cli(['runs', 'answer', id, 'blue']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(await run.exited).toBe(0);
    expect(run.output().stdout).toMatch(/✓ answered by /);
    expect(run.output().stdout).toMatch(/^✓ finished · /m);
    // The model got the answer as the tool's result.
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('blue');
  });

  it('`runs stop` ends a run whose model hangs; `nextai run` exits with the stopped code', async () => {
    await setUp([{ kind: 'hang' }]);
    const run = startCli(['run', 'Think for a long time'], env());
    await server.waitForRequests(1);
    await expect.poll(() => runIdOf(run.output().stdout)).toBeDefined();
    const id = runIdOf(run.output().stdout)!;
    const stopped = await cli(['runs', 'stop', id, '--reason', 'taking too long']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain(`stopped run ${id}`);
    expect(await run.exited).toBe(EXIT_STOPPED);
    expect(run.output().stdout).toMatch(/^■ stopped · /m);
    expect((await json<{ run: RunView }>(['runs', 'show', id])).run.state).toBe('stopped');
  });

  it('Ctrl-C detaches: the run goes on and the CLI says how to follow or stop it', async () => {
    await setUp([{ kind: 'hang' }]);
    const run = startCli(['run', 'Think for a long time'], env());
    await server.waitForRequests(1);
    await expect.poll(() => runIdOf(run.output().stdout)).toBeDefined();
    const id = runIdOf(run.output().stdout)!;
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(EXIT_INTERRUPTED);
    expect(run.output().stderr).toContain(`nextai runs show ${id} --follow`);
    expect(run.output().stderr).toContain(`nextai runs stop ${id}`);
    expect((await json<{ run: RunView }>(['runs', 'show', id])).run.state).toBe('running');
    expect((await cli(['runs', 'stop', id])).code).toBe(0);
  });
});
