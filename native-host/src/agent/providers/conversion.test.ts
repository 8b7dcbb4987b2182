import { describe, expect, it } from 'vitest';

import { toAnthropicBody } from './anthropic.js';
import { toOpenAiBody } from './openai.js';
import { parseToolArguments, type ModelRequest } from './types.js';

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

describe('toAnthropicBody', () => {
  it('keeps the blocks, with images as base64 sources inside the tool result', () => {
    expect(toAnthropicBody(request)).toEqual({
      model: 'm',
      max_tokens: 100,
      stream: true,
      system: 'Be brief.',
      tools: [
        { name: 'screenshot', description: 'Take a screenshot.', input_schema: { type: 'object', properties: {} } },
      ],
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
              tool_use_id: 't1',
              content: [
                { type: 'text', text: 'scale 0.5' },
                { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'QUJD' } },
              ],
            },
            {
              type: 'tool_result',
              tool_use_id: 't2',
              content: [{ type: 'text', text: 'no display 1' }],
              is_error: true,
            },
          ],
        },
      ],
    });
  });
});

describe('toOpenAiBody', () => {
  it('names the output limit max_completion_tokens for OpenAI reasoning models only', () => {
    for (const model of ['o3', 'o4-mini', 'gpt-5', 'openai/o1-preview', 'gpt-5-mini']) {
      const body = toOpenAiBody({ ...request, model });
      expect(body, model).toMatchObject({ max_completion_tokens: 100 });
      expect(body, model).not.toHaveProperty('max_tokens');
    }
    for (const model of ['gpt-4.1', 'deepseek-chat', 'qwen2.5:7b', 'llama-3.1-o3x']) {
      expect(toOpenAiBody({ ...request, model }), model).toMatchObject({ max_tokens: 100 });
    }
  });

  it('sends tool results as tool messages and their images in a user message after them', () => {
    expect(toOpenAiBody(request)).toEqual({
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

  it('leaves out tools when there are none and content when the assistant only called tools', () => {
    const body = toOpenAiBody({
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
