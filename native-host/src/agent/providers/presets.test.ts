import { describe, expect, it } from 'vitest';

import { findPreset, PRESET_GROUPS, PRESET_IDS, PROVIDER_PRESETS, presetForBaseUrl } from './presets.js';
import { selectProvider } from './select.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

describe('provider presets', () => {
  it('have unique ids that config.json can hold', () => {
    expect(new Set(PRESET_IDS).size).toBe(PRESET_IDS.length);
    for (const id of PRESET_IDS) expect(id).toMatch(/^[a-z][a-z0-9-]*$/);
  });

  it('are https, except the servers on this computer, which are http on loopback and need no key', () => {
    for (const preset of PROVIDER_PRESETS) {
      const url = new URL(preset.baseUrl);
      if (preset.group === 'local') {
        expect(url.protocol, preset.id).toBe('http:');
        expect(LOOPBACK.has(url.hostname), preset.id).toBe(true);
        expect(preset.needsKey, preset.id).toBe(false);
      } else {
        expect(url.protocol, preset.id).toBe('https:');
        expect(preset.needsKey, preset.id).toBe(true);
      }
      expect(preset.baseUrl, preset.id).not.toMatch(/\/$/);
      if (preset.keyUrl !== undefined) expect(new URL(preset.keyUrl).protocol, preset.id).toBe('https:');
    }
  });

  it('each have a default model, offered first, and labels in both languages', () => {
    for (const preset of PROVIDER_PRESETS) {
      expect(preset.defaultModel.trim(), preset.id).not.toBe('');
      expect(preset.models[0], preset.id).toBe(preset.defaultModel);
      expect(new Set(preset.models).size, preset.id).toBe(preset.models.length);
      expect(preset.label.en.trim(), preset.id).not.toBe('');
      expect(preset.label['zh-CN'].trim(), preset.id).not.toBe('');
      expect(PRESET_GROUPS).toContain(preset.group);
    }
  });

  it('cover the providers people use, each in its region', () => {
    const byId = Object.fromEntries(PROVIDER_PRESETS.map((preset) => [preset.id, preset]));
    expect(byId.deepseek).toMatchObject({
      protocol: 'openai',
      baseUrl: 'https://api.deepseek.com/v1',
      defaultModel: 'deepseek-chat',
      models: ['deepseek-chat', 'deepseek-reasoner'],
      group: 'china',
    });
    expect(byId.qwen?.baseUrl).toBe('https://dashscope.aliyuncs.com/compatible-mode/v1');
    expect(byId['qwen-intl']?.baseUrl).toBe('https://dashscope-intl.aliyuncs.com/compatible-mode/v1');
    expect(byId.glm?.baseUrl).toBe('https://open.bigmodel.cn/api/paas/v4');
    expect(byId.zai?.baseUrl).toBe('https://api.z.ai/api/paas/v4');
    expect(byId.kimi?.baseUrl).toBe('https://api.moonshot.cn/v1');
    expect(byId['kimi-intl']?.baseUrl).toBe('https://api.moonshot.ai/v1');
    expect(byId.groq?.baseUrl).toBe('https://api.groq.com/openai/v1');
    expect(byId.openrouter?.baseUrl).toBe('https://openrouter.ai/api/v1');
    expect(byId.mistral?.baseUrl).toBe('https://api.mistral.ai/v1');
    expect(byId.xai?.baseUrl).toBe('https://api.x.ai/v1');
    expect(byId.ollama?.baseUrl).toBe('http://127.0.0.1:11434/v1');
    expect(byId.vllm?.baseUrl).toBe('http://127.0.0.1:8000/v1');
    expect(byId.lmstudio?.baseUrl).toBe('http://127.0.0.1:1234/v1');
    expect(byId.anthropic).toMatchObject({ protocol: 'anthropic', baseUrl: 'https://api.anthropic.com' });
    expect(byId.openai).toMatchObject({ protocol: 'openai', baseUrl: 'https://api.openai.com/v1' });
    // Azure through its v1 API: the person's resource goes in the URL.
    expect(byId.azure).toMatchObject({
      protocol: 'openai',
      baseUrl: 'https://YOUR-RESOURCE.openai.azure.com/openai/v1',
      baseUrlToFill: 'YOUR-RESOURCE',
    });
  });

  it('record the quirks the providers will need', () => {
    expect(findPreset('deepseek')?.quirks).toMatchObject({
      reasoningField: 'reasoning_content',
      reasoningContentRoundTrip: true,
    });
    expect(findPreset('glm')?.quirks.noBalanceErrorCodes).toEqual(['1113']);
    expect(findPreset('mistral')?.quirks.toolCallsWithoutIndex).toBe(true);
    expect(findPreset('groq')?.quirks.errorEventsInStream).toBe(true);
    expect(findPreset('ollama')?.quirks.mayIgnoreStream).toBe(true);
    const pattern = new RegExp(findPreset('openai')?.quirks.maxCompletionTokensModels ?? '^$', 'i');
    expect(['o3', 'o4-mini', 'gpt-5.4'].every((model) => pattern.test(model))).toBe(true);
    expect(pattern.test('gpt-4.1')).toBe(false);
  });

  it('are found by id and by base URL, trailing slashes and localhost aside', () => {
    expect(findPreset(' deepseek ')?.id).toBe('deepseek');
    expect(findPreset('nonesuch')).toBeUndefined();
    expect(findPreset(undefined)).toBeUndefined();
    expect(presetForBaseUrl('https://api.deepseek.com/v1/')?.id).toBe('deepseek');
    expect(presetForBaseUrl('http://localhost:11434/v1')?.id).toBe('ollama');
    expect(presetForBaseUrl('https://api.deepseek.com')).toBeUndefined();
    expect(presetForBaseUrl('not a url')).toBeUndefined();
  });

  it('each make a valid provider selection once a key is there (and the URL is filled in)', () => {
    for (const preset of PROVIDER_PRESETS) {
      const baseUrl = preset.baseUrlToFill ? preset.baseUrl.replace(preset.baseUrlToFill, 'contoso') : undefined;
      const selection = selectProvider(
        {
          preset: preset.id,
          ...(preset.needsKey ? { api_key: 'k-1' } : {}),
          ...(baseUrl ? { base_url: baseUrl } : {}),
        },
        {},
      );
      expect(selection, preset.id).toMatchObject({
        provider: preset.protocol,
        baseUrl: baseUrl ?? preset.baseUrl,
        model: preset.defaultModel,
      });
    }
  });

  it('refuse a base URL whose part to fill in was left as it was, before anything is sent', () => {
    const attempt = () => selectProvider({ preset: 'azure', api_key: 'k-1' }, {});
    expect(attempt).toThrow(/Replace YOUR-RESOURCE in the model base URL/);
    // Typed by hand without the preset, too.
    expect(() =>
      selectProvider(
        { provider: 'openai', base_url: 'https://your-resource.openai.azure.com/openai/v1', api_key: 'k' },
        {},
      ),
    ).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
