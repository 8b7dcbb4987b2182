import { describe, expect, it } from 'vitest';

import { selectProvider } from './select.js';

describe('selectProvider', () => {
  it('uses the configured provider, model, base URL and key before the environment', () => {
    expect(
      selectProvider(
        { provider: 'openai', name: 'deepseek-chat', base_url: 'https://api.deepseek.com/v1/', api_key: 'k-config' },
        { OPENAI_API_KEY: 'k-env', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', ANTHROPIC_API_KEY: 'a' },
      ),
    ).toEqual({
      provider: 'openai',
      model: 'deepseek-chat',
      baseUrl: 'https://api.deepseek.com/v1',
      apiKey: 'k-config',
      apiKeySource: 'config',
    });
  });

  it('takes base URL and key from the environment for the configured provider', () => {
    expect(
      selectProvider(
        { provider: 'anthropic' },
        { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:4000' },
      ),
    ).toMatchObject({
      provider: 'anthropic',
      baseUrl: 'http://127.0.0.1:4000',
      apiKey: 'k',
      apiKeySource: 'environment',
    });
  });

  it('picks the provider from the key in the environment, Anthropic first', () => {
    expect(selectProvider({}, { OPENAI_API_KEY: 'o' })).toMatchObject({
      provider: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'o',
    });
    expect(selectProvider({}, { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' })).toMatchObject({
      provider: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      apiKey: 'a',
    });
    expect(selectProvider({}, { ANTHROPIC_API_KEY: ' ', OPENAI_API_KEY: 'o' }).provider).toBe('openai');
  });

  it('lets a local server without a key be chosen by its base URL', () => {
    expect(selectProvider({}, { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })).toMatchObject({
      provider: 'openai',
      apiKey: undefined,
      apiKeySource: 'none',
    });
  });

  it('says what to set when nothing is configured, or the key is missing for the public endpoint', () => {
    expect(() => selectProvider({}, {})).toThrow(/ANTHROPIC_API_KEY or OPENAI_API_KEY.*nextai config set/);
    expect(() => selectProvider({ provider: 'anthropic' }, {})).toThrow(/No API key for anthropic/);
  });

  it('takes provider, base URL and model from a preset where config.json sets none', () => {
    expect(selectProvider({ preset: 'deepseek', api_key: 'k' }, { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })).toEqual({
      provider: 'openai',
      model: 'deepseek-chat',
      baseUrl: 'https://api.deepseek.com/v1',
      apiKey: 'k',
      apiKeySource: 'config',
    });
    // What config.json sets wins over the preset.
    expect(
      selectProvider({ preset: 'deepseek', name: 'deepseek-reasoner', base_url: 'http://127.0.0.1:7/v1' }, {}),
    ).toMatchObject({ model: 'deepseek-reasoner', baseUrl: 'http://127.0.0.1:7/v1', apiKey: undefined });
    // A local preset needs no key.
    expect(selectProvider({ preset: 'ollama' }, {})).toMatchObject({
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: undefined,
    });
    // A preset of the other format (config.json edited by hand) does not lend its URL or model.
    expect(selectProvider({ preset: 'deepseek', provider: 'anthropic', api_key: 'k' }, {})).toMatchObject({
      provider: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      model: 'claude-sonnet-4-6',
    });
    // Unknown presets are the config's validation's business; here they say nothing.
    expect(selectProvider({ preset: 'nonesuch', provider: 'openai', api_key: 'k' }, {}).baseUrl).toBe(
      'https://api.openai.com/v1',
    );
  });

  it("says where to get a key when a preset's server needs one and none is set", () => {
    expect(() => selectProvider({ preset: 'deepseek' }, {})).toThrow(
      expect.objectContaining({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(
          /No API key for DeepSeek\. Create one \(https:\/\/platform\.deepseek\.com\/api_keys\).*nextai config set model\.api_key/,
        ),
      }),
    );
  });

  it('rejects an unknown provider and a base URL that is not http(s)', () => {
    expect(() => selectProvider({ provider: 'gemini' }, {})).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringMatching(/anthropic, openai/) }),
    );
    expect(() => selectProvider({ provider: 'openai', base_url: 'not a url' }, {})).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
    expect(() => selectProvider({ provider: 'openai', base_url: 'file:///tmp' }, {})).toThrow(/http:\/\/ or https/);
  });
});
