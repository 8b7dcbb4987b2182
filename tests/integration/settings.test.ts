import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AppError } from '@nextai/shared';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { runCli } from '../support/cli.js';
import { startFakeModelServer, type FakeModelServer } from '../support/fake-model-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/**
 * The settings methods the side panel uses, against the real daemon and config.json: what is
 * written is what `nextai config get` and `nextai policy show` read back, and the API key only
 * ever comes back masked.
 */
let home: TestHome;
let model: FakeModelServer;
let client: DaemonClient | undefined;
let work: string | undefined;

const GOOD_KEY = 'sk-ant-good-key-123456';

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  client?.close();
  client = undefined;
  await home?.cleanup();
  await model?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function environment(): NodeJS.ProcessEnv {
  const env = { ...home.env };
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']) delete env[name];
  return env;
}

async function start(): Promise<DaemonClient> {
  home = makeHome();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-work-'));
  // The fake model accepts one key and rejects every other, as a real provider does.
  model = await startFakeModelServer((request) =>
    request.headers['x-api-key'] === GOOD_KEY || request.headers.authorization === `Bearer ${GOOD_KEY}`
      ? { kind: 'text', text: 'OK' }
      : { kind: 'error', status: 401, message: 'invalid x-api-key' },
  );
  const started = await runCli(['daemon', '--detach'], environment());
  expect(started.code, started.stderr).toBe(0);
  client = await DaemonClient.connect(dataPaths(home.dir), {
    start: false,
    client: { kind: 'test', name: 'settings' },
  });
  return client;
}

