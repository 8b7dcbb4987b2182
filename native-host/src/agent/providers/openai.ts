import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3Usage } from '@ai-sdk/provider';

import { callFetch, sdkModel, streamModelCall } from './model-stream.js';
import { presetForBaseUrl, presetForHost } from './presets.js';
import { asRecord, type ProviderOptions } from './provider-options.js';
import type { ModelEvent, ModelProvider, ModelRequest, StreamOptions } from './types.js';

/** OpenAI's reasoning models, also behind OpenRouter-style "openai/…" names. */
export function usesMaxCompletionTokens(model: string, baseUrl = ''): boolean {
  return /^(?:openai\/)?(?:o\d|gpt-5)/iu.test(model) || isAzureOpenAi(baseUrl);
}

/**
 * Whether an OpenAI-compatible server is sent the model's reasoning back (`reasoning_content` on
 * the assistant messages). A known server says so in its preset: DeepSeek and Kimi require it with
 * tool calls (HTTP 400 without it); Groq and Mistral refuse the field (400, 422), and the others
 * have no use for it. An unknown one (a proxy, a gateway) or one on this computer gets it when the
 * model is one of those that require it.
 */
export function sendsReasoningBack(baseUrl: string, model: string): boolean {
  const preset = presetForBaseUrl(baseUrl) ?? presetForHost(baseUrl);
  // A server on this computer (Ollama, LM Studio, vLLM) serves whatever model it was given.
  if (preset && preset.group !== 'local') return preset.quirks.reasoningContentRoundTrip === true;
  return /deepseek|kimi|moonshot/iu.test(model);
}

/**
 * Azure OpenAI: the model is the person's deployment name, which need not say which model it
 * serves, and Azure takes `max_completion_tokens` for every chat model.
 */
function isAzureOpenAi(baseUrl: string): boolean {
  try {
    return /\.(?:openai\.azure\.com|cognitiveservices\.azure\.com|services\.ai\.azure\.com)$/iu.test(
      new URL(baseUrl).hostname,
    );
  } catch {
    return false;
  }
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * Whether `completion_tokens` leaves the reasoning out (xAI): then `total_tokens` is the prompt,
 * the completion and the reasoning added up, where elsewhere it is the prompt and the completion.
 */
function reasoningOutsideCompletion(usage: Record<string, unknown>, reasoning: number | undefined): boolean {
  const input = count(usage.prompt_tokens);
  const output = count(usage.completion_tokens);
  const total = count(usage.total_tokens);
  if (reasoning === undefined || reasoning === 0 || input === undefined || output === undefined) return false;
  return total === input + output + reasoning;
}

/**
 * Chat-completions usage, cache hits included in each provider's words: OpenAI's
 * `prompt_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`, Kimi's `cached_tokens`.
 * The output counts the reasoning, which is billed as output, also where `completion_tokens` does not.
 */
export function chatUsage(raw: unknown): LanguageModelV3Usage {
  const usage = raw === null || raw === undefined ? undefined : asRecord(raw);
  const input = count(usage?.prompt_tokens);
  const cacheRead =
    count(asRecord(usage?.prompt_tokens_details).cached_tokens) ??
    count(usage?.prompt_cache_hit_tokens) ??
    count(usage?.cached_tokens);
  const reasoning = count(asRecord(usage?.completion_tokens_details).reasoning_tokens);
  const completion = count(usage?.completion_tokens);
  const output =
    usage && completion !== undefined && reasoningOutsideCompletion(usage, reasoning)
      ? completion + (reasoning ?? 0)
      : completion;
  return {
    inputTokens: {
      total: input,
      noCache: input === undefined ? undefined : input - (cacheRead ?? 0),
      cacheRead,
      cacheWrite: undefined,
    },
    outputTokens: {
      total: output,
      text: output === undefined ? undefined : output - (reasoning ?? 0),
      reasoning,
    },
    ...(usage ? { raw: usage as LanguageModelV3Usage['raw'] } : {}),
  };
}

/**
 * Every server that speaks OpenAI's chat completions (OpenAI, DeepSeek, Qwen, GLM, Kimi, Groq,
 * OpenRouter, Mistral, Ollama, vLLM…), through `@ai-sdk/openai-compatible`: reasoning
 * (`reasoning_content`, `reasoning`) shown and sent back, parallel tool calls with or without an
 * index, and a JSON answer to a streamed request read as a stream (modelFetch).
 */
export class OpenAiProvider implements ModelProvider {
  readonly name = 'openai' as const;

  constructor(private readonly options: ProviderOptions) {}

  stream(request: ModelRequest, options: StreamOptions = {}): AsyncGenerator<ModelEvent> {
    const { baseUrl, apiKey } = this.options;
    return streamModelCall(
      {
        format: 'openai',
        options: this.options,
        target: { providerLabel: 'OpenAI-compatible', apiKeyEnvironment: 'OPENAI_API_KEY', apiKey },
        model: sdkModel(`openai ${baseUrl} ${apiKey ?? ''} ${request.model}`, () =>
          createOpenAICompatible({
            name: 'compatible',
            baseURL: baseUrl,
            // Local servers (Ollama, LM Studio) need no key: then no header is sent.
            ...(apiKey !== undefined ? { apiKey } : {}),
            includeUsage: true,
            convertUsage: chatUsage,
            // OpenAI's reasoning models (o1, o3, o4-mini, gpt-5…) refuse `max_tokens` and take
            // `max_completion_tokens`; the compatible servers know only the older name.
            transformRequestBody: (body) => {
              if (!usesMaxCompletionTokens(request.model, baseUrl) || !('max_tokens' in body)) return body;
              const { max_tokens: limit, ...rest } = body;
              return { ...rest, max_completion_tokens: limit };
            },
            fetch: callFetch,
          }).languageModel(request.model),
        ),
        reasoningBack: sendsReasoningBack(baseUrl, request.model),
      },
      request,
      options.signal,
    );
  }
}
