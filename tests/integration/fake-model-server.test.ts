import { afterEach, describe, expect, it } from 'vitest';

import {
  SCRIPT_EXHAUSTED_MESSAGE,
  startFakeModelServer,
  type FakeModelServer,
  type ScriptedTurn,
} from '../support/fake-model-server.js';

let server: FakeModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(script: ScriptedTurn[] = []): Promise<FakeModelServer> {
  server = await startFakeModelServer(script);
  return server;
}

const anthropic = (fake: FakeModelServer, body: object) =>
  fetch(`${fake.anthropicBaseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Hi' }],
      ...body,
    }),
  });

const openai = (fake: FakeModelServer, body: object) =>
  fetch(`${fake.openaiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-openai-test' },
    body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'Hi' }], ...body }),
  });

interface SseEvent {
  event: string | undefined;
  data: string;
}

/** A plain SSE parser: events are separated by a blank line; `data:` lines are joined. */
async function readSse(response: Response): Promise<SseEvent[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const text = await response.text();
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice('event: '.length);
        else if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
        else throw new Error(`unexpected SSE line: ${line}`);
      }
      return { event, data: data.join('\n') };
    });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire payloads are inspected field by field
type Json = any;

const TOOL_INPUTS = [
  { path: '/tmp/a file.txt', lines: [1, 2, 3] },
  { query: 'weather in Zürich 🌦', options: { units: 'metric', nested: { deep: true } } },
];

describe('fake model server, Anthropic Messages format', () => {
  it('answers a text turn as a plain JSON message and records the request with its headers', async () => {
    const fake = await start([{ kind: 'text', text: 'Hello there, person.' }]);
    const response = await anthropic(fake, {});
    expect(response.status).toBe(200);
    const message: Json = await response.json();
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text: 'Hello there, person.' }],
      stop_reason: 'end_turn',
    });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBe(5);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({
      format: 'anthropic',
      path: '/v1/messages',
      headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' },
      body: { model: 'claude-test', messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(fake.remaining()).toBe(0);
  });

  it('streams a text turn as message_start, one text block in several deltas, message_delta, message_stop', async () => {
    const fake = await start([{ kind: 'text', text: 'Streaming works in pieces.' }]);
    const events = await readSse(await anthropic(fake, { stream: true }));
    for (const event of events) expect(JSON.parse(event.data).type).toBe(event.event);
    const names = events.map((event) => event.event).filter((name) => name !== 'ping');
    const deltas = names.filter((name) => name === 'content_block_delta').length;
    expect(deltas).toBeGreaterThan(1);
    expect(names).toEqual([
      'message_start',
      'content_block_start',
      ...Array<string>(deltas).fill('content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const data: Json[] = events.map((event) => JSON.parse(event.data));
    expect(data[0].message.usage.input_tokens).toBeGreaterThan(0);
    const text = data
      .filter((event) => event.type === 'content_block_delta')
      .map((event) => {
        expect(event.delta.type).toBe('text_delta');
        return event.delta.text;
      })
      .join('');
    expect(text).toBe('Streaming works in pieces.');
    const messageDelta = data.find((event) => event.type === 'message_delta');
    expect(messageDelta.delta.stop_reason).toBe('end_turn');
    expect(messageDelta.usage.output_tokens).toBe(7);
  });

  it('streams parallel tool calls whose input_json_delta pieces reassemble to the scripted inputs', async () => {
    const fake = await start([
      {
        kind: 'tool_calls',
        text: 'Let me look.',
        calls: [
          { name: 'read_file', input: TOOL_INPUTS[0], id: 'toolu_given' },
          { name: 'web_search', input: TOOL_INPUTS[1] },
        ],
      },
    ]);
    const data: Json[] = (await readSse(await anthropic(fake, { stream: true }))).map((event) =>
      JSON.parse(event.data),
    );
    const starts = data.filter((event) => event.type === 'content_block_start');
    expect(starts.map((event) => event.content_block)).toEqual([
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'toolu_given', name: 'read_file', input: {} },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'web_search', input: {} },
    ]);
    const piecesByIndex = new Map<number, string[]>();
    for (const event of data.filter((event) => event.delta?.type === 'input_json_delta')) {
      piecesByIndex.set(event.index, [...(piecesByIndex.get(event.index) ?? []), event.delta.partial_json]);
    }
    expect([...piecesByIndex.keys()]).toEqual([1, 2]);
    for (const [index, pieces] of piecesByIndex) {
      expect(pieces.length).toBeGreaterThan(1);
      expect(JSON.parse(pieces.join(''))).toEqual(TOOL_INPUTS[index - 1]);
    }
    expect(data.find((event) => event.type === 'message_delta').delta.stop_reason).toBe('tool_use');
    expect(data.at(-1).type).toBe('message_stop');
  });

  it('answers tool calls without streaming as tool_use blocks', async () => {
    const fake = await start([{ kind: 'tool_calls', calls: [{ name: 'read_file', input: TOOL_INPUTS[0] }] }]);
    const message: Json = await (await anthropic(fake, {})).json();
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'read_file', input: TOOL_INPUTS[0] },
    ]);
  });
});

