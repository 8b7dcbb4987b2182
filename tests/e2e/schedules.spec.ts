import fs from 'node:fs';
import path from 'node:path';

import { expect, test, type Page } from '@playwright/test';

import type { ScheduleView } from '@nextai/shared';

import { runCli } from '../support/cli.js';
import { launchWithExtension, makeProfileDir, sidePanelUrl, type ExtensionBrowser } from '../support/chromium.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * The Schedules tab in real Chromium with the real daemon: tasks made from the terminal show with
 * their cron time in words, next and last run and history; the on/off switch and the create form
 * work from the keyboard and reach the daemon; refusals come back with the daemon's reason.
 */
let home: TestHome;
let browser: ExtensionBrowser | undefined;
const WAIT = { timeout: 30_000 };
const STEPS = JSON.stringify([{ tool: 'system_info', input: { categories: ['os'] } }]);

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await home.cleanup();
});

/** A data directory past the first-run wizard whose project forbids bash_execute, and the panel open on it. */
async function openPanel(language: 'en' | 'zh-CN'): Promise<Page> {
  home = makeHome();
  fs.writeFileSync(
    path.join(home.dir, 'config.json'),
    JSON.stringify({
      ui: { setup_done: true },
      projects: {
        items: {
          default: {
            name: 'Default',
            approval: {
              mode: 'supervised',
              risk_policies: {
                low: 'auto_approve',
                medium: 'auto_approve',
                high: 'require_approval',
                critical: 'always_block',
              },
              category_overrides: {},
              tool_overrides: { bash_execute: 'always_block' },
            },
          },
        },
      },
    }),
    { mode: 0o600 },
  );
  const profile = makeProfileDir();
  const install = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], home.env);
  expect(install.code, install.stderr).toBe(0);
  browser = await launchWithExtension(profile, home.env);
  const panel = await browser.context.newPage();
  await panel.setViewportSize({ width: 400, height: 900 });
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

async function addFromTerminal(name: string, cron: string): Promise<ScheduleView> {
  const added = await runCli(
    ['schedule', 'add', '--name', name, '--cron', cron, '--tz', 'Asia/Shanghai', '--steps', STEPS, '--json'],
    home.env,
  );
  expect(added.code, added.stderr).toBe(0);
  return JSON.parse(added.stdout) as ScheduleView;
}

async function scheduleOf(name: string): Promise<ScheduleView> {
  const shown = await runCli(['schedule', 'show', name, '--json'], home.env);
  return (JSON.parse(shown.stdout) as { schedule: ScheduleView }).schedule;
}

test('tasks show next and last run and history; the switch and the form work from the keyboard; refusals say why', async () => {
  const panel = await openPanel('en');
  await panel.getByTestId('tab-schedules').click();
  await expect(panel.getByTestId('schedules-empty')).toBeVisible(WAIT);
  await expect(panel.getByTestId('schedules-heartbeat')).toContainText('HEARTBEAT.md is read every 30 min');

  await addFromTerminal('Morning check', '0 9 * * 1-5');
  const card = panel.getByTestId('schedule-card').filter({ hasText: 'Morning check' });
  await expect(card).toBeVisible(WAIT);
  await expect(card.getByTestId('schedule-when')).toHaveText('At 09:00, Monday through Friday (Asia/Shanghai)');
  await expect(card.getByTestId('schedule-last')).toHaveText('Never ran');
  await expect(card.getByTestId('schedule-next')).toContainText(/^in /u);

  await card.getByRole('button', { name: 'Run Morning check now' }).click();
  await expect(card.getByTestId('schedule-last').getByTestId('schedule-outcome')).toHaveText('Succeeded', WAIT);
  await expect(card.getByTestId('schedule-last')).toContainText('run by hand');
  await card.getByTestId('schedule-history-toggle').click();
  const history = card.getByRole('list', { name: 'History of Morning check' });
  await expect(history.getByRole('listitem')).toHaveCount(1);
  await expect(history).toContainText('1 step done (system_info)');

  // Off and on again with the keyboard: the switch has an accessible name and a state.
  const toggle = card.getByRole('switch', { name: 'Run Morning check on schedule' });
  await expect(toggle).toBeChecked();
  await toggle.focus();
  await panel.keyboard.press('Space');
  await expect(toggle).not.toBeChecked(WAIT);
  await expect(card.getByTestId('schedule-turned-off')).toHaveText('Turned off: by you', WAIT);
  expect((await scheduleOf('Morning check')).enabled).toBe(false);
  await expect(card.getByTestId('schedule-next')).toHaveText('Not scheduled');
  await panel.keyboard.press('Space');
  await expect(toggle).toBeChecked(WAIT);
  expect((await scheduleOf('Morning check')).enabled).toBe(true);

  // The form: the cron in words as it is typed, a refusal with the daemon's reason, then a task.
  await panel.getByTestId('schedules-new').click();
  const form = panel.getByTestId('schedule-form');
  await form.getByLabel('Name').fill('Tidy downloads');
  await form.getByLabel('When (cron)').fill('61 * * * *');
  await expect(form.getByTestId('schedule-preview')).toContainText('Invalid value for minute: 61', WAIT);
  await form.getByLabel('When (cron)').fill('*/15 * * * *');
  await form.getByLabel('Time zone').fill('Europe/Berlin');
  await expect(form.getByTestId('schedule-preview')).toContainText('Every 15 minutes', WAIT);
  await form.getByRole('textbox', { name: 'Instruction' }).fill('Move old files in ~/Downloads to ~/Downloads/old');
  await form.getByLabel('Tools it may use (optional)').fill('file_search, bash_execute');
  await form.getByRole('button', { name: 'Create task' }).click();
  await expect(form.getByRole('alert')).toContainText(
    'Not created: The task grants bash_execute, which the project "default" forbids',
  );
  await form.getByLabel('Tools it may use (optional)').fill('file_search, file_read');
  await panel.screenshot({ path: 'test-results/schedules-form-en.png', fullPage: true });
  // Submitted from the keyboard.
  await form.getByLabel('Tools it may use (optional)').press('Enter');
  const created = panel.getByTestId('schedule-card').filter({ hasText: 'Tidy downloads' });
  await expect(created).toBeVisible(WAIT);
  await expect(created.getByTestId('schedule-when')).toHaveText('Every 15 minutes (Europe/Berlin)');
  const stored = await scheduleOf('Tidy downloads');
  expect(stored).toMatchObject({
    kind: 'agent',
    timezone: 'Europe/Berlin',
    granted_tools: { tools: ['file_search', 'file_read'] },
    catch_up: 'once',
  });
  await panel.screenshot({ path: 'test-results/schedules-en.png', fullPage: true });
});

