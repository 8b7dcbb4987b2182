import assert from 'node:assert/strict';
import fs from 'node:fs';

import { runCli, startCli } from './cli.js';
import type { FixtureSite } from './fixture-site.js';

/** One tool call through the daemon's chokepoint, as `nextai tool … --json` prints it. */
export interface ToolCallResult {
  ok: boolean;
  output?: Record<string, unknown>;
  error?: { code: string; message: string };
  decision?: { action: string; layer: string; reason: string };
}

export type CallTool = (name: string, input: object) => Promise<ToolCallResult>;

export function cliTools(env: NodeJS.ProcessEnv): CallTool {
  return async (name, input) => {
    const result = await runCli(['tool', name, JSON.stringify(input), '--json'], env, 60_000);
    try {
      return JSON.parse(result.stdout) as ToolCallResult;
    } catch {
      throw new Error(`nextai tool ${name} printed no JSON (exit ${result.code}): ${result.stdout}\n${result.stderr}`);
    }
  };
}

/**
 * The fixture site's hosts on loopback (127.0.0.1, and localhost for its other origin), which
 * the browser tools refuse unless security.allowed_domains names them exactly; "*" keeps every
 * other site allowed, as with no allow list.
 */
export const FIXTURE_ALLOWED_DOMAINS = ['*', '127.0.0.1', 'localhost'] as const;

/**
 * A policy that blocks the fixture's partner host, as a person's blocked_domains would, and
 * names the fixture's own loopback hosts so the browser tools may open them.
 */
/**
 * The default configuration, but for the fixture's loopback hosts named in allowed_domains (the
 * browser tools refuse loopback addresses otherwise): what a new user has, on the test site.
 */
export function writeFixtureHostsConfig(home: string): void {
  fs.writeFileSync(
    `${home}/config.json`,
    JSON.stringify({ security: { allowed_domains: [...FIXTURE_ALLOWED_DOMAINS] } }),
    {
      mode: 0o600,
    },
  );
}

export function writeBlockingConfig(home: string): void {
  fs.writeFileSync(
    `${home}/config.json`,
    JSON.stringify(
      { security: { blocked_domains: ['127.0.0.2'], allowed_domains: [...FIXTURE_ALLOWED_DOMAINS] } },
      null,
      2,
    ),
  );
}

function output(result: ToolCallResult): Record<string, unknown> {
  assert.equal(result.ok, true, `the call failed: ${JSON.stringify(result.error)}`);
  return result.output as Record<string, unknown>;
}

async function snapshot(call: CallTool): Promise<string> {
  return String(output(await call('browser_snapshot', {})).snapshot);
}

/** The ref the snapshot gives an element described as `role "name"`. */
function refOf(text: string, role: string, name: string): string {
  const match = new RegExp(`\\[(e\\d+)\\] ${role} "${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`).exec(text);
  assert.ok(match, `no ${role} "${name}" in the snapshot:\n${text}`);
  return match[1] as string;
}

/**
 * The fixture tasks both paths run — the extension in a real Chromium (e2e) and the daemon's
 * headless Chromium (integration) — with the same expectations.
 */
