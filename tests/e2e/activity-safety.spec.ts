import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { expect, test, type Page } from '@playwright/test';

import type { RunView } from '@nextai/shared';

import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, sidePanelUrl, type ExtensionBrowser } from '../support/chromium.js';
import {
  planningTurns,
  startFakeModelServer,
  type FakeModelServer,
  type ScriptedTurn,
} from '../support/fake-model-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';
import { startXServer, type XServer } from '../support/x-server.js';

/**
 * The activity tab and the emergency stop in real Chromium with the
 * real daemon, driven by the scripted fake model: the stop button and the keyboard command stop
 * a running task and the panel shows the latched stop until it is reset; the live view shows the
 * agent's screen with its actions marked.
 */
let home: TestHome;
let browser: ExtensionBrowser | undefined;
let model: FakeModelServer | undefined;
let xServer: XServer | undefined;
let work: string | undefined;
let xterm: ChildProcess | undefined;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await home.cleanup();
  await model?.close();
  model = undefined;
  xterm?.kill();
  xterm = undefined;
  await xServer?.stop();
  xServer = undefined;
  if (work) fs.rmSync(work, { recursive: true, force: true });
  work = undefined;
});

/**
 * A home whose daemon (started by the host the browser launches) talks to the fake model, under
 * the full-auto template in a work directory outside the data directory; the panel open on the
 * Activity tab, in `language`.
 */
async function openPanel(
  turns: ScriptedTurn[],
  options: { language?: 'en' | 'zh-CN'; env?: NodeJS.ProcessEnv; headedOn?: XServer } = {},
): Promise<Page> {
  home = makeHome();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-work-'));
  fs.writeFileSync(
    path.join(home.dir, 'config.json'),
    JSON.stringify({
      security: { allowed_directories: [work] },
      projects: { default_approval_template: 'full-auto' },
    }),
    { mode: 0o600 },
  );
  model = await startFakeModelServer(turns);
  Object.assign(home.env, options.env ?? {}, {
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-key',
  });
  delete home.env.OPENAI_API_KEY;
  delete home.env.OPENAI_BASE_URL;
  const profile = makeProfileDir();
  const installed = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  expect(installed.code, installed.stderr).toBe(0);
  browser = await launchWithExtension(
    profile,
    home.env,
    options.headedOn ? { headedOn: options.headedOn.display } : {},
  );
  const panel = await browser.context.newPage();
  if (options.language === 'zh-CN') {
    await panel.addInitScript(() => {
      Object.defineProperty(navigator, 'language', { get: () => 'zh-CN' });
    });
  }
  await panel.setViewportSize({ width: 400, height: 900 });
  await panel.goto(sidePanelUrl());
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected', {
    timeout: 30_000,
  });
  await panel.getByTestId('tab-activity').click();
  return panel;
}

async function startRun(goal: string): Promise<string> {
  const started = await runCli(['run', '--detach', '--json', goal], home.env);
  expect(started.code, started.stderr).toBe(0);
  return (JSON.parse(started.stdout) as { run: RunView }).run.id;
}

async function runState(id: string): Promise<string> {
  const shown = await runCli(['runs', 'show', id, '--json'], home.env);
  return (JSON.parse(shown.stdout) as { run: RunView }).run.state;
}

