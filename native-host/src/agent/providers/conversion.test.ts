import { describe, expect, it } from 'vitest';

import { AnthropicProvider } from './anthropic.js';
import { OpenAiProvider, sendsReasoningBack, usesMaxCompletionTokens } from './openai.js';
import type { ProviderOptions } from './provider-options.js';
import { parseToolArguments, type ModelProvider, type ModelRequest } from './types.js';

const request: ModelRequest = {
  model: 'm',
  system: 'Be brief.',
  maxTokens: 100,
  tools: [{ name: 'screenshot', description: 'Take a screenshot.', inputSchema: { type: 'object', properties: {} } }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Look at the screen.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Taking two.' },
        { type: 'tool_use', id: 't1', name: 'screenshot', input: {} },
        { type: 'tool_use', id: 't2', name: 'screenshot', input: { display: 1 } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: 't1',
          content: [
            { type: 'text', text: 'scale 0.5' },
            { type: 'image', data: 'QUJD', mediaType: 'image/jpeg' },
          ],
        },
        { type: 'tool_result', toolUseId: 't2', content: [{ type: 'text', text: 'no display 1' }], isError: true },
      ],
    },
  ],
};

const ANTHROPIC_ANSWER = [
  'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join('');
const OPENAI_ANSWER =
  'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';

/** The JSON body a provider sends for `body`, read off an injected fetch (and its headers, into `headers`). */
async function sentBody(
  make: (options: ProviderOptions) => ModelProvider,
  body: ModelRequest,
  headers: Headers[] = [],
): Promise<Record<string, unknown>> {
  const bodies: string[] = [];
  let answer = '';
  const fetch = ((_url: string, init: RequestInit) => {
    bodies.push(String(init.body));
    headers.push(new Headers(init.headers));
    return Promise.resolve(new Response(answer, { headers: { 'content-type': 'text/event-stream' } }));
  }) as typeof globalThis.fetch;
  const provider = make({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', fetch });
  answer = provider.name === 'anthropic' ? ANTHROPIC_ANSWER : OPENAI_ANSWER;
  for await (const event of provider.stream(body)) void event;
  return JSON.parse(bodies[0] ?? '{}') as Record<string, unknown>;
}
const anthropic = (options: ProviderOptions) => new AnthropicProvider(options);
const openai = (options: ProviderOptions) => new OpenAiProvider(options);

describe('the Anthropic request', () => {
  it('keeps the blocks, with images as base64 sources inside the tool result, and cache breakpoints', async () => {
    const cached = { type: 'ephemeral' };
    expect(await sentBody(anthropic, request)).toEqual({
      model: 'm',
      max_tokens: 100,
      stream: true,
      system: [{ type: 'text', text: 'Be brief.', cache_control: cached }],
      tools: [
        {
          name: 'screenshot',
          description: 'Take a screenshot.',
          input_schema: { type: 'object', properties: {} },
          cache_control: cached,
        },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Look at the screen.', cache_control: cached }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Taking two.' },
            { type: 'tool_use', id: 't1', name: 'screenshot', input: {} },
            { type: 'tool_use', id: 't2', name: 'screenshot', input: { display: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [
                { type: 'text', text: 'scale 0.5' },
                { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'QUJD' } },
              ],
            },
            { type: 'tool_result', tool_use_id: 't2', content: 'no display 1', is_error: true, cache_control: cached },
          ],
        },
      ],
    });
  });

  it('puts no cache breakpoint anywhere when prompt caching is off (model.prompt_cache off)', async () => {
    const uncached = (options: ProviderOptions) => new AnthropicProvider({ ...options, promptCache: false });
    const body = await sentBody(uncached, request);
    expect(JSON.stringify(body)).not.toContain('cache_control');
    expect(body.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
  });

  it('asks for no beta: tool input whole at the end (no eager_input_streaming), no strict tools', async () => {
    const headers: Headers[] = [];
    const body = await sentBody(anthropic, { ...request, model: 'claude-sonnet-4-5' }, headers);
    expect(headers[0]?.get('anthropic-beta')).toBeNull();
    expect(headers[0]?.get('anthropic-version')).toBe('2023-06-01');
    expect(JSON.stringify(body.tools)).not.toMatch(/eager_input_streaming|strict/);
  });

  it('sends thinking and redacted thinking back exactly as they came, signature included', async () => {
    const body = await sentBody(anthropic, {
      ...request,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Call the tool.', signature: 'SIG==' },
            { type: 'reasoning', text: '', redactedData: 'OPAQUE' },
            { type: 'tool_use', id: 't1', name: 'screenshot', input: {} },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'sunny' }] }],
        },
      ],
    });
    expect((body.messages as { content: unknown[] }[])[1]?.content).toEqual([
      { type: 'thinking', thinking: 'Call the tool.', signature: 'SIG==' },
      { type: 'redacted_thinking', data: 'OPAQUE' },
      { type: 'tool_use', id: 't1', name: 'screenshot', input: {} },
    ]);
  });
});

