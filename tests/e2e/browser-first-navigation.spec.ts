import { expect, test } from '@playwright/test';

import { cliTools, writeFixtureHostsConfig } from '../support/browser-tasks.js';
import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, type ExtensionBrowser } from '../support/chromium.js';
import { startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

// A new user's first browser call: the default configuration, a fresh profile, and a new tab
// opened for the navigation. The new tab's own blank page must not be taken for the page asked
// for. The one setting is the fixture's loopback host, which the browser tools refuse unless
// security.allowed_domains names it (so a page cannot turn the agent against this computer).
/** What the test asks the extension's service worker of its tabs and their groups. */
interface ChromeGroups {
  tabs: { get(id: number): Promise<{ groupId: number }> };
  tabGroups: { get(id: number): Promise<{ title?: string }> };
}

let home: TestHome;
let browser: ExtensionBrowser | undefined;
let site: FixtureSite;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));

test.beforeEach(async () => {
  site = await startFixtureSite();
  home = makeHome();
  writeFixtureHostsConfig(home.dir);
  const profile = makeProfileDir();
  const installed = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  expect(installed.code, installed.stderr).toBe(0);
  browser = await launchWithExtension(profile, home.env);
  await expect
    .poll(async () => {
      const status = await runCli(['status', '--json'], home.env);
      return status.code === 0 ? (JSON.parse(status.stdout) as { clients: { kind: string }[] }).clients : [];
    })
    .toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'extension' })]));
});

test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await home.cleanup();
  await site.close();
});

test('with the default configuration (the fixture host named), the first browser_navigate opens a tab on the page asked for, loaded', async () => {
  const call = cliTools(home.env);
  for (const name of ['modal.html', 'table.html']) {
    // Each closed tab leaves the next navigation to open a new one again.
    const opened = await call('browser_navigate', { url: site.url(name) });
    expect(opened.ok, JSON.stringify(opened.error)).toBe(true);
    expect(opened.output?.url).toBe(site.url(name));
    const seen = await call('browser_snapshot', {});
    expect(seen.ok, JSON.stringify(seen.error)).toBe(true);
    expect(String(seen.output?.snapshot)).toMatch(/\[e1\]/);
    // The person sees which tab is the agent's: it is in the window's "NextAI" tab group.
    const tabId = opened.output?.tab_id as number;
    const group = await browser!.serviceWorker.evaluate(async (id) => {
      const api = (globalThis as unknown as { chrome: ChromeGroups }).chrome;
      const tab = await api.tabs.get(id);
      if (tab.groupId === -1) return undefined;
      const found = await api.tabGroups.get(tab.groupId);
      return found.title;
    }, tabId);
    expect(group).toBe('NextAI');
    expect((await call('browser_tabs', { action: 'close' })).ok).toBe(true);
  }
});

test('the emergency stop reaches the tab: a navigation still loading ends at once, and the page stops loading', async () => {
  const call = cliTools(home.env);
  // A page that never finishes: the call would wait its whole time limit (a minute here).
  const navigating = call('browser_navigate', { url: site.url('never'), timeout: 60_000 });
  await expect.poll(() => site.neverLoads().open, { timeout: 20_000 }).toBe(1);

  const stopped = await runCli(['stop', '--reason', 'e2e: stop while a page loads'], home.env);
  expect(stopped.code, stopped.stderr).toBe(0);
  const result = await navigating;
  expect(result.ok).toBe(false);
  expect(result.error?.code).toBe('EMERGENCY_STOPPED');
  // The extension was told (not only the daemon's caller): it stopped waiting, and the tab
  // stopped loading the page, as the browser's Stop button does.
  await expect.poll(() => site.neverLoads(), { timeout: 5_000 }).toEqual({ open: 0, abandoned: 1 });
  expect((await runCli(['stop', '--reset'], home.env)).code).toBe(0);
});

test('a page that sends itself on twice is followed to where it arrives; a tab closed during a call says so at once', async () => {
  const call = cliTools(home.env);
  const arrived = await call('browser_navigate', { url: site.url('js-hop?n=2') });
  expect(arrived.ok, JSON.stringify(arrived.error)).toBe(true);
  expect(arrived.output).toMatchObject({ url: site.url('js-hop?n=0'), title: 'Arrived' });

  // The person closes the agent's tab while a page in it is still loading.
  const navigating = call('browser_navigate', { url: site.url('never'), timeout: 60_000 });
  await expect.poll(() => site.neverLoads().open, { timeout: 20_000 }).toBe(1);
  const tab = browser!.context.pages().find((page) => page.url().includes('/never'));
  await tab!.close();
  const closed = await navigating;
  expect(closed.ok).toBe(false);
  expect(closed.error?.code).toBe('TAB_CLOSED');
  expect(closed.error?.message).toMatch(/was closed/);
  // The run can go on: the next navigation opens a new tab.
  expect((await call('browser_navigate', { url: site.url('index.html') })).ok).toBe(true);
});
