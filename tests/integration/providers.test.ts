import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { RetryPolicy } from '../../native-host/src/agent/providers/retry.js';
import { isTransientModelError } from '../../native-host/src/agent/providers/sse.js';
import type { ModelEvent, ModelProvider, ModelRequest } from '../../native-host/src/agent/providers/types.js';
import { startFakeModelServer, type FakeModelServer } from '../support/fake-model-server.js';
import { providerAgainst, type Format } from '../support/model-provider.js';

const API_KEY = 'sk-test-do-not-echo-0123456789';

let server: FakeModelServer;
beforeEach(async () => {
  server = await startFakeModelServer();
});
afterEach(async () => {
  await server.close();
});

function providerFor(format: Format, retry: Partial<RetryPolicy> = {}): ModelProvider {
  return providerAgainst(server, format, API_KEY, retry);
}

const screenshotTool = {
  name: 'screenshot',
  description: 'Take a screenshot.',
  inputSchema: { type: 'object', properties: { display: { type: 'integer' } } },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'fake-model',
    system: 'You are a test.',
    maxTokens: 256,
    tools: [screenshotTool],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    ...overrides,
  };
}

async function collect(provider: ModelProvider, body: ModelRequest = request()): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of provider.stream(body)) events.push(event);
  return events;
}

