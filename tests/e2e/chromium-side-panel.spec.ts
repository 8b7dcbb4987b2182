import { expect, test, type Page } from '@playwright/test';

import { CHROME_EXTENSION_ID } from '@nextai/shared';

import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, sidePanelUrl, type ExtensionBrowser } from '../support/chromium.js';
import { daemonPidsOf, isAlive, makeHome, nextaiProcessesOf, readPid, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

let home: TestHome;
let browser: ExtensionBrowser | undefined;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await home.cleanup();
});

async function installInto(profile: string): Promise<void> {
  const result = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  expect(result.code, result.stderr).toBe(0);
}

/** The Activity tab: the live view, the operation log, the host and this computer. */
async function showActivity(panel: Page): Promise<void> {
  await panel.getByTestId('tab-activity').click();
}

/**
 * A fresh data directory and profile with the host installed, and the side panel open and
 * connected, on its Activity tab.
 */
async function openConnectedPanel(): Promise<Page> {
  home = makeHome();
  const profile = makeProfileDir();
  await installInto(profile);
  browser = await launchWithExtension(profile, home.env);
  const panel = await browser.context.newPage();
  await panel.goto(sidePanelUrl());
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected');
  await showActivity(panel);
  return panel;
}

/**
 * What "Check again" does, called directly where the extension's own retry may get there first
 * and remove the button (the button itself is tested once, with the retries backed off).
 */
const reconnectNow = (b: ExtensionBrowser) =>
  b.serviceWorker.evaluate(() =>
    (
      globalThis as unknown as { nextaiBackground: { connection: { reconnectNow(): void } } }
    ).nextaiBackground.connection.reconnectNow(),
  );

const badgeText = (b: ExtensionBrowser) =>
  b.serviceWorker.evaluate(() =>
    (
      globalThis as unknown as { chrome: { action: { getBadgeText(details: object): Promise<string> } } }
    ).chrome.action.getBadgeText({}),
  );

test('the side panel shows the host and the system_info answer from a real daemon', async () => {
  const panel = await openConnectedPanel();
  await expect(panel.getByTestId('host-version')).toHaveText('0.1.0');
  await expect(panel.getByTestId('host-platform')).toContainText('linux');
  await expect(panel.getByTestId('system-info-card')).toHaveAttribute('data-phase', 'ready');
  const status = await runCli(['status', '--json'], home.env);
  const os = JSON.parse((await runCli(['tool', 'system_info', '{"categories":["os"]}'], home.env)).stdout).os as string;
  await expect(panel.getByTestId('sysinfo-os')).toHaveText(os);
  expect(JSON.parse(status.stdout)).toMatchObject({
    running: true,
    clients: [
      expect.objectContaining({
        kind: 'extension',
        name: 'chromium',
        origin: `chrome-extension://${CHROME_EXTENSION_ID}/`,
      }),
    ],
  });
  expect(await badgeText(browser!)).toBe('');
  await panel.setViewportSize({ width: 400, height: 900 });
  await panel.screenshot({ path: 'test-results/side-panel-connected.png', fullPage: true });
});

test('without the host installed, the panel shows the install command, and connects once it is installed', async () => {
  home = makeHome();
  const profile = makeProfileDir();
  browser = await launchWithExtension(profile, home.env);

  const panel = await browser.context.newPage();
  await panel.goto(sidePanelUrl());
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'disconnected');
  await expect(panel.getByTestId('install-command')).toHaveText('npx nextai install --browser chromium');
  expect(await badgeText(browser)).toBe('!');
  await panel.setViewportSize({ width: 400, height: 600 });
  await panel.screenshot({ path: 'test-results/side-panel-host-missing.png' });

  // Let the automatic retries back off to several seconds, so the click below (not a retry)
  // is what connects.
  await expect(panel.getByTestId('connect-card')).toContainText(/Next automatic try in ([4-9]|\d\d)s/, {
    timeout: 30_000,
  });
  await installInto(profile);
  await panel.getByRole('button', { name: 'Check again' }).click();
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected');
  await showActivity(panel);
  await expect(panel.getByTestId('system-info-card')).toHaveAttribute('data-phase', 'ready');
  expect(await badgeText(browser)).toBe('');
});

