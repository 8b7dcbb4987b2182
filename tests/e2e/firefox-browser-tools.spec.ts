import { expect, test } from '@playwright/test';

import { BROWSER_TASKS, cliTools, writeBlockingConfig } from '../support/browser-tasks.js';
import { runCli } from '../support/cli.js';
import { startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { launchFirefoxWithExtension, makeFirefoxHome, type FirefoxWithExtension } from '../support/firefox.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

// The same browser tools through the extension in Firefox (WebDriver BiDi drives the browser; the
// daemon calls the tools, the add-on runs them).
let home: TestHome;
let firefox: FirefoxWithExtension | undefined;
let site: FixtureSite;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await firefox?.close();
  firefox = undefined;
  await home.cleanup();
  await site.close();
});

test('Firefox: a React form and a blocked redirect through the add-on', async () => {
  site = await startFixtureSite();
  home = makeHome();
  writeBlockingConfig(home.dir);
  const env = { ...home.env, HOME: makeFirefoxHome() };
  expect((await runCli(['install', '--browser', 'firefox'], env)).code).toBe(0);
  firefox = await launchFirefoxWithExtension(env.HOME!, env);
  await firefox.openSidebarPage();
  await expect
    .poll(async () => {
      const status = await runCli(['status', '--json'], env);
      return status.code === 0 ? (JSON.parse(status.stdout) as { clients: { name: string }[] }).clients : [];
    })
    .toEqual(expect.arrayContaining([expect.objectContaining({ name: 'firefox' })]));
  const call = cliTools(env);
  await BROWSER_TASKS.reactForm(call, site);
  await BROWSER_TASKS.blockedDomains(call, site);
});