describe.each<Format>(['anthropic', 'openai'])('%s provider against the fake model server', (format) => {
  it('streams text in deltas and ends with the stop reason and usage', async () => {
    server.push({ kind: 'text', text: 'The quick brown fox jumps over the lazy dog.' });
    const events = await collect(providerFor(format));
    const deltas = events.filter((event) => event.type === 'text_delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((event) => event.text).join('')).toBe('The quick brown fox jumps over the lazy dog.');
    const done = events.at(-1);
    expect(done).toMatchObject({ type: 'done', stopReason: 'end_turn' });
    expect(done?.type === 'done' && done.usage.inputTokens).toBeGreaterThan(0);
    expect(done?.type === 'done' && done.usage.outputTokens).toBeGreaterThan(0);

    const [recorded] = server.requests;
    expect(recorded?.format).toBe(format);
    expect(recorded?.body.stream).toBe(true);
    if (format === 'anthropic') {
      expect(recorded?.path).toBe('/v1/messages');
      expect(recorded?.headers['x-api-key']).toBe(API_KEY);
      expect(recorded?.headers['anthropic-version']).toBe('2023-06-01');
      // Prompt caching: the system prompt is a cache breakpoint (a block with cache_control).
      expect(recorded?.body.system).toEqual([
        { type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } },
      ]);
    } else {
      expect(recorded?.path).toBe('/v1/chat/completions');
      expect(recorded?.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(recorded?.body.stream_options).toEqual({ include_usage: true });
      expect(recorded?.body.messages[0]).toEqual({ role: 'system', content: 'You are a test.' });
    }
  });

  it('reassembles parallel tool calls from their pieces', async () => {
    server.push({
      kind: 'tool_calls',
      text: 'Two at once.',
      calls: [
        { id: 'call_a', name: 'screenshot', input: { display: 0, note: 'a longer argument to split into pieces' } },
        { id: 'call_b', name: 'file_read', input: { path: '/tmp/some/file.txt', limit: 20 } },
      ],
    });
    const events = await collect(providerFor(format));
    expect(events.filter((event) => event.type === 'tool_call')).toEqual([
      {
        type: 'tool_call',
        id: 'call_a',
        name: 'screenshot',
        input: { display: 0, note: 'a longer argument to split into pieces' },
      },
      { type: 'tool_call', id: 'call_b', name: 'file_read', input: { path: '/tmp/some/file.txt', limit: 20 } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'tool_use' });
  });

  it('puts an image from a tool result into the request in the format’s shape', async () => {
    server.push({ kind: 'text', text: 'I see it.' });
    await collect(
      providerFor(format),
      request({
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Look.' }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'shot1', name: 'screenshot', input: {} }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                toolUseId: 'shot1',
                content: [
                  { type: 'text', text: 'scale 1' },
                  { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
                ],
              },
            ],
          },
        ],
      }),
    );
    const messages = server.requests[0]?.body.messages;
    if (format === 'anthropic') {
      expect(messages[2]).toEqual({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'shot1',
            content: [
              { type: 'text', text: 'scale 1' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            ],
            // Prompt caching: the end of the conversation so far is a cache breakpoint.
            cache_control: { type: 'ephemeral' },
          },
        ],
      });
    } else {
      expect(messages.slice(3)).toEqual([
        { role: 'tool', tool_call_id: 'shot1', content: 'scale 1\n(the image is in the next user message)' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Image from tool call shot1:' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ]);
    }
  });

  it('retries a 429 and then succeeds', async () => {
    server.push({ kind: 'error', status: 429, message: 'slow down' }, { kind: 'text', text: 'ok now' });
    const started = performance.now();
    const events = await collect(providerFor(format));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'end_turn' });
    expect(server.requests).toHaveLength(2);
    expect(server.remaining()).toBe(0);
  });

  it('reports a rejected key clearly, without the key, and does not retry', async () => {
    server.push({ kind: 'error', status: 401, message: `Incorrect API key provided: ${API_KEY}` });
    const error = await collect(providerFor(format)).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/rejected the API key.*nextai config set model\.api_key/),
    });
    expect(String((error as Error).message)).not.toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(server.requests).toHaveLength(1);
  });

  it('stops at once when the signal aborts while the server has not answered', async () => {
    server.push({ kind: 'hang' });
    const controller = new AbortController();
    const events = (async () => {
      for await (const event of providerFor(format).stream(request(), { signal: controller.signal })) void event;
    })();
    await server.waitForRequests(1);
    controller.abort(new Error('stopped by the person'));
    await expect(events).rejects.toThrow('stopped by the person');
    expect(server.requests).toHaveLength(1);
  });

  it('gives a time-out error when the server never answers', async () => {
    server.push({ kind: 'hang' });
    await expect(collect(providerFor(format, { maxAttempts: 1, attemptTimeoutMs: 200 }))).rejects.toMatchObject({
      code: 'TIMEOUT',
    });
  });
  it('a connection dropped in the middle of the answer is a transient failure, after the text it sent', async () => {
    server.push({ kind: 'broken', text: 'Half of an answer that breaks off.', end: 'drop' });
    const seen: ModelEvent[] = [];
    const failure = await (async () => {
      for await (const event of providerFor(format).stream(request())) seen.push(event);
    })().catch((error: unknown) => error);
    expect(seen.some((event) => event.type === 'text_delta')).toBe(true);
    expect(failure).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('dropped during the answer'),
    });
    expect(isTransientModelError(failure)).toBe(true);
  });

  it('a stream that only sends keep-alives is abandoned after the idle limit', async () => {
    server.push({ kind: 'broken', text: 'The start, then only pings.', end: 'stall' });
    const started = Date.now();
    const failure = await collect(providerFor(format, { streamIdleMs: 700 })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('stopped sending its answer') });
    expect(isTransientModelError(failure)).toBe(true);
    // Keep-alives came every 200 ms all along: they did not count as progress.
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
  });

  it('an error response whose body never ends is cut off at the attempt limit, not the call deadline', async () => {
    server.push({ kind: 'broken', text: '', end: 'stall', status: 503 });
    // Not the call's deadline (TIMEOUT, "did not finish its answer"): the attempt's own limit.
    const failure = await collect(
      providerFor(format, { maxAttempts: 1, attemptTimeoutMs: 300, callDeadlineMs: 60_000 }),
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'UNAVAILABLE', details: { status: 503, transient: true } });
  });

  it('a call that goes on past its deadline is ended, even while it makes progress', async () => {
    server.push({ kind: 'broken', text: 'Slow.', end: 'stall' });
    const failure = await collect(providerFor(format, { callDeadlineMs: 400 })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('did not finish its answer') });
    expect(isTransientModelError(failure)).toBe(true);
  });
});

