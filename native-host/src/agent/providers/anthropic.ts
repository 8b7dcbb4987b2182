import { createAnthropic } from '@ai-sdk/anthropic';

import { callFetch, sdkModel, streamModelCall } from './model-stream.js';
import { joinUrl, type ProviderOptions } from './provider-options.js';
import type { ModelEvent, ModelProvider, ModelRequest, StreamOptions } from './types.js';

/**
 * The SDK asks for the structured-outputs beta whenever a Claude model gets tools, for strict tool
 * schemas we do not use: the request goes without it, as before (servers that speak the format
 * may refuse a beta they do not know).
 */
function withoutUnusedBeta(send: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    const betas = (headers.get('anthropic-beta') ?? '')
      .split(',')
      .map((beta) => beta.trim())
      .filter((beta) => beta !== '' && !beta.startsWith('structured-outputs-'));
    if (betas.length > 0) headers.set('anthropic-beta', betas.join(','));
    else headers.delete('anthropic-beta');
    return send(input, { ...init, headers });
  };
}

/**
 * Anthropic's Messages API (and the servers that speak it), through `@ai-sdk/anthropic`: thinking
 * and redacted thinking kept with their signatures, tool arguments given whole or in pieces, cache
 * reads and writes counted, and prompt caching on (prompt.ts).
 */
export class AnthropicProvider implements ModelProvider {
  readonly name = 'anthropic' as const;

  constructor(private readonly options: ProviderOptions) {}

  stream(request: ModelRequest, options: StreamOptions = {}): AsyncGenerator<ModelEvent> {
    const { baseUrl, apiKey } = this.options;
    return streamModelCall(
      {
        format: 'anthropic',
        options: this.options,
        target: { providerLabel: 'Anthropic', apiKeyEnvironment: 'ANTHROPIC_API_KEY', apiKey },
        // No key (a local server): none is sent (modelFetch); the SDK would look in the environment.
        model: sdkModel(`anthropic ${baseUrl} ${apiKey ?? ''} ${request.model}`, () =>
          createAnthropic({
            baseURL: joinUrl(baseUrl, '/v1'),
            apiKey: apiKey ?? 'none',
            fetch: withoutUnusedBeta(callFetch),
          }).languageModel(request.model),
        ),
        // Tool arguments arrive whole at the block's end, as the loop uses them: no partial-JSON
        // streaming (`eager_input_streaming`), which servers that speak the format may not know.
        providerOptions: { anthropic: { toolStreaming: false } },
        cache: this.options.promptCache !== false,
      },
      request,
      options.signal,
    );
  }
}
