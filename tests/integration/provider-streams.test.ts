import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { assistantMessage, readReply, type StreamedReply } from '../../native-host/src/agent/loop/model-turn.js';
import { costOf, priceOf } from '../../native-host/src/agent/pricing.js';
import { createProvider, selectProvider } from '../../native-host/src/agent/providers/index.js';
import { isTransientModelError } from '../../native-host/src/agent/providers/sse.js';
import type {
  Message,
  ModelEvent,
  ModelProvider,
  ModelRequest,
  Usage,
} from '../../native-host/src/agent/providers/types.js';
import { DELIVERIES, startFakeModelServer, type Delivery, type FakeModelServer } from '../support/fake-model-server.js';

// Recorded-style answers (tests/fixtures/provider-streams/) replayed by the fake model server to the
// real providers, each whole, in 1–23-byte pieces and with CRLF line endings: what the loop gets.

interface Fixture {
  provider: string;
  source: string;
  licence: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  expected: {
    reasoning?: string;
    signature?: string;
    redactedData?: string;
    text?: string;
    toolCalls?: { id: string; name: string; input: unknown }[];
    stopReason?: string;
    usage?: Usage;
  };
}

function fixture(name: string): Fixture {
  const url = new URL(`../fixtures/provider-streams/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as Fixture;
}

let server: FakeModelServer;
beforeEach(async () => {
  server = await startFakeModelServer();
});
afterEach(async () => {
  await server.close();
});

type Format = 'anthropic' | 'openai';

function providerFor(format: Format): ModelProvider {
  const environment =
    format === 'anthropic'
      ? { ANTHROPIC_BASE_URL: server.anthropicBaseUrl, ANTHROPIC_API_KEY: 'sk-ant-test' }
      : { OPENAI_BASE_URL: server.openaiBaseUrl, OPENAI_API_KEY: 'sk-test' };
  return createProvider(selectProvider({}, environment), { retry: { baseDelayMs: 10, maxDelayMs: 50 } });
}

const weatherTool = {
  name: 'get_weather',
  description: 'The weather in a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' }, location: { type: 'string' } } },
};

function request(messages: Message[], model = 'deepseek-chat'): ModelRequest {
  return { model, system: 'You are a test.', maxTokens: 1024, tools: [weatherTool], messages };
}

const question: Message = { role: 'user', content: [{ type: 'text', text: 'What is the weather?' }] };

function replay(name: string, delivery: Delivery, seed = 1) {
  const recorded = fixture(name);
  server.push({
    kind: 'replay',
    body: recorded.body,
    status: recorded.status,
    contentType: recorded.headers['content-type'] ?? 'text/event-stream',
    delivery,
    seed,
  });
  return recorded.expected;
}

/** Reads one answer as the loop does: its text, thinking, calls, usage and stop reason. */
async function answer(provider: ModelProvider, body: ModelRequest): Promise<StreamedReply & { thinking: string }> {
  let thinking = '';
  const reply = await readReply(
    provider.stream(body),
    () => undefined,
    (delta) => (thinking += delta),
  );
  return { ...reply, thinking };
}

function checkAgainst(reply: StreamedReply & { thinking: string }, expected: Fixture['expected']): void {
  if (expected.reasoning !== undefined) {
    expect(reply.thinking).toBe(expected.reasoning);
    expect(reply.reasoning.map((block) => block.text).join('')).toBe(expected.reasoning);
  }
  expect(reply.text).toBe(expected.text ?? '');
  expect(reply.calls).toEqual(
    (expected.toolCalls ?? []).map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input })),
  );
  expect(reply.parseErrors).toEqual({});
  if (expected.stopReason !== undefined) expect(reply.stopReason).toBe(expected.stopReason);
  if (expected.usage !== undefined) expect(reply.usage).toEqual(expected.usage);
}

describe.each<Delivery>([...DELIVERIES])('recorded answers delivered %s', (delivery) => {
  it('DeepSeek thinking mode with tools, over two turns: the second request carries reasoning_content', async () => {
    const provider = providerFor('openai');
    const first = replay('deepseek-thinking-tools-turn1', delivery, 3);
    const turn1 = await answer(provider, request([question]));
    checkAgainst(turn1, first);
    const assistant = assistantMessage(turn1.text, turn1.calls, turn1.reasoning);
    if (!assistant) throw new Error('turn 1 made no assistant message');
    const result: Message = {
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'call_00_3kZ1vA5qPpN0xQ', content: [{ type: 'text', text: '24°C, cloudy' }] },
      ],
    };
    const second = replay('deepseek-thinking-tools-turn2', delivery, 5);
    checkAgainst(await answer(provider, request([question, assistant, result])), second);
    // Without reasoning_content on the assistant message that made the call, DeepSeek answers
    // HTTP 400 ("Missing `reasoning_content` field in the assistant message").
    const sent = server.requests[1]?.body.messages as Record<string, unknown>[];
    expect(sent.slice(1)).toEqual([
      { role: 'user', content: 'What is the weather?' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'The user asks for the weather in Hangzhou; I need the get_weather tool.',
        tool_calls: [
          {
            id: 'call_00_3kZ1vA5qPpN0xQ',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Hangzhou"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_00_3kZ1vA5qPpN0xQ', content: '24°C, cloudy' },
    ]);
  });

  it.each(['mistral-parallel-tool-calls-no-index', 'gemini-parallel-tool-calls-no-index'])(
    '%s: parallel tool calls without an index stay separate calls',
    async (name) => {
      const expected = replay(name, delivery, 7);
      checkAgainst(await answer(providerFor('openai'), request([question])), expected);
    },
  );

  it('a server that answers application/json to stream: true is read as the answer', async () => {
    const expected = replay('ollama-json-answer-to-stream', delivery, 11);
    checkAgainst(await answer(providerFor('openai'), request([question], 'qwen3:8b')), expected);
    expect(server.requests[0]?.body.stream).toBe(true);
  });

  it('Anthropic thinking and redacted thinking come back with their signatures and go back as they came', async () => {
    const provider = providerFor('anthropic');
    const expected = replay('anthropic-thinking-redacted-tool-use', delivery, 13);
    const turn = await answer(provider, request([question], 'claude-sonnet-4-5'));
    // content_block_start.input given whole (no input_json_delta) is the call's input.
    checkAgainst(turn, expected);
    expect(turn.reasoning).toEqual([
      { type: 'reasoning', text: expected.reasoning, signature: expected.signature },
      { type: 'reasoning', text: '', redactedData: expected.redactedData },
    ]);
    const assistant = assistantMessage(turn.text, turn.calls, turn.reasoning);
    if (!assistant) throw new Error('no assistant message');
    server.push({ kind: 'text', text: 'It is sunny.' });
    const result: Message = {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          content: [{ type: 'text', text: 'sunny' }],
        },
      ],
    };
    await answer(provider, request([question, assistant, result], 'claude-sonnet-4-5'));
    const sent = server.requests[1]?.body.messages as { role: string; content: unknown[] }[];
    expect(sent[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: expected.reasoning, signature: expected.signature },
        { type: 'redacted_thinking', data: expected.redactedData },
        { type: 'text', text: 'Checking the weather in Paris.' },
        { type: 'tool_use', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', input: { city: 'Paris' } },
      ],
    });
  });

  it('cache reads and writes are counted, in the input and in the cost', async () => {
    const expected = replay('anthropic-thinking-redacted-tool-use', delivery, 17);
    const { usage } = await answer(providerFor('anthropic'), request([question], 'claude-sonnet-4-5'));
    expect(usage).toEqual(expected.usage);
    const price = priceOf('claude-sonnet-4-5');
    if (!price) throw new Error('no price for claude-sonnet-4-5');
    // 12 fresh at $3, 20 310 read at $0.30, 1 480 written at $3.75, 127 out at $15 — a million each.
    expect(costOf(usage, price)).toBeCloseTo((12 * 3 + 20_310 * 0.3 + 1_480 * 3.75 + 127 * 15) / 1e6, 12);
  });

  it('an event type and a content block type the client does not know are skipped', async () => {
    const expected = replay('anthropic-unknown-event-types', delivery, 19);
    checkAgainst(await answer(providerFor('anthropic'), request([question], 'claude-sonnet-4-5')), expected);
  });

  it('an Anthropic stream that ends without message_stop is a transient failure, after the text it sent', async () => {
    const expected = replay('anthropic-missing-message-stop', delivery, 23);
    const seen: ModelEvent[] = [];
    const failure = await (async () => {
      for await (const event of providerFor('anthropic').stream(request([question], 'claude-sonnet-4-5'))) {
        seen.push(event);
      }
    })().catch((error: unknown) => error);
    expect(seen.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('')).toBe(expected.text);
    expect(failure).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('ended before') });
    // Transient and not retried by the client itself: the loop asks again (MODEL_ATTEMPTS).
    expect(isTransientModelError(failure)).toBe(true);
    expect(failure).not.toMatchObject({ details: { attempts: expect.anything() } });
  });
});
