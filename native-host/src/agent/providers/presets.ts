import { say, type Localized } from '@nextai/shared';

import type { ProviderName } from './select.js';

/**
 * Known model providers, each a starting point for the `model` section of config.json: which wire
 * format it speaks, where, a model to start with, whether it needs a key and where to get one, and
 * what it does differently from the format's reference API. Choosing one (in the panel, the
 * first-run wizard or `nextai config set model.preset …`) writes its provider, base URL and model
 * into config.json; each can be changed afterwards.
 *
 * Model ids are the providers' own, from their public documentation (November 2026); a server's
 * own list (`settings.list_models`) is always the better guide. Azure OpenAI is reached through its
 * v1 API (`https://<resource>.openai.azure.com/openai/v1`, GA since August 2025), which takes the
 * key as a bearer token and the deployment's name as the model, like any OpenAI-compatible server;
 * the older deployment URLs (an `api-key` header, an `api-version` query) are not used.
 */

/** How a provider's API departs from the reference API of its format: data for the providers to read. */
export interface PresetQuirks {
  /** The delta field that carries reasoning text (besides the answer's `content`). */
  reasoningField?: 'reasoning_content' | 'reasoning';
  /**
   * An assistant message that made tool calls must be sent back with its `reasoning_content`;
   * without it the next request is refused (HTTP 400).
   */
  reasoningContentRoundTrip?: boolean;
  /** Anthropic: `thinking` and `redacted_thinking` blocks go back unchanged (signatures too) when tools are used. */
  thinkingBlocksRoundTrip?: boolean;
  /** Model ids (a regular expression, case-insensitive) that take `max_completion_tokens`, not `max_tokens`. */
  maxCompletionTokensModels?: string;
  /** Parallel tool calls may arrive without `index`, each call's first chunk carrying its own id. */
  toolCallsWithoutIndex?: boolean;
  /** An `event: error` may come after HTTP 200 (a failed tool call: `tool_use_failed`). */
  errorEventsInStream?: boolean;
  /** May answer `application/json`, whole, to a request that asked for `stream: true`. */
  mayIgnoreStream?: boolean;
  /** Error codes in an HTTP 429 body that mean the account has no balance left, not a rate limit. */
  noBalanceErrorCodes?: readonly string[];
}

export const PRESET_GROUPS = ['international', 'china', 'local'] as const;
export type PresetGroup = (typeof PRESET_GROUPS)[number];

export interface ProviderPreset {
  /** What `model.preset` holds: lower case, digits and "-". */
  id: string;
  label: Localized;
  group: PresetGroup;
  /** The wire format: `openai` is every OpenAI-compatible server. */
  protocol: ProviderName;
  /** No trailing slash; `http://` only for servers on this computer. */
  baseUrl: string;
  defaultModel: string;
  /** Models worth offering before the server's list is fetched; the default first. */
  models: readonly string[];
  needsKey: boolean;
  /**
   * The part of `baseUrl` the person replaces with their own (Azure: their resource's name). A base
   * URL that still holds it is refused before any request is sent.
   */
  baseUrlToFill?: string;
  /** Where to create a key (a local server: where to get the server). */
  keyUrl?: string;
  quirks: PresetQuirks;
}

