import { expect, test } from '@playwright/test';

import { BROWSER_TASKS, callAsking, cliTools, writeBlockingConfig, type CallTool } from '../support/browser-tasks.js';
import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, type ExtensionBrowser } from '../support/chromium.js';
import { BLOCKED_HOST, startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

// The daemon calls the browser tools; the extension in a real Chromium runs them.
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

test('a right-click gift waits for the run started from it: other callers must attach, which asks; a closed tab and a browser page are clear errors', async () => {
  const page = await browser!.context.newPage();
  await page.goto(site.url('table.html'));
  const tabs = (await call('browser_tabs', { action: 'list' })).output?.tabs as { tab_id: number; url: string }[];
  const mine = tabs.find((tab) => tab.url.endsWith('/table.html'))!;
  expect((await call('browser_snapshot', { tab_id: mine.tab_id })).error?.code).toBe('TAB_NOT_GIVEN');
  await rightClickPage(browser!, mine);
  // The right-click prepared a run; the CLI (or a schedule, or another run) is not that run.
  expect((await call('browser_snapshot', {})).error?.code).toBe('NOT_FOUND');
  expect((await call('browser_snapshot', { tab_id: mine.tab_id })).error?.code).toBe('TAB_NOT_GIVEN');
  const attached = await callAsking(home.env, 'browser_tabs', { action: 'attach', tab_id: mine.tab_id }, 'approve', {
    layer: 'tab_access',
  });
  expect(attached.output?.tab_id).toBe(mine.tab_id);
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
  await callAsking(home.env, 'browser_tabs', { action: 'attach', tab_id: version.tab_id }, 'approve', {
    layer: 'tab_access',
  });
  const restricted = await call('browser_snapshot', { tab_id: version.tab_id });
  expect(restricted.error?.code).toBe('RESTRICTED_PAGE');
  expect(restricted.error?.message).toContain('browser page');
});

test('attach without a tab_id takes the tab in front when the person is asked, named on the card — not the one in front when they answer', async () => {
  const table = await browser!.context.newPage();
  await table.goto(site.url('table.html'));
  await table.bringToFront();
  const form = await browser!.context.newPage();
  await form.goto(site.url('form.html'));
  await table.bringToFront();
  const tabs = (await call('browser_tabs', { action: 'list' })).output?.tabs as { tab_id: number; url: string }[];
  const tableTab = tabs.find((tab) => tab.url.endsWith('/table.html'))!;
  const attached = await callAsking(
    home.env,
    'browser_tabs',
    { action: 'attach' },
    'approve',
    { layer: 'tab_access', reason: /"Sortable table" at http:\/\/127\.0\.0\.1:\d+\/table\.html/ },
    // The person looks at another tab before answering.
    () => form.bringToFront(),
  );
  expect(attached.output?.tab_id, JSON.stringify(attached)).toBe(tableTab.tab_id);
  expect(String((await call('browser_snapshot', {})).output?.snapshot)).toContain('table "People"');
});

test('a link or pop-up to a blocked site in a new tab: the tab is the agent’s, and closed', async () => {
  expect((await call('browser_navigate', { url: site.url('attack-newtab.html') })).ok).toBe(true);
  await call('browser_snapshot', {});
  const tabsNow = async () =>
    (await call('browser_tabs', { action: 'list' })).output?.tabs as { tab_id: number; url: string; agent: boolean }[];
  expect((await call('browser_interact', { action: 'click', selector: 'Blocked partner in a new tab' })).ok).toBe(true);
  expect((await call('browser_interact', { action: 'click', selector: 'Blocked partner in a pop-up' })).ok).toBe(true);
  // An allowed page in a new tab stays open, as the agent's: its navigations follow the rules.
  expect((await call('browser_interact', { action: 'click', selector: 'Price table in a new tab' })).ok).toBe(true);
  await expect
    .poll(async () => (await tabsNow()).filter((tab) => tab.url.endsWith('/table.html')))
    .toEqual([expect.objectContaining({ agent: true })]);
  await expect.poll(async () => (await tabsNow()).filter((tab) => tab.url.includes(BLOCKED_HOST))).toEqual([]);
  const spawned = (await tabsNow()).find((tab) => tab.url.endsWith('/table.html'))!;
  const onward = await call('browser_navigate', {
    tab_id: spawned.tab_id,
    url: `http://${BLOCKED_HOST}:${site.port}/form.html`,
  });
  expect(onward.error?.code).toBe('POLICY_BLOCKED');
  expect(site.blockedHits().filter((hit) => hit.path === '/form.html')).toEqual([]);
});

test('a tab that already shows a blocked site when it is given is refused', async () => {
  // The person opened the blocked site themselves; the browser's rules never saw a request of the agent's.
  const page = await browser!.context.newPage();
  await page.goto(`http://${BLOCKED_HOST}:${site.port}/landing.html`);
  const tabs = (await call('browser_tabs', { action: 'list' })).output?.tabs as { tab_id: number; url: string }[];
  const given = tabs.find((tab) => tab.url.includes(BLOCKED_HOST))!;
  await callAsking(home.env, 'browser_tabs', { action: 'attach', tab_id: given.tab_id }, 'approve', {
    layer: 'tab_access',
  });
  for (const [tool, input] of [
    ['browser_snapshot', {}],
    ['browser_extract', { type: 'text' }],
    ['browser_extract', { type: 'screenshot' }],
    ['browser_interact', { action: 'scroll', value: 'down' }],
  ] as const) {
    const refused = await call(tool, input);
    expect(refused.error?.code, `${tool} ${JSON.stringify(input)}`).toBe('POLICY_BLOCKED');
  }
});

test('a ref from before browser_navigate is stale on the new page, not another element there', async () => {
  expect((await call('browser_navigate', { url: site.url('modal.html') })).ok).toBe(true);
  const before = String((await call('browser_snapshot', {})).output?.snapshot);
  const ref = /\[(e1)\]/.exec(before)?.[1];
  expect(ref, before).toBe('e1');
  expect((await call('browser_navigate', { url: site.url('table.html') })).ok).toBe(true);
  // An action by selector on the new page hands out refs there too, from e1 again.
  expect((await call('browser_interact', { action: 'click', selector: 'Name' })).ok).toBe(true);
  const stale = await call('browser_interact', { action: 'click', ref });
  expect(stale.error?.code, JSON.stringify(stale)).toBe('STALE_REF');
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
