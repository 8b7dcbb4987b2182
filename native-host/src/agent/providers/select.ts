import { AppError, say } from '@nextai/shared';

import { PROVIDER_PRESETS, findPreset } from './presets.js';

export type ProviderName = 'anthropic' | 'openai';

/** The `model` section of config.json, as far as choosing a provider goes. */
export interface ModelConfig {
  /** A known provider (presets.ts): its provider, base URL and model apply where these are not set. */
  preset?: string;
  provider?: string;
  name?: string;
  base_url?: string;
  api_key?: string;
  /** An answer with no progress for this long is abandoned and asked for again (default 90). */
  stream_idle_seconds?: string;
  /** The longest one model call may take, the whole answer included (default 1200). */
  call_timeout_seconds?: string;
  /** `off`: no Anthropic prompt-cache breakpoints (default `on`). */
  prompt_cache?: string;
}

export interface ProviderSelection {
  provider: ProviderName;
  model: string;
  /** No trailing slash. */
  baseUrl: string;
  /** Absent for a local server that needs none (Ollama, LM Studio). */
  apiKey: string | undefined;
  /** Where the key came from, for `doctor`-style reports; never the key itself. */
  apiKeySource: 'config' | 'environment' | 'none';
}

/** A provider's model when none is chosen: its preset's, so that both say the same. */
function defaultModelOf(id: 'anthropic' | 'openai'): string {
  const preset = findPreset(id);
  if (!preset) throw new Error(`The ${id} preset is missing.`);
  return preset.defaultModel;
}

export const PROVIDER_DEFAULTS: Record<
  ProviderName,
  { baseUrl: string; model: string; baseUrlVariable: string; apiKeyVariable: string }
> = {
  anthropic: {
    baseUrl: 'https://api.anthropic.com',
    model: defaultModelOf('anthropic'),
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    apiKeyVariable: 'ANTHROPIC_API_KEY',
  },
  openai: {
    baseUrl: 'https://api.openai.com/v1',
    model: defaultModelOf('openai'),
    baseUrlVariable: 'OPENAI_BASE_URL',
    apiKeyVariable: 'OPENAI_API_KEY',
  },
};

const PROVIDER_NAMES = Object.keys(PROVIDER_DEFAULTS) as ProviderName[];

function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/**
 * Chooses the provider, model, base URL and key. A configured provider wins; without one, the
 * environment decides: `ANTHROPIC_API_KEY`, then `OPENAI_API_KEY`, then a base URL variable alone
 * (a local server without a key) — Anthropic first each time. The config's `base_url` and
 * `api_key` come before the environment's. A preset (`model.preset`) stands in for the provider,
 * base URL and model that config.json does not set. Pure: `environment` is passed in.
 */
