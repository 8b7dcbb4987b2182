import fs from 'node:fs';
import path from 'node:path';

import { chromium, expect, test, type Page } from '@playwright/test';

import { runCli } from '../support/cli.js';
import { makeProfileDir, QUIET_FLAGS, sidePanelUrl, CHROMIUM_PATH } from '../support/chromium.js';
import {
  planningTurns,
  startFakeModelServer,
  type FakeModelServer,
  type ScriptedTurn,
} from '../support/fake-model-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { startXServer, type XServer } from '../support/x-server.js';
import { CHROME_EXTENSION_DIR, CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * The chat in the real side panel (Chromium with the built extension), the real daemon started
 * by the native host, and the scripted fake model (ANTHROPIC_BASE_URL in the host's environment,
 * so every run goes through the real provider client, the loop and the event stream).
 */

const KEY = 'sk-ant-test-0123456789abcdef';

let home: TestHome;
let server: FakeModelServer;
let close: (() => Promise<void>) | undefined;
let xServer: XServer | undefined;

test.beforeAll(() => {
  requireBuilt(CLI_BUNDLE);
  requireBuilt(path.join(CHROME_EXTENSION_DIR, 'manifest.json'));
});
test.afterEach(async () => {
  await close?.();
  close = undefined;
  await home.cleanup();
  await server.close();
  await xServer?.stop();
  xServer = undefined;
});

/** A panel connected to a fresh daemon whose model is the fake server, in the given language. */
async function openChat(
  script: ScriptedTurn[],
  locale: 'en-US' | 'zh-CN' = 'en-US',
  extraEnv: NodeJS.ProcessEnv = {},
  options: { model?: boolean; promptCache?: boolean } = {},
): Promise<Page> {
  home = makeHome();
  // Someone who has been through the first-run wizard: the panel opens on the chat.
  fs.writeFileSync(path.join(home.dir, 'config.json'), JSON.stringify({ ui: { setup_done: true } }), { mode: 0o600 });
  server = await startFakeModelServer(script, { promptCache: options.promptCache });
  const env: NodeJS.ProcessEnv = { ...home.env, ...extraEnv };
  // Without a model, the daemon has no provider configured at all.
  if (options.model === false) {
    delete env.ANTHROPIC_API_KEY;
    delete env.ANTHROPIC_BASE_URL;
  } else {
    Object.assign(env, { ANTHROPIC_BASE_URL: server.anthropicBaseUrl, ANTHROPIC_API_KEY: KEY });
  }
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  const profile = makeProfileDir();
  const installed = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], env);
  expect(installed.code, installed.stderr).toBe(0);
  // The host (and the daemon it starts) inherits the browser's environment: the fake model.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    locale,
    env: env as Record<string, string>,
    args: [
      ...QUIET_FLAGS,
      `--lang=${locale}`,
      `--disable-extensions-except=${CHROME_EXTENSION_DIR}`,
      `--load-extension=${CHROME_EXTENSION_DIR}`,
    ],
  });
  close = () => context.close();
  if (context.serviceWorkers().length === 0) await context.waitForEvent('serviceworker');
  const panel = await context.newPage();
  await panel.setViewportSize({ width: 400, height: 820 });
  await panel.goto(sidePanelUrl());
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected', {
    timeout: 30_000,
  });
  await expect(panel.getByTestId('chat-tab')).toBeVisible();
  return panel;
}

async function send(panel: Page, text: string): Promise<void> {
  const box = panel.getByTestId('composer').locator('textarea');
  await box.fill(text);
  await box.press('Enter');
}

