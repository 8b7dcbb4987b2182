import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { currentPlatform } from '../core/current-platform.js';
import { parsePolicyConfig } from '../policy/config-file.js';
import { NO_FIFOS, fifoWithoutWriter } from '../policy/testing/fifo.js';
import {
  effectiveModelSettings,
  maskApiKey,
  modelFieldOf,
  modelTimeouts,
  planModelChanges,
  readModelConfig,
  validateModelValue,
  writeModelValue,
  writeModelValues,
} from './model-config.js';

let dir: string;
let file: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-model-'));
  file = path.join(dir, 'config.json');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const KEY = 'sk-proj-0123456789abcdefWXYZ';

describe('model settings validation', () => {
  it('accepts the four keys and names them for anything else', () => {
    expect(modelFieldOf('model.base_url')).toBe('base_url');
    expect(() => modelFieldOf('model.apikey')).toThrow(
      expect.objectContaining({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('model.provider, model.name, model.base_url, model.api_key'),
      }),
    );
  });

  it('refuses a bad provider, a non-http URL and empty values', () => {
    expect(validateModelValue('provider', 'openai')).toBe('openai');
    expect(() => validateModelValue('provider', 'gemini')).toThrow(/model\.provider must be one of: anthropic, openai/);
    expect(validateModelValue('base_url', 'http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1');
    expect(() => validateModelValue('base_url', 'ftp://example.com')).toThrow(/http:\/\/ or https:\/\//);
    expect(() => validateModelValue('base_url', 'not a url')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    expect(() => validateModelValue('name', '  ')).toThrow(/model\.name must not be empty/);
    expect(() => validateModelValue('api_key', '')).toThrow(/model\.api_key must not be empty\.$/);
  });

  it('masks a key to its prefix and last four characters', () => {
    expect(maskApiKey(KEY)).toBe('sk-…WXYZ');
    expect(maskApiKey('0123456789abcdefghij')).toBe('…ghij');
    expect(maskApiKey('short')).toBe('…');
    expect(maskApiKey(KEY)).not.toContain('0123');
  });
});

describe('writing the model section', () => {
  it('creates config.json with mode 0600 when there is none', () => {
    writeModelValue(file, 'provider', 'anthropic');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ model: { provider: 'anthropic' } });
    if (currentPlatform() !== 'windows') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('removing a setting that is not there changes nothing, not even a missing file', () => {
    writeModelValue(file, 'api_key', undefined);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('keeps comments, formatting and the policy sections, and the policy still loads', () => {
    const original =
      '{\n  // my policy\n  "security": { "permission_level": "L2" },\n  "projects": {\n    "default_approval_template": "strict", // careful\n  },\n}\n';
    fs.writeFileSync(file, original, { mode: 0o644 });
    writeModelValue(file, 'provider', 'openai');
    writeModelValue(file, 'api_key', KEY);
    writeModelValue(file, 'base_url', 'http://127.0.0.1:8080/v1');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('// my policy');
    expect(text).toContain('"default_approval_template": "strict", // careful');
    expect(readModelConfig(file)).toEqual({
      config: { provider: 'openai', api_key: KEY, base_url: 'http://127.0.0.1:8080/v1' },
      problems: [],
    });
    const policy = parsePolicyConfig(text, file);
    expect(policy).toMatchObject({
      ok: true,
      config: { security: { permission_level: 'L2' }, projects: { default_approval_template: 'strict' } },
    });
    if (currentPlatform() !== 'windows') expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    writeModelValue(file, 'base_url', undefined);
    expect(readModelConfig(file).config).toEqual({ provider: 'openai', api_key: KEY });
    const before = fs.readFileSync(file, 'utf8');
    writeModelValue(file, 'name', undefined);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('refuses to edit a file that is not JSON, naming the line', () => {
    fs.writeFileSync(file, '{\n  "security": {,\n}');
    expect(() => writeModelValue(file, 'provider', 'openai')).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringMatching(/line 2, column \d+/) }),
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "security": {,\n}');
  });

  it.skipIf(NO_FIFOS)(
    'refuses a named pipe as config.json at once (nextai config get would wait on it for ever)',
    () => {
      const release = fifoWithoutWriter(file);
      try {
        const started = Date.now();
        expect(() => effectiveModelSettings(file, {})).toThrow(
          expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringMatching(/named pipe \(FIFO\)/) }),
        );
        expect(() => writeModelValue(file, 'provider', 'openai')).toThrow(/named pipe/);
        expect(Date.now() - started).toBeLessThan(1000);
      } finally {
        release();
      }
    },
  );

  it('refuses a config.json nested thousands of levels deep, naming the line and column', () => {
    const deep = `{ "model": ${'['.repeat(3000)}${']'.repeat(3000)} }`;
    fs.writeFileSync(file, deep);
    const refusal = expect.objectContaining({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/line 1, column \d+: model\.0\.0.*nested more than 64 levels/),
    });
    expect(() => readModelConfig(file)).toThrow(refusal);
    expect(() => writeModelValue(file, 'provider', 'openai')).toThrow(refusal);
    expect(fs.readFileSync(file, 'utf8')).toBe(deep);
  });

  it('reports a hand-edited model section that is wrong', () => {
    fs.writeFileSync(file, '{ "model": { "provider": "gemini", "modle": "x" } }');
    const read = readModelConfig(file);
    expect(read.config).toEqual({ provider: 'gemini' });
    expect(read.problems.join('\n')).toMatch(/model\.provider: must be one of/);
    expect(read.problems.join('\n')).toMatch(/modle/);
  });
});

describe('the model call time limits', () => {
  it('take whole seconds in range, as numbers or text, and refuse the rest naming the key', () => {
    expect(validateModelValue('stream_idle_seconds', '120')).toBe('120');
    expect(validateModelValue('call_timeout_seconds', ' 600 ')).toBe('600');
    for (const bad of ['0', '4', '1.5', 'soon', '-10', '99999']) {
      expect(() => validateModelValue('stream_idle_seconds', bad)).toThrow(
        /model\.stream_idle_seconds must be a whole number of seconds from 5 to 3600/,
      );
    }
    fs.writeFileSync(file, JSON.stringify({ model: { stream_idle_seconds: 2, call_timeout_seconds: 60 } }));
    expect(readModelConfig(file).problems).toEqual([
      expect.stringContaining('model.stream_idle_seconds: must be a whole number of seconds from 5 to 3600'),
    ]);
  });
});

describe('prompt caching', () => {
  it('is on or off, written as such or as true/false, and anything else is refused naming the key', () => {
    expect(validateModelValue('prompt_cache', ' OFF ')).toBe('off');
    expect(validateModelValue('prompt_cache', 'on')).toBe('on');
    expect(() => validateModelValue('prompt_cache', 'sometimes')).toThrow(/model\.prompt_cache must be on or off/);
    fs.writeFileSync(file, JSON.stringify({ model: { prompt_cache: false } }));
    expect(readModelConfig(file)).toEqual({ config: { prompt_cache: 'off' }, problems: [] });
    fs.writeFileSync(file, JSON.stringify({ model: { prompt_cache: 'maybe' } }));
    expect(readModelConfig(file).problems).toEqual([expect.stringContaining('model.prompt_cache: must be on or off')]);
  });
});

describe('effective model settings', () => {
  it('says where each value comes from: the file, the environment or a default', () => {
    writeModelValue(file, 'name', 'claude-opus-4-1');
    writeModelValue(file, 'stream_idle_seconds', validateModelValue('stream_idle_seconds', '45'));
    const effective = effectiveModelSettings(file, {
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9999',
    });
    expect(effective.settings).toEqual([
      { key: 'model.provider', value: 'anthropic', source: 'environment (ANTHROPIC_API_KEY is set)' },
      { key: 'model.name', value: 'claude-opus-4-1', source: 'config.json' },
      { key: 'model.base_url', value: 'http://127.0.0.1:9999', source: 'environment (ANTHROPIC_BASE_URL)' },
      { key: 'model.api_key', value: 'sk-…WXYZ', source: 'environment (ANTHROPIC_API_KEY)' },
      { key: 'model.stream_idle_seconds', value: '45', source: 'config.json' },
      { key: 'model.call_timeout_seconds', value: '1200', source: 'default' },
      { key: 'model.prompt_cache', value: 'on', source: 'default' },
    ]);
    // Written as a number, read back as the call's limits.
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).model.stream_idle_seconds).toBe(45);
    expect(modelTimeouts(readModelConfig(file).config)).toEqual({ streamIdleMs: 45_000 });
    expect(effective.problem).toBeUndefined();
    expect(JSON.stringify(effective)).not.toContain(KEY);
  });

  it('uses the defaults of the configured provider, and says what is missing', () => {
    writeModelValue(file, 'provider', 'openai');
    const effective = effectiveModelSettings(file, {});
    expect(effective.settings).toEqual([
      { key: 'model.provider', value: 'openai', source: 'config.json' },
      { key: 'model.name', value: 'gpt-5.4', source: 'default' },
      { key: 'model.base_url', value: 'https://api.openai.com/v1', source: 'default' },
      { key: 'model.api_key', value: null, source: 'not set' },
      { key: 'model.stream_idle_seconds', value: '90', source: 'default' },
      { key: 'model.call_timeout_seconds', value: '1200', source: 'default' },
      { key: 'model.prompt_cache', value: 'on', source: 'default' },
    ]);
    expect(effective.problem).toMatch(/No API key for openai/);
  });

  it('reports nothing configured', () => {
    const effective = effectiveModelSettings(file, {});
    expect(effective.settings.map((setting) => setting.source)).toEqual([
      'not set',
      'not set',
      'not set',
      'not set',
      'default',
      'default',
      'default',
    ]);
    expect(effective.problem).toMatch(/No model is configured/);
  });
});

