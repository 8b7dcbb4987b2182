import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { ErrorCause } from '../../native-host/src/agent/providers/error-causes.js';
import { isTransientModelError } from '../../native-host/src/agent/providers/sse.js';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../native-host/src/agent/providers/types.js';
import { startFakeModelServer, type FakeModelServer } from '../support/fake-model-server.js';
import { providerAgainst, type Format } from '../support/model-provider.js';

// Recorded error responses (tests/fixtures/provider-errors/) served by the fake model server to the
// real providers: what a person is told, and whether the call is made again.

const API_KEY = 'sk-test-do-not-echo-0123456789';

interface Fixture {
  status: number;
  headers: Record<string, string>;
  body: string;
  expected: { cause: ErrorCause; words: string; hint?: string };
}

function fixture(name: string): Fixture {
  const url = new URL(`../fixtures/provider-errors/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as Fixture;
}

let server: FakeModelServer;
beforeEach(async () => {
  server = await startFakeModelServer();
});
afterEach(async () => {
  await server.close();
});

function providerFor(format: Format): ModelProvider {
  return providerAgainst(server, format, API_KEY);
}

const request: ModelRequest = {
  model: 'fake-model',
  system: 'You are a test.',
  maxTokens: 256,
  tools: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
};

async function failureOf(provider: ModelProvider): Promise<{ error: unknown; events: ModelEvent[] }> {
  const events: ModelEvent[] = [];
  try {
    for await (const event of provider.stream(request)) events.push(event);
  } catch (error) {
    return { error, events };
  }
  throw new Error(`expected a failure, got ${JSON.stringify(events)}`);
}

function translation(error: unknown): string {
  return (error as { translations?: { 'zh-CN'?: string } }).translations?.['zh-CN'] ?? '';
}

describe.each<[string, Format]>([
  ['glm-1113-insufficient-balance-zh', 'openai'],
  ['glm-1113-insufficient-balance-en', 'openai'],
  ['deepseek-402-insufficient-balance', 'openai'],
  ['kimi-429-exceeded-current-quota', 'openai'],
  ['dashscope-400-arrearage', 'openai'],
  ['anthropic-400-credit-balance', 'anthropic'],
  ['anthropic-400-prompt-too-long', 'anthropic'],
  ['anthropic-404-not-found-error', 'anthropic'],
  ['ollama-404-openai-compat-model-not-pulled', 'openai'],
  ['azure-400-content-filter', 'openai'],
  ['deepseek-400-missing-reasoning-content', 'openai'],
  ['openrouter-401-no-auth-credentials', 'openai'],
])('%s through the %s provider', (name, format) => {
  it('fails at once with the cause, the provider’s words and what to do, in both languages', async () => {
    const recorded = fixture(name);
    server.push({
      kind: 'raw',
      status: recorded.status,
      body: recorded.body,
      contentType: recorded.headers['content-type'] ?? 'application/json',
    });
    const { error } = await failureOf(providerFor(format));
    expect(error).toMatchObject({ details: { cause: recorded.expected.cause, status: recorded.status } });
    expect(isTransientModelError(error)).toBe(false);
    const message = (error as Error).message;
    expect(message).toContain(recorded.expected.words);
    expect(translation(error)).toContain(recorded.expected.words);
    if (recorded.expected.hint !== undefined) expect(message).toContain(recorded.expected.hint);
    // Never the old catch-all, nor a promise that waiting helps.
    expect(message).not.toMatch(/Try again in a minute/);
    if (recorded.expected.cause !== 'model_not_found') expect(message).not.toMatch(/Check the model name/);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    // Not retried: one request only.
    expect(server.requests).toHaveLength(1);
  });
});

describe.each<[string, Format]>([
  ['anthropic-529-overloaded', 'anthropic'],
  ['anthropic-429-rate-limit', 'anthropic'],
  ['gemini-429-resource-exhausted', 'openai'],
])('%s through the %s provider', (name, format) => {
  it('is retried, and the answer that follows is used', async () => {
    const recorded = fixture(name);
    server.push(
      { kind: 'raw', status: recorded.status, body: recorded.body },
      { kind: 'text', text: 'Answered after the wait.' },
    );
    const events: ModelEvent[] = [];
    for await (const event of providerFor(format).stream(request)) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'end_turn' });
    expect(server.requests).toHaveLength(2);
  });
});

describe('an error inside an answer, after HTTP 200', () => {
  const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

  it('an Anthropic overload is transient and said as the server’s, after the text it sent', async () => {
    server.push({
      kind: 'raw',
      status: 200,
      contentType: 'text/event-stream',
      body: [
        sse('message_start', { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } }),
        sse('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'text', text: '' },
        }),
        sse('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: 'Half an ans' },
        }),
        sse('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      ].join(''),
    });
    const { error, events } = await failureOf(providerFor('anthropic'));
    expect(events).toEqual([{ type: 'text_delta', text: 'Half an ans' }]);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { cause: 'server', type: 'overloaded_error' } });
    expect(isTransientModelError(error)).toBe(true);
    expect((error as Error).message).toMatch(/overloaded_error during the answer: Overloaded/);
  });

  it('a context-length error in an OpenAI-compatible chunk is said so and not retried', async () => {
    const chunk = (data: object) => `data: ${JSON.stringify(data)}\n\n`;
    server.push({
      kind: 'raw',
      status: 200,
      contentType: 'text/event-stream',
      body: [
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
        chunk({
          error: {
            message:
              "This model's maximum context length is 32768 tokens. However, you requested 40960 tokens. Please reduce the length of the messages.",
            type: 'invalid_request_error',
            code: 'context_length_exceeded',
          },
        }),
      ].join(''),
    });
    const { error } = await failureOf(providerFor('openai'));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { cause: 'context_too_long' } });
    expect(isTransientModelError(error)).toBe(false);
    expect((error as Error).message).toMatch(
      /too long for the model's context window.*maximum context length is 32768/,
    );
  });

  it('Groq’s `event: error` tool_use_failed says the model wrote a bad tool call, and stays retryable', async () => {
    server.push({
      kind: 'raw',
      status: 200,
      contentType: 'text/event-stream',
      body: sse('error', {
        error: {
          message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
          type: 'invalid_request_error',
          code: 'tool_use_failed',
        },
      }),
    });
    const { error } = await failureOf(providerFor('openai'));
    expect(error).toMatchObject({ details: { cause: 'bad_request', code: 'tool_use_failed' } });
    expect(isTransientModelError(error)).toBe(true);
    expect((error as Error).message).toMatch(/model wrote a tool call/);
  });
});
