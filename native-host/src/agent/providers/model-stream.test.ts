import { describe, expect, it } from 'vitest';

import { AppError } from '@nextai/shared';

import { AnthropicProvider } from './anthropic.js';
import { OpenAiProvider } from './openai.js';
import type { RetryPolicy } from './retry.js';
import { MAX_JSON_ANSWER_BYTES, isTransientModelError, jsonAnswerAsEvents, limitLines } from './sse.js';
import type { ModelEvent, ModelProvider, ModelRequest } from './types.js';

const request: ModelRequest = {
  model: 'm',
  maxTokens: 100,
  tools: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
};

/** A body that sends `chunks` at `everyMs` apart and then stays open (a stalled server), errors or ends. */
function slowStream(
  chunks: string[],
  everyMs: number,
  end: 'open' | 'error' | 'close' = 'open',
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  let timer: NodeJS.Timeout | undefined;
  return new ReadableStream({
    start(controller) {
      const next = () => {
        if (index < chunks.length) {
          controller.enqueue(encoder.encode(chunks[index] ?? ''));
          index += 1;
          timer = setTimeout(next, everyMs);
        } else if (end === 'error') {
          controller.error(new TypeError('terminated'));
        } else if (end === 'close') {
          controller.close();
        }
      };
      next();
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}

function providerAnswering(
  format: 'anthropic' | 'openai',
  body: () => ReadableStream<Uint8Array>,
  retry: Partial<RetryPolicy> = {},
): ModelProvider {
  const fetch = (() =>
    Promise.resolve(
      new Response(body(), { headers: { 'content-type': 'text/event-stream' } }),
    )) as unknown as typeof globalThis.fetch;
  const options = { baseUrl: 'http://127.0.0.1:9', apiKey: 'k', fetch, retry: { maxAttempts: 1, ...retry } };
  return format === 'anthropic' ? new AnthropicProvider(options) : new OpenAiProvider(options);
}

async function readAll(provider: ModelProvider, signal?: AbortSignal) {
  const events: ModelEvent[] = [];
  try {
    for await (const event of provider.stream(request, signal ? { signal } : {})) events.push(event);
  } catch (error) {
    return { events, error: error as AppError };
  }
  return { events, error: undefined };
}

const chunk = (text: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
const anthropicStart =
  'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"one"}}\n\n';

describe('an answer that stops or drops', () => {
  it('is abandoned after the idle limit with no progress, keep-alive comments and pings included', async () => {
    const comments = Array.from({ length: 20 }, () => ': keep-alive\n\n');
    const pings = Array.from({ length: 20 }, () => 'event: ping\ndata: {"type":"ping"}\n\n');
    for (const [format, chunks] of [
      ['openai', [chunk('one'), ...comments]],
      ['anthropic', [anthropicStart, ...pings]],
    ] as const) {
      const { events, error } = await readAll(
        providerAnswering(format, () => slowStream([...chunks], 20), { streamIdleMs: 150 }),
      );
      expect(events[0], format).toEqual({ type: 'text_delta', text: 'one' });
      expect(error, format).toBeInstanceOf(AppError);
      expect(error?.code).toBe('TIMEOUT');
      expect(error?.message).toMatch(
        /^The (OpenAI-compatible|Anthropic) API stopped sending its answer \(nothing for 0 s\)\.$/,
      );
      expect(isTransientModelError(error)).toBe(true);
    }
  });

  it('is complete at its end ([DONE], message_stop) even when the server keeps the body open after it', async () => {
    const finish = `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`;
    const stop =
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n' +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    for (const [format, chunks] of [
      // [DONE] split across two chunks, CRLF line ends.
      ['openai', [chunk('one'), finish, 'data: [DO', 'NE]\r\n\r\n']],
      ['anthropic', [anthropicStart, stop]],
    ] as const) {
      const { events, error } = await readAll(
        providerAnswering(format, () => slowStream([...chunks], 5), { streamIdleMs: 5000, callDeadlineMs: 10_000 }),
      );
      expect(error, format).toBeUndefined();
      expect(events.at(-1), format).toMatchObject({ type: 'done', stopReason: 'end_turn' });
    }
  });

  it('takes an Anthropic message_delta without usage (servers that speak the format), its stop reason included', async () => {
    const stop =
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"max_tokens"}}\n\n' +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    const { events, error } = await readAll(
      providerAnswering('anthropic', () => slowStream([anthropicStart, stop], 1, 'close')),
    );
    expect(error).toBeUndefined();
    expect(events).toMatchObject([
      { type: 'text_delta', text: 'one' },
      { type: 'done', stopReason: 'max_tokens' },
    ]);
  });

  it('says an Anthropic error sent as the first event as the server’s, transient for an overload', async () => {
    const overloaded =
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    const { events, error } = await readAll(providerAnswering('anthropic', () => slowStream([overloaded], 1, 'close')));
    expect(events).toEqual([]);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { cause: 'server', type: 'overloaded_error' } });
    expect(error?.message).toMatch(/overloaded_error during the answer: Overloaded/);
    expect(isTransientModelError(error)).toBe(true);
  });

  it('reads the text an Anthropic content_block_start already carries', async () => {
    const start = anthropicStart.replace(
      '"content_block":{"type":"text","text":""}',
      '"content_block":{"type":"text","text":"Hi, "}',
    );
    const stop =
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n' +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    const { events } = await readAll(providerAnswering('anthropic', () => slowStream([start, stop], 1, 'close')));
    expect(events.filter((event) => event.type === 'text_delta')).toEqual([
      { type: 'text_delta', text: 'Hi, ' },
      { type: 'text_delta', text: 'one' },
    ]);
  });

  it('keeps reading while parts keep coming, however long the whole answer takes', async () => {
    const chunks = Array.from({ length: 12 }, (_, index) => chunk(String(index)));
    const { events, error } = await readAll(
      providerAnswering('openai', () => slowStream(chunks, 30), { streamIdleMs: 100 }),
    );
    expect(events).toHaveLength(12);
    // The stream stays open after its last chunk: the limit applies from there.
    expect(error?.code).toBe('TIMEOUT');
  });

  it('turns a dropped connection into a transient UNAVAILABLE naming the API', async () => {
    const { events, error } = await readAll(
      providerAnswering('anthropic', () => slowStream([anthropicStart], 5, 'error')),
    );
    expect(events).toEqual([{ type: 'text_delta', text: 'one' }]);
    expect(error?.code).toBe('UNAVAILABLE');
    expect(error?.message).toContain('The connection to the Anthropic API dropped during the answer (terminated)');
    expect(isTransientModelError(error)).toBe(true);
  });

  it('ends with the abort reason when the caller aborts (a pause or a stop), not as a failure of the model', async () => {
    const controller = new AbortController();
    const reason = new Error('paused');
    setTimeout(() => controller.abort(reason), 30);
    const { error } = await readAll(
      providerAnswering('openai', () => slowStream([chunk('a')], 5), { streamIdleMs: 5000 }),
      controller.signal,
    );
    expect(error).toBe(reason);
    expect(isTransientModelError(error)).toBe(false);
  });
});

