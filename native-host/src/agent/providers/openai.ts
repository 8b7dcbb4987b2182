import { AppError, say } from '@nextai/shared';

import { asNumber, asRecord, asString, streamEvents, type ProviderOptions } from './provider-options.js';
import { errorForStreamEvent } from './error-causes.js';
import { isTransientStreamError } from './retry.js';
import {
  parseToolArguments,
  type ImageBlock,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
  type StopReason,
  type StreamOptions,
  type TextBlock,
} from './types.js';

const TARGET_LABEL = 'OpenAI-compatible';
const KEY_ENVIRONMENT = 'OPENAI_API_KEY';

type ChatMessage = Record<string, unknown>;

function imagePart(block: ImageBlock): Record<string, unknown> {
  return { type: 'image_url', image_url: { url: `data:${block.mediaType};base64,${block.data}` } };
}

function part(block: TextBlock | ImageBlock): Record<string, unknown> {
  return block.type === 'text' ? { type: 'text', text: block.text } : imagePart(block);
}

/** Chat-completions messages for `request` (system first, then the conversation). */
export function toOpenAiMessages(request: ModelRequest): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (request.system !== undefined && request.system !== '') messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      const calls = message.content.flatMap((block) =>
        block.type === 'tool_use'
          ? [
              {
                id: block.id,
                type: 'function',
                function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
              },
            ]
          : [],
      );
      const assistant: ChatMessage = { role: 'assistant', content: text === '' ? null : text };
      if (calls.length > 0) assistant.tool_calls = calls;
      messages.push(assistant);
      continue;
    }
    // Tool messages must directly follow the assistant message that made the calls, so they go
    // first; the person's own text and images follow in one user message.
    //
    // A `tool` message can carry text only — the chat-completions API has no image parts there.
    // An image a tool returned (a screenshot) therefore travels in a user message right after the
    // tool messages, introduced by a text part that names the tool call it belongs to.
    const userParts: Record<string, unknown>[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      const text = block.content.flatMap((item) => (item.type === 'text' ? [item.text] : [])).join('\n');
      const images = block.content.filter((item): item is ImageBlock => item.type === 'image');
      let content = text;
      if (images.length > 0) {
        const note = `(${images.length === 1 ? 'the image is' : `${images.length} images are`} in the next user message)`;
        content = content === '' ? note : `${content}\n${note}`;
        userParts.push({
          type: 'text',
          text: `Image${images.length === 1 ? '' : 's'} from tool call ${block.toolUseId}:`,
        });
        userParts.push(...images.map(imagePart));
      }
      // The format has no error flag for tool results: say it in the text.
      if (block.isError) content = `Error: ${content}`;
      messages.push({ role: 'tool', tool_call_id: block.toolUseId, content });
    }
    for (const block of message.content) {
      if (block.type === 'text' || block.type === 'image') userParts.push(part(block));
    }
    if (userParts.length > 0) {
      const onlyText = userParts.length === 1 && userParts[0]?.type === 'text';
      messages.push({ role: 'user', content: onlyText ? userParts[0]?.text : userParts });
    }
  }
  return messages;
}

/** OpenAI's reasoning models, also behind OpenRouter-style "openai/…" names. */
export function usesMaxCompletionTokens(model: string): boolean {
  return /^(?:openai\/)?(?:o\d|gpt-5)/iu.test(model);
}

export function toOpenAiBody(request: ModelRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: toOpenAiMessages(request),
    // `max_tokens` for the compatible servers (DeepSeek, Ollama, vLLM, LM Studio), which know only
    // the older name; OpenAI's reasoning models (o1, o3, o4-mini, gpt-5…) refuse it and take
    // `max_completion_tokens`.
    [usesMaxCompletionTokens(request.model) ? 'max_completion_tokens' : 'max_tokens']: request.maxTokens,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
  }
  return body;
}

