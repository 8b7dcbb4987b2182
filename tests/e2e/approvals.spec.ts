import fs from 'node:fs';
import path from 'node:path';

import { expect, test, type Page } from '@playwright/test';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { runCli, startCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, sidePanelUrl, type ExtensionBrowser } from '../support/chromium.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type Responder,
  type ScriptedTurn,
} from '../support/fake-model-server.js';
import { isAlive, makeHome, readPid, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * The approval inbox and the toolbar badge, in real Chromium with the real daemon: agent runs
 * against the scripted fake model ask to run shell commands, and the person answers in the panel
 * or in the terminal.
 */
let home: TestHome;
let model: FakeModelServer | undefined;
let browser: ExtensionBrowser | undefined;
const KEY = 'sk-ant-test-0123456789abcdef';
const WAIT = { timeout: 60_000 };

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
/** Commands that write here leave the sandbox (it may change only the allowed folders): they ask. */
const OUTSIDE = '/var/tmp/nx-e2e';

test.afterEach(async () => {
  for (const name of fs.readdirSync('/var/tmp').filter((entry) => entry.startsWith('nx-e2e-'))) {
    fs.rmSync(path.join('/var/tmp', name), { force: true });
  }
  await browser?.close();
  browser = undefined;
  await home.cleanup();
  await model?.close();
  model = undefined;
});

/**
 * A data directory whose daemon uses the fake model (the host starts the daemon with the
 * browser's environment, so the model's address goes in first), the host installed in a fresh
 * profile, and Chromium started.
 */
async function launch(script: ScriptedTurn[] | Responder): Promise<ExtensionBrowser> {
  home = makeHome();
  model = await startFakeModelServer(script);
  Object.assign(home.env, { ANTHROPIC_BASE_URL: model.anthropicBaseUrl, ANTHROPIC_API_KEY: KEY });
  delete home.env.OPENAI_API_KEY;
  delete home.env.OPENAI_BASE_URL;
  const profile = makeProfileDir();
  const install = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  expect(install.code, install.stderr).toBe(0);
  browser = await launchWithExtension(profile, home.env);
  return browser;
}

async function openPanel(b: ExtensionBrowser, language: 'en' | 'zh-CN' = 'en'): Promise<Page> {
  const panel = await b.context.newPage();
  await panel.setViewportSize({ width: 400, height: 900 });
  // Playwright pins the page locale to en-US (its own Emulation.setLocaleOverride, which a second
  // override may not replace): the panel reads the browser language from navigator.language.
  if (language === 'zh-CN') {
    await panel.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'language', { get: () => 'zh-CN' });
      Object.defineProperty(Navigator.prototype, 'languages', { get: () => ['zh-CN', 'zh'] });
    });
  }
  await panel.goto(sidePanelUrl());
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected', WAIT);
  return panel;
}

const badgeText = (b: ExtensionBrowser) =>
  b.serviceWorker.evaluate(() =>
    (
      globalThis as unknown as { chrome: { action: { getBadgeText(details: object): Promise<string> } } }
    ).chrome.action.getBadgeText({}),
  );

async function startRun(goal: string): Promise<string> {
  const started = await runCli(['run', goal, '--detach'], home.env, 60_000);
  expect(started.code, started.stderr).toBe(0);
  return started.stdout.trim();
}

async function runState(id: string): Promise<string> {
  const shown = await runCli(['runs', 'show', id, '--json'], home.env, 60_000);
  return (JSON.parse(shown.stdout) as { run: { state: string } }).run.state;
}

/** The text of the last message the model was sent (where a tool result lands). */
function lastMessageText(body: { messages: { content: unknown }[] }): string {
  return JSON.stringify(body.messages.at(-1)?.content ?? '');
}

