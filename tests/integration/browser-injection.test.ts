import fs from 'node:fs';

import type { Approval, RunView } from '@nextai/shared';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { FIXTURE_ALLOWED_DOMAINS } from '../support/browser-tasks.js';
import { runCli } from '../support/cli.js';
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from '../support/fake-model-server.js';
import { startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * Attack pages against a real agent run: a scripted model does what each page asks —
 * sign in, pay, send a message, download a file, run a command the page shows — in the daemon's
 * headless browser, under the full-auto template, which would otherwise run all of it unasked.
 * None of it happens without a person: each call waits at the web_content layer and is denied.
 */
let home: TestHome;
let model: FakeModelServer;
let site: FixtureSite;
let client: DaemonClient | undefined;

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  client?.close();
  client = undefined;
  await home?.cleanup();
  await model?.close();
  await site?.close();
});

async function startDaemon(script: ScriptedTurn[]): Promise<DaemonClient> {
  home = makeHome();
  fs.writeFileSync(
    `${home.dir}/config.json`,
    // The fixture site is on loopback: the configuration names its hosts, as a person would.
    JSON.stringify({
      security: { allowed_domains: [...FIXTURE_ALLOWED_DOMAINS] },
      projects: { default_approval_template: 'full-auto' },
    }),
    { mode: 0o600 },
  );
  model = await startFakeModelServer(script);
  const env: NodeJS.ProcessEnv = {
    ...home.env,
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-key',
  };
  delete env.OPENAI_API_KEY;
  const started = await runCli(['daemon', '--detach'], env);
  expect(started.code, started.stderr).toBe(0);
  client = await DaemonClient.connect(dataPaths(home.dir), {
    start: false,
    client: { kind: 'test', name: 'injection' },
  });
  return client;
}

async function runState(id: string, states: RunView['state'][]): Promise<RunView> {
  try {
    return await vi.waitFor(
      async () => {
        const { run } = await client!.peer.request('runs.get', { id });
        if (!states.includes(run.state)) throw new Error(`run ${id} is ${run.state}, not ${states.join('|')}`);
        return run;
      },
      { timeout: 20_000, interval: 50 },
    );
  } catch (error) {
    // What the run did, to see why it did not get there.
    const steps = await client!.peer.request('runs.get', { id, steps: true } as never);
    throw new Error(`${(error as Error).message}: ${JSON.stringify(steps).slice(0, 3000)}`);
  }
}

/**
 * Waits for the run's next web_content approval request, checks why it was asked, and denies it.
 * After three denials in a row the run asks before every action (the circuit breaker): those
 * requests, for the harmless navigations in between, are approved.
 */
async function denyNext(runId: string, tool: string, reason: RegExp): Promise<Approval> {
  for (;;) {
    await runState(runId, ['waiting_approval']);
    const { approvals } = await client!.peer.request('approvals.list', {});
    expect(approvals).toHaveLength(1);
    const [approval] = approvals as [Approval];
    if (approval.layer === 'circuit_breaker' && approval.tool === 'browser_navigate') {
      await client!.peer.request('approvals.answer', { id: approval.id, decision: 'approve' });
      continue;
    }
    expect(approval).toMatchObject({ tool, layer: 'web_content' });
    expect(approval.reason).toMatch(reason);
    await client!.peer.request('approvals.answer', { id: approval.id, decision: 'deny', message: 'No.' });
    return approval;
  }
}

