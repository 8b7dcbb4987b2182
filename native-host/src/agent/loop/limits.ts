import { AppError, say, type Localized } from '@nextai/shared';

import { costOf, type ModelPrice } from '../pricing.js';
import type { Usage } from '../providers/types.js';
import type { RunRecord } from '../run-store.js';
import type { LoopRuntime } from './loop-runtime.js';

/** What one run may use before it fails: model turns, tokens (input and output) and dollars. */
export interface LoopLimits {
  max_steps: number;
  max_tokens: number;
  max_cost_usd: number;
}

/**
 * The limit the run has reached, said for the person (with what to do to carry on); undefined
 * while it is within all of them. Turns are checked first, then tokens, then cost.
 */
export function limitReached(run: Pick<RunRecord, 'limits' | 'usage' | 'turns'>): Localized | undefined {
  const limits = run.limits as unknown as LoopLimits;
  const tokens = run.usage.inputTokens + run.usage.outputTokens;
  if (run.turns >= limits.max_steps) {
    return say(
      `The run reached its limit of ${limits.max_steps} steps before finishing. Start a new run (or raise --max-steps) to continue.`,
      `任务在完成前达到了 ${limits.max_steps} 步的上限。要继续，请开始新的任务（或提高 --max-steps）。`,
    );
  }
  if (tokens >= limits.max_tokens) {
    return say(
      `The run used ${tokens} tokens, its limit is ${limits.max_tokens}. Start a new run with a higher limit to continue.`,
      `任务用了 ${tokens} 个 token，上限是 ${limits.max_tokens}。要继续，请用更高的上限开始新的任务。`,
    );
  }
  if (run.usage.costUsd >= limits.max_cost_usd) {
    const spent = run.usage.costUsd.toFixed(4);
    return say(
      `The run spent $${spent}, its limit is $${limits.max_cost_usd}. Start a new run with a higher limit to continue.`,
      `任务花费了 $${spent}，上限是 $${limits.max_cost_usd}。要继续，请用更高的上限开始新的任务。`,
    );
  }
  return undefined;
}

/** Fails the run (LIMIT_REACHED) before a turn it may no longer take. */
export function checkLimits(run: Pick<RunRecord, 'limits' | 'usage' | 'turns'>): void {
  const message = limitReached(run);
  if (message !== undefined) throw new AppError('LIMIT_REACHED', message);
}

/** What a model call cost; 0 when the model's price is not known (the run's cost is then a lower bound). */
export function callCost(usage: Usage, price: ModelPrice | undefined): number {
  return price ? costOf(usage, price) : 0;
}

/** A model call's usage, counted in the same write as its step. */
export interface CountedUsage {
  usage: Usage;
  model: string;
  price: ModelPrice | undefined;
  cost: number;
  /** Model turns it counts for: 1 for an answer (the default), 0 for a summary. */
  turns?: number;
}

/** Adds a model call's usage to the run's totals; call it inside the write of the call's step. */
export function addUsage(runtime: LoopRuntime, counted: CountedUsage, turns: number): void {
  runtime.services.runs.addUsage(runtime.runId, {
    inputTokens: counted.usage.inputTokens,
    outputTokens: counted.usage.outputTokens,
    cacheReadTokens: counted.usage.cacheReadTokens ?? 0,
    cacheWriteTokens: counted.usage.cacheWriteTokens ?? 0,
    reasoningTokens: counted.usage.reasoningTokens ?? 0,
    costUsd: counted.cost,
    costKnown: counted.price !== undefined,
    turns,
    model: counted.model,
  });
}

/** Tells the panel the run's totals once they are written. */
export function emitUsage(runtime: LoopRuntime): void {
  const run = runtime.services.runs.get(runtime.runId);
  runtime.emit('run.usage', {
    run_id: runtime.runId,
    input_tokens: run.usage.inputTokens,
    output_tokens: run.usage.outputTokens,
    ...cacheAndReasoning(run.usage),
    cost_usd: run.usage.costUsd,
    turns: run.turns,
  });
}

/** The run's cache and reasoning token counts, for the wire: only those it has. */
export function cacheAndReasoning(usage: RunRecord['usage']): {
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
} {
  return {
    ...(usage.cacheReadTokens ? { cache_read_tokens: usage.cacheReadTokens } : {}),
    ...(usage.cacheWriteTokens ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
    ...(usage.reasoningTokens ? { reasoning_tokens: usage.reasoningTokens } : {}),
  };
}
