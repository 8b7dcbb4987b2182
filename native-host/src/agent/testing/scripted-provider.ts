import { AppError } from '@nextai/shared';

import { sleep } from '../../core/sleep.js';
import type { ModelEvent, ModelProvider, ModelRequest, StopReason } from '../providers/types.js';

/** One scripted model answer for logic tests (the wire formats are tested against the fake server). */
export interface ScriptedAnswer {
  text?: string;
  calls?: { name: string; input?: unknown; id?: string; rawArguments?: string }[];
  /** Thrown instead of answering; after the text when there is text (an answer that breaks off). */
  error?: AppError;
  /** Never answers until the request is aborted. */
  hang?: boolean;
  usage?: { inputTokens: number; outputTokens: number };
  stopReason?: StopReason;
  /** The provider's words for a refusal, with the `done` event. */
  refusal?: string;
}

export type ScriptStep = ScriptedAnswer | ((request: ModelRequest) => ScriptedAnswer);

/**
 * A ModelProvider that answers from a script (or a function of the request) and records every
 * request, deep-copied as sent.
 */
export class ScriptedProvider implements ModelProvider {
  readonly name = 'anthropic' as const;
  readonly requests: ModelRequest[] = [];
  private counter = 0;
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  constructor(private readonly script: ScriptStep[] = []) {}

  push(...steps: ScriptStep[]): void {
    this.script.push(...steps);
  }

  /** Resolves once `count` requests have arrived. */
  async waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return;
    await new Promise<void>((resolve) => this.waiters.push({ count, resolve }));
  }

  async *stream(request: ModelRequest, options: { signal?: AbortSignal } = {}): AsyncIterable<ModelEvent> {
    this.requests.push(structuredClone(request));
    for (const waiter of [...this.waiters]) {
      if (this.requests.length >= waiter.count) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
    const next = this.script.shift();
    if (next === undefined) throw new AppError('INTERNAL', 'scripted provider: script exhausted');
    const answer = typeof next === 'function' ? next(request) : next;
    if (answer.hang) {
      await sleep(2 ** 31 - 1, options.signal);
    }
    if (answer.error && answer.text === undefined) throw answer.error;
    if (answer.text !== undefined) {
      const half = Math.ceil(answer.text.length / 2);
      yield { type: 'text_delta', text: answer.text.slice(0, half) };
      if (answer.error) throw answer.error;
      if (answer.text.length > half) yield { type: 'text_delta', text: answer.text.slice(half) };
    }
    for (const call of answer.calls ?? []) {
      this.counter += 1;
      const id = call.id ?? `call_${this.counter}`;
      if (call.rawArguments !== undefined) {
        yield {
          type: 'tool_call',
          id,
          name: call.name,
          input: undefined,
          parseError: 'Tool arguments are not valid JSON.',
          rawArguments: call.rawArguments,
        };
      } else {
        yield { type: 'tool_call', id, name: call.name, input: call.input ?? {} };
      }
    }
    yield {
      type: 'done',
      stopReason: answer.stopReason ?? ((answer.calls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn'),
      usage: answer.usage ?? { inputTokens: 100, outputTokens: 10 },
      ...(answer.refusal !== undefined ? { refusal: answer.refusal } : {}),
    };
  }
}