describe('malformed tool arguments', () => {
  it('surface as an Anthropic tool call with a parse error', async () => {
    const sse = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    server.push({
      kind: 'raw',
      status: 200,
      contentType: 'text/event-stream',
      body: [
        sse('message_start', { type: 'message_start', message: { usage: { input_tokens: 5, output_tokens: 1 } } }),
        sse('content_block_start', {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_bad', name: 'screenshot', input: {} },
        }),
        sse('content_block_delta', {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'input_json_delta', partial_json: '{"display": ' },
        }),
        sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
        sse('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use' },
          usage: { output_tokens: 7 },
        }),
        sse('message_stop', { type: 'message_stop' }),
      ].join(''),
    });
    const events = await collect(providerFor('anthropic'));
    expect(events).toEqual([
      {
        type: 'tool_call',
        id: 'toolu_bad',
        name: 'screenshot',
        input: undefined,
        parseError: expect.stringMatching(/not valid JSON/),
        rawArguments: '{"display": ',
      },
      { type: 'done', stopReason: 'tool_use', usage: { inputTokens: 5, outputTokens: 7 } },
    ]);
  });

  it('surface as an OpenAI tool call with a parse error', async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    server.push({
      kind: 'raw',
      status: 200,
      contentType: 'text/event-stream',
      body: [
        chunk({
          tool_calls: [{ index: 0, id: 'call_bad', type: 'function', function: { name: 'screenshot', arguments: '' } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: "{display: 'x'}" } }] }),
        chunk({}, 'tool_calls'),
        `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 4 } })}\n\n`,
        'data: [DONE]\n\n',
      ].join(''),
    });
    const events = await collect(providerFor('openai'));
    expect(events).toEqual([
      {
        type: 'tool_call',
        id: 'call_bad',
        name: 'screenshot',
        input: undefined,
        parseError: expect.stringMatching(/not valid JSON/),
        rawArguments: "{display: 'x'}",
      },
      { type: 'done', stopReason: 'tool_use', usage: { inputTokens: 9, outputTokens: 4 } },
    ]);
  });
});

describe('stop reasons, each as its provider sends it', () => {
  const done = (events: ModelEvent[]) => events.find((event) => event.type === 'done');
  const text = (events: ModelEvent[]) =>
    events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('');

  it.each([
    ['refusal', 'refusal'],
    ['pause_turn', 'pause_turn'],
    ['model_context_window_exceeded', 'context_window'],
    ['max_tokens', 'max_tokens'],
    ['a_reason_added_later', 'other'],
  ])('Anthropic %s is %s', async (wire, mapped) => {
    server.push({ kind: 'text', text: 'Partial', stopReason: wire });
    const events = await collect(providerFor('anthropic'));
    expect(text(events)).toBe('Partial');
    expect(done(events)).toEqual({ type: 'done', stopReason: mapped, usage: expect.any(Object) });
  });

  it('an Anthropic refusal carries its explanation (stop_details), not the text streamed before it', async () => {
    server.push({
      kind: 'text',
      text: 'Hello..',
      stopReason: 'refusal',
      refusal: 'This request was declined because it could enable cyber harm.',
    });
    const events = await collect(providerFor('anthropic'));
    expect(text(events)).toBe('Hello..');
    expect(done(events)).toMatchObject({
      stopReason: 'refusal',
      refusal: 'This request was declined because it could enable cyber harm.',
    });
  });

  it.each([
    ['content_filter', 'content_filter'],
    ['length', 'max_tokens'],
    ['stop', 'end_turn'],
    ['insufficient_system_resource', 'other'],
  ])('OpenAI-compatible %s is %s', async (wire, mapped) => {
    server.push({ kind: 'text', text: 'Partial', stopReason: wire });
    const events = await collect(providerFor('openai'));
    expect(text(events)).toBe('Partial');
    expect(done(events)).toEqual({ type: 'done', stopReason: mapped, usage: expect.any(Object) });
  });

  it('an OpenAI refusal (its `refusal` field, with finish_reason stop) is a refusal with its words, not text', async () => {
    server.push({ kind: 'text', text: '', refusal: 'I’m sorry, but I can’t help with that.' });
    const events = await collect(providerFor('openai'));
    expect(events.filter((event) => event.type === 'text_delta')).toEqual([]);
    expect(done(events)).toMatchObject({ stopReason: 'refusal', refusal: 'I’m sorry, but I can’t help with that.' });
  });
});

