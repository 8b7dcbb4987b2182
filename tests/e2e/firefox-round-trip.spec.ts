import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { expect, test } from '@playwright/test';
import type { Page } from 'puppeteer-core';

import { FIREFOX_EXTENSION_ID } from '@nextai/shared';

import { runCli } from '../support/cli.js';
import { startFakeModelServer, type FakeModelServer } from '../support/fake-model-server.js';
import { launchFirefoxWithExtension, makeFirefoxHome, type FirefoxWithExtension } from '../support/firefox.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

let home: TestHome;
let firefox: FirefoxWithExtension | undefined;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await firefox?.close();
  firefox = undefined;
  await home.cleanup();
});

test('Firefox: the sidebar page reaches the daemon through the native host and shows system_info', async () => {
  home = makeHome();
  const firefoxHome = makeFirefoxHome();
  const env = { ...home.env, HOME: firefoxHome };
  const install = await runCli(['install', '--browser', 'firefox'], env);
  expect(install.code, install.stderr).toBe(0);
  const manifestPath = path.join(firefoxHome, '.mozilla/native-messaging-hosts/com.nextai.agent.json');
  expect(JSON.parse(fs.readFileSync(manifestPath, 'utf8'))).toMatchObject({
    allowed_extensions: [FIREFOX_EXTENSION_ID],
  });

  firefox = await launchFirefoxWithExtension(firefoxHome, env);
  const page = await firefox.openSidebarPage();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="connection-status"]')?.getAttribute('data-status') === 'connected',
    { timeout: 30_000 },
  );
  await page.click('[data-testid="tab-activity"]');
  await page.waitForFunction(
    () => document.querySelector('[data-testid="system-info-card"]')?.getAttribute('data-phase') === 'ready',
    { timeout: 30_000 },
  );
  const platform = await page.$eval('[data-testid="host-platform"]', (element) => element.textContent);
  expect(platform).toContain('linux');

  const status = JSON.parse((await runCli(['status', '--json'], env)).stdout) as { clients: unknown[] };
  expect(status.clients).toEqual([
    expect.objectContaining({ kind: 'extension', name: 'firefox', origin: FIREFOX_EXTENSION_ID }),
  ]);
});

/** The port name the panel connects to the background with (PANEL_PORT_NAME in extension/lib/panel-messages.ts). */
const PANEL_PORT_NAME = 'nextai-panel';
const KEY = 'sk-ant-test-0123456789abcdef';
const SELECTION = 'Ship the beta to the Firefox testers on Friday.';
const PAGE_TITLE = 'Release notes';
const TABS = ['chat', 'approvals', 'activity', 'schedules', 'settings'];

