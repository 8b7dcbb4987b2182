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
  /** Input read from the prompt cache; the input price when not listed. */
  cacheReadPerMillion?: number;
  /** Input written to the prompt cache (Anthropic: 1.25 × input for the 5-minute cache); the input price when not listed. */
  cacheWritePerMillion?: number;
}

/** Anthropic's prompt-cache prices: reads at a tenth of the input price, 5-minute writes at 1.25 times it. */
function anthropic(inputPerMillion: number, outputPerMillion: number): ModelPrice {
  return {
    inputPerMillion,
    outputPerMillion,
    cacheReadPerMillion: inputPerMillion / 10,
    cacheWritePerMillion: inputPerMillion * 1.25,
  };
}

/** OpenAI-style automatic caching: cached input at `cached` a million, nothing extra to write. */
function cached(inputPerMillion: number, outputPerMillion: number, cacheReadPerMillion: number): ModelPrice {
  return { inputPerMillion, outputPerMillion, cacheReadPerMillion };
}

// Anthropic's and OpenAI's published prices (platform.claude.com and OpenAI's pricing page, read
// November 2026). A family's entry covers its dated snapshots and later point releases until one
// is priced differently (claude-sonnet-5 covers claude-sonnet-5-5), so each change of price is a line.
const PRICES: Record<string, ModelPrice> = {
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-7': anthropic(5, 25),
  'claude-opus-4-8': anthropic(5, 25),
  'claude-opus-5': anthropic(5, 25),
  'claude-opus-5-5': anthropic(4, 20),
  'claude-sonnet-5': anthropic(2, 10),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-3-5-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'gpt-4.1': cached(2, 8, 0.5),
  'gpt-4.1-mini': cached(0.4, 1.6, 0.1),
  'gpt-4.1-nano': cached(0.1, 0.4, 0.025),
  'gpt-4o': cached(2.5, 10, 1.25),
  'gpt-4o-mini': cached(0.15, 0.6, 0.075),
  'gpt-5': cached(1.25, 10, 0.125),
  'gpt-5-mini': cached(0.25, 2, 0.025),
  'gpt-5.4': cached(2.5, 15, 0.25),
  'gpt-5.4-mini': cached(0.75, 4.5, 0.075),
  'gpt-5.5': cached(5, 30, 0.5),
  o3: cached(2, 8, 0.5),
  'o4-mini': cached(1.1, 4.4, 0.275),
  // DeepSeek's context cache: a hit costs about a quarter of a miss.
  'deepseek-chat': cached(0.27, 1.1, 0.07),
  'deepseek-reasoner': cached(0.55, 2.19, 0.14),
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

/**
 * What a call cost. The input counts every token sent; the part read from or written to the prompt
 * cache is priced as such (reasoning tokens are part of the output and priced with it).
 */
export function costOf(
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number },
  price: ModelPrice,
): number {
  const read = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const fresh = Math.max(0, usage.inputTokens - read - written);
  return (
    (fresh * price.inputPerMillion +
      read * (price.cacheReadPerMillion ?? price.inputPerMillion) +
      written * (price.cacheWritePerMillion ?? price.inputPerMillion) +
      usage.outputTokens * price.outputPerMillion) /
    1_000_000
  );
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