describe('bad input from a server: a clear error or a retry, never a hang, a crash or a cut answer', () => {
  const chunk = (data: object) => `data: ${JSON.stringify(data)}\n\n`;
  const anthropicEvent = (data: { type: string }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
  const messageStart = anthropicEvent({
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'fake-model',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  } as { type: string });

  it.each<[Format, string]>([
    [
      'openai',
      chunk({ id: 'c', choices: [{ index: 0, delta: { content: 'Hi' } }] }) +
        'data: {"id":"c","choices":[{"index":0,"delta":{"content":" th\n\n' +
        'data: [DONE]\n\n',
    ],
    [
      'anthropic',
      messageStart +
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_del\n\n',
    ],
  ])('%s: a chunk that is not JSON is a transient failure that says so (asked for again)', async (format, body) => {
    server.push({ kind: 'replay', body });
    const failure = await collect(providerFor(format)).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('a chunk that is not JSON'),
    });
    expect(isTransientModelError(failure)).toBe(true);
  });

  it.each<[Format, string, RegExp]>([
    [
      'openai',
      chunk({
        id: 'c',
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { arguments: '{}' } }] },
          },
        ],
      }) +
        chunk({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }) +
        'data: [DONE]\n\n',
      /malformed answer \(Expected 'function\.name' to be a string/,
    ],
    [
      'anthropic',
      messageStart +
        anthropicEvent({
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 't1', input: {} },
        } as { type: string }) +
        anthropicEvent({ type: 'content_block_stop', index: 0 } as { type: string }) +
        anthropicEvent({ type: 'message_stop' }),
      /malformed answer \(a `content_block_start` event the format does not allow\)/,
    ],
  ])('%s: a tool call with no name is a malformed answer, not a call to run', async (format, body, message) => {
    server.push({ kind: 'replay', body });
    const failure = await collect(providerFor(format)).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(message) });
    expect(isTransientModelError(failure)).toBe(true);
  });

  it.each<Format>(['openai', 'anthropic'])(
    '%s: a web page with HTTP 200 (a sign-in page, a wrong base URL) says so with its title, and is not asked for again',
    async (format) => {
      server.push({
        kind: 'replay',
        contentType: 'text/html; charset=utf-8',
        body: `<!doctype html><html><head><title>Sign in to the\n  Wi-Fi</title></head><body>${'x'.repeat(100_000)}</body></html>`,
      });
      const failure = await collect(providerFor(format)).catch((error: unknown) => error);
      expect(failure).toMatchObject({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(
          /answered with a web page \("Sign in to the Wi-Fi"\), not the .* API\. Check the model base URL/,
        ),
      });
      expect(isTransientModelError(failure)).toBe(false);
      expect(server.requests).toHaveLength(1);
    },
  );

  it('a 10 MB line of text arrives whole', async () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    server.push({
      kind: 'replay',
      body:
        chunk({ id: 'c', choices: [{ index: 0, delta: { content: big } }] }) +
        chunk({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
        'data: [DONE]\n\n',
    });
    const events = await collect(providerFor('openai'));
    const received = events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
    expect(received.length).toBe(big.length);
    expect(events.at(-1)).toMatchObject({ type: 'done', stopReason: 'end_turn' });
  });
});