export function selectProvider(
  config: ModelConfig,
  environment: Readonly<Record<string, string | undefined>>,
): ProviderSelection {
  const preset = findPreset(config.preset);
  const configured = present(config.provider) ?? preset?.protocol;
  let provider: ProviderName | undefined;
  if (configured !== undefined) {
    if (!PROVIDER_NAMES.includes(configured as ProviderName)) {
      throw new AppError(
        'CONFIG_INVALID',
        say(
          `Unknown model provider "${configured}". Use one of: ${PROVIDER_NAMES.join(', ')} ` +
            '(`openai` covers every OpenAI-compatible server: DeepSeek, Qwen, OpenRouter, Ollama…).',
          `未知的模型服务商“${configured}”。请使用其中之一：${PROVIDER_NAMES.join(', ')}` +
            '（`openai` 适用于所有兼容 OpenAI 的服务：DeepSeek、通义千问、OpenRouter、Ollama……）。',
        ),
        { details: { provider: configured, valid: PROVIDER_NAMES } },
      );
    }
    provider = configured as ProviderName;
  } else {
    provider =
      PROVIDER_NAMES.find((name) => present(environment[PROVIDER_DEFAULTS[name].apiKeyVariable]) !== undefined) ??
      PROVIDER_NAMES.find((name) => present(environment[PROVIDER_DEFAULTS[name].baseUrlVariable]) !== undefined);
  }
  if (provider === undefined) {
    throw new AppError(
      'UNAVAILABLE',
      say(
        'No model is configured. Set ANTHROPIC_API_KEY or OPENAI_API_KEY, or run ' +
          '`nextai config set model.provider anthropic` (or `openai`) and `nextai config set model.api_key <key>`.',
        '还没有配置模型。请在“设置”中选择模型，或设置 ANTHROPIC_API_KEY / OPENAI_API_KEY，或运行 ' +
          '`nextai config set model.provider anthropic`（或 `openai`）和 `nextai config set model.api_key <key>`。',
      ),
    );
  }
  const defaults = PROVIDER_DEFAULTS[provider];

  // A preset that speaks another format than the configured provider (edited by hand) says nothing here.
  const fromPreset = preset?.protocol === provider ? preset : undefined;
  const baseUrlText =
    present(config.base_url) ??
    fromPreset?.baseUrl ??
    present(environment[defaults.baseUrlVariable]) ??
    defaults.baseUrl;
  let baseUrl: URL;
  try {
    baseUrl = new URL(baseUrlText);
  } catch (error) {
    throw new AppError(
      'CONFIG_INVALID',
      say(
        `The model base URL "${baseUrlText}" is not a URL. Set it with \`nextai config set model.base_url https://…\`.`,
        `模型接口地址“${baseUrlText}”不是有效的 URL。请用 \`nextai config set model.base_url https://…\` 设置。`,
      ),
      { cause: error },
    );
  }
  refuseUnfilledBaseUrl(baseUrl, baseUrlText);
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') {
    throw new AppError(
      'CONFIG_INVALID',
      say(
        `The model base URL must start with http:// or https:// (got "${baseUrl.protocol}"). ` +
          'Set it with `nextai config set model.base_url https://…`.',
        `模型接口地址必须以 http:// 或 https:// 开头（现在是“${baseUrl.protocol}”）。` +
          '请用 `nextai config set model.base_url https://…` 设置。',
      ),
    );
  }

  const fromConfig = present(config.api_key);
  const fromEnvironment = present(environment[defaults.apiKeyVariable]);
  const apiKey = fromConfig ?? fromEnvironment;
  const usesDefaultEndpoint = baseUrl.origin === new URL(defaults.baseUrl).origin;
  const usesPresetEndpoint = fromPreset !== undefined && baseUrl.origin === new URL(fromPreset.baseUrl).origin;
  if (apiKey === undefined && usesPresetEndpoint && fromPreset.needsKey) {
    const where = fromPreset.keyUrl ? ` (${fromPreset.keyUrl})` : '';
    throw new AppError(
      'UNAVAILABLE',
      say(
        `No API key for ${fromPreset.label.en}. Create one${where} and run \`nextai config set model.api_key <key>\`, or paste it in Settings.`,
        `没有 ${fromPreset.label['zh-CN']} 的 API 密钥。请先创建一个${where}，然后在“设置”中填写，或运行 \`nextai config set model.api_key <key>\`。`,
      ),
    );
  }
  if (apiKey === undefined && usesDefaultEndpoint) {
    throw new AppError(
      'UNAVAILABLE',
      say(
        `No API key for ${provider}. Run \`nextai config set model.api_key <key>\` or set ${defaults.apiKeyVariable}.`,
        `没有 ${provider} 的 API 密钥。请在“设置”中填写，或运行 \`nextai config set model.api_key <key>\`，或设置 ${defaults.apiKeyVariable}。`,
      ),
    );
  }

  return {
    provider,
    model: present(config.name) ?? fromPreset?.defaultModel ?? defaults.model,
    baseUrl: baseUrl.href.replace(/\/+$/, ''),
    apiKey,
    apiKeySource: fromConfig !== undefined ? 'config' : fromEnvironment !== undefined ? 'environment' : 'none',
  };
}

/**
 * Refuses a base URL that still holds a preset's part to fill in (Azure's YOUR-RESOURCE): nothing
 * is sent there, not a run's request nor a key to list the models.
 */
export function refuseUnfilledBaseUrl(baseUrl: URL, baseUrlText: string): void {
  const toFill = PROVIDER_PRESETS.find(
    (candidate) => candidate.baseUrlToFill && baseUrl.hostname.includes(candidate.baseUrlToFill.toLowerCase()),
  );
  if (!toFill?.baseUrlToFill) return;
  const part = toFill.baseUrlToFill;
  throw new AppError(
    'CONFIG_INVALID',
    say(
      `Replace ${part} in the model base URL (${baseUrlText}) with your own: for ${toFill.label.en}, the name of ` +
        `your resource. Set it in Settings → Model, or with \`nextai config set model.base_url …\`.`,
      `请把模型接口地址（${baseUrlText}）中的 ${part} 换成你自己的：对 ${toFill.label['zh-CN']} 来说是你的资源名称。` +
        `可在“设置 → 模型”中修改，或运行 \`nextai config set model.base_url …\`。`,
    ),
    { details: { base_url: baseUrlText, fill_in: part } },
  );
}
