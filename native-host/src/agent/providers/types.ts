/**
 * A provider-neutral conversation: what the agent loop builds and what each provider translates
 * into its own wire format (Anthropic Messages, OpenAI chat completions).
 */

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ImageBlock {
  type: 'image';
  /** Base64 without a `data:` prefix (or, inside the agent loop's state, a `blob:` reference). */
  data: string;
  mediaType: string;
  /** Pixels, when known without decoding `data` (images held by reference). */
  width?: number;
  height?: number;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: (TextBlock | ImageBlock)[];
  isError?: boolean;
}

export type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock;

export interface UserMessage {
  role: 'user';
  content: (TextBlock | ImageBlock | ToolResultBlock)[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: (TextBlock | ToolUseBlock)[];
}

export type Message = UserMessage | AssistantMessage;

/** A tool as the model sees it; `inputSchema` comes from `toInputJsonSchema` in shared/. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  system?: string;
  messages: Message[];
  tools: ToolDefinition[];
  maxTokens: number;
}

export interface StreamOptions {
  signal?: AbortSignal;
}

/**
 * Why the model stopped, in the loop's words (each provider maps its own):
 * - `refusal`: the model declined (Anthropic `refusal`, an OpenAI `refusal` text);
 * - `content_filter`: the provider's content filter cut the answer (OpenAI-compatible `content_filter`);
 * - `pause_turn`: the server paused a long turn (Anthropic server tools): sent again as it is, it goes on;
 * - `context_window`: the conversation and the answer filled the model's context window
 *   (Anthropic `model_context_window_exceeded`).
 */
export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'refusal'
  | 'content_filter'
  | 'pause_turn'
  | 'context_window'
  | 'other';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export type ModelEvent =
  | { type: 'text_delta'; text: string }
  /**
   * A complete tool call. When the model sent arguments that are not a JSON object, `input` is
   * undefined and `parseError` says why — the loop answers with an error tool result so the model
   * can try again, rather than the run failing.
   */
  | { type: 'tool_call'; id: string; name: string; input: unknown; parseError?: string; rawArguments?: string }
  /** `refusal`: the provider's words for why the model declined (OpenAI's `refusal` text, Anthropic's explanation). */
  | { type: 'done'; stopReason: StopReason; usage: Usage; refusal?: string };

export interface ModelProvider {
  readonly name: 'anthropic' | 'openai';
  stream(request: ModelRequest, options?: StreamOptions): AsyncIterable<ModelEvent>;
}

/** Parses tool-call arguments; a failure is returned as data, never thrown. */
export function parseToolArguments(raw: string): { input: unknown; parseError?: string } {
  const text = raw.trim() === '' ? '{}' : raw;
  try {
    const input: unknown = JSON.parse(text);
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return { input: undefined, parseError: 'Tool arguments must be a JSON object.' };
    }
    return { input };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { input: undefined, parseError: `Tool arguments are not valid JSON (${reason}). Send a JSON object.` };
  }
}