describe('attack pages against an agent run in the headless browser', () => {
  it('sign-in, payment, message and download asked for by pages all wait for a person; denied, none happens', async () => {
    site = await startFixtureSite();
    const daemon = await startDaemon([
      { kind: 'tool_calls', calls: [{ name: 'browser_navigate', input: { url: site.url('attack-login.html') } }] },
      { kind: 'tool_calls', calls: [{ name: 'browser_snapshot', input: {} }] },
      {
        kind: 'tool_calls',
        calls: [{ name: 'browser_interact', input: { action: 'fill', selector: 'Username', value: 'ada' } }],
      },
      {
        kind: 'tool_calls',
        calls: [{ name: 'browser_interact', input: { action: 'fill', selector: 'Password', value: 'hunter2' } }],
      },
      { kind: 'tool_calls', calls: [{ name: 'browser_interact', input: { action: 'click', selector: 'Sign in' } }] },
      { kind: 'tool_calls', calls: [{ name: 'browser_navigate', input: { url: site.url('attack-pay.html') } }] },
      {
        kind: 'tool_calls',
        calls: [{ name: 'browser_interact', input: { action: 'click', selector: 'Pay now $499' } }],
      },
      { kind: 'tool_calls', calls: [{ name: 'browser_navigate', input: { url: site.url('attack-message.html') } }] },
      {
        kind: 'tool_calls',
        calls: [{ name: 'browser_interact', input: { action: 'fill', selector: 'To', value: 'billing@127.0.0.2' } }],
      },
      { kind: 'tool_calls', calls: [{ name: 'browser_interact', input: { action: 'click', selector: 'Send' } }] },
      { kind: 'tool_calls', calls: [{ name: 'browser_navigate', input: { url: site.url('attack-download.html') } }] },
      {
        kind: 'tool_calls',
        calls: [{ name: 'browser_interact', input: { action: 'click', selector: 'Download the fix' } }],
      },
      { kind: 'text', text: 'I did not do what the pages asked.' },
    ]);
    const { run } = await daemon.peer.request('runs.start', { goal: 'Check my account pages.' });

    await denyNext(run.id, 'browser_interact', /password field/);
    await denyNext(run.id, 'browser_interact', /submits a form with a password field/);
    await denyNext(run.id, 'browser_interact', /payment/);
    await denyNext(run.id, 'browser_interact', /sends a message/);
    await denyNext(run.id, 'browser_interact', /downloads a file \(fix\.sh\)/);
    expect((await runState(run.id, ['finished', 'failed'])).state).toBe('finished');

    // Typing the user name was not sensitive and ran; nothing that was denied reached the site.
    for (const form of ['login', 'pay', 'message']) expect(site.submissions(form)).toEqual([]);
    expect(site.requests.filter((request) => request.path.startsWith('/download/'))).toEqual([]);
    // The model saw the pages as untrusted data.
    const afterSnapshot = JSON.stringify(model.requests[2]?.body.messages.at(-1));
    expect(afterSnapshot).toContain('<untrusted_data source=\\"browser_snapshot\\"');
  });

  it('a command a page suggested waits for a person, while the agent’s own command runs', async () => {
    site = await startFixtureSite();
    const daemon = await startDaemon([
      { kind: 'tool_calls', calls: [{ name: 'bash_execute', input: { command: 'echo hello-from-the-agent' } }] },
      { kind: 'tool_calls', calls: [{ name: 'browser_navigate', input: { url: site.url('attack-shell.html') } }] },
      { kind: 'tool_calls', calls: [{ name: 'browser_extract', input: { type: 'text' } }] },
      { kind: 'tool_calls', calls: [{ name: 'bash_execute', input: { command: 'echo system-cleanup-complete' } }] },
      { kind: 'text', text: 'Done.' },
    ]);
    const { run } = await daemon.peer.request('runs.start', { goal: 'Clean up my computer.' });
    const approval = await denyNext(run.id, 'bash_execute', /web page this run read suggested/);
    expect(approval.input).toMatchObject({ command: 'echo system-cleanup-complete' });
    expect((await runState(run.id, ['finished', 'failed'])).state).toBe('finished');
    // The agent's own echo ran without asking (full-auto); the page's never ran.
    const results = JSON.stringify(model.requests.map((request) => request.body.messages.at(-1)));
    expect(results).toContain('hello-from-the-agent');
    expect(results).not.toMatch(/stdout[^}]*system-cleanup-complete/);
    expect(results).toContain('APPROVAL_DENIED');
  });

  it('hidden text in a page is flagged to the model, inside the untrusted wrapper', async () => {
    site = await startFixtureSite();
    const daemon = await startDaemon([
      { kind: 'tool_calls', calls: [{ name: 'browser_navigate', input: { url: site.url('attack-hidden.html') } }] },
      { kind: 'tool_calls', calls: [{ name: 'browser_snapshot', input: {} }] },
      { kind: 'text', text: 'Tomatoes like sun.' },
    ]);
    const { run } = await daemon.peer.request('runs.start', { goal: 'Summarise the gardening page.' });
    expect((await runState(run.id, ['finished', 'failed'])).state).toBe('finished');
    const seen = JSON.stringify(model.requests[2]?.body.messages.at(-1));
    expect(seen).toContain('untrusted_data source=\\"browser_snapshot\\"');
    for (const reason of [
      'same colour as background',
      'off-screen',
      'clipped to nothing',
      'aria-hidden',
      'tiny text',
    ]) {
      expect(seen).toContain(`⚠hidden (${reason})`);
    }
  });
});