test('a run that needs approval raises the badge and shows the card; approving in the panel lets it finish', async () => {
  const b = await launch([
    {
      kind: 'tool_calls',
      calls: [{ name: 'bash_execute', input: { command: `touch ${OUTSIDE}-panel && echo approved-in-the-panel` } }],
    },
    { kind: 'text', text: 'The command printed approved-in-the-panel.' },
  ]);
  const panel = await openPanel(b);
  expect(await badgeText(b)).toBe('');

  const runId = await startRun('Run echo approved-in-the-panel');
  await expect.poll(() => badgeText(b), WAIT).toBe('1');
  await expect(panel.getByTestId('tab-approvals-count')).toHaveText('1');

  await panel.getByTestId('tab-approvals').click();
  const card = panel.getByTestId('approval-card');
  await expect(card).toHaveCount(1);
  await expect(card.getByRole('heading', { level: 3 })).toHaveText('Run a shell command');
  await expect(card.getByTestId('approval-param-command')).toHaveText(
    `touch ${OUTSIDE}-panel && echo approved-in-the-panel`,
    WAIT,
  );
  await expect(card.getByTestId('approval-risk')).toHaveText('High risk');
  await expect(card.getByTestId('approval-layer')).toHaveText('Decided by: Sandbox');
  await expect(card.getByTestId('approval-reason')).toContainText(
    `Asks to leave the sandbox because it creates ${OUTSIDE}-panel, outside the folders the sandbox may change`,
  );
  // Where it would run, said on its own: outside the sandbox, with the person's full access.
  await expect(card.getByTestId('approval-sandbox')).toContainText('Where it runs Outside the sandbox');
  await expect(card.getByTestId('approval-sandbox-summary')).toHaveText(
    'If you approve, it runs outside the sandbox, with your full access.',
  );
  await expect(card).toContainText(`Agent run ${runId.slice(0, 8)}`);
  expect(await runState(runId)).toBe('waiting_approval');
  await panel.screenshot({ path: 'test-results/approvals-en.png', fullPage: true });

  // From the keyboard: the first action of the card is "Approve once".
  const approve = card.getByRole('button', { name: 'Approve once: Run a shell command' });
  await approve.focus();
  await panel.keyboard.press('Enter');

  await expect(panel.getByTestId('approvals-empty')).toBeVisible(WAIT);
  await expect(panel.getByTestId('tab-approvals-count')).toHaveCount(0);
  await expect.poll(() => badgeText(b), WAIT).toBe('');
  await expect.poll(() => runState(runId), WAIT).toBe('finished');
  const requests = await model!.waitForRequests(2);
  expect(lastMessageText(requests[1]!.body)).toContain('approved-in-the-panel');
  expect(fs.existsSync(`${OUTSIDE}-panel`)).toBe(true);
  // The panel's own answer is not reported back to it as news from elsewhere.
  await expect(panel.getByTestId('approvals-notices')).toHaveCount(0);
  await panel.screenshot({ path: 'test-results/approvals-empty-en.png', fullPage: true });
});

