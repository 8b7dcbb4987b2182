import { createProvider, selectProvider } from '../../native-host/src/agent/providers/index.js';
import type { RetryPolicy } from '../../native-host/src/agent/providers/retry.js';
import type { ModelProvider } from '../../native-host/src/agent/providers/types.js';
import type { FakeModelServer } from './fake-model-server.js';

export type Format = 'anthropic' | 'openai';

/**
 * The real provider for `format`, chosen from the environment as the daemon chooses it and
 * pointed at `server`, with retries a test can wait for.
 */
export function providerAgainst(
  server: FakeModelServer,
  format: Format,
  apiKey: string,
  retry: Partial<RetryPolicy> = {},
): ModelProvider {
  const environment =
    format === 'anthropic'
      ? { ANTHROPIC_BASE_URL: server.anthropicBaseUrl, ANTHROPIC_API_KEY: apiKey }
      : { OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: apiKey };
  const selection = selectProvider({}, environment);
  if (selection.provider !== format) throw new Error(`selected ${selection.provider}, not ${format}`);
  return createProvider(selection, { retry: { baseDelayMs: 10, maxDelayMs: 50, ...retry } });
}