describe('the preset (model.preset)', () => {
  it('is validated against the presets, read back, and absent from older files without a problem', () => {
    expect(validateModelValue('preset', ' deepseek ')).toBe('deepseek');
    expect(() => validateModelValue('preset', 'gemini')).toThrow(
      /model\.preset must be one of: anthropic, openai, .*deepseek/,
    );
    expect(modelFieldOf('model.preset')).toBe('preset');

    fs.writeFileSync(file, JSON.stringify({ model: { provider: 'openai', base_url: 'https://api.deepseek.com/v1' } }));
    expect(readModelConfig(file)).toEqual({
      config: { provider: 'openai', base_url: 'https://api.deepseek.com/v1' },
      problems: [],
    });
    fs.writeFileSync(file, JSON.stringify({ model: { preset: 'deepseek' } }));
    expect(readModelConfig(file)).toEqual({ config: { preset: 'deepseek' }, problems: [] });
    fs.writeFileSync(file, JSON.stringify({ model: { preset: 'nonesuch' } }));
    expect(readModelConfig(file).problems.join('\n')).toMatch(/model\.preset: must be one of/);
  });

  it('chosen, fills in the provider, base URL and model, unless the change sets them', () => {
    expect(planModelChanges({}, { preset: 'deepseek' }, {})).toEqual({
      changes: [
        ['preset', 'deepseek'],
        ['provider', 'openai'],
        ['name', 'deepseek-chat'],
        ['base_url', 'https://api.deepseek.com/v1'],
      ],
    });
    expect(
      planModelChanges({}, { preset: 'deepseek', name: 'deepseek-reasoner', base_url: 'http://127.0.0.1:9/v1' }, {})
        .changes,
    ).toEqual([
      ['preset', 'deepseek'],
      ['provider', 'openai'],
      ['name', 'deepseek-reasoner'],
      ['base_url', 'http://127.0.0.1:9/v1'],
    ]);
    // Removed, it leaves the rest as it is.
    expect(planModelChanges({ preset: 'deepseek', provider: 'openai' }, { preset: null }, {}).changes).toEqual([
      ['preset', undefined],
    ]);
    expect(() => planModelChanges({}, { preset: 'deepseek', base_url: 'ftp://x' }, {})).toThrow(/model\.base_url/);
  });

  it('is dropped when the provider no longer speaks its format', () => {
    expect(planModelChanges({ preset: 'deepseek', provider: 'openai' }, { provider: 'anthropic' }, {}).changes).toEqual(
      [
        ['preset', undefined],
        ['provider', 'anthropic'],
      ],
    );
    // Another base URL for the same provider (a proxy) keeps the preset and its quirks.
    expect(
      planModelChanges({ preset: 'deepseek', provider: 'openai' }, { base_url: 'https://proxy.example/v1' }, {})
        .changes,
    ).toEqual([['base_url', 'https://proxy.example/v1']]);
  });

  it('never sends the saved key to another server: a change of server without a key removes it', () => {
    const anthropic = { provider: 'anthropic', api_key: KEY };
    expect(planModelChanges(anthropic, { preset: 'deepseek' }, {})).toEqual({
      changes: [
        ['preset', 'deepseek'],
        ['provider', 'openai'],
        ['name', 'deepseek-chat'],
        ['base_url', 'https://api.deepseek.com/v1'],
        ['api_key', undefined],
      ],
      apiKeyRemovedFrom: 'https://api.anthropic.com',
    });
    // With a key of its own, the change keeps that one.
    expect(planModelChanges(anthropic, { preset: 'deepseek', api_key: 'sk-new-key-0000' }, {}).changes).toContainEqual([
      'api_key',
      'sk-new-key-0000',
    ]);
    // The same server (the model changed, or the same preset again): the key stays.
    const deepseek = { preset: 'deepseek', provider: 'openai', base_url: 'https://api.deepseek.com/v1', api_key: KEY };
    expect(planModelChanges(deepseek, { name: 'deepseek-reasoner' }, {})).toEqual({
      changes: [['name', 'deepseek-reasoner']],
    });
    expect(planModelChanges(deepseek, { preset: 'deepseek' }, {}).apiKeyRemovedFrom).toBeUndefined();
    expect(
      planModelChanges(deepseek, { base_url: 'https://api.deepseek.com/v1/' }, {}).apiKeyRemovedFrom,
    ).toBeUndefined();
    // A key from the environment is not config.json's to remove.
    expect(
      planModelChanges({ provider: 'anthropic' }, { preset: 'deepseek' }, { ANTHROPIC_API_KEY: KEY }).changes,
    ).not.toContainEqual(['api_key', undefined]);
  });

  it('is written with the rest in one edit, and shown first in the settings in force', () => {
    fs.writeFileSync(file, '{\n  // mine\n  "model": { "api_key": "x" }\n}\n');
    writeModelValues(file, planModelChanges({}, { preset: 'ollama' }, {}).changes);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('// mine');
    expect(JSON.parse(text.replace(/\/\/.*\n/, ''))).toEqual({
      model: {
        api_key: 'x',
        preset: 'ollama',
        provider: 'openai',
        name: 'gpt-oss:20b',
        base_url: 'http://127.0.0.1:11434/v1',
      },
    });
    expect(effectiveModelSettings(file, {}).settings.slice(0, 4)).toEqual([
      { key: 'model.preset', value: 'ollama', source: 'config.json' },
      { key: 'model.provider', value: 'openai', source: 'config.json' },
      { key: 'model.name', value: 'gpt-oss:20b', source: 'config.json' },
      { key: 'model.base_url', value: 'http://127.0.0.1:11434/v1', source: 'config.json' },
    ]);
  });

  it('lends what config.json leaves out to the settings in force, saying so', () => {
    fs.writeFileSync(file, JSON.stringify({ model: { preset: 'deepseek', api_key: KEY } }));
    const effective = effectiveModelSettings(file, {});
    expect(effective.settings.slice(0, 5)).toEqual([
      { key: 'model.preset', value: 'deepseek', source: 'config.json' },
      { key: 'model.provider', value: 'openai', source: 'preset (deepseek)' },
      { key: 'model.name', value: 'deepseek-chat', source: 'preset (deepseek)' },
      { key: 'model.base_url', value: 'https://api.deepseek.com/v1', source: 'preset (deepseek)' },
      { key: 'model.api_key', value: 'sk-…WXYZ', source: 'config.json' },
    ]);
    expect(effective.problem).toBeUndefined();

    fs.writeFileSync(file, JSON.stringify({ model: { preset: 'deepseek' } }));
    expect(effectiveModelSettings(file, {}).problem).toMatch(/No API key for DeepSeek/);
  });
});