describe('the OpenAI-compatible request', () => {
  it('names the output limit max_completion_tokens for OpenAI reasoning models only', async () => {
    for (const model of ['o3', 'o4-mini', 'gpt-5', 'openai/o1-preview', 'gpt-5-mini']) {
      expect(usesMaxCompletionTokens(model), model).toBe(true);
      const body = await sentBody(openai, { ...request, model });
      expect(body, model).toMatchObject({ max_completion_tokens: 100 });
      expect(body, model).not.toHaveProperty('max_tokens');
    }
    for (const model of ['gpt-4.1', 'deepseek-chat', 'qwen2.5:7b', 'llama-3.1-o3x']) {
      expect(await sentBody(openai, { ...request, model }), model).toMatchObject({ max_tokens: 100 });
    }
  });

  it('sends reasoning back only to servers that need it: DeepSeek and Kimi yes, Groq and Mistral never', async () => {
    const withThinking: ModelRequest = {
      ...request,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Ask the tool.' },
            { type: 'tool_use', id: 't1', name: 'screenshot', input: {} },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', content: [{ type: 'text', text: 'ok' }] }] },
      ],
    };
    const sent = async (baseUrl: string, model: string) => {
      const at = (options: ProviderOptions) => new OpenAiProvider({ ...options, baseUrl });
      const body = await sentBody(at, { ...withThinking, model });
      const assistant = (body.messages as { role: string; reasoning_content?: string }[]).find(
        (message) => message.role === 'assistant',
      );
      return assistant?.reasoning_content;
    };
    expect(await sent('https://api.deepseek.com/v1', 'deepseek-reasoner')).toBe('Ask the tool.');
    // DeepSeek's host without the preset's path, and Kimi.
    expect(await sent('https://api.deepseek.com', 'deepseek-chat')).toBe('Ask the tool.');
    expect(await sent('https://api.moonshot.ai/v1', 'kimi-k2.6')).toBe('Ask the tool.');
    // Groq (400) and Mistral (422) refuse the field, whatever the model.
    expect(await sent('https://api.groq.com/openai/v1', 'openai/gpt-oss-120b')).toBeUndefined();
    expect(await sent('https://api.mistral.ai/v1', 'magistral-medium-latest')).toBeUndefined();
    expect(await sent('https://api.groq.com/openai/v1', 'deepseek-r1-distill-llama-70b')).toBeUndefined();
    // A proxy or a server on this computer: by the model.
    expect(await sent('https://llm.example.org/v1', 'deepseek-reasoner')).toBe('Ask the tool.');
    expect(await sent('http://127.0.0.1:8000/v1', 'deepseek-ai/DeepSeek-V3.1')).toBe('Ask the tool.');
    expect(await sent('https://llm.example.org/v1', 'qwen3-235b-a22b')).toBeUndefined();
    expect(sendsReasoningBack('https://api.openai.com/v1', 'gpt-5.4')).toBe(false);
  });

  it('names it max_completion_tokens for any Azure deployment, whatever the person named it', async () => {
    const azure = (options: ProviderOptions) =>
      new OpenAiProvider({ ...options, baseUrl: 'https://contoso.openai.azure.com/openai/v1' });
    const body = await sentBody(azure, { ...request, model: 'prod-chat' });
    expect(body).toMatchObject({ model: 'prod-chat', max_completion_tokens: 100 });
    expect(body).not.toHaveProperty('max_tokens');
    expect(usesMaxCompletionTokens('prod-chat', 'https://contoso.cognitiveservices.azure.com/openai/v1')).toBe(true);
    // Only Azure's own hosts: a look-alike name elsewhere is an ordinary server.
    expect(usesMaxCompletionTokens('prod-chat', 'https://openai.azure.com.example.org/v1')).toBe(false);
    expect(usesMaxCompletionTokens('prod-chat', 'not a url')).toBe(false);
  });

  it('sends tool results as tool messages and their images in a user message after them', async () => {
    expect(await sentBody(openai, request)).toEqual({
      model: 'm',
      max_tokens: 100,
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: 'function',
          function: {
            name: 'screenshot',
            description: 'Take a screenshot.',
            parameters: { type: 'object', properties: {} },
          },
        },
      ],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Look at the screen.' },
        {
          role: 'assistant',
          content: 'Taking two.',
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'screenshot', arguments: '{}' } },
            { id: 't2', type: 'function', function: { name: 'screenshot', arguments: '{"display":1}' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: 'scale 0.5\n(the image is in the next user message)' },
        { role: 'tool', tool_call_id: 't2', content: 'Error: no display 1' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Image from tool call t1:' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,QUJD' } },
          ],
        },
      ],
    });
  });

  it('leaves out tools when there are none and content when the assistant only called tools', async () => {
    const body = await sentBody(openai, {
      model: 'm',
      maxTokens: 5,
      tools: [],
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'x', input: { k: 'v' } }] }],
    });
    expect(body).not.toHaveProperty('tools');
    expect(body.messages).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'x', arguments: '{"k":"v"}' } }],
      },
    ]);
  });

  it('sends reasoning back as reasoning_content on the assistant message (DeepSeek needs it with tool calls)', async () => {
    const body = await sentBody(openai, {
      ...request,
      model: 'deepseek-reasoner',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'I should ' },
            { type: 'reasoning', text: 'call it.' },
            { type: 'tool_use', id: 'c1', name: 'screenshot', input: {} },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', toolUseId: 'c1', content: [{ type: 'text', text: 'sunny' }] }],
        },
      ],
    });
    expect((body.messages as unknown[])[2]).toEqual({
      role: 'assistant',
      content: null,
      reasoning_content: 'I should call it.',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }],
    });
  });
});

describe('parseToolArguments', () => {
  it('parses an object, treats empty as {}, and reports anything else without throwing', () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ input: { a: 1 } });
    expect(parseToolArguments('')).toEqual({ input: {} });
    expect(parseToolArguments('{"a":')).toMatchObject({
      input: undefined,
      parseError: expect.stringMatching(/not valid JSON/),
    });
    expect(parseToolArguments('[1]')).toMatchObject({ parseError: expect.stringMatching(/JSON object/) });
  });
});
