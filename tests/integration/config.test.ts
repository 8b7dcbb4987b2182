import fs from 'node:fs';
import path from 'node:path';

import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../support/cli.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

let home: TestHome;
const KEY = 'sk-test-secretsecretsecret1234';

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  await home.cleanup();
});

/** The home's environment without model variables of the machine running the tests. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...home.env, ...extra };
  for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL'])
    if (!(name in extra)) delete env[name];
  return env;
}

describe('nextai config', () => {
  it('sets model settings in place, shows them masked, and the daemon still loads the policy', async () => {
    home = makeHome();
    const file = path.join(home.dir, 'config.json');
    fs.writeFileSync(file, '{\n  // kept\n  "projects": { "default_approval_template": "strict" }\n}\n', {
      mode: 0o600,
    });
    const env = cleanEnv();

    for (const [key, value] of [
      ['model.provider', 'openai'],
      ['model.name', 'deepseek-chat'],
      ['model.base_url', 'https://api.deepseek.com/v1'],
      ['model.api_key', KEY],
    ]) {
      const set = await runCli(['config', 'set', key!, value!], env);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout + set.stderr).not.toContain(KEY);
    }
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('// kept');
    expect(text).toContain(`"api_key": "${KEY}"`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const all = await runCli(['config', 'get', '--json'], env);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).not.toContain(KEY);
    expect(JSON.parse(all.stdout)).toEqual({
      file,
      settings: [
        { key: 'model.provider', value: 'openai', source: 'config.json' },
        { key: 'model.name', value: 'deepseek-chat', source: 'config.json' },
        { key: 'model.base_url', value: 'https://api.deepseek.com/v1', source: 'config.json' },
        { key: 'model.api_key', value: 'sk-…1234', source: 'config.json' },
        { key: 'model.stream_idle_seconds', value: '90', source: 'default' },
        { key: 'model.call_timeout_seconds', value: '1200', source: 'default' },
        { key: 'model.prompt_cache', value: 'on', source: 'default' },
      ],
    });
    const one = await runCli(['config', 'get', 'model.api_key'], env);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^model\.api_key\s+sk-…1234\s+config\.json\n$/);

    // The daemon reads the same file: the model section does not make it refuse the policy.
    const shown = await runCli(['policy', 'show', '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    const policy = JSON.parse(shown.stdout) as {
      config: { source: string; problem?: string };
      project: { template: string };
    };
    expect(policy.config).toMatchObject({ source: 'file' });
    expect(policy.config.problem).toBeUndefined();
    expect(policy.project.template).toBe('strict');

    // A change while the daemon runs: reloaded and audited, but the key is in neither log nor audit.
    const reloads = async () => {
      const listed = await runCli(['audit', 'list', '--json', '--limit', '100'], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).not.toContain(KEY);
      return (JSON.parse(listed.stdout) as { entry: { reason?: string } }[]).filter((record) =>
        /^config\.json was changed directly in the file/.test(record.entry.reason ?? ''),
      ).length;
    };
    const before = await reloads();
    const again = await runCli(['config', 'set', 'model.api_key', `${KEY}X`], env);
    expect(again.code, again.stderr).toBe(0);
    // Each look is a CLI round trip; the daemon's watcher reacts within a few of them.
    const deadline = Date.now() + 15_000;
    while ((await reloads()) === before) expect(Date.now()).toBeLessThan(deadline);
    const audit = await runCli(['audit', 'export'], env);
    expect(audit.code, audit.stderr).toBe(0);
    expect(audit.stdout).toContain('config.json was changed directly in the file, not through the daemon');
    expect(audit.stdout).not.toContain(KEY);
    const logs = path.join(home.dir, 'logs');
    for (const name of fs.existsSync(logs) ? fs.readdirSync(logs) : [])
      expect(fs.readFileSync(path.join(logs, name), 'utf8')).not.toContain(KEY);
  });

  it('says where values come from when the file does not set them', async () => {
    home = makeHome();
    const env = cleanEnv({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    const got = await runCli(['config', 'get'], env);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).not.toContain(KEY);
    expect(got.stdout).toMatch(/model\.provider\s+anthropic\s+environment \(ANTHROPIC_API_KEY is set\)/);
    expect(got.stdout).toMatch(/model\.name\s+claude-sonnet-4-6\s+default/);
    expect(got.stdout).toMatch(/model\.base_url\s+http:\/\/127\.0\.0\.1:9\s+environment \(ANTHROPIC_BASE_URL\)/);
    expect(got.stdout).toMatch(/model\.api_key\s+sk-…1234\s+environment \(ANTHROPIC_API_KEY\)/);
    expect(fs.existsSync(path.join(home.dir, 'config.json'))).toBe(false);
  });

  it('sets a preset with its provider, base URL and model, says what it set, and keeps a key to its own server', async () => {
    home = makeHome();
    const env = cleanEnv();
    const file = path.join(home.dir, 'config.json');
    fs.writeFileSync(file, JSON.stringify({ model: { provider: 'anthropic', api_key: KEY } }), { mode: 0o600 });

    const set = await runCli(['config', 'set', 'model.preset', 'deepseek'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe(
      `model.preset = deepseek (in ${file})\n` +
        'model.provider = openai\n' +
        'model.name = deepseek-chat\n' +
        'model.base_url = https://api.deepseek.com/v1\n' +
        'model.api_key removed: the saved key was for https://api.anthropic.com, and it is not sent anywhere else.\n' +
        'Create a DeepSeek key at https://platform.deepseek.com/api_keys, then run `nextai config set model.api_key <key>`.\n',
    );
    expect(set.stdout).not.toContain(KEY);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      model: { provider: 'openai', preset: 'deepseek', name: 'deepseek-chat', base_url: 'https://api.deepseek.com/v1' },
    });
    const got = await runCli(['config', 'get', 'model.preset'], env);
    expect(got.stdout).toMatch(/^model\.preset\s+deepseek\s+config\.json\nproblem:\s+No API key for DeepSeek\./);

    const unknown = await runCli(['config', 'set', 'model.preset', 'deepsea'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/model\.preset must be one of: .*deepseek/);
  });

  it('refuses bad input with exit code 2 and leaves the file alone', async () => {
    home = makeHome();
    const env = cleanEnv();
    const file = path.join(home.dir, 'config.json');
    fs.writeFileSync(file, '{ "model": { "provider": "anthropic" } }\n', { mode: 0o600 });

    const unknown = await runCli(['config', 'set', 'model.temperature', '0.2'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('model.provider, model.name, model.base_url, model.api_key');
    const provider = await runCli(['config', 'set', 'model.provider', 'gemini'], env);
    expect(provider.code).toBe(2);
    expect(provider.stderr).toMatch(/model\.provider must be one of: anthropic, openai/);
    const url = await runCli(['config', 'set', 'model.base_url', 'file:///etc/passwd'], env);
    expect(url.code).toBe(2);
    expect(url.stderr).toMatch(/http:\/\/ or https:\/\//);
    const empty = await runCli(['config', 'set', 'model.api_key', ' '], env);
    expect(empty.code).toBe(2);
    const get = await runCli(['config', 'get', 'api_key'], env);
    expect(get.code).toBe(2);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "model": { "provider": "anthropic" } }\n');

    fs.writeFileSync(file, '{ "model": { ,\n');
    const broken = await runCli(['config', 'set', 'model.name', 'x'], env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/line 1, column \d+/);
  });
});
