import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { expect, test, type Page } from '@playwright/test';

import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, sidePanelUrl, type ExtensionBrowser } from '../support/chromium.js';
import { startFakeModelServer, type FakeModelServer, type ScriptedTurn } from '../support/fake-model-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * The right-click "Let the agent handle this" in real Chromium with the real
 * daemon and the scripted model: a selection on a local page becomes a draft in the side panel's
 * composer, and sending it starts a run whose goal holds the selection.
 *
 * Playwright cannot click the browser's own context menu, so the test calls the menu's click
 * handler (exposed as `nextaiContextMenu` in the service worker) with what Chromium passes it.
 */

const SELECTION = 'Revenue grew 12% in the third quarter, led by the Asia-Pacific region.';
const PAGE_TITLE = 'Quarterly report';
const KEY = 'sk-ant-test-0123456789abcdef';

let home: TestHome;
let browser: ExtensionBrowser | undefined;
let model: FakeModelServer | undefined;
let site: http.Server | undefined;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await home.cleanup();
  await model?.close();
  model = undefined;
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  site = undefined;
});

interface Draft {
  id: string;
  instruction: string;
  context: Record<string, unknown>;
}

interface RunView {
  id: string;
  goal: string;
  state: string;
}

/** A local web page with a paragraph to select and a link. */
async function startSite(): Promise<string> {
  site = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html><head><title>${PAGE_TITLE}</title></head><body>` +
        `<h1>Q3</h1><p id="finding">${SELECTION}</p><a id="more" href="/details">Details</a></body></html>`,
    );
  });
  await new Promise<void>((resolve) => site!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(site.address() as AddressInfo).port}/report`;
}

/**
 * A data directory whose daemon uses the fake model, the host installed in a fresh profile, and
 * Chromium started. The browser language is the test's `locale` (Playwright applies it to the
 * pages and to the service worker's navigator.language).
 */
async function launch(firstTurns: ScriptedTurn[] = []): Promise<ExtensionBrowser> {
  home = makeHome();
  // Someone who has set NextAI up: the first-run wizard would hold the panel on Settings. The
  // page the person right-clicks is on loopback, which the agent may read only when
  // security.allowed_domains names it.
  fs.writeFileSync(
    path.join(home.dir, 'config.json'),
    JSON.stringify({ ui: { setup_done: true }, security: { allowed_domains: ['*', '127.0.0.1'] } }),
  );
  model = await startFakeModelServer([
    ...firstTurns,
    { kind: 'text', text: 'Revenue rose 12% in Q3, mostly from Asia-Pacific.' },
  ]);
  // The host starts the daemon with the browser's environment: the model's address goes in first.
  Object.assign(home.env, {
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: KEY,
  });
  delete home.env.OPENAI_API_KEY;
  delete home.env.OPENAI_BASE_URL;
  const profile = makeProfileDir();
  const install = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  expect(install.code, install.stderr).toBe(0);
  browser = await launchWithExtension(profile, home.env);
  return browser;
}

/** Opens the local page and selects the paragraph, as a person would before right-clicking. */
async function selectOnPage(b: ExtensionBrowser, url: string): Promise<{ page: Page; selectionText: string }> {
  const page = await b.context.newPage();
  await page.goto(url);
  const selectionText = await page.evaluate(() => {
    const range = document.createRange();
    range.selectNodeContents(document.getElementById('finding')!);
    const selection = window.getSelection()!;
    selection.removeAllRanges();
    selection.addRange(range);
    return selection.toString();
  });
  await page.bringToFront();
  return { page, selectionText };
}

/**
 * What Chromium does when the person picks "Let the agent handle this selection": calls the
 * menu's click listener with the click data and the tab. The tab is the page's real tab (its id
 * and window); its title is what Chromium puts in the tab for a click (activeTab).
 */
async function clickMenu(b: ExtensionBrowser, page: Page, selectionText: string): Promise<Draft> {
  const pageUrl = page.url();
  const title = await page.title();
  return b.serviceWorker.evaluate(
    async ({ selectionText, pageUrl, title }) => {
      const api = globalThis as unknown as {
        chrome: { tabs: { query(q: object): Promise<{ id: number; windowId: number }[]> } };
        nextaiContextMenu: {
          click(info: object, tab: object): Draft | undefined;
          menuItemId(kind: string): string;
        };
      };
      const [tab] = await api.chrome.tabs.query({ active: true, lastFocusedWindow: true });
      const draft = api.nextaiContextMenu.click(
        { menuItemId: api.nextaiContextMenu.menuItemId('selection'), selectionText, pageUrl, frameUrl: pageUrl },
        { id: tab!.id, windowId: tab!.windowId, url: pageUrl, title },
      );
      if (!draft) throw new Error('The click made no draft.');
      return draft;
    },
    { selectionText, pageUrl, title },
  );
}