export const BROWSER_TASKS = {
  async reactForm(call: CallTool, site: FixtureSite): Promise<void> {
    output(await call('browser_navigate', { url: site.url('react-form.html') }));
    const first = await snapshot(call);
    assert.match(first, /button "Place request" disabled/);
    output(await call('browser_interact', { action: 'fill', ref: refOf(first, 'textbox', 'Your name'), value: 'Ada' }));
    output(await call('browser_interact', { action: 'fill', selector: 'Email', value: 'ada@example.org' }));
    output(await call('browser_interact', { action: 'select', selector: 'Size', value: 'Large' }));
    output(await call('browser_interact', { action: 'check', selector: 'I agree to the terms' }));
    const filled = await snapshot(call);
    // React saw every change: its own state renders the preview and enables the button.
    assert.match(filled, /\+.*Hello, Ada \(l\)/);
    assert.doesNotMatch(filled, /Place request" disabled/);
    output(await call('browser_interact', { action: 'click', selector: 'Place request' }));
    assert.match(await snapshot(call), /Saved: \{"name":"Ada","email":"ada@example.org","agree":true,"size":"l"\}/);
    assert.deepEqual(
      site.submissions('react').map((request) => JSON.parse(request.body)),
      [{ name: 'Ada', email: 'ada@example.org', agree: true, size: 'l' }],
    );
  },

  async validatedForm(call: CallTool, site: FixtureSite): Promise<void> {
    output(await call('browser_navigate', { url: site.url('form.html') }));
    await snapshot(call);
    output(await call('browser_interact', { action: 'fill', selector: 'Email', value: 'not-an-address' }));
    output(await call('browser_interact', { action: 'click', selector: 'Save details' }));
    const invalid = await snapshot(call);
    assert.match(invalid, /Please enter your name\./);
    assert.match(invalid, /textbox "Email" ="not-an-address" email required invalid/);
    assert.equal(site.submissions('contact').length, 0);
    output(await call('browser_interact', { action: 'fill', selector: 'Full name', value: 'Grace Hopper' }));
    output(await call('browser_interact', { action: 'fill', selector: 'Email', value: 'grace@example.org' }));
    output(await call('browser_interact', { action: 'select', selector: 'Country', value: 'Japan' }));
    output(await call('browser_interact', { action: 'check', selector: 'Pro' }));
    output(await call('browser_interact', { action: 'check', selector: 'Send me the newsletter' }));
    const submitted = output(
      await call('browser_interact', { action: 'press', selector: 'Full name', value: 'Enter' }),
    );
    assert.equal(submitted.navigated, true);
    const [post] = site.submissions('contact');
    assert.ok(post, 'the form was posted');
    assert.equal(
      post.body,
      'name=Grace+Hopper&email=grace%40example.org&age=&country=jp&plan=pro&newsletter=on&comments=',
    );
  },

  async widgets(call: CallTool, site: FixtureSite): Promise<void> {
    // Shadow DOM: refs reach into open shadow roots and slots.
    output(await call('browser_navigate', { url: site.url('shadow.html') }));
    const shadow = await snapshot(call);
    output(await call('browser_interact', { action: 'click', ref: refOf(shadow, 'button', 'Increment') }));
    output(await call('browser_interact', { action: 'fill', ref: refOf(shadow, 'textbox', 'Query'), value: 'boots' }));
    output(await call('browser_interact', { action: 'click', selector: 'Go' }));
    const after = await snapshot(call);
    assert.match(after, /\+Count: 1/);
    assert.match(after, /Results for boots/);

    // A same-origin frame is part of the snapshot; another origin's is named, not read.
    output(await call('browser_navigate', { url: site.url('iframe.html') }));
    const frames = await snapshot(call);
    assert.match(frames, /iframe "City picker"/);
    assert.match(frames, /iframe \(another site: http:\/\/localhost:\d+\/landing\.html; its content cannot be read/);
    output(await call('browser_interact', { action: 'fill', ref: refOf(frames, 'textbox', 'City'), value: 'Lyon' }));
    output(await call('browser_interact', { action: 'click', ref: refOf(frames, 'button', 'Save city') }));
    assert.match(await snapshot(call), /Saved city: Lyon/);

    // Sorting a table by clicking its header.
    output(await call('browser_navigate', { url: site.url('table.html') }));
    await snapshot(call);
    output(await call('browser_interact', { action: 'click', selector: 'Name' }));
    const tables = output(await call('browser_extract', { type: 'tables' })).tables as string[][][];
    assert.deepEqual(
      tables[0]?.map((row) => row[0]),
      ['Name', 'Alex', 'Bo', 'Mina', 'Zoe'],
    );

    // A modal dialog covers the page: a click behind it is refused, Escape closes it.
    output(await call('browser_navigate', { url: site.url('modal.html') }));
    await snapshot(call);
    output(await call('browser_interact', { action: 'click', selector: 'Close my account…' }));
    const modal = await snapshot(call);
    assert.match(modal, /dialog "Close the account\?" \(modal\):/);
    const covered = await call('browser_interact', { action: 'click', selector: 'Export data' });
    assert.equal(covered.error?.code, 'NOT_ACTIONABLE');
    assert.match(covered.error?.message ?? '', /covered by .*dialog "Close the account\?"/);
    output(await call('browser_interact', { action: 'press', selector: 'Keep it', value: 'Escape' }));
    output(await call('browser_interact', { action: 'click', selector: 'Export data' }));
    assert.match(await snapshot(call), /Export started/);
  },

  async loadingPages(call: CallTool, site: FixtureSite): Promise<void> {
    // The slow report: the action waits for its request and the DOM to settle, no fixed sleep.
    output(await call('browser_navigate', { url: site.url('slow.html') }));
    await snapshot(call);
    output(await call('browser_interact', { action: 'click', selector: 'Load report' }));
    assert.match(String(output(await call('browser_extract', { type: 'text' })).content), /Report ready: 42 orders/);

    // Infinite scroll: scrolling to the bottom loads the next page of stories.
    output(await call('browser_navigate', { url: site.url('infinite.html') }));
    assert.doesNotMatch(await snapshot(call), /Story 21/);
    output(await call('browser_interact', { action: 'scroll', value: 'bottom' }));
    assert.match(await snapshot(call), /\+- Story 21/);
  },

  async blockedDomains(call: CallTool, site: FixtureSite): Promise<void> {
    output(await call('browser_navigate', { url: site.url('index.html') }));
    await snapshot(call);
    const typed = await call('browser_navigate', { url: `http://127.0.0.2:${site.port}/landing.html` });
    assert.equal(typed.error?.code, 'POLICY_BLOCKED');
    assert.equal(typed.decision?.layer, 'network');
    const redirected = await call('browser_interact', { action: 'click', selector: 'Partner offers' });
    assert.equal(redirected.error?.code, 'POLICY_BLOCKED', JSON.stringify(redirected));
    output(await call('browser_navigate', { url: site.url('index.html') }));
    await snapshot(call);
    const clicked = await call('browser_interact', { action: 'click', selector: 'Partner site' });
    assert.equal(clicked.error?.code, 'POLICY_BLOCKED', JSON.stringify(clicked));
    // The blocked host never got a single request: not the redirect target, not the link.
    assert.deepEqual(site.blockedHits(), []);
    assert.ok(site.requests.some((request) => request.path === '/redirect?to=blocked'));
  },

  async badInput(call: CallTool, site: FixtureSite): Promise<void> {
    output(await call('browser_navigate', { url: site.url('modal.html') }));
    const before = await snapshot(call);
    const ref = refOf(before, 'button', 'Export data');
    assert.equal(
      (await call('browser_interact', { action: 'click', selector: 'button' })).error?.code,
      'AMBIGUOUS_TARGET',
    );
    assert.equal(
      (await call('browser_interact', { action: 'click', selector: 'No such thing' })).error?.code,
      'NOT_FOUND',
    );
    output(await call('browser_navigate', { url: 'reload' }));
    const stale = await call('browser_interact', { action: 'click', ref });
    assert.equal(stale.error?.code, 'STALE_REF');
    assert.match(stale.error?.message ?? '', /browser_snapshot/);
  },

  /** A credential form a page asks for: the person is asked; denied, nothing leaves the browser. */
  async credentialFormNeedsApproval(call: CallTool, site: FixtureSite, env: NodeJS.ProcessEnv): Promise<void> {
    output(await call('browser_navigate', { url: site.url('attack-login.html') }));
    const page = await snapshot(call);
    output(await call('browser_interact', { action: 'fill', ref: refOf(page, 'textbox', 'Username'), value: 'ada' }));
    await deniedAfterAsking(env, { action: 'click', selector: 'Sign in' }, /password field/);
    assert.equal(site.submissions('login').length, 0);
  },

  /**
   * The same sign-in reached without naming its submit button — a key alias, Space on the button,
   * a key "on" something that leaves the focus in the password field, a click on the button's text
   * or on a label for it: each is asked for, and denied, nothing is sent.
   */
  async credentialBypassesNeedApproval(call: CallTool, site: FixtureSite, env: NodeJS.ProcessEnv): Promise<void> {
    output(await call('browser_navigate', { url: site.url('attack-keys.html') }));
    await snapshot(call);
    const bypasses = [
      { action: 'press', selector: 'Username', value: 'Return' },
      { action: 'press', selector: '#continue', value: 'Space' },
      { action: 'press', selector: '#next-step', value: 'Enter' },
      { action: 'click', selector: '#continue-text' },
      { action: 'click', selector: '#finish' },
    ];
    for (const input of bypasses) {
      await deniedAfterAsking(env, input, /password field/);
      assert.equal(site.submissions('login-keys').length, 0, `${JSON.stringify(input)} sent the form`);
    }
  },
};

/** Calls browser_interact; the call must wait for the person (layer web_content, `reason`), who denies it. */
async function deniedAfterAsking(env: NodeJS.ProcessEnv, input: object, reason: RegExp): Promise<void> {
  const answer = await callAsking(env, 'browser_interact', input, 'deny', { layer: 'web_content', reason });
  assert.equal(answer.error?.code, 'APPROVAL_DENIED');
}

/**
 * Calls `tool`, which must wait for the person (with `expected` layer and reason); answers the
 * approval with `answer` and returns the call's result.
 */
export async function callAsking(
  env: NodeJS.ProcessEnv,
  tool: string,
  input: object,
  answer: 'approve' | 'deny',
  expected: { layer: string; reason?: RegExp },
  /** What happens while the person looks at the card, before they answer. */
  meanwhile?: () => Promise<void>,
): Promise<ToolCallResult> {
  const asked = startCli(['tool', tool, JSON.stringify(input), '--json'], env);
  let pending: { id: string; layer: string; reason: string }[] = [];
  for (let tries = 0; tries < 200 && pending.length === 0; tries += 1) {
    const listed = await runCli(['approvals', 'list', '--json'], env);
    pending = JSON.parse(listed.stdout) as typeof pending;
    if (pending.length === 0) {
      // A call that ran without asking is done: say what it did instead of waiting on.
      if (asked.child.exitCode !== null)
        assert.fail(`${tool} ${JSON.stringify(input)} ran without asking: ${asked.output().stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  assert.equal(pending.length, 1, `${tool} ${JSON.stringify(input)} waits for the person`);
  assert.equal(pending[0]?.layer, expected.layer);
  if (expected.reason) assert.match(pending[0]?.reason ?? '', expected.reason);
  await meanwhile?.();
  const args =
    answer === 'deny'
      ? ['approvals', 'deny', pending[0]!.id, '--message', 'no']
      : ['approvals', 'approve', pending[0]!.id];
  assert.equal((await runCli(args, env)).code, 0);
  await asked.exited;
  return JSON.parse(asked.output().stdout) as ToolCallResult;
}