test('answered in the terminal, a request leaves the panel and the badge at once; deny with a message reaches the caller (zh-CN)', async () => {
  const b = await launch([
    {
      kind: 'tool_calls',
      calls: [{ name: 'bash_execute', input: { command: `ls -la /tmp | head -n 5 > ${OUTSIDE}-list` } }],
    },
    { kind: 'text', text: 'Listed.' },
  ]);
  const panel = await openPanel(b, 'zh-CN');
  await panel.getByTestId('tab-approvals').click();
  await expect(panel.getByTestId('approvals-empty')).toContainText('没有等待你处理的请求');

  const runId = await startRun('List /tmp');
  // A second request from the terminal (no run: it can only be approved once).
  const tool = startCli(
    ['tool', 'bash_execute', JSON.stringify({ command: `cat /etc/hostname > ${OUTSIDE}-hostname` }), '--json'],
    home.env,
  );
  await expect.poll(() => badgeText(b), WAIT).toBe('2');
  const cards = panel.getByTestId('approval-card');
  await expect(cards).toHaveCount(2, WAIT);
  const runCard = cards.filter({ hasText: 'ls -la /tmp | head -n 5' });
  const toolCard = cards.filter({ hasText: 'cat /etc/hostname' });
  await expect(runCard.getByTestId('approval-risk')).toHaveText('高风险');
  await expect(runCard.getByTestId('approval-layer')).toHaveText('决定层：沙箱');
  // The daemon's own words come in the panel's language too: the reason and what the analyser found.
  await expect(runCard.getByTestId('approval-reason')).toHaveText(
    `请求离开沙箱，因为它更改 ${OUTSIDE}-list，不在沙箱可以更改的文件夹（无）中。如果允许，它会在 ~ 中以你的全部权限运行。`,
  );
  await expect(runCard.getByTestId('approval-sandbox')).toContainText('在哪里运行 在沙箱外');
  await expect(toolCard.getByTestId('approval-findings')).toContainText('匹配禁止的路径模式“/etc/**”');
  await expect(toolCard.getByTestId('approve-run')).toBeDisabled();
  await expect(panel.getByTestId('tab-approvals-count')).toHaveText('2');
  await panel.screenshot({ path: 'test-results/approvals-zh.png', fullPage: true });

  // The run's request is approved in the terminal: it leaves the panel and the badge.
  const runApprovalId = await runCard.getAttribute('data-approval-id');
  const approved = await runCli(['approvals', 'approve', runApprovalId!], home.env, 60_000);
  expect(approved.code, approved.stderr).toBe(0);
  await expect(cards).toHaveCount(1, WAIT);
  await expect(cards.first()).toContainText('cat /etc/hostname');
  await expect.poll(() => badgeText(b), WAIT).toBe('1');
  await expect(panel.getByTestId('approvals-notices')).toContainText('已在命令行中被批准');
  await expect.poll(() => runState(runId), WAIT).toBe('finished');
  expect(fs.readFileSync(`${OUTSIDE}-list`, 'utf8')).toContain('total');

  // The terminal's own call is denied in the panel, with a message for the caller.
  await toolCard.getByTestId('deny-with-message').click();
  await panel.getByRole('textbox', { name: '给智能体的留言' }).fill('不要读取主机名。');
  await panel.screenshot({ path: 'test-results/approvals-deny-zh.png', fullPage: true });
  await panel.getByRole('button', { name: '拒绝并发送' }).click();
  await expect(panel.getByTestId('approvals-empty')).toBeVisible(WAIT);
  await expect.poll(() => badgeText(b), WAIT).toBe('');
  await tool.exited;
  expect(tool.output().stdout).toContain('不要读取主机名。');
});

test('fifty pending requests: the badge and the tab count them, the list renders a window and stays quick to answer (dark)', async () => {
  const b = await launch([]);
  const panel = await openPanel(b);
  await panel.emulateMedia({ colorScheme: 'dark' });
  await panel.getByTestId('tab-approvals').click();
  await expect(panel.getByTestId('approvals-empty')).toBeVisible(WAIT);

  // Fifty calls from one client, each waiting for a person (closing the client withdraws them).
  const client = await DaemonClient.connect(dataPaths(home.dir), {
    start: false,
    client: { kind: 'test', name: 'approvals-e2e' },
  });
  try {
    const calls = Array.from({ length: 50 }, (_, index) =>
      client.peer
        .request(
          'tools.call',
          { name: 'bash_execute', input: { command: `touch ${OUTSIDE}-request-${index}` } },
          { timeoutMs: 120_000 },
        )
        .catch(() => undefined),
    );
    await expect.poll(() => badgeText(b), WAIT).toBe('50');
    await expect(panel.getByTestId('approvals-tab')).toHaveAttribute('data-count', '50', WAIT);
    await expect(panel.getByTestId('tab-approvals-count')).toHaveText('50');
    // A window of cards, not fifty at once; the rest follow on demand.
    const cards = panel.getByTestId('approval-card');
    expect(await cards.count()).toBeLessThan(50);
    await expect(cards.first().getByTestId('approval-param-command')).toHaveText(
      /^touch \/var\/tmp\/nx-e2e-request-\d+$/,
      WAIT,
    );
    await panel.screenshot({ path: 'test-results/approvals-dark-en.png' });

    const started = Date.now();
    await cards.first().getByTestId('deny').click();
    await expect(panel.getByTestId('approvals-tab')).toHaveAttribute('data-count', '49');
    const answerMs = Date.now() - started;
    await expect.poll(() => badgeText(b), WAIT).toBe('49');

    // Scrolling to the end of the window brings the next cards in.
    await expect
      .poll(async () => {
        await panel.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        return cards.count();
      }, WAIT)
      .toBe(49);
    await expect(panel.getByTestId('approvals-show-more')).toHaveCount(0);
    await expect(cards.last().getByTestId('approval-param-command')).toHaveText(
      /^touch \/var\/tmp\/nx-e2e-request-\d+$/,
    );
    test.info().annotations.push({ type: 'answer with 50 pending', description: `${answerMs} ms` });

    client.close();
    await Promise.all(calls);
    // The client went away: its requests are withdrawn, and the inbox and the badge empty.
    await expect(panel.getByTestId('approvals-empty')).toBeVisible(WAIT);
    await expect.poll(() => badgeText(b), WAIT).toBe('');
  } finally {
    client.close();
  }
});

