import { describe, expect, it } from 'vitest';

import { costOf, isLocalEndpoint, priceOf } from './pricing.js';
import { PROVIDER_PRESETS } from './providers/presets.js';

describe('model prices', () => {
  it('finds a model by its family, dated snapshots and OpenRouter names included', () => {
    const sonnet = { inputPerMillion: 3, outputPerMillion: 15, cacheReadPerMillion: 0.3, cacheWritePerMillion: 3.75 };
    expect(priceOf('claude-sonnet-4-5')).toEqual(sonnet);
    expect(priceOf('claude-sonnet-4-5-20250929')).toEqual(sonnet);
    expect(priceOf('anthropic/claude-haiku-4-5')).toMatchObject({ inputPerMillion: 1, outputPerMillion: 5 });
    // The longest known prefix wins: gpt-4.1-mini is not priced as gpt-4.1.
    expect(priceOf('gpt-4.1-mini')?.inputPerMillion).toBe(0.4);
    expect(priceOf('gpt-4.1')?.inputPerMillion).toBe(2);
  });

  it('prices every model a preset offers, each at its own price (Opus 4.6 is not priced as Opus 4)', () => {
    for (const preset of PROVIDER_PRESETS.filter((entry) => ['anthropic', 'openai'].includes(entry.id))) {
      for (const model of preset.models) expect(priceOf(model), model).toBeDefined();
    }
    expect(priceOf('claude-opus-4-6')).toMatchObject({ inputPerMillion: 5, outputPerMillion: 25 });
    expect(priceOf('claude-opus-4')).toMatchObject({ inputPerMillion: 15, outputPerMillion: 75 });
    expect(priceOf('claude-sonnet-5-5')).toMatchObject({ inputPerMillion: 2, outputPerMillion: 10 });
    expect(priceOf('claude-opus-5-5')).toMatchObject({ inputPerMillion: 4, outputPerMillion: 20 });
    // OpenAI's dotted names: gpt-5.4-mini is not priced as gpt-5.4, nor gpt-5.4 as gpt-5.
    expect(priceOf('gpt-5.4')).toMatchObject({ inputPerMillion: 2.5, outputPerMillion: 15 });
    expect(priceOf('gpt-5.4-mini')).toMatchObject({ inputPerMillion: 0.75 });
  });

  it('an unknown model is free on this machine and unknown elsewhere', () => {
    expect(priceOf('llama3.1:8b', { local: true })).toEqual({ inputPerMillion: 0, outputPerMillion: 0 });
    expect(priceOf('llama3.1:8b')).toBeUndefined();
    expect(priceOf('gpt-4.1', { local: true })?.inputPerMillion).toBe(2);
  });

  it('computes the cost of a call and recognises loopback endpoints', () => {
    expect(
      costOf({ inputTokens: 1_000_000, outputTokens: 100_000 }, { inputPerMillion: 3, outputPerMillion: 15 }),
    ).toBeCloseTo(4.5);
    // Cached input at its own price: Anthropic reads at a tenth, writes at 1.25 times the input price.
    const sonnet = priceOf('claude-sonnet-4-5');
    if (!sonnet) throw new Error('claude-sonnet-4-5 has a price');
    expect(
      costOf({ inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 800_000, cacheWriteTokens: 100_000 }, sonnet),
    ).toBeCloseTo(0.1 * 3 + 0.8 * 0.3 + 0.1 * 3.75);
    // Without a cache price, cached input costs what input does.
    expect(
      costOf(
        { inputTokens: 1_000, outputTokens: 0, cacheReadTokens: 1_000 },
        { inputPerMillion: 1, outputPerMillion: 1 },
      ),
    ).toBeCloseTo(0.001);
    expect(isLocalEndpoint('http://127.0.0.1:11434/v1')).toBe(true);
    expect(isLocalEndpoint('http://localhost:1234/v1')).toBe(true);
    expect(isLocalEndpoint('https://api.openai.com/v1')).toBe(false);
    expect(isLocalEndpoint('not a url')).toBe(false);
  });
});