test('the stop button stops a running task, the panel shows the latched stop, and reset lifts it', async () => {
  // The model never answers: the run sits in its model call until something stops it.
  const panel = await openPanel([{ kind: 'hang' }]);
  const stopButton = panel.getByRole('button', { name: /Emergency stop/ });
  await expect(stopButton).toBeVisible();
  await expect(stopButton).toHaveAttribute('aria-keyshortcuts', 'Alt+Shift+S');

  const runId = await startRun('Wait for the model forever');
  await model!.waitForRequests(1);
  await expect.poll(() => runState(runId), { timeout: 20_000 }).toBe('running');
  await expect(panel.getByTestId('live-run')).toContainText('Wait for the model forever', { timeout: 20_000 });

  await stopButton.click();
  await expect(panel.getByTestId('estop-banner')).toBeVisible({ timeout: 20_000 });
  await expect(panel.getByTestId('estop-banner')).toContainText('Emergency stop is on');
  await expect(panel.getByTestId('estop-banner')).toContainText('the stop button in the side panel');
  await expect(panel.getByTestId('estop-latched-pill')).toBeVisible();
  await expect(panel.getByTestId('emergency-stop')).toHaveCount(0);
  // The run is paused (the stop pauses every run) and nothing may start until the reset.
  await expect.poll(() => runState(runId), { timeout: 20_000 }).toMatch(/paused|stopped/);
  await expect(panel.getByTestId('live-run')).toContainText(/Paused|Stopped/, { timeout: 20_000 });
  // The stop is in the operation log, with who pressed it.
  await expect(panel.getByTestId('activity-card')).toContainText('Emergency stop', { timeout: 20_000 });
  await panel.screenshot({ path: 'test-results/activity-stopped-en.png', fullPage: true });
  await panel.emulateMedia({ colorScheme: 'dark' });
  await panel.screenshot({ path: 'test-results/activity-stopped-dark-en.png', fullPage: true });
  await panel.emulateMedia({ colorScheme: 'light' });

  // Reset from the keyboard: Tab to the button, Enter.
  await panel.getByRole('button', { name: 'Lift the emergency stop so tools may run again' }).focus();
  await panel.keyboard.press('Enter');
  await expect(panel.getByTestId('estop-banner')).toHaveCount(0, { timeout: 20_000 });
  await expect(panel.getByTestId('emergency-stop')).toBeVisible();
  await expect(panel.getByTestId('activity-card')).toContainText('Emergency stop lifted', { timeout: 20_000 });
});

test('the emergency-stop keyboard command (a real Alt+Shift+S) stops a long command with no panel open; a panel opened later shows the stop', async () => {
  // Browser shortcuts exist only in a window: Chromium runs headed on a test X server, and the
  // keys are pressed there through XTEST, as a keyboard would.
  xServer = await startXServer({ width: 1280, height: 800 });
  const panel = await openPanel(
    [
      { kind: 'tool_calls', calls: [{ name: 'bash_execute', input: { command: 'sleep 120' } }] },
      { kind: 'text', text: 'Done sleeping.' },
    ],
    { headedOn: xServer },
  );
  const page = await browser!.context.newPage();
  await page.goto('data:text/html,<title>Reading</title><h1>Some page the person is reading</h1>');
  await panel.close();
  const runId = await startRun('Sleep for two minutes');
  // The command is running in the daemon's terminal.
  await expect
    .poll(async () => (await runCli(['audit', 'list', '--json', '--limit', '20'], home.env)).stdout, {
      timeout: 20_000,
    })
    .toContain('sleep 120');
  expect(await runState(runId)).toBe('running');

  // The person presses Alt+Shift+S in the browser window.
  const started = Date.now();
  const display = { ...process.env, DISPLAY: xServer.display };
  const windows = spawnSync('xdotool', ['search', '--onlyvisible', '--class', 'chromium'], { env: display });
  const window = windows.stdout.toString().trim().split('\n').at(-1);
  expect(window, windows.stderr.toString()).toMatch(/^\d+$/);
  expect(spawnSync('xdotool', ['windowactivate', '--sync', window!], { env: display }).status).toBe(0);
  expect(spawnSync('xdotool', ['key', '--clearmodifiers', 'alt+shift+s'], { env: display }).status).toBe(0);
  await expect.poll(() => runState(runId), { timeout: 20_000 }).toMatch(/paused|stopped/);
  // `sleep 120` was aborted, not waited for.
  expect(Date.now() - started).toBeLessThan(60_000);

  const reopened = await browser!.context.newPage();
  await reopened.setViewportSize({ width: 400, height: 900 });
  await reopened.goto(sidePanelUrl());
  await expect(reopened.getByTestId('estop-banner')).toContainText('the keyboard shortcut (Alt+Shift+S)', {
    timeout: 30_000,
  });
  await reopened.getByTestId('tab-activity').click();
  const log = reopened.getByTestId('activity-card');
  await expect(log).toContainText('bash_execute');
  await expect(log).toContainText('sleep 120');
  await expect(log).toContainText('EMERGENCY_STOPPED', { timeout: 20_000 });

  // Reset; the stop button is back and the paused run may resume.
  await reopened.getByTestId('estop-reset').click();
  await expect(reopened.getByTestId('emergency-stop')).toBeVisible({ timeout: 20_000 });
  const resumed = await runCli(['runs', 'resume', runId], home.env);
  expect(resumed.code, resumed.stderr).toBe(0);
});

