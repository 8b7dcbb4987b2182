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

/**
 * The model's thinking, kept in the conversation as the provider sent it, because some providers
 * require it back: Anthropic's `thinking` (with its `signature`) and `redacted_thinking` (its
 * opaque `redactedData`) blocks when the model uses tools with thinking on, and DeepSeek's
 * `reasoning_content` on an assistant message that made tool calls (without it, HTTP 400).
 */
export interface ReasoningBlock {
  type: 'reasoning';
  text: string;
  /** Anthropic's signature of a `thinking` block: sent back unchanged. */
  signature?: string;
  /** Anthropic's `redacted_thinking` data (the text is then empty): sent back unchanged. */
  redactedData?: string;
}

export type ContentBlock = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock;

export interface UserMessage {
  role: 'user';
  content: (TextBlock | ImageBlock | ToolResultBlock)[];
}

export interface AssistantMessage {
  role: 'assistant';
  content: (ReasoningBlock | TextBlock | ToolUseBlock)[];
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

/**
 * The tokens of one model call. `inputTokens` counts the whole input, cached or not; the cache
 * counts are parts of it (priced differently), and `reasoningTokens` a part of `outputTokens`.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input read from the provider's prompt cache (Anthropic cache reads, OpenAI `cached_tokens`, DeepSeek cache hits). */
  cacheReadTokens?: number;
  /** Input written to the prompt cache (Anthropic `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
  /** Output spent thinking (reasoning models). */
  reasoningTokens?: number;
  /** The server sent no usage: the counts are estimated from the characters sent and received. */
  estimated?: boolean;
}

export type ModelEvent =
  | { type: 'text_delta'; text: string }
  /** A piece of the model's thinking as it streams (shown, not part of the answer). */
  | { type: 'reasoning_delta'; text: string }
  /** A complete thinking block, to keep in the conversation (see ReasoningBlock). */
  | { type: 'reasoning'; block: ReasoningBlock }
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
