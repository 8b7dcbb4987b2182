import { expect, test } from '@playwright/test';

import { BROWSER_TASKS, cliTools, writeBlockingConfig, type CallTool } from '../support/browser-tasks.js';
import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, type ExtensionBrowser } from '../support/chromium.js';
import { startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

// The daemon calls the browser tools; the extension in a real Chromium runs them (issue #7).
let home: TestHome;
let browser: ExtensionBrowser | undefined;
let site: FixtureSite;
let call: CallTool;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));

test.beforeEach(async () => {
  site = await startFixtureSite();
  home = makeHome();
  writeBlockingConfig(home.dir);
  const profile = makeProfileDir();
  const installed = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  expect(installed.code, installed.stderr).toBe(0);
  browser = await launchWithExtension(profile, home.env);
  // The browser tools go to the extension once it has said hello to the daemon.
  await expect
    .poll(async () => {
      const status = await runCli(['status', '--json'], home.env);
      return status.code === 0 ? (JSON.parse(status.stdout) as { clients: { kind: string }[] }).clients : [];
    })
    .toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'extension' })]));
  call = cliTools(home.env);
});

test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await home.cleanup();
  await site.close();
});

test('a React form: fills, selects, checks and submits so that React sees every change', async () => {
  await BROWSER_TASKS.reactForm(call, site);
});

test('a form with validation: the errors show in the snapshot, Enter submits the corrected form', async () => {
  await BROWSER_TASKS.validatedForm(call, site);
});

test('shadow DOM, a same-origin frame, a sortable table and a modal dialog', async () => {
  await BROWSER_TASKS.widgets(call, site);
});

test('a slow page and an infinite list: actions wait for the page to settle', async () => {
  await BROWSER_TASKS.loadingPages(call, site);
});

test('a blocked domain stays blocked when typed, redirected to and clicked; it never gets a request', async () => {
  await BROWSER_TASKS.blockedDomains(call, site);
});

test('stale refs, ambiguous and missing targets are errors the model can act on', async () => {
  await BROWSER_TASKS.badInput(call, site);
});

test('signing in on a page that asks for it waits for the person; denied, nothing is sent', async () => {
  await BROWSER_TASKS.credentialFormNeedsApproval(call, site, home.env);
});

test('the same sign-in by a key alias, Space, a key the password field keeps, a click on its text or label: each waits for the person', async () => {
  await BROWSER_TASKS.credentialBypassesNeedApproval(call, site, home.env);
});

test('tabs: the agent lists every tab but acts only in its own; restricted pages are refused clearly', async () => {
  const page = await browser!.context.newPage();
  await page.goto(site.url('landing.html'));
  const listed = await call('browser_tabs', { action: 'list' });
  const tabs = (listed.output?.tabs ?? []) as { tab_id: number; url: string; agent: boolean }[];
  const personal = tabs.find((tab) => tab.url.endsWith('/landing.html'));
  expect(personal).toMatchObject({ agent: false });
  const refused = await call('browser_snapshot', { tab_id: personal!.tab_id });
  expect(refused.error?.code).toBe('TAB_NOT_GIVEN');
  expect(refused.error?.message).toContain('attach');

  const opened = await call('browser_tabs', { action: 'open', url: site.url('index.html') });
  expect(opened.ok).toBe(true);
  const own = opened.output?.tab_id as number;
  expect((await call('browser_snapshot', {})).output?.tab_id).toBe(own);
  const restricted = await call('browser_navigate', { url: 'chrome://settings' });
  expect(restricted.error?.code).toBe('POLICY_BLOCKED');
  const closed = await call('browser_tabs', { action: 'close', tab_id: own });
  expect(closed.ok).toBe(true);
  expect((await call('browser_snapshot', { tab_id: own })).error?.code).toBe('TAB_CLOSED');
});

/** What Chromium passes the right-click handler for "Let the agent handle this page" on `tab`. */
function rightClickPage(b: ExtensionBrowser, tab: { tab_id: number; url: string }) {
  return b.serviceWorker.evaluate(
    ({ id, url }) => {
      const api = globalThis as unknown as {
        nextaiContextMenu: {
          click(info: object, tab: object): unknown;
          menuItemId(kind: string): string;
        };
      };
      api.nextaiContextMenu.click(
        { menuItemId: api.nextaiContextMenu.menuItemId('page'), pageUrl: url },
        { id, url, title: 'given' },
      );
    },
    { id: tab.tab_id, url: tab.url },
  );
}

test('a right-click gives the agent that tab; a tab the person closes and a browser page are clear errors', async () => {
  const page = await browser!.context.newPage();
  await page.goto(site.url('table.html'));
  const tabs = (await call('browser_tabs', { action: 'list' })).output?.tabs as { tab_id: number; url: string }[];
  const mine = tabs.find((tab) => tab.url.endsWith('/table.html'))!;
  expect((await call('browser_snapshot', { tab_id: mine.tab_id })).error?.code).toBe('TAB_NOT_GIVEN');
  await rightClickPage(browser!, mine);
  await expect.poll(async () => (await call('browser_snapshot', {})).output?.tab_id).toBe(mine.tab_id);
  expect(String((await call('browser_snapshot', {})).output?.snapshot)).toContain('table "People"');

  // The person closes the tab the agent was working in.
  await page.close();
  const closed = await call('browser_snapshot', {});
  expect(closed.error?.code).toBe('TAB_CLOSED');
  expect(closed.error?.message).toContain('closed');

  // A browser page given to the agent cannot be read or acted on, and it says why.
  const settings = await browser!.context.newPage();
  await settings.goto('chrome://version');
  const all = (await call('browser_tabs', { action: 'list' })).output?.tabs as { tab_id: number; url: string }[];
  const version = all.find((tab) => tab.url.startsWith('chrome://version'))!;
  await rightClickPage(browser!, version);
  const restricted = await call('browser_snapshot', { tab_id: version.tab_id });
  expect(restricted.error?.code).toBe('RESTRICTED_PAGE');
  expect(restricted.error?.message).toContain('browser page');
});

test('screenshots of the visible area and of the whole page come back as JPEG', async () => {
  expect((await call('browser_navigate', { url: site.url('infinite.html') })).ok).toBe(true);
  const visible = await call('browser_extract', { type: 'screenshot' });
  expect(visible.ok, JSON.stringify(visible.error)).toBe(true);
  expect(Buffer.from(String(visible.output?.image), 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  const full = await call('browser_extract', { type: 'screenshot', full_page: true });
  expect(full.ok, JSON.stringify(full.error)).toBe(true);
  expect(String(full.output?.content)).toMatch(/JPEG of the (whole page|first \d+ screens)/);
});