test('the daemon dies while the browser is connected: the bridge restarts it and the panel recovers', async () => {
  const panel = await openConnectedPanel();

  const pidFile = `${home.dir}/run/daemon.pid`;
  const firstPid = readPid(pidFile)!;
  process.kill(firstPid, 'SIGKILL');
  await expect.poll(() => isAlive(firstPid)).toBe(false);
  await expect.poll(() => readPid(pidFile)).not.toBe(firstPid);
  // The new daemon knows the browser: the extension said hello to it again.
  await expect
    .poll(
      async () =>
        JSON.parse((await runCli(['status', '--json'], home.env)).stdout) as {
          pid: number;
          clients: { kind: string }[];
        },
    )
    .toMatchObject({ pid: readPid(pidFile), clients: [expect.objectContaining({ kind: 'extension' })] });
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected');
  await panel.getByRole('button', { name: 'Refresh' }).click();
  await expect(panel.getByTestId('system-info-card')).toHaveAttribute('data-phase', 'ready');
});

test('the daemon can call a browser tool in the extension through the bridge', async () => {
  await openConnectedPanel();

  // The answer comes from the extension's own handler table: the tabs of this very browser.
  const result = await runCli(['tool', 'browser_tabs', '{"action":"list"}', '--json'], home.env);
  const answer = JSON.parse(result.stdout) as { ok: boolean; output: { tabs: { url: string; agent: boolean }[] } };
  expect(answer.ok).toBe(true);
  expect(answer.output.tabs).toEqual(
    expect.arrayContaining([expect.objectContaining({ url: sidePanelUrl(), agent: false })]),
  );
});

test('a panel opened later shows what happened before it opened', async () => {
  const panel = await openConnectedPanel();
  await expect(panel.getByTestId('system-info-card')).toHaveAttribute('data-phase', 'ready');
  await panel.close();

  await runCli(['tool', 'screenshot'], home.env);
  const reopened = await browser!.context.newPage();
  await reopened.goto(sidePanelUrl());
  await showActivity(reopened);
  await expect(reopened.getByTestId('activity-card')).toContainText('screenshot');
  await expect(reopened.getByTestId('activity-card')).toContainText('UNAVAILABLE');
});

test('events that happen while the host is away reach the panel when it reconnects (replayed from the daemon)', async () => {
  const panel = await openConnectedPanel();
  const profile = browser!.userDataDir;
  // Take the host away: uninstall its manifest for this profile and end the running bridge.
  expect((await runCli(['uninstall', '--user-data-dir', profile], home.env)).code).toBe(0);
  for (const pid of nextaiProcessesOf(home.dir, 'host')) process.kill(Number(pid), 'SIGTERM');
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'disconnected');

  // While the browser cannot hear the daemon, something happens.
  await runCli(['tool', 'app_list'], home.env);

  await installInto(profile);
  await reconnectNow(browser!);
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected');
  // The panel never closed: its operation log caught up on what happened while it was away.
  await expect(panel.getByTestId('activity-card')).toContainText('app_list');
});

test('a person stops the daemon while the browser is open: it stays stopped, and the panel says how to start it', async () => {
  const panel = await openConnectedPanel();
  expect((await runCli(['daemon', 'stop'], home.env)).code).toBe(0);
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'disconnected');
  await expect(panel.getByTestId('connect-card')).toContainText('stopped on purpose');
  expect(daemonPidsOf(home.dir)).toEqual([]);

  expect((await runCli(['daemon', '--detach'], home.env)).code).toBe(0);
  // What "Check again" does; called directly because the extension's own retry may get there
  // first and remove the button.
  await browser!.serviceWorker.evaluate(() =>
    (
      globalThis as unknown as { nextaiBackground: { connection: { reconnectNow(): void } } }
    ).nextaiBackground.connection.reconnectNow(),
  );
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected');
});