/** A local web page with a paragraph to select. */
async function startSite(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>${PAGE_TITLE}</title><p id="plan">${SELECTION}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notes`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A daemon whose model is the fake server, the host installed for Firefox, and Firefox started. */
async function launchFirefox(model: FakeModelServer, language: string): Promise<{ env: NodeJS.ProcessEnv }> {
  home = makeHome();
  // Someone who has set NextAI up: the first-run wizard would hold the panel on Settings.
  fs.writeFileSync(path.join(home.dir, 'config.json'), JSON.stringify({ ui: { setup_done: true } }));
  const firefoxHome = makeFirefoxHome();
  const env: NodeJS.ProcessEnv = {
    ...home.env,
    HOME: firefoxHome,
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: KEY,
  };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const install = await runCli(['install', '--browser', 'firefox'], env);
  expect(install.code, install.stderr).toBe(0);
  firefox = await launchFirefoxWithExtension(firefoxHome, env, { language });
  return { env };
}

/** A daemon method called the way the panel calls it: a request on the panel's port to the background. */
function callThroughPanel(page: Page, method: string, params: Record<string, unknown> = {}): Promise<unknown> {
  return page.evaluate(
    (method, params, portName) =>
      new Promise((resolve, reject) => {
        const api = (globalThis as unknown as { browser: FirefoxRuntime }).browser;
        const port = api.runtime.connect({ name: portName });
        port.onMessage.addListener((message: { type: string; id?: number; outcome?: { ok: boolean } }) => {
          if (message.type !== 'response' || message.id !== 1) return;
          port.disconnect();
          if (message.outcome?.ok) resolve(message.outcome);
          else reject(new Error(JSON.stringify(message.outcome)));
        });
        port.postMessage({ type: 'request', id: 1, method, params });
      }),
    method,
    params,
    PANEL_PORT_NAME,
  );
}

interface FirefoxRuntime {
  runtime: {
    connect(options: { name: string }): {
      onMessage: { addListener(listener: (message: never) => void): void };
      postMessage(message: unknown): void;
      disconnect(): void;
    };
    getBackgroundPage(): Promise<{
      nextaiContextMenu: {
        click(info: object, tab: object): unknown;
        menuItemId(kind: string): string;
        items(): Promise<{ id: string; title: string }[]>;
      };
    }>;
  };
  tabs: { query(query: object): Promise<{ id: number; windowId: number; active: boolean }[]> };
}

const waitForTestId = (page: Page, testId: string, timeout = 30_000) =>
  page.waitForFunction((id) => document.querySelector(`[data-testid="${id}"]`) !== null, { timeout }, testId);

async function sidebarOfLanguage(
  language: string,
): Promise<{ page: Page; model: FakeModelServer; env: NodeJS.ProcessEnv }> {
  const model = await startFakeModelServer([{ kind: 'text', text: 'Noted: the beta ships on Friday.' }]);
  models.push(model);
  const { env } = await launchFirefox(model, language);
  const page = await firefox!.openSidebarPage();
  await page.setViewport({ width: 400, height: 720 });
  await page.waitForFunction(
    () => document.querySelector('[data-testid="connection-status"]')?.getAttribute('data-status') === 'connected',
    { timeout: 30_000 },
  );
  return { page, model, env };
}

const models: FakeModelServer[] = [];
test.afterEach(async () => {
  for (const model of models.splice(0)) await model.close();
});

test('Firefox: the sidebar has the same tabs, and reaches runs and approvals through the background', async () => {
  const { page } = await sidebarOfLanguage('en-US');
  // The same five tabs as Chromium's side panel, each with its panel.
  const tabs = await page.$$eval('[role="tab"]', (elements) =>
    elements.map((element) => ({ id: element.getAttribute('data-testid'), name: element.textContent?.trim() })),
  );
  expect(tabs.map((tab) => tab.id)).toEqual(TABS.map((tab) => `tab-${tab}`));
  expect(tabs.map((tab) => tab.name)).toEqual(['Chat', 'Approvals', 'Activity', 'Schedules', 'Settings']);
  for (const tab of TABS) {
    await page.click(`[data-testid="tab-${tab}"]`);
    await page.waitForFunction(
      (tab) =>
        document.getElementById(`tab-${tab}`)?.getAttribute('aria-selected') === 'true' &&
        document.getElementById(`panel-${tab}`) !== null,
      { timeout: 10_000 },
      tab,
    );
    await page.screenshot({ path: `test-results/firefox-sidebar-${tab}-en.png` });
  }

  expect(await callThroughPanel(page, 'runs.list', {})).toEqual({ ok: true, result: { runs: [] } });
  expect(await callThroughPanel(page, 'approvals.list', {})).toMatchObject({ ok: true, result: { approvals: [] } });
});

test('Firefox: the right-click handler puts the selection in the sidebar composer, and sending it runs the agent (zh-CN)', async () => {
  const { page: sidebar, env } = await sidebarOfLanguage('zh-CN');
  const site = await startSite();
  try {
    const tab = await firefox!.browser.newPage();
    await tab.goto(site.url);
    const selectionText = await tab.evaluate(() => {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById('plan')!);
      window.getSelection()!.removeAllRanges();
      window.getSelection()!.addRange(range);
      return window.getSelection()!.toString();
    });
    expect(selectionText).toBe(SELECTION);

    // What Firefox does on a click of the menu item: the menus.onClicked listener in the background page.
    const draft = (await sidebar.evaluate(
      async (selectionText, pageUrl, title) => {
        const api = (globalThis as unknown as { browser: FirefoxRuntime }).browser;
        const background = await api.runtime.getBackgroundPage();
        const tabs = await api.tabs.query({});
        const tab = tabs.find((candidate) => candidate.active) ?? tabs[0]!;
        const info = { menuItemId: background.nextaiContextMenu.menuItemId('selection'), selectionText, pageUrl };
        const items = JSON.parse(JSON.stringify(await background.nextaiContextMenu.items())) as { title: string }[];
        if (items.length !== 4 || items[0]?.title !== '让智能体处理选中的文字') {
          throw new Error(`The menu items are ${JSON.stringify(items)}.`);
        }
        return JSON.parse(
          JSON.stringify(
            background.nextaiContextMenu.click(info, { id: tab.id, windowId: tab.windowId, url: pageUrl, title }),
          ),
        ) as unknown;
      },
      selectionText,
      site.url,
      PAGE_TITLE,
    )) as { instruction: string; context: Record<string, unknown> };
    expect(draft).toMatchObject({
      instruction: '帮我处理这段选中的文字',
      context: { kind: 'selection', selection: SELECTION, page_url: site.url, page_title: PAGE_TITLE },
    });

    // The open sidebar gets it at once, in its chat composer.
    await sidebar.bringToFront();
    await waitForTestId(sidebar, 'context-chip');
    expect(
      await sidebar.$eval('[data-testid="composer"] textarea', (element) => (element as HTMLTextAreaElement).value),
    ).toBe('帮我处理这段选中的文字');
    await sidebar.screenshot({ path: 'test-results/firefox-sidebar-draft-zh.png' });

    await sidebar.focus('[data-testid="composer"] textarea');
    await sidebar.keyboard.press('Enter');
    await expect
      .poll(
        async () =>
          (JSON.parse((await runCli(['runs', 'list', '--json'], env)).stdout) as { goal: string }[]).map(
            (run) => run.goal,
          ),
        {
          timeout: 30_000,
        },
      )
      .toEqual([expect.stringContaining(SELECTION)]);
    await sidebar.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('[data-testid="agent-message"]')).some((element) =>
          element.textContent?.includes('beta ships'),
        ),
      { timeout: 30_000 },
    );
    await sidebar.screenshot({ path: 'test-results/firefox-sidebar-run-zh.png' });
  } finally {
    await site.close();
  }
});

test('Firefox: a run that needs approval shows in the sidebar inbox and on the toolbar badge; approving it there lets the run finish', async () => {
  const model = await startFakeModelServer([
    {
      kind: 'tool_calls',
      calls: [
        { name: 'bash_execute', input: { command: 'touch /var/tmp/nx-e2e-firefox && echo approved-in-firefox' } },
      ],
    },
    { kind: 'text', text: 'The command printed approved-in-firefox.' },
  ]);
  models.push(model);
  const { env } = await launchFirefox(model, 'en-US');
  const sidebar = await firefox!.openSidebarPage();
  await sidebar.setViewport({ width: 400, height: 720 });
  await sidebar.waitForFunction(
    () => document.querySelector('[data-testid="connection-status"]')?.getAttribute('data-status') === 'connected',
    { timeout: 30_000 },
  );
  const badge = () =>
    sidebar.evaluate(() =>
      (
        globalThis as unknown as { browser: { browserAction: { getBadgeText(details: object): Promise<string> } } }
      ).browser.browserAction.getBadgeText({}),
    );
  const runState = async (id: string) =>
    (JSON.parse((await runCli(['runs', 'show', id, '--json'], env, 60_000)).stdout) as { run: { state: string } }).run
      .state;

  const started = await runCli(['run', 'Run echo approved-in-firefox', '--detach'], env, 60_000);
  expect(started.code, started.stderr).toBe(0);
  const runId = started.stdout.trim();
  await expect.poll(badge, { timeout: 60_000 }).toBe('1');
  await waitForTestId(sidebar, 'tab-approvals-count', 60_000);

  await sidebar.click('[data-testid="tab-approvals"]');
  await waitForTestId(sidebar, 'approval-card');
  expect(await sidebar.$eval('[data-testid="approval-card"]', (card) => card.textContent)).toContain(
    'echo approved-in-firefox',
  );
  expect(await runState(runId)).toBe('waiting_approval');
  await sidebar.screenshot({ path: 'test-results/firefox-sidebar-approval-en.png' });

  await sidebar.click('[data-testid="approval-card"] [data-testid="approve-once"]');
  await waitForTestId(sidebar, 'approvals-empty', 60_000);
  await expect.poll(badge, { timeout: 60_000 }).toBe('');
  await expect.poll(() => runState(runId), { timeout: 60_000 }).toBe('finished');
  expect(JSON.stringify((await model.waitForRequests(2))[1]!.body)).toContain('approved-in-firefox');
  // It left the sandbox to write there, as approved.
  expect(fs.existsSync('/var/tmp/nx-e2e-firefox')).toBe(true);
  fs.rmSync('/var/tmp/nx-e2e-firefox', { force: true });
});