test('the tab in Chinese: labels, cron in words and outcomes', async () => {
  const panel = await openPanel('zh-CN');
  await addFromTerminal('每日检查', '0 9 * * 1-5');
  await expect(panel.getByTestId('tab-schedules')).toHaveText('定时任务');
  await panel.getByTestId('tab-schedules').click();
  const card = panel.getByTestId('schedule-card').filter({ hasText: '每日检查' });
  await expect(card.getByTestId('schedule-when')).toHaveText('在09:00, 星期一至星期五 (Asia/Shanghai)', WAIT);
  await card.getByRole('button', { name: '立即运行 每日检查' }).click();
  await expect(card.getByTestId('schedule-last').getByTestId('schedule-outcome')).toHaveText('成功', WAIT);
  await expect(card.getByRole('switch', { name: '按计划运行 每日检查' })).toBeChecked();
  await card.getByTestId('schedule-history-toggle').click();
  const history = card.getByRole('list', { name: '每日检查 的运行历史' });
  await expect(history.getByRole('listitem')).toHaveCount(1);
  // What the daemon wrote about the run comes in Chinese too (the tool's own output stays as it is).
  await expect(history).toContainText('已完成 1 步（system_info）。');
  await expect(history).not.toContainText('step done');
  // Turned off with the mouse, on the switch a person sees (the checkbox itself is drawn by its label).
  await card.locator('label.switch').click();
  await expect(card.getByTestId('schedule-turned-off')).toHaveText('已关闭：由你手动关闭', WAIT);
  await expect(card.getByRole('switch', { name: '按计划运行 每日检查' })).not.toBeChecked();
  await panel.screenshot({ path: 'test-results/schedules-zh.png', fullPage: true, animations: 'disabled' });

  // The daemon's refusals come in Chinese too.
  await panel.getByTestId('schedules-new').click();
  const form = panel.getByTestId('schedule-form');
  await form.getByLabel('时间（cron）').fill('0 25 * * *');
  await expect(form.getByTestId('schedule-preview')).toContainText('不是有效的 cron 表达式', WAIT);
  await form.getByLabel('时间（cron）').fill('0 8 * * *');
  await expect(form.getByTestId('schedule-preview')).toContainText('在08:00', WAIT);
  await form.getByLabel('名称').fill('整理');
  await form.getByRole('textbox', { name: '指令' }).fill('整理下载文件夹');
  await form.getByLabel('允许使用的工具（可选）').fill('bash_execute');
  await form.getByRole('button', { name: '创建任务' }).click();
  await expect(form.getByRole('alert')).toContainText('未创建：任务授权了 bash_execute，但项目"default"禁止它');
  await panel.screenshot({ path: 'test-results/schedules-form-zh.png', fullPage: true });
});
