import { describe, expect, it } from 'vitest';

import { chatUsage } from './openai.js';

describe('chatUsage', () => {
  it('counts the reasoning in the output where completion_tokens leaves it out (xAI)', () => {
    // Recorded from grok-3-mini (tests/fixtures/provider-streams/recorded/xai-grok-tool-call.json):
    // total_tokens 513 = 291 prompt + 26 completion + 196 reasoning.
    const usage = chatUsage({
      prompt_tokens: 291,
      completion_tokens: 26,
      total_tokens: 513,
      prompt_tokens_details: { text_tokens: 291, audio_tokens: 0, image_tokens: 0, cached_tokens: 290 },
      completion_tokens_details: { reasoning_tokens: 196, audio_tokens: 0 },
    });
    expect(usage.outputTokens).toEqual({ total: 222, text: 26, reasoning: 196 });
    expect(usage.inputTokens).toEqual({ total: 291, noCache: 1, cacheRead: 290, cacheWrite: undefined });
  });

  it('leaves the output as sent where completion_tokens already holds the reasoning (OpenAI, DeepSeek, Groq)', () => {
    // Recorded from deepseek-reasoner (recorded/deepseek-reasoner-text.json): 6 + 212 = 218.
    const usage = chatUsage({
      prompt_tokens: 6,
      completion_tokens: 212,
      total_tokens: 218,
      completion_tokens_details: { reasoning_tokens: 198 },
      prompt_cache_hit_tokens: 0,
    });
    expect(usage.outputTokens).toEqual({ total: 212, text: 14, reasoning: 198 });
  });

  it('leaves the output as sent when total_tokens is missing or says nothing of the reasoning', () => {
    expect(
      chatUsage({ prompt_tokens: 10, completion_tokens: 20, completion_tokens_details: { reasoning_tokens: 5 } })
        .outputTokens.total,
    ).toBe(20);
    // Gemini's total also counts thinking it does not itemise.
    expect(chatUsage({ prompt_tokens: 35, completion_tokens: 12, total_tokens: 100 }).outputTokens.total).toBe(12);
    expect(chatUsage(undefined).outputTokens.total).toBeUndefined();
  });
});