describe('fake model server, OpenAI chat completions format', () => {
  it('answers a text turn as a plain chat.completion and records the bearer token', async () => {
    const fake = await start([{ kind: 'text', text: 'Hello from OpenAI.' }]);
    const response = await openai(fake, {});
    expect(response.status).toBe(200);
    const completion: Json = await response.json();
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from OpenAI.' }, finish_reason: 'stop' }],
    });
    expect(completion.usage.total_tokens).toBe(completion.usage.prompt_tokens + completion.usage.completion_tokens);
    expect(fake.requests[0]).toMatchObject({
      format: 'openai',
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-openai-test' },
      body: { model: 'gpt-test' },
    });
  });

  it('streams text in several chunks, finish_reason stop, usage in the last chunk, then [DONE]', async () => {
    const fake = await start([{ kind: 'text', text: 'Chunks arrive one by one.' }]);
    const events = await readSse(await openai(fake, { stream: true, stream_options: { include_usage: true } }));
    expect(events.every((event) => event.event === undefined)).toBe(true);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks: Json[] = events.slice(0, -1).map((event) => JSON.parse(event.data));
    for (const chunk of chunks) expect(chunk.object).toBe('chat.completion.chunk');
    const contents = chunks.flatMap((chunk) => chunk.choices.map((choice: Json) => choice.delta.content ?? ''));
    expect(contents.filter((content) => content !== '').length).toBeGreaterThan(1);
    expect(contents.join('')).toBe('Chunks arrive one by one.');
    const finishReasons = chunks.flatMap((chunk) => chunk.choices.map((choice: Json) => choice.finish_reason));
    expect(finishReasons.filter((reason) => reason !== null)).toEqual(['stop']);
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: 7,
      total_tokens: expect.any(Number),
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
  });

  it('streams parallel tool calls whose argument pieces reassemble to the scripted inputs', async () => {
    const fake = await start([
      {
        kind: 'tool_calls',
        calls: [
          { name: 'read_file', input: TOOL_INPUTS[0] },
          { name: 'web_search', input: TOOL_INPUTS[1], id: 'call_given' },
        ],
      },
    ]);
    const events = await readSse(await openai(fake, { stream: true }));
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks: Json[] = events.slice(0, -1).map((event) => JSON.parse(event.data));
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
    const calls = new Map<number, { id?: string; name?: string; pieces: string[] }>();
    for (const chunk of chunks) {
      for (const delta of chunk.choices[0].delta.tool_calls ?? []) {
        const call = calls.get(delta.index) ?? { pieces: [] };
        if (delta.id !== undefined) {
          expect(delta.type).toBe('function');
          call.id = delta.id;
          call.name = delta.function.name;
        }
        call.pieces.push(delta.function.arguments);
        calls.set(delta.index, call);
      }
    }
    expect([...calls.keys()]).toEqual([0, 1]);
    expect(calls.get(0)).toMatchObject({ id: expect.stringMatching(/^call_/), name: 'read_file' });
    expect(calls.get(1)).toMatchObject({ id: 'call_given', name: 'web_search' });
    for (const [index, call] of calls) {
      expect(call.pieces.filter((piece) => piece !== '').length).toBeGreaterThan(1);
      expect(JSON.parse(call.pieces.join(''))).toEqual(TOOL_INPUTS[index]);
    }
    expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('answers tool calls without streaming with string arguments', async () => {
    const fake = await start([{ kind: 'tool_calls', calls: [{ name: 'web_search', input: TOOL_INPUTS[1] }] }]);
    const completion: Json = await (await openai(fake, {})).json();
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    expect(choice.message.tool_calls[0]).toMatchObject({ type: 'function', function: { name: 'web_search' } });
    expect(JSON.parse(choice.message.tool_calls[0].function.arguments)).toEqual(TOOL_INPUTS[1]);
  });
});

