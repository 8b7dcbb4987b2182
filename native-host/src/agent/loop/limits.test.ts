import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { callCost, checkLimits, limitReached } from './limits.js';

const limits = { max_steps: 10, max_tokens: 50_000, max_cost_usd: 2 };

function run(over: { turns?: number; inputTokens?: number; outputTokens?: number; costUsd?: number } = {}) {
  return {
    limits,
    turns: over.turns ?? 0,
    usage: {
      inputTokens: over.inputTokens ?? 0,
      outputTokens: over.outputTokens ?? 0,
      costUsd: over.costUsd ?? 0,
      costKnown: true,
    },
  };
}

describe('run limits', () => {
  it('lets a run within every limit take another turn', () => {
    expect(limitReached(run({ turns: 9, inputTokens: 40_000, outputTokens: 9_999, costUsd: 1.99 }))).toBeUndefined();
    expect(() => checkLimits(run())).not.toThrow();
  });

  it('names the step limit, in English and Chinese, once the turns reach it', () => {
    const message = limitReached(run({ turns: 10 }));
    expect(message).toMatchObject({
      en: expect.stringContaining('limit of 10 steps'),
      'zh-CN': expect.stringContaining('10 步'),
    });
  });

  it('counts input and output tokens together', () => {
    expect(limitReached(run({ inputTokens: 30_000, outputTokens: 20_000 }))).toMatchObject({
      en: expect.stringContaining('used 50000 tokens, its limit is 50000'),
    });
  });

  it('says what was spent to four decimals', () => {
    expect(limitReached(run({ costUsd: 3 }))).toMatchObject({ en: expect.stringContaining('spent $3.0000') });
  });

  it('reports the step limit first when several are reached', () => {
    expect(limitReached(run({ turns: 10, inputTokens: 60_000, costUsd: 5 }))).toMatchObject({
      en: expect.stringContaining('steps'),
    });
    expect(limitReached(run({ inputTokens: 60_000, costUsd: 5 }))).toMatchObject({
      en: expect.stringContaining('tokens'),
    });
  });

  it('fails the turn with LIMIT_REACHED', () => {
    let thrown: unknown;
    try {
      checkLimits(run({ costUsd: 2 }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ code: 'LIMIT_REACHED', message: expect.stringContaining('$2.0000') });
  });

  it('prices a model call, and counts an unpriced one as free', () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 100_000 };
    expect(callCost(usage, { inputPerMillion: 3, outputPerMillion: 15 })).toBeCloseTo(4.5, 10);
    expect(callCost(usage, undefined)).toBe(0);
  });
});
