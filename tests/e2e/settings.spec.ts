import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { expect, test, type Page } from '@playwright/test';

import { runCli } from '../support/cli.js';
import { startFakeModelServer, type FakeModelServer } from '../support/fake-model-server.js';
import { launchWithExtension, makeProfileDir, sidePanelUrl, type ExtensionBrowser } from '../support/chromium.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * Settings and the first-run wizard in real Chromium with the real daemon: the model is set up
 * against the scripted fake model server (which accepts one key and rejects every other), and
 * what the panel saves is read back from config.json with the CLI.
 */
let home: TestHome;
let browser: ExtensionBrowser | undefined;
let model: FakeModelServer | undefined;
let work: string | undefined;

const GOOD_KEY = 'sk-ant-e2e-good-key-7781';
const BAD_KEY = 'sk-ant-e2e-wrong-key-0000';

test.beforeAll(() => requireBuilt(CLI_BUNDLE));
test.afterEach(async () => {
  await browser?.close();
  browser = undefined;
  await home.cleanup();
  await model?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The host's environment: no model from the environment, so only what the wizard saves counts. */
function environment(): NodeJS.ProcessEnv {
  const env = { ...home.env };
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']) delete env[name];
  return env;
}

async function openFreshPanel(): Promise<Page> {
  home = makeHome();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-work-'));
  model = await startFakeModelServer((request) =>
    request.headers['x-api-key'] === GOOD_KEY || request.headers.authorization === `Bearer ${GOOD_KEY}`
      ? { kind: 'text', text: 'OK' }
      : { kind: 'error', status: 401, message: 'invalid x-api-key' },
  );
  const profile = makeProfileDir();
  const installed = await runCli(['install', '--browser', 'chromium', '--user-data-dir', profile], environment());
  expect(installed.code, installed.stderr).toBe(0);
  browser = await launchWithExtension(profile, environment());
  const panel = await browser.context.newPage();
  await panel.setViewportSize({ width: 400, height: 900 });
  await panel.goto(sidePanelUrl());
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-status', 'connected', {
    timeout: 30_000,
  });
  return panel;
}

