import { AnthropicProvider } from './anthropic.js';
import { OpenAiProvider } from './openai.js';
import type { ProviderOptions } from './provider-options.js';
import type { ProviderSelection } from './select.js';
import type { ModelProvider } from './types.js';

export type * from './types.js';
export { parseToolArguments } from './types.js';
export { selectProvider, type ModelConfig, type ProviderSelection } from './select.js';
export type { ProviderOptions } from './provider-options.js';
export type { RetryPolicy } from './retry.js';

/** The provider client for a selection (see `selectProvider`). */
export function createProvider(
  selection: ProviderSelection,
  extra: Pick<ProviderOptions, 'retry' | 'fetch' | 'promptCache'> = {},
): ModelProvider {
  const options: ProviderOptions = { baseUrl: selection.baseUrl, apiKey: selection.apiKey, ...extra };
  return selection.provider === 'anthropic' ? new AnthropicProvider(options) : new OpenAiProvider(options);
}
