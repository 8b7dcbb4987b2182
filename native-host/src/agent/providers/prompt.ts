import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';

import type { ImageBlock, ModelRequest, ReasoningBlock, TextBlock, ToolResultBlock } from './types.js';

/** The wire format a prompt is for: what each provider needs differs in the details below. */
export type WireFormat = 'anthropic' | 'openai';

/** Anthropic's cache breakpoint: the prompt up to and including this block is cached (5 minutes). */
const CACHE_POINT: SharedV3ProviderOptions = { anthropic: { cacheControl: { type: 'ephemeral' } } };

function image(block: ImageBlock) {
  return { type: 'file' as const, data: block.data, mediaType: block.mediaType };
}

function reasoning(block: ReasoningBlock) {
  // Anthropic's signature or redacted data go back exactly as they came (the API checks them).
  const anthropic =
    block.signature !== undefined
      ? { signature: block.signature }
      : block.redactedData !== undefined
        ? { redactedData: block.redactedData }
        : undefined;
  return { type: 'reasoning' as const, text: block.text, ...(anthropic ? { providerOptions: { anthropic } } : {}) };
}

/**
 * A tool's result. Anthropic takes text and images inside the result; OpenAI's chat format takes
 * text only, so an image goes in the user message after the tool messages, named by its call.
 */
function toolOutput(block: ToolResultBlock, format: WireFormat): LanguageModelV3ToolResultOutput {
  const texts = block.content.flatMap((item) => (item.type === 'text' ? [item.text] : []));
  const images = block.content.filter((item): item is ImageBlock => item.type === 'image');
  if (format === 'openai') {
    let content = texts.join('\n');
    if (images.length > 0) {
      const note = `(${images.length === 1 ? 'the image is' : `${images.length} images are`} in the next user message)`;
      content = content === '' ? note : `${content}\n${note}`;
    }
    // The format has no error flag for tool results: say it in the text.
    return { type: 'text', value: block.isError ? `Error: ${content}` : content };
  }
  if (block.isError && images.length === 0) return { type: 'error-text', value: texts.join('\n') };
  const value = block.content.map((item) =>
    item.type === 'text'
      ? { type: 'text' as const, text: block.isError && item === block.content[0] ? `Error: ${item.text}` : item.text }
      : { type: 'image-data' as const, data: item.data, mediaType: item.mediaType },
  );
  return { type: 'content', value };
}

/**
 * One of our user messages as the prompt's messages: the tool results first (a `tool` message,
 * which must directly follow the assistant's calls), then the person's text and images, and for
 * OpenAI the tool results' images, each introduced by the call it belongs to.
 */
function userMessages(
  content: (TextBlock | ImageBlock | ToolResultBlock)[],
  format: WireFormat,
  toolNames: Map<string, string>,
): LanguageModelV3Message[] {
  const results = content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
  const parts: ({ type: 'text'; text: string } | ReturnType<typeof image>)[] = [];
  if (format === 'openai') {
    for (const result of results) {
      const images = result.content.filter((item): item is ImageBlock => item.type === 'image');
      if (images.length === 0) continue;
      parts.push({ type: 'text', text: `Image${images.length === 1 ? '' : 's'} from tool call ${result.toolUseId}:` });
      parts.push(...images.map(image));
    }
  }
  for (const block of content) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'image') parts.push(image(block));
  }
  const messages: LanguageModelV3Message[] = [];
  if (results.length > 0) {
    messages.push({
      role: 'tool',
      content: results.map((result) => ({
        type: 'tool-result',
        toolCallId: result.toolUseId,
        toolName: toolNames.get(result.toolUseId) ?? '',
        output: toolOutput(result, format),
      })),
    });
  }
  if (parts.length > 0) messages.push({ role: 'user', content: parts });
  return messages;
}

export interface PromptOptions {
  /**
   * Anthropic prompt caching: breakpoints on the tool definitions, the system prompt and the end
   * of the last two user messages (the conversation so far, which the next call starts with).
   */
  cache?: boolean;
  /**
   * OpenAI-compatible servers: the model's reasoning goes back as `reasoning_content` (DeepSeek and
   * Kimi require it; see `sendsReasoningBack`). Otherwise it is left out: Groq (400) and Mistral
   * (422) refuse the field.
   */
  reasoningBack?: boolean;
}

/**
 * Our conversation as an AI SDK prompt. Reasoning goes back as each provider requires: Anthropic's
 * thinking blocks whole, with their signatures; to an OpenAI-compatible server that needs it as the
 * assistant message's `reasoning_content` — DeepSeek requires it on every message with tool calls
 * since the person's last message (HTTP 400 without it) and ignores it on older ones, so it is sent
 * on all of them: what counts as "the person's last message" on the server (our notes and the
 * loop's screenshots travel as user messages too) cannot be known here.
 */
export function toPrompt(
  request: ModelRequest,
  format: WireFormat,
  options: PromptOptions = {},
): LanguageModelV3Prompt {
  const cache = options.cache === true && format === 'anthropic';
  const keepReasoning = format === 'anthropic' || options.reasoningBack === true;
  const prompt: LanguageModelV3Prompt = [];
  if (request.system !== undefined && request.system !== '') {
    prompt.push({ role: 'system', content: request.system, ...(cache ? { providerOptions: CACHE_POINT } : {}) });
  }
  const toolNames = new Map<string, string>();
  /** Where each of our user messages ends in the prompt: the candidates for cache breakpoints. */
  const userEnds: number[] = [];
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      const blocks = keepReasoning ? message.content : message.content.filter((block) => block.type !== 'reasoning');
      const content = blocks.map((block) => {
        if (block.type === 'text') return { type: 'text' as const, text: block.text };
        if (block.type === 'reasoning') return reasoning(block);
        toolNames.set(block.id, block.name);
        return { type: 'tool-call' as const, toolCallId: block.id, toolName: block.name, input: block.input ?? {} };
      });
      if (content.length > 0) prompt.push({ role: 'assistant', content });
      continue;
    }
    const added = userMessages(message.content, format, toolNames);
    prompt.push(...added);
    if (added.length > 0) userEnds.push(prompt.length - 1);
  }
  if (cache) {
    // At most four breakpoints: tools, system and two here. The one before last is where the
    // previous call put its last one, so this call reads what that one wrote.
    for (const index of userEnds.slice(-2)) {
      const message = prompt[index];
      if (message) message.providerOptions = CACHE_POINT;
    }
  }
  return prompt;
}

/** The tools as the AI SDK takes them; with caching, a breakpoint after the last definition. */
export function toTools(request: ModelRequest, options: PromptOptions & { format: WireFormat }) {
  const cache = options.cache === true && options.format === 'anthropic';
  return request.tools.map((tool, index): LanguageModelV3FunctionTool => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as LanguageModelV3FunctionTool['inputSchema'],
    ...(cache && index === request.tools.length - 1 ? { providerOptions: CACHE_POINT } : {}),
  }));
}