const REASONING_CONTENT: PresetQuirks = { reasoningField: 'reasoning_content' };

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  // --- International ----------------------------------------------------------------------------
  {
    id: 'anthropic',
    label: say('Anthropic (Claude)', 'Anthropic（Claude）'),
    group: 'international',
    protocol: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    defaultModel: 'claude-sonnet-4-6',
    models: ['claude-sonnet-4-6', 'claude-opus-4-6', 'claude-haiku-4-5'],
    needsKey: true,
    keyUrl: 'https://console.anthropic.com/settings/keys',
    quirks: { thinkingBlocksRoundTrip: true },
  },
  {
    id: 'openai',
    label: say('OpenAI', 'OpenAI'),
    group: 'international',
    protocol: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    defaultModel: 'gpt-5.4',
    models: ['gpt-5.4', 'gpt-5.4-mini', 'gpt-4.1'],
    needsKey: true,
    keyUrl: 'https://platform.openai.com/api-keys',
    quirks: { maxCompletionTokensModels: '^(?:o\\d|gpt-5)' },
  },
  {
    id: 'azure',
    label: say('Azure OpenAI', 'Azure OpenAI'),
    group: 'international',
    protocol: 'openai',
    baseUrl: 'https://YOUR-RESOURCE.openai.azure.com/openai/v1',
    baseUrlToFill: 'YOUR-RESOURCE',
    // The model is the name the person gave their deployment; these are the usual ones.
    defaultModel: 'gpt-5.4',
    models: ['gpt-5.4', 'gpt-5.4-mini', 'gpt-4.1'],
    needsKey: true,
    keyUrl: 'https://ai.azure.com',
    // Deployment names need not say which model they serve: the provider sends Azure
    // `max_completion_tokens`, which it takes for every chat model (openai.ts).
    quirks: {},
  },
  {
    id: 'openrouter',
    label: say('OpenRouter', 'OpenRouter'),
    group: 'international',
    protocol: 'openai',
    baseUrl: 'https://openrouter.ai/api/v1',
    defaultModel: 'anthropic/claude-sonnet-4.5',
    models: ['anthropic/claude-sonnet-4.5', 'openai/gpt-5.4', 'deepseek/deepseek-chat'],
    needsKey: true,
    keyUrl: 'https://openrouter.ai/keys',
    quirks: { reasoningField: 'reasoning', maxCompletionTokensModels: '^openai/(?:o\\d|gpt-5)' },
  },
  {
    id: 'groq',
    label: say('Groq', 'Groq'),
    group: 'international',
    protocol: 'openai',
    baseUrl: 'https://api.groq.com/openai/v1',
    defaultModel: 'openai/gpt-oss-120b',
    models: ['openai/gpt-oss-120b', 'llama-3.3-70b-versatile'],
    needsKey: true,
    keyUrl: 'https://console.groq.com/keys',
    quirks: { reasoningField: 'reasoning', errorEventsInStream: true },
  },
  {
    id: 'mistral',
    label: say('Mistral AI', 'Mistral AI'),
    group: 'international',
    protocol: 'openai',
    baseUrl: 'https://api.mistral.ai/v1',
    defaultModel: 'mistral-large-latest',
    models: ['mistral-large-latest', 'mistral-medium-latest', 'codestral-latest'],
    needsKey: true,
    keyUrl: 'https://console.mistral.ai/api-keys',
    quirks: { toolCallsWithoutIndex: true },
  },
  {
    id: 'xai',
    label: say('xAI (Grok)', 'xAI（Grok）'),
    group: 'international',
    protocol: 'openai',
    baseUrl: 'https://api.x.ai/v1',
    defaultModel: 'grok-4.3',
    models: ['grok-4.3'],
    needsKey: true,
    keyUrl: 'https://console.x.ai',
    quirks: REASONING_CONTENT,
  },
  {
    id: 'qwen-intl',
    label: say('Qwen (Alibaba Cloud, international)', '通义千问（阿里云国际站）'),
    group: 'international',
    protocol: 'openai',
    baseUrl: 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1',
    defaultModel: 'qwen-plus',
    models: ['qwen-plus', 'qwen-max', 'qwen-turbo'],
    needsKey: true,
    keyUrl: 'https://modelstudio.console.alibabacloud.com/?tab=model#/api-key',
    quirks: REASONING_CONTENT,
  },
  {
    id: 'zai',
    label: say('Z.ai (GLM, international)', 'Z.ai（GLM 国际站）'),
    group: 'international',
    protocol: 'openai',
    baseUrl: 'https://api.z.ai/api/paas/v4',
    defaultModel: 'glm-5',
    models: ['glm-5', 'glm-4.6'],
    needsKey: true,
    keyUrl: 'https://z.ai/manage-apikey/apikey-list',
    quirks: { ...REASONING_CONTENT, noBalanceErrorCodes: ['1113'] },
  },
  {
    id: 'kimi-intl',
    label: say('Kimi (Moonshot AI, international)', 'Kimi（Moonshot AI 国际站）'),
    group: 'international',
    protocol: 'openai',
    baseUrl: 'https://api.moonshot.ai/v1',
    defaultModel: 'kimi-k2.6',
    models: ['kimi-k2.6'],
    needsKey: true,
    keyUrl: 'https://platform.moonshot.ai/console/api-keys',
    quirks: { ...REASONING_CONTENT, reasoningContentRoundTrip: true },
  },

  // --- China ------------------------------------------------------------------------------------
  {
    id: 'deepseek',
    label: say('DeepSeek', 'DeepSeek 深度求索'),
    group: 'china',
    protocol: 'openai',
    baseUrl: 'https://api.deepseek.com/v1',
    defaultModel: 'deepseek-chat',
    models: ['deepseek-chat', 'deepseek-reasoner'],
    needsKey: true,
    keyUrl: 'https://platform.deepseek.com/api_keys',
    quirks: { ...REASONING_CONTENT, reasoningContentRoundTrip: true },
  },
  {
    id: 'qwen',
    label: say('Qwen (DashScope, China)', '通义千问（阿里云百炼）'),
    group: 'china',
    protocol: 'openai',
    baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    defaultModel: 'qwen-plus',
    models: ['qwen-plus', 'qwen-max', 'qwen-turbo'],
    needsKey: true,
    keyUrl: 'https://bailian.console.aliyun.com/?tab=model#/api-key',
    quirks: REASONING_CONTENT,
  },
  {
    id: 'glm',
    label: say('GLM (Zhipu, bigmodel.cn)', '智谱 GLM（bigmodel.cn）'),
    group: 'china',
    protocol: 'openai',
    baseUrl: 'https://open.bigmodel.cn/api/paas/v4',
    defaultModel: 'glm-5',
    models: ['glm-5', 'glm-4.6'],
    needsKey: true,
    keyUrl: 'https://open.bigmodel.cn/usercenter/apikeys',
    quirks: { ...REASONING_CONTENT, noBalanceErrorCodes: ['1113'] },
  },
  {
    id: 'kimi',
    label: say('Kimi (Moonshot, China)', 'Kimi（月之暗面）'),
    group: 'china',
    protocol: 'openai',
    baseUrl: 'https://api.moonshot.cn/v1',
    defaultModel: 'kimi-k2.6',
    models: ['kimi-k2.6'],
    needsKey: true,
    keyUrl: 'https://platform.moonshot.cn/console/api-keys',
    quirks: { ...REASONING_CONTENT, reasoningContentRoundTrip: true },
  },

  // --- On this computer -------------------------------------------------------------------------
  {
    id: 'ollama',
    label: say('Ollama', 'Ollama'),
    group: 'local',
    protocol: 'openai',
    baseUrl: 'http://127.0.0.1:11434/v1',
    defaultModel: 'gpt-oss:20b',
    models: ['gpt-oss:20b'],
    needsKey: false,
    keyUrl: 'https://ollama.com/download',
    quirks: { reasoningField: 'reasoning', mayIgnoreStream: true },
  },
  {
    id: 'lmstudio',
    label: say('LM Studio', 'LM Studio'),
    group: 'local',
    protocol: 'openai',
    baseUrl: 'http://127.0.0.1:1234/v1',
    defaultModel: 'openai/gpt-oss-20b',
    models: ['openai/gpt-oss-20b'],
    needsKey: false,
    keyUrl: 'https://lmstudio.ai/download',
    quirks: REASONING_CONTENT,
  },
  {
    id: 'vllm',
    label: say('vLLM', 'vLLM'),
    group: 'local',
    protocol: 'openai',
    baseUrl: 'http://127.0.0.1:8000/v1',
    defaultModel: 'Qwen/Qwen2.5-1.5B-Instruct',
    models: ['Qwen/Qwen2.5-1.5B-Instruct'],
    needsKey: false,
    keyUrl: 'https://docs.vllm.ai/en/latest/getting_started/quickstart.html',
    quirks: REASONING_CONTENT,
  },
];

