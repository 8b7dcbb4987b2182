import fs from 'node:fs';
import path from 'node:path';

import { expect, test } from '@playwright/test';

import { FIREFOX_EXTENSION_ID } from '@nextai/shared';

import { runCli } from '../support/cli.js';
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