function configJson(): Record<string, Record<string, unknown>> {
  return JSON.parse(fs.readFileSync(path.join(home.dir, 'config.json'), 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
}

describe('settings methods', () => {
  it('start unset: no model, setup not done, the browser language', async () => {
    const daemon = await start();
    const settings = await daemon.peer.request('settings.get', {});
    expect(settings.ui).toEqual({ language: 'auto', setup_done: false });
    expect(settings.model.problem).toMatch(/No model is configured/);
    expect(settings.model.providers.map((provider) => provider.id)).toEqual(['anthropic', 'openai']);
  });

  it('saves the model, masks the key, tests the connection, and reports a rejected key in words', async () => {
    const daemon = await start();
    const saved = await daemon.peer.request('settings.set_model', {
      provider: 'anthropic',
      name: 'claude-test',
      base_url: model.anthropicBaseUrl,
      api_key: GOOD_KEY,
    });
    const shown = JSON.stringify(saved);
    expect(shown).not.toContain(GOOD_KEY);
    expect(saved.model.settings.find((setting) => setting.key === 'model.api_key')).toEqual({
      key: 'model.api_key',
      value: 'sk-…3456',
      source: 'config.json',
    });
    expect(configJson().model).toEqual({
      provider: 'anthropic',
      name: 'claude-test',
      base_url: model.anthropicBaseUrl,
      api_key: GOOD_KEY,
    });
    expect(fs.statSync(path.join(home.dir, 'config.json')).mode & 0o777).toBe(0o600);
    const cli = await runCli(['config', 'get', '--json'], environment());
    expect(JSON.parse(cli.stdout)).toMatchObject({
      settings: expect.arrayContaining([{ key: 'model.name', value: 'claude-test', source: 'config.json' }]) as unknown,
    });

    const ok = await daemon.peer.request('settings.test_model', {});
    expect(ok).toMatchObject({ ok: true, provider: 'anthropic', model: 'claude-test', reply: 'OK' });
    expect(model.requests.at(-1)?.body).toMatchObject({ model: 'claude-test', max_tokens: 16 });

    await daemon.peer.request('settings.set_model', { api_key: 'sk-ant-wrong-key-000000' });
    const rejected = await daemon.peer.request('settings.test_model', {});
    expect(rejected.ok).toBe(false);
    expect(rejected.ok === false && rejected.message).toMatch(/rejected the API key \(HTTP 401/);
    expect(JSON.stringify(rejected)).not.toContain('sk-ant-wrong-key-000000');

    // Removing a setting lets the default apply again.
    const removed = await daemon.peer.request('settings.set_model', { name: null });
    expect(removed.model.settings.find((setting) => setting.key === 'model.name')?.source).toBe('default');
  });

  it('offers the presets; a chosen one is saved with its provider, and the model list comes from its server with the saved key', async () => {
    const daemon = await start();
    const before = await daemon.peer.request('settings.get', {});
    expect(before.model.preset).toBeNull();
    expect(before.model.presets.map((preset) => preset.id)).toEqual(expect.arrayContaining(['deepseek', 'ollama']));
    expect(before.model.presets.find((preset) => preset.id === 'deepseek')).toEqual({
      id: 'deepseek',
      label: { en: 'DeepSeek', 'zh-CN': 'DeepSeek 深度求索' },
      group: 'china',
      provider: 'openai',
      base_url: 'https://api.deepseek.com/v1',
      default_model: 'deepseek-chat',
      models: ['deepseek-chat', 'deepseek-reasoner'],
      needs_key: true,
      key_url: 'https://platform.deepseek.com/api_keys',
      base_url_to_fill: null,
    });

    // The form's choice: DeepSeek, pointed at the fake server (a proxy, as far as the daemon knows).
    const saved = await daemon.peer.request('settings.set_model', {
      preset: 'deepseek',
      base_url: model.openaiBaseUrl,
      api_key: GOOD_KEY,
    });
    expect(saved.model.preset).toBe('deepseek');
    expect(saved.api_key_removed_for).toBeUndefined();
    expect(configJson().model).toEqual({
      preset: 'deepseek',
      provider: 'openai',
      name: 'deepseek-chat',
      base_url: model.openaiBaseUrl,
      api_key: GOOD_KEY,
    });

    const listed = await daemon.peer.request('settings.list_models', {});
    expect(listed).toEqual({
      provider: 'openai',
      base_url: model.openaiBaseUrl,
      models: ['fake-model-large', 'fake-model-reasoner', 'fake-model-small'],
    });
    expect(model.modelListRequests.at(-1)?.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);

    // Picked from the list, saved, and the test call uses it.
    await daemon.peer.request('settings.set_model', { name: 'fake-model-reasoner' });
    expect(await daemon.peer.request('settings.test_model', {})).toMatchObject({
      ok: true,
      model: 'fake-model-reasoner',
    });
    expect(model.requests.at(-1)?.body).toMatchObject({ model: 'fake-model-reasoner' });

    // A server without a list: said in both languages, as an error the panel can show.
    model.models = 'not_found';
    const refused = await daemon.peer.request('settings.list_models', {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('NOT_FOUND');
    expect((refused as AppError).message).toMatch(
      /This server does not list its models \(HTTP 404 .*type the model name/,
    );
    expect((refused as AppError).translations?.['zh-CN']).toMatch(/该服务不提供模型列表/);

    // Azure's address with its part to fill in left as it was: no key goes there to list models.
    const unfilled = await daemon.peer
      .request('settings.list_models', { preset: 'azure', api_key: 'sk-azure-typed' })
      .catch((error: unknown) => error);
    expect(unfilled).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('Replace YOUR-RESOURCE'),
    });

    // Another preset without a key of its own: the saved key stays with the server it was for.
    const moved = await daemon.peer.request('settings.set_model', { preset: 'ollama' });
    expect(moved.api_key_removed_for).toBe(new URL(model.openaiBaseUrl).origin);
    expect(configJson().model).toEqual({
      preset: 'ollama',
      provider: 'openai',
      name: 'gpt-oss:20b',
      base_url: 'http://127.0.0.1:11434/v1',
    });
    const logs = path.join(home.dir, 'logs');
    for (const name of fs.existsSync(logs) ? fs.readdirSync(logs) : [])
      expect(fs.readFileSync(path.join(logs, name), 'utf8')).not.toContain(GOOD_KEY);
  });

  it('refuses an invalid value and writes none of the others', async () => {
    const daemon = await start();
    const refused = await daemon.peer
      .request('settings.set_model', { provider: 'openai', base_url: 'ftp://example.com' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).message).toMatch(/model.base_url must be an http:\/\/ or https:\/\/ URL/);
    expect(fs.existsSync(path.join(home.dir, 'config.json'))).toBe(false);
  });

  it('stores the language and the wizard being done in the ui section', async () => {
    const daemon = await start();
    expect(await daemon.peer.request('settings.set_ui', { language: 'zh-CN' })).toEqual({
      ui: { language: 'zh-CN', setup_done: false },
    });
    await daemon.peer.request('settings.set_ui', { setup_done: true });
    expect(configJson().ui).toEqual({ language: 'zh-CN', setup_done: true });
    expect((await daemon.peer.request('settings.get', {})).ui).toEqual({ language: 'zh-CN', setup_done: true });
  });

  it('changes the safety settings and puts them in force at once', async () => {
    const daemon = await start();
    const relative = await daemon.peer
      .request('settings.set_security', { allowed_directories: ['work'] })
      .catch((error: unknown) => error);
    expect((relative as AppError).message).toMatch(/"work" is not a full path/);

    const missing = path.join(work ?? '', 'not-there');
    const changed = await daemon.peer.request('settings.set_security', {
      allowed_directories: [work ?? '', missing, work ?? ''],
      allowed_domains: ['example.com'],
      blocked_apps: ['Steam'],
      permission_level: 'L2',
    });
    expect(changed.security.allowed_directories).toEqual([work, missing]);
    expect(changed.directories.map((directory) => directory.exists)).toEqual([true, false]);
    const shown = await daemon.peer.request('policy.show', {});
    expect(shown.security).toMatchObject({ permission_level: 'L2', allowed_domains: ['example.com'] });
    expect(configJson().security).toEqual({
      allowed_directories: [work, missing],
      allowed_domains: ['example.com'],
      blocked_apps: ['Steam'],
      permission_level: 'L2',
    });

    const bad = await daemon.peer
      .request('settings.set_security', { permission_level: 'L9' } as never)
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(AppError);
  });

  it('creates a project and edits its policy', async () => {
    const daemon = await start();
    const created = await daemon.peer.request('settings.save_project', { id: 'website', name: 'Website' });
    expect(created.project).toMatchObject({ id: 'website', name: 'Website', template: 'development' });
    const edited = await daemon.peer.request('settings.save_project', {
      id: 'website',
      approval: {
        mode: 'supervised',
        risk_policies: {
          low: 'auto_approve',
          medium: 'require_approval',
          high: 'require_approval',
          critical: 'always_block',
        },
        category_overrides: { terminal: 'always_block' },
        tool_overrides: { file_write: 'notify_only' },
      },
    });
    expect(edited.project.template).toBeNull();
    expect(edited.project.approval.tool_overrides).toEqual({ file_write: 'notify_only' });
    const shown = await daemon.peer.request('policy.show', { project: 'website' });
    expect(shown.project.approval.category_overrides).toEqual({ terminal: 'always_block' });

    const badCategory = await daemon.peer
      .request('settings.save_project', {
        id: 'website',
        approval: { ...edited.project.approval, category_overrides: { nonsense: 'auto_approve' } },
      })
      .catch((error: unknown) => error);
    expect((badCategory as AppError).message).toMatch(/category_overrides keys must be one of/);
  });

  it('renames and removes a project, but never the default one', async () => {
    const daemon = await start();
    await daemon.peer.request('settings.save_project', { id: 'website', name: 'Website' });
    const renamed = await daemon.peer.request('settings.save_project', { id: 'website', name: 'Company site' });
    expect(renamed.project).toMatchObject({ id: 'website', name: 'Company site', template: 'development' });

    const refused = await daemon.peer
      .request('settings.delete_project', { id: 'default' })
      .catch((error: unknown) => error);
    expect((refused as AppError).message).toMatch(/is the default project/);
    const unknown = await daemon.peer
      .request('settings.delete_project', { id: 'nowhere' })
      .catch((error: unknown) => error);
    expect((unknown as AppError).message).toMatch(/There is no project "nowhere"/);

    expect(await daemon.peer.request('settings.delete_project', { id: 'website' })).toEqual({ deleted: 'website' });
    const { projects } = await daemon.peer.request('policy.show', {});
    expect(projects.map((project) => project.id)).toEqual(['default']);
    expect(JSON.parse(fs.readFileSync(path.join(home.dir, 'config.json'), 'utf8')).projects.items).not.toHaveProperty(
      'website',
    );
  });
});