export const PRESET_IDS = PROVIDER_PRESETS.map((preset) => preset.id) as [string, ...string[]];

/** The preset with this id; undefined for none or an unknown one. */
export function findPreset(id: string | undefined): ProviderPreset | undefined {
  const wanted = id?.trim();
  return wanted ? PROVIDER_PRESETS.find((preset) => preset.id === wanted) : undefined;
}

/** The preset whose base URL this is (same origin and path, trailing slashes aside), if any. */
export function presetForBaseUrl(baseUrl: string | undefined): ProviderPreset | undefined {
  const wanted = normalizedUrl(baseUrl);
  return wanted === undefined ? undefined : PROVIDER_PRESETS.find((preset) => normalizedUrl(preset.baseUrl) === wanted);
}

/**
 * The preset of the server at this host (and port), whatever the path: `https://api.deepseek.com`
 * is DeepSeek's server though the preset says `…/v1`. Undefined when none, or more than one, is there.
 */
export function presetForHost(baseUrl: string | undefined): ProviderPreset | undefined {
  const host = (text: string | undefined) => normalizedUrl(text)?.replace(/^(\w+:\/\/[^/]+).*$/u, '$1');
  const wanted = host(baseUrl);
  if (wanted === undefined) return undefined;
  const found = PROVIDER_PRESETS.filter((preset) => host(preset.baseUrl) === wanted);
  return found.length === 1 ? found[0] : undefined;
}

function normalizedUrl(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  try {
    const url = new URL(text.trim());
    // localhost and 127.0.0.1 are the same server to the person.
    const host = url.hostname === 'localhost' ? '127.0.0.1' : url.hostname;
    return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}