describe('usage', () => {
  it('is estimated from the characters when the server sends none, so that token limits still apply', async () => {
    const body = () =>
      slowStream(
        [
          chunk('x'.repeat(400)),
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
          'data: [DONE]\n\n',
        ],
        1,
        'close',
      );
    const { events, error } = await readAll(providerAnswering('openai', body));
    expect(error).toBeUndefined();
    expect(events.at(-1)).toEqual({
      type: 'done',
      stopReason: 'end_turn',
      // 400 characters out; "Hello" in (the request's text, a quarter token a character).
      usage: { inputTokens: 2, outputTokens: 100, estimated: true },
    });
  });

  it('is estimated for an Anthropic-format server whose message_delta has no usage (the SDK would say 0 out)', async () => {
    const event = (data: object) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;
    const body = () =>
      slowStream(
        [
          event({
            type: 'message_start',
            message: {
              id: 'm',
              type: 'message',
              role: 'assistant',
              content: [],
              usage: { input_tokens: 25, output_tokens: 1 },
            },
          }),
          event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
          event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x'.repeat(400) } }),
          event({ type: 'content_block_stop', index: 0 }),
          event({ type: 'message_delta', delta: { stop_reason: 'end_turn' } }),
          event({ type: 'message_stop' }),
        ],
        1,
        'close',
      );
    const { events, error } = await readAll(providerAnswering('anthropic', body));
    expect(error).toBeUndefined();
    expect(events.at(-1)).toEqual({
      type: 'done',
      stopReason: 'end_turn',
      // The input count the server sent; the output estimated from the 400 characters.
      usage: { inputTokens: 25, outputTokens: 100, estimated: true },
    });
  });

  it('is the server’s when an Anthropic-format server sends it', async () => {
    const body = () =>
      slowStream(
        [
          anthropicStart,
          'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}\n\n',
          'event: message_stop\ndata: {"type":"message_stop"}\n\n',
        ],
        1,
        'close',
      );
    const { events } = await readAll(providerAnswering('anthropic', body));
    expect(events.at(-1)).toMatchObject({ usage: { inputTokens: 1, outputTokens: 7 } });
    expect((events.at(-1) as { usage: { estimated?: boolean } }).usage.estimated).toBeUndefined();
  });
});