test('a chat that runs a tool and streams an answer: tool card, markdown, session list', async () => {
  const panel = await openChat([
    {
      kind: 'tool_calls',
      text: 'Let me check the system.',
      calls: [{ name: 'system_info', input: { categories: ['os'] } }],
    },
    {
      kind: 'text',
      text:
        'This machine runs **Linux**.\n\n- kernel: `6.x`\n- checked with [system_info](https://example.com/docs)\n\n' +
        '| Part | Value | Where it came from |\n| --- | --- | --- |\n' +
        '| OS | Linux | system_info os, read from /etc/os-release and uname on this very machine |\n',
    },
  ]);
  await expect(panel.getByTestId('chat-empty')).toBeVisible();
  await send(panel, 'Which OS is this?');

  const run = panel.getByTestId('run');
  await expect(run).toHaveAttribute('data-state', 'finished', { timeout: 60_000 });
  await expect(panel.getByTestId('user-message')).toHaveText('Which OS is this?');
  const card = panel.getByTestId('tool-card');
  await expect(card).toHaveCount(1);
  await expect(card).toHaveAttribute('data-tool', 'system_info');
  await expect(card).toHaveAttribute('data-status', 'ok');
  await expect(card).toContainText('System information');
  await expect(card).toContainText('categories=["os"]');
  await expect(card.getByTestId('tool-result')).toContainText('os=');

  const messages = panel.getByTestId('agent-message');
  await expect(messages).toHaveCount(2);
  await expect(messages.first()).toHaveText('Let me check the system.');
  // Markdown became elements (bold, code, a list, a safe link), not text with asterisks.
  await expect(messages.last().locator('strong')).toHaveText('Linux');
  await expect(messages.last().locator('li')).toHaveCount(2);
  await expect(messages.last().locator('code')).toHaveText('6.x');
  await expect(messages.last().getByRole('link', { name: 'system_info' })).toHaveAttribute(
    'href',
    'https://example.com/docs',
  );
  // A table, which scrolls inside its message rather than widening the panel.
  await expect(messages.last().locator('.md-table th')).toHaveText(['Part', 'Value', 'Where it came from']);
  expect(await panel.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(
    true,
  );
  await expect(panel.getByTestId('run-end')).toContainText('Finished · model turns: 2 · tool calls: 1');
  await expect(panel.getByTestId('chat-title')).toHaveText('Which OS is this?');
  // The model got the tool's result in its second request.
  expect(server.requests).toHaveLength(2);
  expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('tool_result');

  await panel.screenshot({ path: 'test-results/chat-en.png', fullPage: true });
  await panel.emulateMedia({ colorScheme: 'dark' });
  await panel.screenshot({ path: 'test-results/chat-dark-en.png', fullPage: true });
  await panel.emulateMedia({ colorScheme: 'light' });

  // The session list: search, rename, reopen after a reload, delete.
  await panel.getByTestId('sessions-toggle').click();
  const rows = panel.getByTestId('session-row');
  await expect(rows).toHaveCount(1);
  await panel.getByRole('searchbox', { name: 'Search chats' }).fill('nothing like it');
  await expect(rows).toHaveCount(0);
  await panel.getByRole('searchbox', { name: 'Search chats' }).fill('OS');
  await expect(rows).toHaveCount(1);
  await panel.getByRole('button', { name: 'Rename “Which OS is this?”' }).click();
  const rename = panel.getByRole('textbox', { name: 'New name of the chat' });
  await rename.fill('OS check');
  await rename.press('Enter');
  await expect(rows.first()).toContainText('OS check');
  await panel.screenshot({ path: 'test-results/chat-sessions-en.png' });
  const listed = await runCli(['sessions', 'list', '--json'], home.env);
  expect(listed.stdout).toContain('OS check');

  await panel.reload();
  await expect(panel.getByTestId('chat-title')).toHaveText('OS check');
  await expect(panel.getByTestId('tool-card')).toHaveCount(1);
  await expect(panel.getByTestId('agent-message')).toHaveCount(2);

  await panel.getByTestId('sessions-toggle').click();
  await panel.getByRole('button', { name: 'Delete “OS check”' }).click();
  await panel
    .getByRole('group', { name: 'Confirm deleting “OS check”' })
    .getByRole('button', { name: 'Delete' })
    .click();
  // The chat shown was deleted: the panel starts a new one.
  await expect(panel.getByTestId('chat-empty')).toBeVisible();
  await expect(panel.getByTestId('chat-title')).toHaveText('New chat');
  expect((await runCli(['sessions', 'list', '--json'], home.env)).stdout).not.toContain('OS check');
});

test('the model’s thinking shows collapsed before its words and opens on a click, after a reload too', async () => {
  const panel = await openChat(
    [
      {
        kind: 'tool_calls',
        reasoning: 'The person wants the OS. The system_info tool says it.',
        calls: [{ name: 'system_info', input: { categories: ['os'] } }],
      },
      { kind: 'text', reasoning: 'It reported Linux.', text: 'This machine runs **Linux**.' },
    ],
    'en-US',
    {},
    { promptCache: true },
  );
  await send(panel, 'Which OS is this?');
  await expect(panel.getByTestId('run')).toHaveAttribute('data-state', 'finished', { timeout: 60_000 });
  // The tokens it used, the part its second call read from the prompt cache among them.
  await expect(panel.getByTestId('run-end-tokens')).toHaveText(
    /^tokens in: [\d.]+K? \([\d.]+K? from the cache\) · out: \d+$/,
  );
  const thoughts = panel.getByTestId('agent-reasoning');
  await expect(thoughts).toHaveCount(2);
  // Collapsed: the label, not the words.
  await expect(thoughts.first().locator('summary')).toHaveText('Thought');
  await expect(thoughts.first().getByText('The person wants the OS.')).toBeHidden();
  await thoughts.first().locator('summary').click();
  await expect(thoughts.first().getByText('The person wants the OS. The system_info tool says it.')).toBeVisible();
  // A turn that only thought and called a tool has no empty message bubble.
  await expect(panel.getByTestId('agent-message')).toHaveCount(1);
  await expect(panel.getByTestId('agent-message')).toHaveText('This machine runs Linux.');
  await panel.screenshot({ path: 'test-results/chat-reasoning-en.png', fullPage: true });
  // The thinking is sent back with the call, signature included (Anthropic requires it).
  const sentBack = JSON.stringify(server.requests[1]?.body.messages);
  expect(sentBack).toContain('"type":"thinking"');
  expect(sentBack).toMatch(/"signature":"[^"]+"/);

  await panel.reload();
  await expect(panel.getByTestId('agent-reasoning')).toHaveCount(2);
  await expect(panel.getByTestId('agent-reasoning').last().locator('summary')).toHaveText('Thought');
});

test('an ask_user question is answered inline (in Chinese)', async () => {
  const panel = await openChat(
    [
      {
        kind: 'tool_calls',
        calls: [{ name: 'ask_user', input: { question: '报告保存到哪个文件夹？', options: ['文档', '桌面'] } }],
      },
      { kind: 'text', text: '已保存到**桌面**。' },
    ],
    'zh-CN',
  );
  await expect(panel.getByTestId('chat-empty')).toContainText('想让智能体做什么？');
  await send(panel, '保存这份报告');
  const question = panel.getByTestId('question-card');
  await expect(question).toContainText('报告保存到哪个文件夹？', { timeout: 60_000 });
  await expect(panel.getByTestId('run-state')).toHaveText('等待你的回答');
  await panel.screenshot({ path: 'test-results/chat-zh.png', fullPage: true });
  await panel.emulateMedia({ colorScheme: 'dark' });
  await panel.screenshot({ path: 'test-results/chat-dark-zh.png', fullPage: true });
  await panel.emulateMedia({ colorScheme: 'light' });

  await question.getByRole('button', { name: '桌面' }).click();
  await expect(panel.getByTestId('run')).toHaveAttribute('data-state', 'finished', { timeout: 60_000 });
  await expect(question).toHaveCount(0);
  await expect(panel.getByTestId('user-answer')).toContainText('桌面');
  await expect(panel.getByTestId('agent-message').last().locator('strong')).toHaveText('桌面');
  // The model got the answer as the tool's result.
  expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('桌面');
  await panel.screenshot({ path: 'test-results/chat-answered-zh.png', fullPage: true });
});

test("the run's Stop button stops a run whose model hangs", async () => {
  const panel = await openChat([{ kind: 'hang' }]);
  await send(panel, 'Think about it forever');
  await server.waitForRequests(1);
  const controls = panel.getByTestId('run-controls');
  await expect(controls).toHaveAttribute('data-state', 'running', { timeout: 30_000 });
  await expect(panel.getByTestId('composer')).toHaveAttribute('data-mode', 'steer');
  await expect(panel.getByTestId('run-counter')).toContainText('Step 0/100');
  await panel.screenshot({ path: 'test-results/chat-running-en.png', fullPage: true });
  await controls.getByRole('button', { name: 'Stop' }).click();
  await expect(panel.getByTestId('run')).toHaveAttribute('data-state', 'stopped', { timeout: 30_000 });
  await expect(controls).toHaveCount(0);
  await expect(panel.getByTestId('run-end')).toContainText('Stopped');
  await expect(panel.getByTestId('composer')).toHaveAttribute('data-mode', 'start');
  const shown = await runCli(['runs', 'list', '--json'], home.env);
  expect(shown.stdout).toContain('"stopped"');
});

test('a model whose answers keep breaking off: the run waits with why, and Retry goes on', async () => {
  const drop = { kind: 'broken', text: 'Working on it', end: 'drop' } as const;
  const panel = await openChat([drop, drop, drop, drop]);
  await send(panel, 'Summarise my week');
  const controls = panel.getByTestId('run-controls');
  // Four attempts with growing pauses between them (1, 2, 4 s), then the run waits for the person.
  await expect(controls).toHaveAttribute('data-state', 'paused', { timeout: 60_000 });
  await expect(panel.getByTestId('run-paused-reason')).toContainText('dropped during the answer');
  await expect(panel.getByTestId('run-paused-reason')).toContainText('Retry in the panel');
  await expect(panel.locator('.run-note-bad').first()).toContainText('Trying again in 1 s (attempt 2 of 4)');
  await panel.screenshot({ path: 'test-results/chat-model-broke-off-en.png', fullPage: true });
  server.push({ kind: 'text', text: 'Your week, summarised.' });
  await controls.getByRole('button', { name: 'Retry' }).click();
  await expect(panel.getByTestId('run')).toHaveAttribute('data-state', 'finished', { timeout: 30_000 });
  await expect(panel.getByTestId('agent-message').last()).toHaveText('Your week, summarised.');
  await expect(panel.getByTestId('run-paused-reason')).toHaveCount(0);
});

test('a model that declines: the run ends marked declined with its reason, never an empty Finished', async () => {
  const explanation = 'This request was declined because it could enable cyber harm.';
  const panel = await openChat([{ kind: 'text', text: '', stopReason: 'refusal', refusal: explanation }]);
  await send(panel, 'Write me some malware');
  const run = panel.getByTestId('run');
  await expect(run).toHaveAttribute('data-state', 'finished', { timeout: 60_000 });
  const end = panel.getByTestId('run-end');
  await expect(end).toHaveAttribute('data-result-kind', 'declined');
  await expect(end).toHaveClass(/run-end-no-answer/);
  await expect(end.locator('.run-end-line')).toContainText('Declined');
  await expect(end.locator('.run-end-line')).not.toContainText('Finished');
  await expect(panel.getByTestId('run-no-answer')).toHaveText(`The model declined: ${explanation}`);
  await expect(panel.getByTestId('agent-message')).toHaveCount(0);
  await panel.screenshot({ path: 'test-results/chat-declined-en.png', fullPage: true });
});

test('a screenshot step shows a thumbnail that opens full size', async () => {
  // A real X display for the daemon's screenshot tool (the host inherits DISPLAY from the browser).
  xServer = await startXServer({ width: 1024, height: 640 });
  const panel = await openChat(
    [
      { kind: 'tool_calls', calls: [{ name: 'screenshot', input: {} }] },
      { kind: 'text', text: 'The screen is empty.' },
    ],
    'en-US',
    { DISPLAY: xServer.display, XDG_RUNTIME_DIR: xServer.env.XDG_RUNTIME_DIR },
  );
  await send(panel, 'What is on the screen?');
  await expect(panel.getByTestId('run')).toHaveAttribute('data-state', 'finished', { timeout: 60_000 });
  const card = panel.locator('[data-testid="tool-card"][data-tool="screenshot"]').first();
  await expect(card).toHaveAttribute('data-status', 'ok');
  const thumbnail = card.getByTestId('step-thumbnail');
  // Read from the daemon with blobs.read, shown as an image.
  await expect(thumbnail.locator('img')).toHaveJSProperty('complete', true);
  expect(await thumbnail.locator('img').evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(100);
  await panel.screenshot({ path: 'test-results/chat-screenshot-en.png', fullPage: true });
  await thumbnail.click();
  const dialog = panel.getByRole('dialog', { name: 'Take a screenshot' });
  await expect(dialog).toBeVisible();
  await panel.screenshot({ path: 'test-results/chat-screenshot-open-en.png' });
  await panel.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

/** What the panel asked `runs.get` for and got, recorded in the background (every panel call passes it). */
interface StepRead {
  stepsFrom: number | undefined;
  returned: number[];
  /** Why the read failed (shown when the test fails). */
  error?: string;
}

test('a 500-step run in the chat: a window of its items in the page, later reads only the new steps, earlier items on request', async () => {
  // The run waits after its first 200 steps until the panel has shown and read them, so the
  // later reads happen while it goes on however fast this machine runs it.
  let shown!: () => void;
  const firstStepsShown = new Promise<void>((resolve) => (shown = resolve));
  const [first, second, third, ...rest] = planningTurns(5, 100) as [ScriptedTurn, ScriptedTurn, ScriptedTurn];
  const panel = await openChat([
    first,
    second,
    { kind: 'after', ready: firstStepsShown, turn: third },
    ...rest,
    { kind: 'text', text: 'Planned all five hundred.' },
  ]);
  const worker = panel.context().serviceWorkers()[0]!;
  await worker.evaluate(() => {
    const globals = globalThis as unknown as {
      nextaiBackground: { connection: { request(method: string, params: object, options?: object): Promise<unknown> } };
      stepReads: StepRead[];
    };
    const connection = globals.nextaiBackground.connection;
    const request = connection.request.bind(connection);
    globals.stepReads = [];
    connection.request = (method, params, options) => {
      const answer = request(method, params, options);
      if (method === 'runs.get') {
        void answer.then(
          (result) => {
            const steps = (result as { steps?: { step: number }[] }).steps ?? [];
            const stepsFrom = (params as { steps_from?: number }).steps_from;
            globals.stepReads.push({ stepsFrom, returned: steps.map((step) => step.step) });
          },
          (error: unknown) => {
            globals.stepReads.push({ stepsFrom: undefined, returned: [], error: String(error) });
          },
        );
      }
      return answer;
    };
  });

  await send(panel, 'Plan five hundred steps');
  await expect(panel.getByTestId('tool-card').last()).toContainText('Step 2.99', { timeout: 60_000 });
  // And the panel has read the steps it holds (its first read starts from step 0): what it reads
  // once the run goes on starts where this read left off.
  await expect
    .poll(() =>
      worker.evaluate(() =>
        (globalThis as unknown as { stepReads: StepRead[] }).stepReads.some((read) => read.returned.length > 0),
      ),
    )
    .toBe(true);
  shown();
  const run = panel.getByTestId('run');
  await expect(run).toHaveAttribute('data-state', 'finished', { timeout: 120_000 });
  await expect(panel.getByTestId('agent-message').last()).toHaveText('Planned all five hundred.');
  await expect(panel.getByTestId('run-end')).toContainText('tool calls: 500');

  // Only a window of the run's items is in the page, the newest ones.
  const cards = panel.getByTestId('tool-card');
  expect(await cards.count()).toBeLessThanOrEqual(60);
  await expect(cards.last()).toContainText('Step 5.99');
  // Earlier items come on request, a window at a time.
  await panel.getByTestId('show-earlier').click();
  await expect(cards.first()).not.toContainText('Step 5.');
  expect(await cards.count()).toBeLessThanOrEqual(60);
  await panel.screenshot({ path: 'test-results/chat-500-steps-en.png' });

  // While the run went on, the chat read only what it did not hold yet: each later read starts
  // where the previous one left off, and returns nothing before that.
  const reads = await worker.evaluate(() => (globalThis as unknown as { stepReads: StepRead[] }).stepReads);
  const later = reads.filter((read) => read.stepsFrom !== undefined && read.stepsFrom > 0);
  const readsSeen = reads.map((read) => ({
    from: read.stepsFrom,
    count: read.returned.length,
    error: read.error,
    first: read.returned[0],
    last: read.returned.at(-1),
  }));
  expect(later.length, `the reads: ${JSON.stringify(readsSeen)}`).toBeGreaterThan(0);
  for (const read of later) expect(Math.min(...read.returned)).toBeGreaterThanOrEqual(read.stepsFrom!);
  const transferred = reads.reduce((sum, read) => sum + read.returned.length, 0);
  const total = Math.max(...reads.flatMap((read) => read.returned));
  // Re-reading the whole run each time would send the first hundreds of steps again and again.
  expect(transferred).toBeLessThan(2 * total);
});

test('with no model configured, the chat says so in the person’s language and offers the settings (zh-CN)', async () => {
  const panel = await openChat([], 'zh-CN', {}, { model: false });
  await send(panel, '今天有什么安排？');
  const problem = panel.getByTestId('chat-problem');
  await expect(problem).toContainText('还没有配置模型');
  await expect(problem).not.toContainText('No model is configured');
  await panel.screenshot({ path: 'test-results/chat-no-model-zh.png' });
  await problem.getByRole('button', { name: '打开设置' }).click();
  await expect(panel.getByTestId('settings-tab')).toBeVisible();
});
