import { AppError, say } from '@nextai/shared';

import { asNumber, asRecord, asString, streamEvents, type ProviderOptions } from './provider-options.js';
import { errorForStreamEvent } from './error-causes.js';
import { isTransientStreamError } from './retry.js';
import {
  parseToolArguments,
  type ImageBlock,
  type Message,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
  type StopReason,
  type StreamOptions,
  type TextBlock,
} from './types.js';

export const ANTHROPIC_VERSION = '2023-06-01';

const TARGET_LABEL = 'Anthropic';
const KEY_ENVIRONMENT = 'ANTHROPIC_API_KEY';

function imageBlock(block: ImageBlock): Record<string, unknown> {
  return { type: 'image', source: { type: 'base64', media_type: block.mediaType, data: block.data } };
}

function textOrImage(block: TextBlock | ImageBlock): Record<string, unknown> {
  return block.type === 'text' ? { type: 'text', text: block.text } : imageBlock(block);
}

/** The Messages API body for `request` (https://docs.anthropic.com/en/api/messages). */
export function toAnthropicBody(request: ModelRequest): Record<string, unknown> {
  const messages = request.messages.map((message: Message) => ({
    role: message.role,
    content: message.content.map((block): Record<string, unknown> => {
      switch (block.type) {
        case 'text':
        case 'image':
          return textOrImage(block);
        case 'tool_use':
          return { type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} };
        case 'tool_result':
          return {
            type: 'tool_result',
            tool_use_id: block.toolUseId,
            content: block.content.map(textOrImage),
            ...(block.isError ? { is_error: true } : {}),
          };
      }
    }),
  }));
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxTokens,
    messages,
    stream: true,
  };
  if (request.system !== undefined && request.system !== '') body.system = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    }));
  }
  return body;
}

function stopReason(value: string | undefined): StopReason {
  switch (value) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
    case 'pause_turn':
      return value;
    case 'model_context_window_exceeded':
      return 'context_window';
    default:
      return 'other';
  }
}

interface OpenToolCall {
  id: string;
  name: string;
  json: string;
}

export class AnthropicProvider implements ModelProvider {
  readonly name = 'anthropic' as const;

  constructor(private readonly options: ProviderOptions) {}

  async *stream(request: ModelRequest, options: StreamOptions = {}): AsyncGenerator<ModelEvent> {
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION };
    if (this.options.apiKey !== undefined) headers['x-api-key'] = this.options.apiKey;
    const events = streamEvents(this.options, {
      path: '/v1/messages',
      headers,
      body: toAnthropicBody(request),
      signal: options.signal,
      providerLabel: TARGET_LABEL,
      apiKeyEnvironment: KEY_ENVIRONMENT,
    });

    const open = new Map<number, OpenToolCall>();
    let inputTokens = 0;
    let outputTokens = 0;
    let reason: StopReason = 'other';
    let refusal: string | undefined;
    for await (const event of events) {
      const data = parseData(event.data, event.event);
      switch (data.type) {
        case 'message_start': {
          const usage = asRecord(asRecord(data.message).usage);
          inputTokens = asNumber(usage.input_tokens);
          outputTokens = asNumber(usage.output_tokens);
          break;
        }
        case 'content_block_start': {
          const block = asRecord(data.content_block);
          if (block.type === 'tool_use') {
            open.set(asNumber(data.index), {
              id: asString(block.id) ?? `toolu_${asNumber(data.index)}`,
              name: asString(block.name) ?? '',
              json: '',
            });
          } else if (block.type === 'text' && asString(block.text)) {
            yield { type: 'text_delta', text: asString(block.text) ?? '' };
          }
          break;
        }
        case 'content_block_delta': {
          const delta = asRecord(data.delta);
          if (delta.type === 'text_delta') {
            const text = asString(delta.text) ?? '';
            if (text !== '') yield { type: 'text_delta', text };
          } else if (delta.type === 'input_json_delta') {
            const call = open.get(asNumber(data.index));
            if (call) call.json += asString(delta.partial_json) ?? '';
          }
          break;
        }
        case 'content_block_stop': {
          const index = asNumber(data.index);
          const call = open.get(index);
          if (call) {
            open.delete(index);
            const parsed = parseToolArguments(call.json);
            yield parsed.parseError === undefined
              ? { type: 'tool_call', id: call.id, name: call.name, input: parsed.input }
              : {
                  type: 'tool_call',
                  id: call.id,
                  name: call.name,
                  input: undefined,
                  parseError: parsed.parseError,
                  rawArguments: call.json,
                };
          }
          break;
        }
        case 'message_delta': {
          reason = stopReason(asString(asRecord(data.delta).stop_reason));
          // A refusal may say why (`stop_details.explanation`); the text before it is no explanation.
          refusal = asString(asRecord(asRecord(data.delta).stop_details).explanation) ?? refusal;
          const usage = asRecord(data.usage);
          if (typeof usage.output_tokens === 'number') outputTokens = usage.output_tokens;
          if (typeof usage.input_tokens === 'number') inputTokens = usage.input_tokens;
          break;
        }
        case 'message_stop':
          yield {
            type: 'done',
            stopReason: reason,
            usage: { inputTokens, outputTokens },
            ...(reason === 'refusal' && refusal ? { refusal } : {}),
          };
          return;
        case 'error':
          // An error after HTTP 200: an overload (overloaded_error, api_error) usually passes; a
          // prompt too long or a billing error does not. Classified like an HTTP error.
          throw errorForStreamEvent(data, {
            providerLabel: TARGET_LABEL,
            apiKeyEnvironment: KEY_ENVIRONMENT,
            apiKey: this.options.apiKey,
            model: request.model,
            transient: isTransientStreamError(asRecord(data.error)),
          });
        default:
          // `ping` and event types added later are ignored, as the API documentation asks.
          break;
      }
    }
    throw new AppError(
      'UNAVAILABLE',
      say(
        'The Anthropic API stream ended before `message_stop`.',
        'Anthropic 接口的回答在 `message_stop` 之前就结束了。',
      ),
      { details: { transient: true } },
    );
  }
}

function parseData(data: string, event: string): Record<string, unknown> {
  try {
    return asRecord(JSON.parse(data));
  } catch (error) {
    throw new AppError('UNAVAILABLE', `The Anthropic API sent a malformed \`${event}\` event.`, {
      cause: error,
      details: { transient: true },
    });
  }
}