describe('fake model server, errors and the script', () => {
  it('answers a 429 with retry-after and a 401, in each format’s error shape', async () => {
    const fake = await start([
      { kind: 'error', status: 429, retryAfterSeconds: 7, message: 'slow down' },
      { kind: 'error', status: 401 },
      { kind: 'error', status: 429, message: 'slow down' },
      { kind: 'error', status: 401, message: 'bad key' },
    ]);
    const limited = await anthropic(fake, { stream: true });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.json()).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } });

    const unauthorised = await anthropic(fake, {});
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers.get('retry-after')).toBeNull();
    expect(((await unauthorised.json()) as Json).error.type).toBe('authentication_error');

    const openaiLimited = await openai(fake, {});
    expect(openaiLimited.status).toBe(429);
    expect(openaiLimited.headers.get('retry-after')).toBe('0');
    expect(((await openaiLimited.json()) as Json).error).toMatchObject({
      message: 'slow down',
      type: 'requests',
      code: 'rate_limit_exceeded',
    });

    const openaiUnauthorised = await openai(fake, { stream: true });
    expect(openaiUnauthorised.status).toBe(401);
    expect(((await openaiUnauthorised.json()) as Json).error).toMatchObject({
      message: 'bad key',
      code: 'invalid_api_key',
    });
  });

  it('sends a raw malformed body as is', async () => {
    const fake = await start([{ kind: 'raw', status: 200, body: '{"choices": [', contentType: 'application/json' }]);
    const response = await openai(fake, {});
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"choices": [');
  });

  it('answers 500 "script exhausted" when no turn is left, and push() adds turns', async () => {
    const fake = await start();
    const exhausted = await anthropic(fake, {});
    expect(exhausted.status).toBe(500);
    expect(await exhausted.json()).toEqual({
      type: 'error',
      error: { type: 'api_error', message: SCRIPT_EXHAUSTED_MESSAGE },
    });
    const openaiExhausted = await openai(fake, {});
    expect(openaiExhausted.status).toBe(500);
    expect(((await openaiExhausted.json()) as Json).error.message).toBe(SCRIPT_EXHAUSTED_MESSAGE);

    fake.push({ kind: 'text', text: 'first' }, { kind: 'text', text: 'second' });
    expect(fake.remaining()).toBe(2);
    expect(((await (await openai(fake, {})).json()) as Json).choices[0].message.content).toBe('first');
    expect(((await (await anthropic(fake, {})).json()) as Json).content[0].text).toBe('second');
    expect(fake.remaining()).toBe(0);
    expect(fake.requests.map((request) => request.format)).toEqual(['anthropic', 'openai', 'openai', 'anthropic']);
  });

  it('answers 404 for other paths without consuming a turn', async () => {
    const fake = await start([{ kind: 'text', text: 'kept' }]);
    const response = await fetch(`${fake.anthropicBaseUrl}/v1/complete`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(((await response.json()) as Json).error).toContain('/v1/messages');
    expect(fake.remaining()).toBe(1);
    expect(fake.requests).toHaveLength(0);
  });

  it('leaves a hang turn unanswered until the server closes', async () => {
    const fake = await start([{ kind: 'hang' }]);
    let settled = false;
    const pending = anthropic(fake, { stream: true }).finally(() => {
      settled = true;
    });
    await fake.waitForRequests(1);
    expect(settled).toBe(false);
    await fake.close();
    await expect(pending).rejects.toThrow();
  });
});
