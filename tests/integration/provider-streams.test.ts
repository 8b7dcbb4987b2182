import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { assistantMessage, readReply, type StreamedReply } from '../../native-host/src/agent/loop/model-turn.js';
import { costOf, priceOf } from '../../native-host/src/agent/pricing.js';
import { isTransientModelError } from '../../native-host/src/agent/providers/sse.js';
import type {
  Message,
  ModelEvent,
  ModelProvider,
  ModelRequest,
  Usage,
} from '../../native-host/src/agent/providers/types.js';
import { DELIVERIES, startFakeModelServer, type Delivery, type FakeModelServer } from '../support/fake-model-server.js';
import { providerAgainst, type Format } from '../support/model-provider.js';

// Provider answers (tests/fixtures/provider-streams/) replayed by the fake model server to the real
// providers, each whole, in 1–23-byte pieces and with CRLF line endings: what the loop gets. Those
// in recorded/ are real traffic that other open-source projects published; the others are written
// in each provider's documented format.

interface Fixture {
  provider: string;
  source: string;
  licence: string;
  /** Recorded real traffic (recorded/): which format and model it was. */
  recorded?: true;
  format?: Format;
  model?: string | null;
  status: number;
  headers: Record<string, string>;
  body: string;
  expected: {
    reasoning?: string;
    /** Each thinking block as it came: Anthropic's signatures and redacted data. */
    reasoningBlocks?: { text: string; signature?: string; redactedData?: string }[];
    signature?: string;
    redactedData?: string;
    text?: string;
    /** A null id: the server sent none, the client makes one up. */
    toolCalls?: { id: string | null; name: string; input: unknown }[];
    stopReason?: string;
    refusal?: string;
    usage?: Usage;
    /** An error the provider sent inside the answer (after HTTP 200), and whether another attempt may succeed. */
    error?: { message: string; transient: boolean };
  };
}

const FIXTURES = new URL('../fixtures/provider-streams/', import.meta.url);

function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`${name}.json`, FIXTURES)), 'utf8')) as Fixture;
}

/** The recorded answers, by name (`recorded/<name>`). */
const RECORDED = readdirSync(fileURLToPath(new URL('recorded/', FIXTURES)))
  .filter((file) => file.endsWith('.json'))
  .map((file) => `recorded/${file.slice(0, -'.json'.length)}`);

let server: FakeModelServer;
beforeEach(async () => {
  server = await startFakeModelServer();
});
afterEach(async () => {
  await server.close();
});

function providerFor(format: Format): ModelProvider {
  return providerAgainst(server, format, format === 'anthropic' ? 'sk-ant-test' : 'sk-test');
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
  if (expected.reasoningBlocks !== undefined) {
    expect(reply.reasoning).toEqual(expected.reasoningBlocks.map((block) => ({ type: 'reasoning', ...block })));
  }
  expect(reply.text).toBe(expected.text ?? '');
  expect(reply.calls).toEqual(
    (expected.toolCalls ?? []).map((call) => ({
      type: 'tool_use',
      id: call.id ?? expect.stringMatching(/./),
      name: call.name,
      input: call.input,
    })),
  );
  expect(reply.parseErrors).toEqual({});
  if (expected.stopReason !== undefined) expect(reply.stopReason).toBe(expected.stopReason);
  if (expected.refusal !== undefined) expect(reply.refusal).toBe(expected.refusal);
  if (expected.usage !== undefined) expect(reply.usage).toEqual(expected.usage);
}

/** What a recorded answer that carries an error gives: the text and thinking before it, and the failure. */
async function failedAnswer(provider: ModelProvider, body: ModelRequest) {
  const seen: ModelEvent[] = [];
  const failure = await (async () => {
    for await (const event of provider.stream(body)) seen.push(event);
  })().then(
    () => undefined,
    (error: unknown) => error,
  );
  const pieces = (type: 'text_delta' | 'reasoning_delta') =>
    seen.flatMap((event) => (event.type === type ? [event.text] : [])).join('');
  return { failure, text: pieces('text_delta'), thinking: pieces('reasoning_delta') };
}

describe.each<Delivery>([...DELIVERIES])('real traffic (recorded/) delivered %s', (delivery) => {
  it.each(RECORDED)('%s', async (name) => {
    const recorded = fixture(name);
    const expected = replay(name, delivery, name.length);
    const provider = providerFor(recorded.format ?? 'openai');
    const body = request([question], recorded.model ?? 'gpt-4.1');
    if (expected.error === undefined) {
      const reply = await answer(provider, body);
      checkAgainst(reply, expected);
      // A server that sent no usage: the loop still counts the call, by estimate.
      if (expected.usage === undefined) expect(reply.usage.estimated).toBe(true);
      return;
    }
    // An error inside an answer that began with HTTP 200: said in the provider's words, after
    // what came before it, and retried only when another attempt may succeed.
    const { failure, text, thinking } = await failedAnswer(provider, body);
    expect(text).toBe(expected.text ?? '');
    expect(thinking).toBe(expected.reasoning ?? '');
    expect(failure).toMatchObject({ message: expect.stringContaining(expected.error.message) });
    expect(isTransientModelError(failure)).toBe(expected.error.transient);
    expect(server.requests).toHaveLength(1);
  });
});

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