test('a 500-step run keeps the operation log light: only the rows in view are in the page, and scrolling reaches the oldest', async () => {
  const turns = planningTurns(5, 100);
  const panel = await openPanel([...turns, { kind: 'text', text: 'Planned.' }]);
  const runId = await startRun('Plan five hundred steps');
  await expect.poll(() => runState(runId), { timeout: 90_000 }).toBe('finished');

  const log = panel.getByTestId('activity-card');
  await expect(log).toContainText(/50\d operations/, { timeout: 30_000 });
  const rendered = await panel.locator('[data-testid="activity-list"] li').count();
  expect(rendered).toBeLessThan(20);
  // The oldest row (the panel's own system_info when it opened) is reached by scrolling.
  await panel.getByTestId('activity-list').evaluate((list) => list.scrollTo({ top: list.scrollHeight }));
  await expect(panel.getByTestId('activity-list')).toContainText('system_info');
  expect(await panel.locator('[data-testid="activity-list"] li').count()).toBeLessThan(20);
  // The panel still answers: switching away and back renders the log again, still windowed.
  await panel.getByTestId('tab-chat').click();
  await panel.getByTestId('tab-activity').click();
  await expect(log).toBeVisible();
  expect(await panel.locator('[data-testid="activity-list"] li').count()).toBeLessThan(20);
});

for (const language of ['en', 'zh-CN'] as const) {
  test(`the live view shows the agent's screen with its click and typing marked, and the log has thumbnails (${language})`, async () => {
    xServer = await startXServer({ width: 1280, height: 800 });
    // Something to look at: a coloured desktop and a terminal under the point the agent clicks.
    spawnSync('xsetroot', ['-solid', '#3d5a80'], { env: xServer.env, timeout: 10_000 });
    xterm = spawn('xterm', ['-geometry', '70x16+180+160', '-title', 'work'], { env: xServer.env, stdio: 'ignore' });
    spawnSync('xdotool', ['search', '--sync', '--onlyvisible', '--name', 'work'], {
      env: xServer.env,
      timeout: 15_000,
    });
    const panel = await openPanel(
      [
        { kind: 'tool_calls', calls: [{ name: 'screenshot', input: {} }] },
        {
          kind: 'tool_calls',
          text: 'Clicking the field and typing.',
          calls: [
            { name: 'left_click', input: { x: 320, y: 240 } },
            { name: 'type_text', input: { text: 'hello 你好', delay: 0 } },
          ],
        },
        { kind: 'text', text: 'Typed it.' },
      ],
      { language, env: { DISPLAY: xServer.display } },
    );
    const runId = await startRun('Type a greeting');
    await expect.poll(() => runState(runId), { timeout: 60_000 }).toBe('finished');

    const screen = panel.getByTestId('live-screen');
    await expect(screen).toBeVisible({ timeout: 20_000 });
    await expect(panel.getByTestId('marker-click')).toHaveCount(1);
    await expect(panel.getByTestId('marker-typing')).toHaveCount(1);
    await expect(screen.locator('img')).toHaveJSProperty('complete', true);
    expect(await screen.locator('img').evaluate((image: HTMLImageElement) => image.naturalWidth)).toBeGreaterThan(0);
    const log = panel.getByTestId('activity-card');
    await expect(log).toContainText('left_click');
    await expect(log).toContainText('(320, 240)');
    await expect(log.getByTestId('activity-thumbnail').first()).toBeVisible({ timeout: 20_000 });
    const suffix = language === 'en' ? 'en' : 'zh';
    await panel.screenshot({ path: `test-results/activity-live-${suffix}.png`, fullPage: true });
    if (language === 'en') {
      await panel.emulateMedia({ colorScheme: 'dark' });
      await panel.screenshot({ path: 'test-results/activity-live-dark-en.png', fullPage: true });
      await panel.emulateMedia({ colorScheme: 'light' });
      // The thumbnail opens the screenshot at full size; Escape closes it.
      await log.getByTestId('activity-thumbnail').first().click();
      await expect(panel.getByTestId('image-dialog')).toBeVisible();
      await panel.keyboard.press('Escape');
      await expect(panel.getByTestId('image-dialog')).toHaveCount(0);
    } else {
      await expect(panel.getByTestId('live-view')).toContainText('实时画面');
      // The stop, latched, in Chinese.
      await panel.getByTestId('emergency-stop').click();
      await expect(panel.getByTestId('estop-banner')).toContainText('紧急停止已开启', { timeout: 20_000 });
      await panel.screenshot({ path: 'test-results/activity-stopped-zh.png' });
    }
  });
}
