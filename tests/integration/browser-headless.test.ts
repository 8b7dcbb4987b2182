import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { securityConfigSchema, type BrowserCallContext, type SecurityConfig } from '@nextai/shared';

import { HeadlessBrowser } from '../../native-host/src/browser/headless/headless-browser.js';
import type { HostCheck } from '../../native-host/src/browser/headless/policy-proxy.js';
import { navigationRules } from '../../native-host/src/browser/navigation-rules.js';
import { createLogger } from '../../native-host/src/core/logger.js';
import { systemResolver, type HostResolver } from '../../native-host/src/policy/guards/destination.js';
import { DomainGuard } from '../../native-host/src/policy/guards/domains.js';
import {
  BROWSER_TASKS,
  cliTools,
  FIXTURE_ALLOWED_DOMAINS,
  writeBlockingConfig,
  type CallTool,
} from '../support/browser-tasks.js';
import { CHROMIUM_PATH } from '../support/chromium.js';
import { runCli } from '../support/cli.js';
import { startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

// No browser is connected: the same tasks as tests/e2e/browser-tools.spec.ts run in the daemon's
// headless Chromium (playwright-core with the system browser, the page agent in an isolated
// world, the domain policy in a proxy), through the same chokepoint.
describe('browser tools without a connected browser (headless Chromium from the daemon)', () => {
  let home: TestHome;
  let site: FixtureSite;
  let call: CallTool;

  beforeAll(async () => {
    requireBuilt(CLI_BUNDLE);
    site = await startFixtureSite();
    home = makeHome();
    writeBlockingConfig(home.dir);
    call = cliTools(home.env);
  });

  afterAll(async () => {
    await home?.cleanup();
    await site?.close();
  });

  it('lists the browser tools as available with no extension connected', async () => {
    const listed = JSON.parse((await runCli(['tool', '--list', '--json'], home.env)).stdout) as {
      name: string;
      available: boolean;
    }[];
    for (const name of [
      'browser_navigate',
      'browser_interact',
      'browser_extract',
      'browser_snapshot',
      'browser_tabs',
    ]) {
      expect(listed.find((tool) => tool.name === name)?.available, name).toBe(true);
    }
  });

  it('a React form', () => BROWSER_TASKS.reactForm(call, site));
  it('a form with validation', () => BROWSER_TASKS.validatedForm(call, site));
  it('shadow DOM, frames, a sortable table and a modal dialog', () => BROWSER_TASKS.widgets(call, site));
  it('a slow page and an infinite list', () => BROWSER_TASKS.loadingPages(call, site));
  it('a blocked domain: typed, redirected to, clicked', () => BROWSER_TASKS.blockedDomains(call, site));
  it('stale refs, ambiguous and missing targets', () => BROWSER_TASKS.badInput(call, site));
  it('a credential form waits for the person', () => BROWSER_TASKS.credentialFormNeedsApproval(call, site, home.env));
  it('the same sign-in by key aliases, focus, the button’s text or a label waits for the person', () =>
    BROWSER_TASKS.credentialBypassesNeedApproval(call, site, home.env));

  it('refs survive a single-page app changing route (history.pushState, #hash)', async () => {
    const opened = await call('browser_navigate', { url: site.url('spa.html') });
    expect(opened.ok).toBe(true);
    const before = String((await call('browser_snapshot', {})).output?.snapshot);
    const ref = (role: string, name: string) => new RegExp(`\\[(e\\d+)\\] ${role} "${name}"`).exec(before)?.[1];
    const route = await call('browser_interact', { action: 'click', ref: ref('button', 'Open settings') });
    expect(route.ok, JSON.stringify(route.error)).toBe(true);
    expect(route.output?.url).toContain('?view=settings');
    const hash = await call('browser_interact', { action: 'click', ref: ref('link', 'Jump to details') });
    expect(hash.ok, JSON.stringify(hash.error)).toBe(true);
    // Refs from before the route changes still name the same elements: the document is the same.
    const added = await call('browser_interact', { action: 'click', ref: ref('button', 'Add one') });
    expect(added.ok, JSON.stringify(added.error)).toBe(true);
    const after = String((await call('browser_snapshot', {})).output?.snapshot);
    expect(after).toMatch(/Count: 1/);
    expect(after).toMatch(/# Settings/);
    // A route change that loads its data: the click returns once the data is in, as for the
    // extension, rather than at the URL change.
    const report = await call('browser_interact', { action: 'click', ref: ref('button', 'Open report') });
    expect(report.ok, JSON.stringify(report.error)).toBe(true);
    expect(report.output?.url).toContain('?view=report');
    expect(String((await call('browser_snapshot', {})).output?.snapshot)).toMatch(/Report total: 42/);
  });

  it('takes a screenshot and fetches a page without a browser, redirects checked', async () => {
    const shot = await call('browser_extract', { type: 'screenshot', full_page: true });
    expect(shot.ok).toBe(true);
    expect(Buffer.from(String(shot.output?.image), 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    const fetched = await call('web_fetch', { url: site.url('table.html') });
    expect(fetched.output?.content).toContain('| Mina | Design | 2021 |');
    const redirected = await call('web_fetch', { url: site.url('redirect?to=blocked') });
    expect(redirected.error?.code).toBe('POLICY_BLOCKED');
    expect(site.blockedHits()).toEqual([]);
  });

  it('the emergency stop closes the headless browser; the next call starts a fresh one', async () => {
    expect((await runCli(['stop', '--reason', 'test'], home.env)).code).toBe(0);
    expect((await call('browser_snapshot', {})).error?.code).toBe('EMERGENCY_STOPPED');
    expect((await runCli(['stop', '--reset'], home.env)).code).toBe(0);
    // The tab the agent had is gone with the browser.
    expect((await call('browser_snapshot', {})).error?.code).toBe('NOT_FOUND');
    expect((await call('browser_navigate', { url: site.url('index.html') })).ok).toBe(true);
  });
});

// The red team's call (a loopback or metadata address) through the daemon's chokepoint with no
// config.json at all: refused by the policy's network layer, saying how to allow it, and nothing
// reaches the address.
describe('with no config.json, the daemon refuses loopback and metadata addresses', () => {
  let home: TestHome;
  let site: FixtureSite;

  beforeAll(async () => {
    requireBuilt(CLI_BUNDLE);
    site = await startFixtureSite();
    home = makeHome();
  });
  afterAll(async () => {
    await home?.cleanup();
    await site?.close();
  });

  it('web_fetch of the metadata service and of 127.0.0.1, browser_navigate to localhost', async () => {
    const call = cliTools(home.env);
    const metadata = await call('web_fetch', {
      url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
    });
    expect(metadata.error?.code).toBe('POLICY_BLOCKED');
    expect(metadata.decision?.layer).toBe('network');
    expect(metadata.error?.message).toContain('add "169.254.169.254" to security.allowed_domains');
    for (const [tool, url] of [
      ['web_fetch', site.url('index.html')],
      ['browser_navigate', `http://localhost:${site.port}/index.html`],
      ['browser_navigate', `http://2130706433:${site.port}/index.html`],
    ] as const) {
      const refused = await call(tool, { url });
      expect(refused.error?.code, `${tool} ${url}`).toBe('POLICY_BLOCKED');
      expect(refused.decision?.layer).toBe('network');
    }
    expect(site.requests).toEqual([]);
  });
});

// The HeadlessBrowser itself, driven as the gateway drives it, for what the CLI cannot arrange:
// a task's grant, the idle close (its timer injected, fired by the test) and a close racing a call.
describe('the headless browser: grants, idle close, closing while a call starts', () => {
  // The fixture site is on loopback: the configuration names its hosts, as a person would.
  const security = securityConfigSchema.parse({
    blocked_domains: ['127.0.0.2'],
    allowed_domains: [...FIXTURE_ALLOWED_DOMAINS],
  });
  const guard = new DomainGuard(security);
  let site: FixtureSite;
  let profile: string;
  let browser: HeadlessBrowser;
  let timers: { fire: () => void; cancelled: boolean }[];

  const context = (runId: string, granted?: string[]): BrowserCallContext => ({
    run_id: runId,
    allow_sensitive: [],
    navigation: navigationRules(security, granted),
  });
  const navigate = (url: string, call: BrowserCallContext) => browser.call('browser_navigate', { url }, 'call', call);

  beforeAll(async () => {
    site = await startFixtureSite();
  });
  afterAll(async () => {
    await site?.close();
  });
  beforeEach(() => {
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-headless-'));
    timers = [];
    browser = new HeadlessBrowser({
      executablePath: CHROMIUM_PATH,
      userDataDir: path.join(profile, 'profile'),
      checkHost: hostCheck(guard),
      log: createLogger({ component: 'test', level: 'error' }),
      idleTimer: (fire) => {
        const timer = { fire, cancelled: false };
        timers.push(timer);
        return { cancel: () => (timer.cancelled = true) };
      },
    });
  });
  afterEach(async () => {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  });

  it("holds every request to a task's granted domains, redirects included, until the task ends", async () => {
    const elsewhere = site.url(`redirect?to=${encodeURIComponent(`http://localhost:${site.port}/landing.html`)}`);
    const granted = await navigate(elsewhere, context('granted-run', ['127.0.0.1']));
    expect(granted.ok ? 'opened' : granted.error.code).toBe('POLICY_BLOCKED');
    expect(site.requests.filter((request) => request.host === 'localhost')).toEqual([]);
    // One proxy serves every tab and cannot tell them apart: while the granted task has its tab,
    // another task's tab is held to the grant too (it fails closed, never open).
    expect((await navigate(elsewhere, context('other-run'))).ok).toBe(false);
    browser.forgetRun('granted-run');
    const other = await navigate(elsewhere, context('other-run'));
    expect(other.ok ? other.output : other.error).toMatchObject({ url: expect.stringContaining('localhost') });
  });

  it('is not closed as idle while a call holds it; the idle time counts from the last call, inspect included', async () => {
    expect((await navigate(site.url('modal.html'), context('run-1'))).ok).toBe(true);
    const inspected = await browser.inspect({ action: 'click', selector: 'Export data' }, 'call', context('run-1'));
    expect(inspected.target).toContain('Export data');
    // The countdown started by the navigation was replaced by one started by the inspection.
    expect(timers.map((timer) => timer.cancelled)).toEqual([true, false]);

    // A call waiting for the person (the gateway holds the browser that long): the idle time
    // passing closes nothing, even for a countdown already due.
    const release = browser.hold();
    for (const timer of timers) timer.fire();
    expect(browser.running).toBe(true);
    const click = await browser.call(
      'browser_interact',
      { action: 'click', selector: 'Export data' },
      'call',
      context('run-1'),
    );
    expect(click.ok, JSON.stringify(click)).toBe(true);
    release();
    timers.at(-1)?.fire();
    expect(browser.running).toBe(false);
  });

  it('a call that starts while the browser closes gets a browser that works', async () => {
    expect((await navigate(site.url('index.html'), context('run-1'))).ok).toBe(true);
    const closing = browser.close();
    const reopened = navigate(site.url('modal.html'), context('run-1'));
    await closing;
    const result = await reopened;
    expect(result.ok ? result.output : result.error).toMatchObject({ title: 'Modal dialog' });
    expect((await navigate(site.url('table.html'), context('run-1'))).ok).toBe(true);
  });
});

/** The daemon's check (daemon.ts): the domain guard's verdict, its explicit allowance included. */
function hostCheck(guard: DomainGuard): HostCheck {
  return (url) => {
    const verdict = guard.check(url);
    return { allowed: verdict.allowed, reason: verdict.reason?.en, explicitlyAllowed: verdict.explicitlyAllowed };
  };
}

// The agent's browser must not be turned against this computer or the local network
// (a router's admin page, a development server, the cloud metadata service) — not by an address
// it is told to open, not by a name that resolves there, not by what a page it may open loads.
describe('the headless browser and loopback, private and metadata addresses', () => {
  let server: http.Server;
  let port: number;
  /** Every request that reached the server: the host it named and the path. */
  const seen: { host: string; path: string }[] = [];
  let profile: string;
  let browser: HeadlessBrowser | undefined;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      seen.push({ host: (request.headers.host ?? '').replace(/:\d+$/, ''), path: url.pathname });
      if (url.pathname === '/to') {
        response.writeHead(302, { location: url.searchParams.get('url') ?? '/' }).end();
        return;
      }
      if (url.pathname === '/page') {
        const admin = (what: string) => `http://127.0.0.1:${port}/${what}`;
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        // Everything a public page could aim at the person's router or a local service; the load
        // event waits for the frames and images, and the synchronous request runs before it.
        response.end(`<!doctype html><title>A page</title>
<p>Hello</p>
<img src="/control.png">
<img src="${admin('admin.png')}">
<img src="http://169.254.169.254/latest/meta-data/">
<img src="http://router-admin.test:${port}/admin-by-name.png">
<iframe src="${admin('admin-frame')}"></iframe>
<iframe src="/to?url=${encodeURIComponent(admin('admin-redirect'))}"></iframe>
<script>
  const request = new XMLHttpRequest();
  request.open('GET', ${JSON.stringify(admin('admin-api'))}, false);
  try { request.send(); } catch (error) { /* refused, as it should be */ }
</script>`);
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end('admin');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-headless-private-'));
  });
  afterEach(async () => {
    await browser?.close();
    browser = undefined;
    fs.rmSync(profile, { recursive: true, force: true });
  });

  const open = (security: SecurityConfig, url: string, resolveHost?: HostResolver) => {
    browser = new HeadlessBrowser({
      executablePath: CHROMIUM_PATH,
      userDataDir: path.join(profile, 'profile'),
      checkHost: hostCheck(new DomainGuard(security)),
      ...(resolveHost ? { resolveHost } : {}),
      log: createLogger({ component: 'test', level: 'error' }),
    });
    const call: BrowserCallContext = { run_id: 'run', allow_sensitive: [], navigation: navigationRules(security) };
    return browser.call('browser_navigate', { url }, 'call', call);
  };
  const defaults = securityConfigSchema.parse({});
  const naming = (...hosts: string[]) => securityConfigSchema.parse({ allowed_domains: ['*', ...hosts] });

  it('refuses 127.0.0.1 and localhost with the default configuration (no config.json)', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const result = await open(defaults, `http://${host}:${port}/page`);
      expect(result.ok ? result.output : result.error, host).toMatchObject({
        code: 'POLICY_BLOCKED',
        message: expect.stringContaining('loopback address'),
      });
      await browser?.close();
    }
    expect(seen).toEqual([]);
  });

  it('refuses a name that resolves to 127.0.0.1, and opens it through the checked address once the configuration names it', async () => {
    const dns: HostResolver = (host) =>
      host === 'router-admin.test'
        ? Promise.resolve([{ address: '127.0.0.1', family: 4 }])
        : Promise.reject(new Error('ENOTFOUND'));
    const refused = await open(defaults, `http://router-admin.test:${port}/admin-page`, dns);
    expect(refused.ok ? refused.output : refused.error).toMatchObject({
      code: 'POLICY_BLOCKED',
      message: expect.stringContaining('router-admin.test resolves to 127.0.0.1'),
    });
    expect(seen).toEqual([]);
    await browser?.close();
    // No DNS server knows the name: it opens only because the proxy connects to the address it checked.
    const opened = await open(naming('router-admin.test'), `http://router-admin.test:${port}/admin-page`, dns);
    expect(opened.ok, JSON.stringify(opened)).toBe(true);
    expect(seen).toContainEqual({ host: 'router-admin.test', path: '/admin-page' });
  });

  it("a page it may open cannot make it reach a loopback address: not by images, frames, a frame's redirect, a script's request or a name", async () => {
    // localhost (the page) is named; 127.0.0.1 is in the allow list only through a wildcard,
    // which never names a host. router-admin.test resolves to 127.0.0.1 and is not named at all.
    const dns: HostResolver = (host) =>
      host === 'router-admin.test' ? Promise.resolve([{ address: '127.0.0.1', family: 4 }]) : systemResolver(host);
    const security = securityConfigSchema.parse({ allowed_domains: ['localhost', '127.*', 'router-admin.test.*'] });
    const result = await open(security, `http://localhost:${port}/page`, dns);
    expect(result.ok ? result.output : result.error).toMatchObject({ title: 'A page' });
    // The page's own requests went out (the control image and the frame's first hop)...
    expect(seen).toEqual(
      expect.arrayContaining([
        { host: 'localhost', path: '/page' },
        { host: 'localhost', path: '/control.png' },
        { host: 'localhost', path: '/to' },
      ]),
    );
    // ...and none of those aimed at 127.0.0.1 arrived.
    expect(seen.filter((request) => request.host !== 'localhost')).toEqual([]);
  });
});