test('the daemon dies while a run waits for approval: after the restart the same request is still in the panel, once, and answering it lets the run finish', async () => {
  // A model that answers by what it was sent, as a real one does: the command until its output
  // comes back, then the answer. (A list would answer a second ask with its next turn, and a
  // re-asked model call would look like a run that finished.)
  const command = `touch ${OUTSIDE}-restart && echo survived-a-restart`;
  const b = await launch((request) => {
    const last = lastMessageText(request.body as { messages: { content: unknown }[] });
    return last.includes('"tool_result"') && last.includes('survived-a-restart')
      ? { kind: 'text', text: 'The command printed survived-a-restart.' }
      : { kind: 'tool_calls', calls: [{ name: 'bash_execute', input: { command } }] };
  });
  const panel = await openPanel(b);
  await panel.getByTestId('tab-approvals').click();
  const runId = await startRun('Run echo survived-a-restart');
  const cards = panel.getByTestId('approval-card');
  await expect(cards).toHaveCount(1, WAIT);
  const approvalId = await cards.getAttribute('data-approval-id');
  await expect.poll(() => runState(runId), WAIT).toBe('waiting_approval');

  const pidFile = `${home.dir}/run/daemon.pid`;
  const firstPid = readPid(pidFile)!;
  process.kill(firstPid, 'SIGKILL');
  await expect.poll(() => isAlive(firstPid), WAIT).toBe(false);
  await expect.poll(() => readPid(pidFile), WAIT).not.toBe(firstPid);
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected', WAIT);
  // What the run did after the restart, shown if it is not waiting for the person again.
  const story = async () =>
    JSON.stringify({
      run: JSON.parse((await runCli(['runs', 'show', runId, '--steps', '--json'], home.env, 60_000)).stdout),
      modelWasSent: model!.requests.map((request) => lastMessageText(request.body).slice(0, 300)),
    });
  await expect
    .poll(() => runState(runId), { ...WAIT, message: 'the run after the restart' })
    .toBe('waiting_approval')
    .catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await story()}`);
    });
  // Nothing ran without the person's answer.
  expect(fs.existsSync(`${OUTSIDE}-restart`)).toBe(false);

  await expect(cards).toHaveCount(1);
  await expect(cards).toHaveAttribute('data-approval-id', approvalId!);
  await expect.poll(() => badgeText(b), WAIT).toBe('1');
  await cards.getByTestId('approve-once').click();
  await expect(panel.getByTestId('approvals-empty')).toBeVisible(WAIT);
  await expect.poll(() => runState(runId), WAIT).toBe('finished');
  await expect.poll(() => badgeText(b), WAIT).toBe('');
});
