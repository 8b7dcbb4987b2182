/**
 * What model calls cost, in US dollars per million tokens, for the models people commonly point
 * the agent at. Matched by the longest known prefix of the model name (so dated snapshots such as
 * `claude-sonnet-4-5-20250929` find their family). An unlisted model on a local server (Ollama,
 * vLLM, LM Studio) costs nothing; an unlisted model elsewhere is "unknown", and the run's cost is
 * then a lower bound — the token limit still applies.
 */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

const PRICES: Record<string, ModelPrice> = {
  'claude-opus-4-1': { inputPerMillion: 15, outputPerMillion: 75 },
  'claude-opus-4': { inputPerMillion: 15, outputPerMillion: 75 },
  'claude-opus-4-5': { inputPerMillion: 5, outputPerMillion: 25 },
  'claude-sonnet-4': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-3-7-sonnet': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-3-5-sonnet': { inputPerMillion: 3, outputPerMillion: 15 },
  'claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5 },
  'claude-3-5-haiku': { inputPerMillion: 0.8, outputPerMillion: 4 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6 },
  'gpt-4.1-nano': { inputPerMillion: 0.1, outputPerMillion: 0.4 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10 },
  'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2 },
  o3: { inputPerMillion: 2, outputPerMillion: 8 },
  'o4-mini': { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  'deepseek-chat': { inputPerMillion: 0.27, outputPerMillion: 1.1 },
  'deepseek-reasoner': { inputPerMillion: 0.55, outputPerMillion: 2.19 },
};

const BY_LENGTH = Object.keys(PRICES).sort((a, b) => b.length - a.length);

/** The price of `model`, or undefined when it is not known; `local`: served on this machine. */
export function priceOf(model: string, options: { local?: boolean } = {}): ModelPrice | undefined {
  // OpenRouter names models "vendor/model".
  const name = model.toLowerCase().replace(/^[\w.-]+\//u, '');
  const prefix = BY_LENGTH.find((known) => name === known || name.startsWith(`${known}-`));
  if (prefix !== undefined) return PRICES[prefix];
  return options.local ? { inputPerMillion: 0, outputPerMillion: 0 } : undefined;
}

export function costOf(usage: { inputTokens: number; outputTokens: number }, price: ModelPrice): number {
  return (usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000;
}

/** A base URL on this machine (Ollama, LM Studio, vLLM on loopback): nothing to pay. */
export function isLocalEndpoint(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./u.test(host);
  } catch {
    return false;
  }
}