/** The menu items the browser accepted: [id, title]. */
const menuItems = (b: ExtensionBrowser) =>
  b.serviceWorker.evaluate(async () =>
    (
      await (
        globalThis as unknown as { nextaiContextMenu: { items(): Promise<{ id: string; title: string }[]> } }
      ).nextaiContextMenu.items()
    ).map((item) => [item.id, item.title]),
  );

const waitingDraft = (b: ExtensionBrowser) =>
  b.serviceWorker.evaluate(
    () => (globalThis as unknown as { nextaiContextMenu: { current(): unknown } }).nextaiContextMenu.current() ?? null,
  );

async function runsOf(): Promise<RunView[]> {
  const result = await runCli(['runs', 'list', '--json'], home.env);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as RunView[];
}

async function openPanel(b: ExtensionBrowser): Promise<Page> {
  const panel = await b.context.newPage();
  await panel.setViewportSize({ width: 400, height: 720 });
  await panel.goto(sidePanelUrl());
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected', {
    timeout: 30_000,
  });
  return panel;
}

test('a selection sent from the right-click menu to an open panel starts a run with the selection in its goal, and that run gets the tab', async () => {
  // The run reads the page it was started from: the tab the right-click gave it.
  const b = await launch([{ kind: 'tool_calls', calls: [{ name: 'browser_snapshot', input: {} }] }]);
  const url = await startSite();
  expect(await menuItems(b)).toEqual([
    ['nextai-handle-selection', 'Let the agent handle this selection'],
    ['nextai-handle-link', 'Let the agent handle this link'],
    ['nextai-handle-image', 'Let the agent handle this image'],
    ['nextai-handle-page', 'Let the agent handle this page'],
  ]);
  const panel = await openPanel(b);
  const { page, selectionText } = await selectOnPage(b, url);
  expect(selectionText).toBe(SELECTION);

  const draft = await clickMenu(b, page, selectionText);
  expect(draft).toMatchObject({
    instruction: 'Help me with this selection',
    context: { kind: 'selection', selection: SELECTION, page_url: url, page_title: PAGE_TITLE },
  });
  expect(typeof draft.context.tab_id).toBe('number');

  // The open panel gets the draft at once: the chip with the selection, the editable instruction.
  await panel.bringToFront();
  const composer = panel.getByTestId('composer');
  const chip = composer.getByTestId('context-chip');
  await expect(chip).toHaveAttribute('data-kind', 'selection');
  await expect(chip).toContainText('Revenue grew 12%');
  const input = composer.getByRole('textbox', { name: 'Message the agent' });
  await expect(input).toHaveValue('Help me with this selection');
  await expect(input).toBeFocused();
  // The panel took it: the background forgets it, so it does not come back in the next panel.
  await expect.poll(() => waitingDraft(b)).toBeNull();
  await panel.screenshot({ path: 'test-results/context-menu-draft-en.png' });
  await panel.emulateMedia({ colorScheme: 'dark' });
  await panel.screenshot({ path: 'test-results/context-menu-draft-en-dark.png' });
  await panel.emulateMedia({ colorScheme: 'light' });

  // The tab waits for that run: a call from elsewhere (here the CLI) does not get it.
  const elsewhere = await runCli(['tool', 'browser_snapshot', '{}', '--json'], home.env);
  expect((JSON.parse(elsewhere.stdout) as { error?: { code: string } }).error?.code, elsewhere.stdout).toBe(
    'NOT_FOUND',
  );

  // The person edits the instruction and sends it.
  await input.fill('Summarise this in one sentence');
  await composer.getByRole('button', { name: 'Send' }).click();

  await expect
    .poll(async () => (await runsOf()).map((run) => run.goal), { timeout: 30_000 })
    .toEqual([expect.stringContaining(SELECTION)]);
  const [run] = await runsOf();
  expect(run!.goal).toContain('Summarise this in one sentence');
  expect(run!.goal).toContain(url);
  expect(run!.goal).toContain(PAGE_TITLE);
  await expect.poll(async () => (await runsOf())[0]?.state, { timeout: 30_000 }).toBe('finished');
  // The model was asked with the selection in the conversation.
  expect(JSON.stringify(model!.requests[0]?.body)).toContain(SELECTION);
  // Its snapshot read the page the person right-clicked.
  const afterSnapshot = JSON.stringify(model!.requests[1]?.body);
  expect(afterSnapshot).toContain('Details');
  expect(afterSnapshot).not.toMatch(/NOT_FOUND|TAB_NOT_GIVEN/);
  await expect(panel.getByTestId('agent-message').last()).toContainText('Revenue rose 12% in Q3');
  await panel.screenshot({ path: 'test-results/context-menu-run-en.png' });
});

