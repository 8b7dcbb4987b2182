import { expect, test } from '@playwright/test';

import {
  BROWSER_TASKS,
  callAsking,
  cliTools,
  writeBlockingConfig,
  writeFixtureHostsConfig,
  type CallTool,
} from '../support/browser-tasks.js';
import { runCli } from '../support/cli.js';
import { BLOCKED_HOST, startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { launchFirefoxWithExtension, makeFirefoxHome, type FirefoxWithExtension } from '../support/firefox.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

// The same browser tools through the extension in Firefox (WebDriver BiDi drives the browser; the
// daemon calls the tools, the add-on runs them).
/** What the test asks the add-on's page of its tabs and their groups. */
interface FirefoxGroups {
  tabs: { get(id: number): Promise<{ groupId?: number }> };
  tabGroups: { get(id: number): Promise<{ title?: string }> };
}

let home: TestHome;
let firefox: FirefoxWithExtension | undefined;
let site: FixtureSite;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await firefox?.close();
  firefox = undefined;
  await home.cleanup();
  await site.close();
});

/**
 * Firefox with the add-on, connected to a fresh daemon that blocks the fixture's partner host —
 * or, `defaults`, one with the default configuration but for the fixture's loopback host named
 * (which the browser tools refuse otherwise).
 */
async function start(defaults = false): Promise<{ call: CallTool; env: NodeJS.ProcessEnv }> {
  site = await startFixtureSite();
  home = makeHome();
  if (defaults) {
    writeFixtureHostsConfig(home.dir);
  } else {
    writeBlockingConfig(home.dir);
  }
  const env = { ...home.env, HOME: makeFirefoxHome() };
  expect((await runCli(['install', '--browser', 'firefox'], env)).code).toBe(0);
  firefox = await launchFirefoxWithExtension(env.HOME!, env);
  await firefox.openSidebarPage();
  await expect
    .poll(async () => {
      const status = await runCli(['status', '--json'], env);
      return status.code === 0 ? (JSON.parse(status.stdout) as { clients: { name: string }[] }).clients : [];
    })
    .toEqual(expect.arrayContaining([expect.objectContaining({ name: 'firefox' })]));
  return { call: cliTools(env), env };
}

test('Firefox: a React form and a blocked redirect through the add-on', async () => {
  const { call } = await start();
  await BROWSER_TASKS.reactForm(call, site);
  await BROWSER_TASKS.blockedDomains(call, site);
});

test('Firefox: a sign-in reached by a key alias, focus, the button’s text or a label waits for the person', async () => {
  const { call, env } = await start();
  await BROWSER_TASKS.credentialBypassesNeedApproval(call, site, env);
});

test('Firefox: going back to a blocked page the back/forward cache restores is refused', async () => {
  const { call, env } = await start();
  // The person browsed the blocked site, then an allowed page, in the tab they give the agent.
  const page = await firefox!.browser.newPage();
  await page.goto(`http://${BLOCKED_HOST}:${site.port}/landing.html?cacheable`);
  await page.goto(site.url('index.html'));
  const tabs = (await call('browser_tabs', { action: 'list' })).output?.tabs as { tab_id: number; url: string }[];
  const given = tabs.find((tab) => tab.url.endsWith('/index.html'))!;
  await callAsking(env, 'browser_tabs', { action: 'attach', tab_id: given.tab_id }, 'approve', { layer: 'tab_access' });
  const landingHits = () => site.blockedHits().filter((hit) => hit.path.startsWith('/landing.html')).length;
  const hits = landingHits();
  const back = await call('browser_navigate', { url: 'back' });
  // Firefox restored the page from its cache: no request, so nothing the browser's rules could stop
  // (Chromium flushes that cache when the rules change, and never shows it here).
  const now = (await call('browser_tabs', { action: 'list' })).output?.tabs as { tab_id: number; url: string }[];
  expect(now.find((tab) => tab.tab_id === given.tab_id)?.url).toContain(BLOCKED_HOST);
  expect(await page.evaluate(() => document.title)).toBe('Landing');
  expect(landingHits()).toBe(hits);
  expect(back.error?.code, JSON.stringify(back)).toBe('POLICY_BLOCKED');
  expect((await call('browser_snapshot', {})).error?.code).toBe('POLICY_BLOCKED');
  expect((await call('browser_extract', { type: 'text' })).error?.code).toBe('POLICY_BLOCKED');
});

test('Firefox, default configuration: the first browser_navigate loads the page asked for, and the emergency stop reaches the tab', async () => {
  const { call, env } = await start(true);
  const opened = await call('browser_navigate', { url: site.url('table.html') });
  expect(opened.ok, JSON.stringify(opened.error)).toBe(true);
  expect(opened.output?.url).toBe(site.url('table.html'));
  const seen = await call('browser_snapshot', {});
  expect(String(seen.output?.snapshot)).toMatch(/\[e1\]/);
  // The agent's tab is in the window's "NextAI" tab group, as in Chromium.
  const sidebar = await firefox!.openSidebarPage();
  const group = await sidebar.evaluate(async (id) => {
    const api = (globalThis as unknown as { browser: FirefoxGroups }).browser;
    const tab = await api.tabs.get(id);
    return tab.groupId === undefined || tab.groupId === -1 ? undefined : (await api.tabGroups.get(tab.groupId)).title;
  }, opened.output?.tab_id as number);
  expect(group).toBe('NextAI');

  // A page that never finishes loading, then the stop: the call ends, and the tab stops loading.
  const navigating = call('browser_navigate', { url: site.url('never'), timeout: 60_000 });
  await expect.poll(() => site.neverLoads().open, { timeout: 20_000 }).toBe(1);
  expect((await runCli(['stop', '--reason', 'e2e: stop while a page loads'], env)).code).toBe(0);
  expect((await navigating).error?.code).toBe('EMERGENCY_STOPPED');
  await expect.poll(() => site.neverLoads(), { timeout: 5_000 }).toEqual({ open: 0, abandoned: 1 });
  expect((await runCli(['stop', '--reset'], env)).code).toBe(0);
});