function stopReason(value: string | undefined): StopReason {
  switch (value) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

export class OpenAiProvider implements ModelProvider {
  readonly name = 'openai' as const;

  constructor(private readonly options: ProviderOptions) {}

  async *stream(request: ModelRequest, options: StreamOptions = {}): AsyncGenerator<ModelEvent> {
    const headers: Record<string, string> = {};
    // Local servers (Ollama, LM Studio) need no key.
    if (this.options.apiKey !== undefined) headers.authorization = `Bearer ${this.options.apiKey}`;
    const events = streamEvents(this.options, {
      path: '/chat/completions',
      headers,
      body: toOpenAiBody(request),
      signal: options.signal,
      providerLabel: TARGET_LABEL,
      apiKeyEnvironment: KEY_ENVIRONMENT,
    });

    const calls = new Map<number, PartialToolCall>();
    let finish: string | undefined;
    // The model's own refusal (OpenAI structured outputs): `delta.refusal` pieces instead of content.
    let refusal = '';
    let inputTokens = 0;
    let outputTokens = 0;
    let sawDone = false;
    for await (const event of events) {
      if (event.data.trim() === '[DONE]') {
        sawDone = true;
        break;
      }
      const chunk = parseChunk(event.data);
      if (chunk.error !== undefined) {
        // An error after HTTP 200: an overloaded backend or Groq's tool_use_failed usually
        // passes on another attempt; a context-length error does not. Classified like an HTTP error.
        throw errorForStreamEvent(chunk, {
          providerLabel: TARGET_LABEL,
          apiKeyEnvironment: KEY_ENVIRONMENT,
          apiKey: this.options.apiKey,
          model: request.model,
          transient: isTransientStreamError(asRecord(chunk.error)),
        });
      }
      const usage = asRecord(chunk.usage);
      if (typeof usage.prompt_tokens === 'number') inputTokens = usage.prompt_tokens;
      if (typeof usage.completion_tokens === 'number') outputTokens = usage.completion_tokens;
      const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
      const choice = asRecord(choices[0]);
      const delta = asRecord(choice.delta);
      const text = asString(delta.content);
      if (text !== undefined && text !== '') yield { type: 'text_delta', text };
      refusal += asString(delta.refusal) ?? '';
      if (Array.isArray(delta.tool_calls)) {
        for (const item of delta.tool_calls) {
          const piece = asRecord(item);
          const index = asNumber(piece.index);
          const fn = asRecord(piece.function);
          const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
          call.id ||= asString(piece.id) ?? '';
          call.name += asString(fn.name) ?? '';
          call.arguments += asString(fn.arguments) ?? '';
          calls.set(index, call);
        }
      }
      const reason = asString(choice.finish_reason);
      if (reason) finish = reason;
    }
    if (!sawDone && finish === undefined) {
      throw new AppError(
        'UNAVAILABLE',
        say(
          'The OpenAI-compatible API stream ended before the answer was complete.',
          'OpenAI 兼容接口的回答还没完成，连接就结束了。',
        ),
        { details: { transient: true } },
      );
    }
    // Tool calls are only complete once the stream has finished: arguments arrive in pieces.
    for (const [index, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
      // Some compatible servers send no id; the loop needs one to pair the result with the call.
      const id = call.id || `call_${index}`;
      const parsed = parseToolArguments(call.arguments);
      yield parsed.parseError === undefined
        ? { type: 'tool_call', id, name: call.name, input: parsed.input }
        : {
            type: 'tool_call',
            id,
            name: call.name,
            input: undefined,
            parseError: parsed.parseError,
            rawArguments: call.arguments,
          };
    }
    const declined = refusal.trim() !== '';
    yield {
      type: 'done',
      stopReason: declined ? 'refusal' : stopReason(finish),
      usage: { inputTokens, outputTokens },
      ...(declined ? { refusal: refusal.trim() } : {}),
    };
  }
}

function parseChunk(data: string): Record<string, unknown> {
  try {
    return asRecord(JSON.parse(data));
  } catch (error) {
    throw new AppError('UNAVAILABLE', 'The OpenAI-compatible API sent a malformed stream chunk.', {
      cause: error,
      details: { transient: true },
    });
  }
}