describe('jsonAnswerAsEvents', () => {
  it('turns one chat.completion into one stream chunk and [DONE], tool calls indexed', async () => {
    const answer = new Response(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Hi',
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 2 },
      }),
      { headers: { 'content-type': 'application/json' } },
    );
    const streamed = await jsonAnswerAsEvents(answer, 'OpenAI-compatible');
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    const [data, done] = (await streamed.text()).split('\n\n');
    expect(JSON.parse(data?.slice('data: '.length) ?? '')).toEqual({
      id: 'x',
      object: 'chat.completion.chunk',
      choices: [
        {
          index: 0,
          delta: {
            role: 'assistant',
            content: 'Hi',
            tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2 },
    });
    expect(done).toBe('data: [DONE]');
  });
});

describe('what a server may not make the daemon hold', () => {
  const streamOf = (...pieces: string[]) =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
          controller.close();
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );

  it('a line longer than the limit ends the answer as malformed (transient), wherever its pieces fall', async () => {
    const limited = limitLines(streamOf('data: {"a":1}\n\n', 'data: ', 'x'.repeat(60), 'y'.repeat(60)), 'Test', 100);
    const failure = await limited.text().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('a line of more than') });
    expect(isTransientModelError(failure)).toBe(true);
    // Lines under the limit pass whole, however many.
    const fine = limitLines(streamOf('data: 1\n', 'x'.repeat(90), '\n', 'y'.repeat(90), '\n'), 'Test', 100);
    expect(await fine.text()).toBe(`data: 1\n${'x'.repeat(90)}\n${'y'.repeat(90)}\n`);
  });

  it('a whole JSON answer over the limit is refused, not parsed', async () => {
    const huge = new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          // An answer that never ends: refused once past the limit, without waiting for its end.
          controller.enqueue(new Uint8Array(4 * 1024 * 1024).fill(32));
        },
      }),
      { headers: { 'content-type': 'application/json' } },
    );
    const failure = await jsonAnswerAsEvents(huge, 'Test').catch((error: unknown) => error);
    expect(failure).toMatchObject({
      message: expect.stringContaining(`an answer of more than ${MAX_JSON_ANSWER_BYTES / 1024 / 1024} MB`),
    });
    const notJson = await jsonAnswerAsEvents(new Response('{"choices": ['), 'Test').catch((error: unknown) => error);
    expect(notJson).toMatchObject({ message: expect.stringContaining('an answer that is not JSON') });
  });
});
