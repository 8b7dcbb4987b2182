import AxeBuilder from '@axe-core/playwright';
import fs from 'node:fs';
import path from 'node:path';

import { expect, test, type Page } from '@playwright/test';

import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, sidePanelUrl, type ExtensionBrowser } from '../support/chromium.js';
import { startFakeModelServer, type FakeModelServer } from '../support/fake-model-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * Accessibility, checked by a machine on every screen of the panel: axe-core (the engine behind
 * Lighthouse's accessibility audit) finds no control without an accessible name, no broken ARIA,
 * no keyboard trap it can detect and no text below WCAG AA contrast — in light and dark, with a
 * run's tool cards, a pending approval, the activity log and every settings page on screen.
 */
let home: TestHome;
let model: FakeModelServer | undefined;
let browser: ExtensionBrowser | undefined;

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await home.cleanup();
  await model?.close();
  model = undefined;
});

/** The WCAG 2.1 A and AA rules; each violation is listed with the elements that break it. */
async function violations(page: Page, screen: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.map(
    (violation) =>
      `${screen}: ${violation.id} (${violation.help}) at ${violation.nodes.map((node) => `${node.target.join(' ')} [${node.any[0]?.message ?? node.failureSummary ?? ''}]`).join(', ')}`,
  );
}

test('every screen of the panel passes axe-core’s WCAG A/AA rules, in light and dark, in English and Chinese', async () => {
  home = makeHome();
  fs.writeFileSync(path.join(home.dir, 'config.json'), JSON.stringify({ ui: { setup_done: true } }));
  model = await startFakeModelServer([
    {
      kind: 'tool_calls',
      text: 'Let me look.',
      calls: [{ name: 'system_info', input: { categories: ['os'] } }],
    },
    // Writing outside the folders the sandbox may change: it waits for approval.
    { kind: 'tool_calls', calls: [{ name: 'bash_execute', input: { command: 'ls -la /tmp > /var/tmp/nx-e2e-a11y' } }] },
    { kind: 'text', text: 'Done: **two** files.' },
  ]);
  Object.assign(home.env, { ANTHROPIC_BASE_URL: model.anthropicBaseUrl, ANTHROPIC_API_KEY: 'sk-ant-test-key-a11y' });
  delete home.env.OPENAI_API_KEY;
  delete home.env.OPENAI_BASE_URL;
  const profile = makeProfileDir();
  const install = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  expect(install.code, install.stderr).toBe(0);
  browser = await launchWithExtension(profile, home.env);
  const panel = await browser.context.newPage();
  await panel.setViewportSize({ width: 400, height: 900 });
  await panel.goto(sidePanelUrl());
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected', {
    timeout: 30_000,
  });

  // A run with a finished tool card, then one waiting for approval.
  const box = panel.getByTestId('composer').locator('textarea');
  await box.fill('What is in /tmp?');
  await box.press('Enter');
  await expect(panel.getByTestId('run-waiting-approval')).toBeVisible({ timeout: 60_000 });

  const found: string[] = [];
  const passes = [
    ['en', 'light'],
    ['en', 'dark'],
    ['zh-CN', 'light'],
  ] as const;
  for (const [language, scheme] of passes) {
    if (language === 'zh-CN') {
      await panel.getByTestId('tab-settings').click();
      await panel.getByTestId('settings-page-general').click();
      await panel.getByTestId('language-switch').getByText('中文').click();
      await expect(panel.locator('.panel')).toHaveAttribute('lang', 'zh-CN');
    }
    await panel.emulateMedia({ colorScheme: scheme });
    await panel.getByTestId('tab-chat').click();
    await expect(panel.getByTestId('tool-card').first()).toBeVisible();
    found.push(...(await violations(panel, `chat (${language}, ${scheme})`)));
    await panel.screenshot({ path: `test-results/a11y-chat-${language}-${scheme}.png` });
    await panel.getByTestId('sessions-toggle').click();
    found.push(...(await violations(panel, `sessions (${language}, ${scheme})`)));
    await panel.getByTestId('sessions-toggle').click();

    await panel.getByTestId('tab-approvals').click();
    await expect(panel.getByTestId('approval-card')).toBeVisible();
    found.push(...(await violations(panel, `approvals (${language}, ${scheme})`)));
    await panel.screenshot({ path: `test-results/a11y-approvals-${language}-${scheme}.png` });

    await panel.getByTestId('tab-activity').click();
    await expect(panel.getByTestId('activity-card')).toContainText('system_info');
    found.push(...(await violations(panel, `activity (${language}, ${scheme})`)));

    await panel.getByTestId('tab-settings').click();
    for (const page of ['model', 'projects', 'safety', 'general']) {
      await panel.getByTestId(`settings-page-${page}`).click();
      await expect(panel.getByTestId(`settings-page-${page}`)).toHaveAttribute('aria-current', 'page');
      found.push(...(await violations(panel, `settings ${page} (${language}, ${scheme})`)));
    }
  }
  expect(found).toEqual([]);
});