function configJson(): Record<string, Record<string, unknown>> {
  return JSON.parse(fs.readFileSync(path.join(home.dir, 'config.json'), 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
}

test('first run: the wizard sets up the model (a bad key is reported, a good one tested), folders and approvals; the key never reaches the extension', async () => {
  const panel = await openFreshPanel();
  await panel.getByTestId('tab-settings').click();
  const wizard = panel.getByTestId('wizard');
  await expect(wizard).toHaveAttribute('data-step', 'connect', { timeout: 20_000 });
  await expect(panel.getByTestId('wizard-connected')).toContainText('Connected to NextAI 0.1.0 on linux');

  await panel.getByTestId('wizard-next').click();
  await expect(wizard).toHaveAttribute('data-step', 'model');
  // Nothing configured yet: the first preset, Anthropic, with its model and (under Advanced) its URL.
  await expect(panel.getByLabel('Provider')).toHaveValue('anthropic');
  await expect(panel.getByLabel('Model', { exact: true })).toHaveValue('claude-sonnet-4-6');
  await panel.getByLabel('Model', { exact: true }).fill('claude-e2e');
  await panel.getByText('Advanced').click();
  await expect(panel.getByLabel('Base URL')).toHaveValue('https://api.anthropic.com');
  await panel.getByLabel('Base URL').fill(model!.anthropicBaseUrl);
  await panel.getByLabel('API key').fill(BAD_KEY);
  await panel.getByTestId('model-save').click();
  const result = panel.getByTestId('model-test-result');
  await expect(result).toHaveAttribute('data-ok', 'false', { timeout: 40_000 });
  await expect(result).toContainText('The Anthropic API rejected the API key (HTTP 401');
  // The key field is emptied once the key is with the daemon; only the masked form comes back.
  await expect(panel.getByLabel('API key')).toHaveValue('');
  await expect(panel.getByTestId('api-key-saved')).toContainText('sk-…0000');

  await panel.getByLabel('API key').fill(GOOD_KEY);
  await panel.getByTestId('model-save').click();
  await expect(result).toHaveAttribute('data-ok', 'true', { timeout: 40_000 });
  await expect(result).toContainText('claude-e2e replied in');
  await expect(panel.getByTestId('api-key-saved')).toContainText('sk-…7781');
  await panel.screenshot({ path: 'test-results/settings-wizard-en.png', fullPage: true });

  const config = await runCli(['config', 'get', '--json'], environment());
  expect(config.code, config.stderr).toBe(0);
  expect(JSON.parse(config.stdout)).toMatchObject({
    settings: [
      { key: 'model.preset', value: 'anthropic', source: 'config.json' },
      { key: 'model.provider', value: 'anthropic', source: 'config.json' },
      { key: 'model.name', value: 'claude-e2e', source: 'config.json' },
      { key: 'model.base_url', value: model!.anthropicBaseUrl, source: 'config.json' },
      { key: 'model.api_key', value: 'sk-…7781', source: 'config.json' },
      { key: 'model.stream_idle_seconds', value: '90', source: 'default' },
      { key: 'model.call_timeout_seconds', value: '1200', source: 'default' },
      { key: 'model.prompt_cache', value: 'on', source: 'default' },
    ],
  });

  await panel.getByTestId('wizard-next').click();
  await expect(wizard).toHaveAttribute('data-step', 'folders');
  const folders = panel.getByTestId('wizard-folders');
  await folders.getByRole('textbox').fill('relative/folder');
  await folders.getByRole('button', { name: 'Add' }).click();
  await expect(folders.getByRole('alert')).toContainText('"relative/folder" is not a full path');
  await folders.getByRole('textbox').fill(work!);
  await folders.getByRole('button', { name: 'Add' }).click();
  await expect(folders.getByText(work!, { exact: true })).toBeVisible();
  await folders.getByRole('button', { name: 'Remove ~/Desktop' }).click();
  await expect(folders.getByText('~/Desktop')).toHaveCount(0);

  await panel.getByTestId('wizard-next').click();
  await expect(wizard).toHaveAttribute('data-step', 'approvals');
  await panel.getByTestId('template-strict').click();
  await expect(panel.getByTestId('template-strict')).toHaveClass(/template-on/);
  await panel.screenshot({ path: 'test-results/settings-wizard-approvals-en.png', fullPage: true });
  await panel.getByTestId('wizard-finish').click();
  await expect(panel.getByTestId('settings-page-model')).toBeVisible();

  const saved = configJson();
  expect(saved.ui).toEqual({ setup_done: true });
  expect(saved.security?.allowed_directories).toEqual(['~/Projects', '~/Documents/NextAI', work]);
  expect(saved.projects).toMatchObject({ items: { default: { template: 'strict' } } });
  const policy = await runCli(['policy', 'show', '--json'], environment());
  expect(policy.stdout).toContain('"strict"');

  // The key lives in config.json only: nothing in the extension's storage holds it.
  const stored = await browser!.serviceWorker.evaluate(async () => {
    const { chrome } = globalThis as unknown as {
      chrome: { storage: Record<'local' | 'session' | 'sync', { get(keys: null): Promise<unknown> }> };
    };
    return JSON.stringify([
      await chrome.storage.local.get(null),
      await chrome.storage.session.get(null),
      await chrome.storage.sync.get(null),
    ]);
  });
  expect(stored).not.toContain(GOOD_KEY);
  expect(stored).not.toContain('e2e-good-key');
  expect(await panel.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(GOOD_KEY);
});

test('the model page at 360 px: DeepSeek chosen, the model picked from the list its server gives, saved and tested', async () => {
  const panel = await openFreshPanel();
  await panel.setViewportSize({ width: 360, height: 900 });
  await panel.getByTestId('tab-settings').click();
  await panel.getByTestId('wizard-skip').click();
  await expect(panel.getByTestId('settings-page-model')).toBeVisible();
  const form = panel.getByTestId('model-form');

  await form.getByLabel('Provider').selectOption('deepseek');
  await expect(form.getByLabel('Model', { exact: true })).toHaveValue('deepseek-chat');
  await expect(form.getByTestId('get-key')).toHaveAttribute('href', 'https://platform.deepseek.com/api_keys');
  await expect(form.getByTestId('get-key')).toHaveText('Get a key from DeepSeek ↗');
  // Before the server is asked, the preset's own suggestions are offered.
  await form.getByRole('button', { name: 'Show models' }).click();
  await expect(form.getByRole('listbox').getByRole('option')).toHaveText(['deepseek-chat', 'deepseek-reasoner']);
  await form.getByLabel('Model', { exact: true }).press('Escape');

  // The fake server stands in for api.deepseek.com (as a proxy would).
  await form.getByText('Advanced').click();
  await expect(form.getByLabel('Base URL')).toHaveValue('https://api.deepseek.com/v1');
  await form.getByLabel('Base URL').fill(model!.openaiBaseUrl);
  await form.getByLabel('API key').fill(GOOD_KEY);
  await form.getByTestId('list-models').click();
  const server = new URL(model!.openaiBaseUrl).origin;
  await expect(form.getByTestId('model-list-status')).toHaveText(`3 models from ${server}.`);
  const options = form.getByRole('listbox');
  await expect(options).toBeVisible();
  await expect(options.getByRole('option')).toHaveText(['fake-model-large', 'fake-model-reasoner', 'fake-model-small']);
  // The key typed in the form went with the request, before anything was saved.
  expect(model!.modelListRequests.at(-1)?.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
  expect(configJson().model).toBeUndefined();
  await panel.screenshot({ path: 'test-results/settings-model-picker-360-en.png', fullPage: true });

  await options.getByRole('option', { name: 'fake-model-reasoner' }).click();
  await expect(options).toBeHidden();
  await expect(form.getByLabel('Model', { exact: true })).toHaveValue('fake-model-reasoner');
  await form.getByTestId('model-save').click();
  const result = form.getByTestId('model-test-result');
  await expect(result).toHaveAttribute('data-ok', 'true', { timeout: 40_000 });
  await expect(result).toContainText('fake-model-reasoner replied in');
  expect(configJson().model).toEqual({
    preset: 'deepseek',
    provider: 'openai',
    name: 'fake-model-reasoner',
    base_url: model!.openaiBaseUrl,
    api_key: GOOD_KEY,
  });
  await expect(panel.getByTestId('model-in-force')).toContainText('DeepSeek');
  await panel.screenshot({ path: 'test-results/settings-model-saved-360-en.png', fullPage: true });

  // A server without a list says so, and the name can still be typed.
  model!.models = 'not_found';
  await form.getByTestId('list-models').click();
  await expect(form.getByTestId('model-list-status')).toContainText('This server does not list its models');
  await form.getByLabel('Model', { exact: true }).fill('typed-by-hand');
  await expect(form.getByLabel('Model', { exact: true })).toHaveValue('typed-by-hand');

  // Azure OpenAI: the address holds the person's resource, so it is shown (not under Advanced),
  // and a test with the part to fill in left as it was says what to change, sending nothing.
  await form.getByLabel('Provider').selectOption('azure');
  await expect(form.getByLabel('Base URL')).toBeVisible();
  await expect(form.getByLabel('Base URL')).toHaveValue('https://YOUR-RESOURCE.openai.azure.com/openai/v1');
  await expect(form.getByTestId('base-url-hint')).toHaveText(
    'Replace YOUR-RESOURCE with the name of your Azure OpenAI resource. The model is the name of your deployment.',
  );
  await form.getByLabel('API key').fill(GOOD_KEY);
  await form.getByTestId('model-save').click();
  await expect(form.getByRole('alert').or(form.getByTestId('model-test-result'))).toContainText(
    'Replace YOUR-RESOURCE in the model base URL',
  );
  await panel.screenshot({ path: 'test-results/settings-model-azure-360-en.png', fullPage: true });
});

test('settings pages: safety lists and the permission level persist, a project policy is edited, and the language switches to 中文 at once', async () => {
  const panel = await openFreshPanel();
  await panel.getByTestId('tab-settings').click();
  await panel.getByTestId('wizard-skip').click();
  await expect(panel.getByTestId('settings-page-model')).toBeVisible();
  await expect(panel.getByTestId('model-in-force')).toContainText('not set');

  await panel.getByTestId('settings-page-safety').click();
  await panel.getByTestId('permission-level').getByText('L2 · Standard').click();
  await expect.poll(() => configJson().security?.permission_level).toBe('L2');
  const domains = panel.getByTestId('allowed-domains');
  await domains.getByRole('textbox').fill('example.com');
  await domains.getByRole('button', { name: 'Add' }).click();
  await expect(domains.getByText('example.com', { exact: true })).toBeVisible();
  const apps = panel.getByTestId('blocked-apps');
  await apps.getByRole('textbox').fill('Steam');
  await apps.getByRole('button', { name: 'Add' }).click();
  await expect(apps.getByText('Steam', { exact: true })).toBeVisible();
  expect(configJson().security).toMatchObject({
    permission_level: 'L2',
    allowed_domains: ['example.com'],
    blocked_apps: expect.arrayContaining(['Steam', 'KeePassXC']) as unknown,
  });
  await panel.screenshot({ path: 'test-results/settings-safety-en.png', fullPage: true });

  await panel.getByTestId('settings-page-projects').click();
  const project = panel.getByTestId('project-default');
  await project.getByLabel('What happens to High risk actions').selectOption('always_block');
  await project.getByLabel('Tool to add').fill('file_write');
  await project.getByRole('button', { name: 'Add' }).last().click();
  await project.getByLabel('What happens to file_write').selectOption('notify_only');
  await project.getByTestId('project-save').click();
  await expect(project.getByRole('status')).toHaveText('Saved.');
  expect(configJson().projects).toMatchObject({
    items: {
      default: {
        approval: { risk_policies: { high: 'always_block' }, tool_overrides: { file_write: 'notify_only' } },
      },
    },
  });
  await expect(project.getByText('Custom policy')).toBeVisible();

  await panel.getByTestId('settings-page-general').click();
  await panel.getByTestId('language-switch').getByText('中文').click();
  await expect(panel.getByTestId('tab-settings')).toHaveText('设置');
  await expect(panel.locator('.panel')).toHaveAttribute('lang', 'zh-CN');
  await expect.poll(() => configJson().ui?.language).toBe('zh-CN');
  await panel.screenshot({ path: 'test-results/settings-general-zh.png', fullPage: true });
  await panel.getByTestId('settings-page-projects').click();
  await expect(panel.getByTestId('settings-projects')).toContainText('审批模板');
  await panel.screenshot({ path: 'test-results/settings-zh.png', fullPage: true });
  await panel.getByTestId('settings-page-safety').click();
  await panel.emulateMedia({ colorScheme: 'dark' });
  await panel.screenshot({ path: 'test-results/settings-safety-dark-zh.png', fullPage: true });
  await panel.getByTestId('settings-page-model').click();
  await panel.screenshot({ path: 'test-results/settings-model-dark-zh.png', fullPage: true });
});

test('settings pages: blocked kinds of sites and denied paths; a project is renamed and removed, the default one never', async () => {
  const panel = await openFreshPanel();
  await panel.getByTestId('tab-settings').click();
  await panel.getByTestId('wizard-skip').click();

  await panel.getByTestId('settings-page-safety').click();
  const categories = panel.getByTestId('blocked-categories');
  // All three built-in lists are on by default; turning one off is saved at once.
  await expect(categories.getByRole('checkbox')).toHaveCount(3);
  // Saved, then shown from what the daemon holds: a click, then the box follows.
  await categories.getByLabel('Password managers').click();
  await expect(categories.getByLabel('Password managers')).not.toBeChecked();
  await expect.poll(() => configJson().security?.blocked_domain_categories).toEqual(['banking', 'identity_providers']);
  const denied = panel.getByTestId('denied-patterns');
  await denied.getByRole('textbox').fill('~/Private/**');
  await denied.getByRole('button', { name: 'Add' }).click();
  await expect(denied.getByText('~/Private/**', { exact: true })).toBeVisible();
  expect(configJson().security?.denied_patterns).toContain('~/Private/**');
  await panel.screenshot({ path: 'test-results/settings-safety-lists-en.png', fullPage: true });

  await panel.getByTestId('settings-page-projects').click();
  const projects = panel.getByTestId('settings-projects');
  await expect(projects.getByTestId('project-identity')).toContainText('The default project cannot be removed.');
  await projects.getByRole('button', { name: 'New project' }).click();
  await projects.getByLabel('Project id').fill('website');
  await projects.getByRole('button', { name: 'Create' }).click();
  await expect(projects.getByLabel('Project', { exact: true })).toHaveValue('website');
  const identity = projects.getByTestId('project-identity');
  await identity.getByLabel('Name').fill('Company site');
  await identity.getByRole('button', { name: 'Rename' }).click();
  await expect(identity.getByRole('status')).toHaveText('Saved.');
  const items = () => (configJson().projects?.items ?? {}) as Record<string, { name?: string }>;
  expect(items().website?.name).toBe('Company site');
  await expect(projects.getByLabel('Project', { exact: true })).toContainText('Company site (website)');
  await panel.screenshot({ path: 'test-results/settings-project-en.png', fullPage: true });

  await identity.getByTestId('project-remove').click();
  await expect(identity).toContainText('Remove “Company site” and its approval policy?');
  await identity.getByTestId('project-remove-confirm').click();
  await expect.poll(() => Object.keys(items())).not.toContain('website');
  await expect(projects.getByLabel('Project', { exact: true })).not.toContainText('website');
  await expect(projects.getByTestId('project-default')).toBeVisible();
});
