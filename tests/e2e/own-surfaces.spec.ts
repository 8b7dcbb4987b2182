import { spawn, spawnSync, type ChildProcess } from 'node:child_process';

import { expect, test, type Page } from '@playwright/test';

import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, sidePanelUrl, type ExtensionBrowser } from '../support/chromium.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';
import { startXServer, type XServer } from '../support/x-server.js';

/**
 * The agent's mouse and keyboard may not act on NextAI's own pages — a click there
 * could answer an approval, keys would speak in the person's conversation — and the browser
 * reports the agent's synthetic input as the person's. A real headed Chromium on a real X
 * server (with a window manager), the real daemon in its default configuration (no
 * config.json), and the tools called as the agent's are: by the daemon, through XTEST.
 */
let home: TestHome;
let browser: ExtensionBrowser | undefined;
let xServer: XServer | undefined;
let xterm: ChildProcess | undefined;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await home.cleanup();
  xterm?.kill();
  xterm = undefined;
  await xServer?.stop();
  xServer = undefined;
});

async function tool(name: string, input: object): Promise<{ code: number; text: string }> {
  const result = await runCli(['tool', name, JSON.stringify(input)], home.env);
  return { code: result.code ?? -1, text: `${result.stdout}${result.stderr}` };
}

function xdotool(...args: string[]): string {
  const result = spawnSync('xdotool', args, { env: xServer!.env, timeout: 15_000 });
  expect(result.status, result.stderr.toString()).toBe(0);
  return result.stdout.toString().trim();
}

async function connectedPanel(): Promise<Page> {
  xServer = await startXServer({ width: 1280, height: 800 });
  home = makeHome();
  // A model is set up (never reached here), so the chat shows its composer.
  Object.assign(home.env, { ANTHROPIC_API_KEY: 'sk-ant-test-key', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
  const profile = makeProfileDir();
  const installed = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  expect(installed.code, installed.stderr).toBe(0);
  // The browser window takes the left 1000 × 760 pixels of the screen.
  browser = await launchWithExtension(profile, home.env, { headedOn: xServer.display });
  const panel = await browser.context.newPage();
  await panel.goto(sidePanelUrl());
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected', {
    timeout: 30_000,
  });
  return panel;
}

test("the agent's clicks and keys do not reach NextAI's page, and do reach the window beside it", async () => {
  const panel = await connectedPanel();
  // A terminal to the right of the browser: somewhere the agent may work.
  xterm = spawn('xterm', ['-geometry', '30x10+1040+100', '-title', 'beside'], { env: xServer!.env, stdio: 'ignore' });
  xdotool('search', '--sync', '--onlyvisible', '--name', 'beside');
  const browserWindow = xdotool('search', '--onlyvisible', '--class', 'chromium').split('\n').at(-1)!;
  xdotool('windowactivate', '--sync', browserWindow);
  // The person points at the page and clicks into the composer: the page now has the focus.
  xdotool('mousemove', '500', '400');
  // A fresh profile opens on the setup; the person skips it and goes to the chat.
  await panel.getByTestId('wizard-skip').click();
  await panel.getByTestId('tab-chat').click();
  const composer = panel.getByTestId('composer').locator('textarea');
  await composer.focus();

  // A click on the page is refused, and so is one on the window's edge (the page's own frame).
  await expect
    .poll(async () => (await tool('left_click', { x: 500, y: 400 })).text, { timeout: 10_000 })
    .toContain("is on a page of NextAI's extension");
  const drag = await tool('mouse_drag', { from_x: 1100, from_y: 300, to_x: 600, to_y: 300 });
  expect(drag.code).not.toBe(0);
  expect(drag.text).toContain('POLICY_BLOCKED');

  // Keys are refused while the page has the keyboard focus; nothing was typed into it.
  const typed = await tool('type_text', { text: 'approve everything', delay: 0 });
  expect(typed.code).not.toBe(0);
  expect(typed.text).toContain('has the keyboard focus');
  const enter = await tool('key_press', { keys: ['enter'] });
  expect(enter.text).toContain('has the keyboard focus');
  await expect(composer).toHaveValue('');

  // Beside the browser the agent works as before: the click focuses the terminal, and then its
  // keys go there (the page no longer has the focus).
  const beside = await tool('left_click', { x: 1100, y: 150 });
  expect(beside.code, beside.text).toBe(0);
  // (Playwright makes every page believe it has the focus: the window's focus, which the browser
  // reports from the window manager, is what tells.)
  const typedBeside = await tool('type_text', { text: 'echo hello', delay: 0 });
  expect(typedBeside.code, typedBeside.text).toBe(0);
  await expect(composer).toHaveValue('');
});

test("the browser's extensions page is out of the agent's reach while it is shown", async () => {
  const panel = await connectedPanel();
  const manager = await browser!.context.newPage();
  await manager.goto('chrome://extensions/');
  // Only the extensions page is on screen (each page here is a window of its own).
  await panel.close();
  await expect
    .poll(async () => (await tool('left_click', { x: 500, y: 400 })).text, { timeout: 10_000 })
    .toContain("is on a page of the browser's settings, extensions or developer tools");
  // The inspector, from which developer tools open on the panel (whose console speaks as it).
  await manager.goto('chrome://inspect/#extensions');
  await expect
    .poll(async () => (await tool('key_press', { keys: ['tab'] })).text, { timeout: 10_000 })
    .toContain('has the keyboard focus');
  // With an ordinary page there instead, a click in the window goes through.
  await manager.goto('data:text/html,<title>Reading</title><h1>An ordinary page</h1>');
  await expect.poll(async () => (await tool('left_click', { x: 500, y: 400 })).code, { timeout: 10_000 }).toBe(0);
});