test.describe('in Chinese', () => {
  test.use({ locale: 'zh-CN' });

  test('a draft made while no panel is open waits for the panel, in the browser language (zh-CN)', async () => {
    const b = await launch();
    const url = await startSite();
    expect((await menuItems(b)).map(([, title]) => title)).toEqual([
      '让智能体处理选中的文字',
      '让智能体处理这个链接',
      '让智能体处理这张图片',
      '让智能体处理这个页面',
    ]);
    const { page, selectionText } = await selectOnPage(b, url);

    const draft = await clickMenu(b, page, selectionText);
    // The instruction follows the browser language.
    expect(draft.instruction).toBe('帮我处理这段选中的文字');
    // No side panel could open (no real click here): the draft waits in the background.
    expect(await waitingDraft(b)).toMatchObject({ id: draft.id });

    const panel = await openPanel(b);
    const composer = panel.getByTestId('composer');
    await expect(composer.getByTestId('context-chip')).toHaveAttribute('data-kind', 'selection');
    await expect(composer.getByRole('textbox')).toHaveValue('帮我处理这段选中的文字');
    await expect.poll(() => waitingDraft(b)).toBeNull();
    await panel.screenshot({ path: 'test-results/context-menu-draft-zh.png' });

    await composer.getByRole('textbox').press('Enter');
    await expect
      .poll(async () => (await runsOf()).map((run) => run.goal), { timeout: 30_000 })
      .toEqual([expect.stringContaining(SELECTION)]);
    await expect(panel.getByTestId('agent-message').last()).toContainText('Revenue rose 12% in Q3');
    await panel.screenshot({ path: 'test-results/context-menu-run-zh.png' });

    // A second panel opened later does not get the draft again.
    const again = await openPanel(b);
    await expect(again.getByTestId('composer')).toBeVisible();
    await expect(again.getByTestId('context-chip')).toHaveCount(0);
  });
});

test('the menu and every open panel follow the language chosen in settings, not only the browser’s', async () => {
  const b = await launch();
  const titles = async () => (await menuItems(b)).map(([, title]) => title);
  expect(await titles()).toContain('Let the agent handle this selection');
  const panel = await openPanel(b);
  const other = await openPanel(b);

  await panel.getByTestId('tab-settings').click();
  await panel.getByTestId('settings-page-general').click();
  await panel.getByTestId('language-switch').getByText('中文').click();
  await expect(panel.getByTestId('tab-chat')).toHaveText('对话');
  // The other panel and the right-click menu follow the daemon's event.
  await expect(other.getByTestId('tab-chat')).toHaveText('对话');
  await expect
    .poll(titles)
    .toEqual(['让智能体处理选中的文字', '让智能体处理这个链接', '让智能体处理这张图片', '让智能体处理这个页面']);
  // A click now prepares its instruction in Chinese too.
  const { page, selectionText } = await selectOnPage(b, await startSite());
  expect((await clickMenu(b, page, selectionText)).instruction).toBe('帮我处理这段选中的文字');

  // Back to the browser's language (English here); the draft brought the chat forward.
  await panel.bringToFront();
  await panel.getByTestId('tab-settings').click();
  await panel.getByTestId('settings-page-general').click();
  await panel.getByTestId('language-switch').getByText('English').first().click();
  await expect.poll(titles).toContain('Let the agent handle this selection');
  await expect(other.getByTestId('tab-chat')).toHaveText('Chat');
});
