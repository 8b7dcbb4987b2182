import {
  AISDKError,
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  TypeValidationError,
  type LanguageModelV3,
  type LanguageModelV3StreamPart,
  type LanguageModelV3Usage,
  type SharedV3ProviderMetadata,
  type SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { AppError } from '@nextai/shared';

import { estimateTokens } from '../context.js';
import { errorForStreamEvent } from './error-causes.js';
import { toPrompt, toTools, type WireFormat } from './prompt.js';
import { asRecord, callSignal, modelFetch, retryPolicy, type ProviderOptions } from './provider-options.js';
import { isTransientStreamError, type RequestTarget } from './retry.js';
import { connectionDropped, endedEarly, malformedStream, streamStalled } from './sse.js';
import {
  parseToolArguments,
  type ModelEvent,
  type ModelRequest,
  type ReasoningBlock,
  type StopReason,
  type Usage,
} from './types.js';

/**
 * One model call through an AI SDK language model (LanguageModelV3 `doStream`), read as the
 * loop's ModelEvents. The SDK builds the request and parses the answer; around it stay ours: the
 * transport (retries and errors by cause, modelFetch), the call's deadline and idle limit, and
 * what a broken answer means (a transient failure: the loop asks again).
 */
export interface ModelCall {
  format: WireFormat;
  options: ProviderOptions;
  target: Omit<RequestTarget, 'model'>;
  /** The SDK's model (sdkModel), made with callFetch as its fetch. */
  model: LanguageModelV3;
  providerOptions?: SharedV3ProviderOptions;
  /** Anthropic prompt caching (prompt.ts). */
  cache?: boolean;
  /** OpenAI-compatible: the model's reasoning goes back as `reasoning_content` (see toPrompt). */
  reasoningBack?: boolean;
}

/** Each call's own fetch (modelFetch), by the call's signal, which the SDK passes to its fetch. */
const transports = new WeakMap<AbortSignal, typeof globalThis.fetch>();

/**
 * The fetch the SDK's models are made with: the one of the call the request belongs to. The models
 * are kept (sdkModel) — making one builds its schemas, a few milliseconds a call — so their fetch
 * cannot be the call's own.
 */
export const callFetch: typeof globalThis.fetch = (input, init) => {
  const send = init?.signal ? transports.get(init.signal) : undefined;
  return send ? send(input, init) : Promise.reject(new Error('A model request was made outside a model call.'));
};

const models = new Map<string, LanguageModelV3>();
const MAX_MODELS = 8;

/** The SDK model for `key` (provider, endpoint, key and model name), made once by `make`. */
export function sdkModel(key: string, make: () => LanguageModelV3): LanguageModelV3 {
  let model = models.get(key);
  if (model === undefined) {
    model = make();
    // The oldest goes: a person switches models rarely, and each holds only its settings.
    if (models.size >= MAX_MODELS) models.delete(models.keys().next().value as string);
    models.set(key, model);
  }
  return model;
}

/** The event types of Anthropic's Messages stream: anything else is skipped, as its documentation asks. */
const ANTHROPIC_EVENTS = new Set([
  'message_start',
  'message_delta',
  'message_stop',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'ping',
  'error',
]);

/**
 * The content blocks and deltas the loop reads: one of these in a shape the SDK refuses is a broken
 * answer; any other (a block type added later) is skipped with its deltas.
 */
const ANTHROPIC_CORE_BLOCKS = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);
const ANTHROPIC_CORE_DELTAS = new Set(['text_delta', 'thinking_delta', 'signature_delta', 'input_json_delta']);

/**
 * Whether an event the SDK refused may be skipped: one Anthropic may add later, or a message's
 * start or end in a shape it does not take (servers that speak the format leave usage out): they
 * carry no part of the answer, and its stop reason is read from the raw event (anthropicStop).
 */
function isSkippableAnthropicEvent(value: Record<string, unknown>): boolean {
  const type = value.type;
  if (typeof type !== 'string') return false;
  if (!ANTHROPIC_EVENTS.has(type) || type === 'message_start' || type === 'message_delta') return true;
  const inner =
    type === 'content_block_start'
      ? { kind: asRecord(value.content_block).type, core: ANTHROPIC_CORE_BLOCKS }
      : type === 'content_block_delta'
        ? { kind: asRecord(value.delta).type, core: ANTHROPIC_CORE_DELTAS }
        : undefined;
  return inner !== undefined && typeof inner.kind === 'string' && !inner.core.has(inner.kind);
}

function anthropicStopReason(raw: string | undefined): StopReason {
  switch (raw) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
    case 'pause_turn':
      return raw;
    case 'model_context_window_exceeded':
      return 'context_window';
    default:
      return 'other';
  }
}

function openAiStopReason(raw: string | undefined): StopReason {
  switch (raw) {
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

/** Anthropic's signature or redacted data of a thinking block, from a part's metadata. */
function thinkingOf(metadata: SharedV3ProviderMetadata | undefined): Partial<ReasoningBlock> {
  const anthropic = metadata?.anthropic;
  return {
    ...(typeof anthropic?.signature === 'string' ? { signature: anthropic.signature } : {}),
    ...(typeof anthropic?.redactedData === 'string' ? { redactedData: anthropic.redactedData } : {}),
  };
}

/**
 * Text an Anthropic `content_block_start` already carries (servers that speak the format may send
 * a text block's start with its text; the SDK reads only the deltas).
 */
function startingText(raw: unknown): string | undefined {
  const value = asRecord(raw);
  const block = asRecord(value.content_block);
  return value.type === 'content_block_start' &&
    block.type === 'text' &&
    typeof block.text === 'string' &&
    block.text !== ''
    ? block.text
    : undefined;
}

/** The stop reason and its explanation in a raw Anthropic `message_delta`. */
function anthropicStop(raw: unknown): { reason?: string; explanation?: string } | undefined {
  const value = asRecord(raw);
  if (value.type !== 'message_delta') return undefined;
  const delta = asRecord(value.delta);
  const explanation = asRecord(delta.stop_details).explanation;
  return {
    ...(typeof delta.stop_reason === 'string' ? { reason: delta.stop_reason } : {}),
    ...(typeof explanation === 'string' ? { explanation } : {}),
  };
}

/** Notes which of the input and output counts a raw Anthropic event carries. */
function noteAnthropicUsage(raw: unknown, sent: { input: boolean; output: boolean }): void {
  const value = asRecord(raw);
  const usage = asRecord(value.type === 'message_start' ? asRecord(value.message).usage : value.usage);
  if (value.type !== 'message_start' && value.type !== 'message_delta') return;
  if (typeof usage.input_tokens === 'number') sent.input = true;
  // message_start's output count is a placeholder (1); the real one comes with message_delta.
  if (value.type === 'message_delta' && typeof usage.output_tokens === 'number') sent.output = true;
}

/**
 * Anthropic's usage where the server left counts out (a server that speaks the format but sends
 * no usage): the missing ones estimated, so that the run's token and cost limits still hold.
 */
function anthropicUsage(
  usage: Usage,
  sent: { input: boolean; output: boolean },
  estimate: () => { input: number; output: number },
): Usage {
  if (sent.input && sent.output) return usage;
  const guess = estimate();
  return {
    ...usage,
    inputTokens: sent.input ? usage.inputTokens : Math.max(usage.inputTokens, guess.input),
    outputTokens: sent.output ? usage.outputTokens : Math.max(usage.outputTokens, guess.output),
    estimated: true,
  };
}

/** The refusal words in a raw chat-completions chunk (OpenAI's `delta.refusal`). */
function refusalIn(raw: unknown): string | undefined {
  const choices = asRecord(raw).choices;
  const delta = asRecord(asRecord(Array.isArray(choices) ? choices[0] : undefined).delta);
  return typeof delta.refusal === 'string' && delta.refusal !== '' ? delta.refusal : undefined;
}

const positive = (value: number | undefined) => (value !== undefined && value > 0 ? value : undefined);

/**
 * Our usage from the SDK's: the input counts everything sent, cached or not (Anthropic's total
 * does, its `input_tokens` alone does not). A server that sent none is estimated.
 */
function usageOf(usage: LanguageModelV3Usage, estimate: () => { input: number; output: number }): Usage {
  const cacheRead = positive(usage.inputTokens.cacheRead);
  const cacheWrite = positive(usage.inputTokens.cacheWrite);
  const reasoning = positive(usage.outputTokens.reasoning);
  const known = usage.inputTokens.total !== undefined && usage.outputTokens.total !== undefined;
  const guess = known ? undefined : estimate();
  return {
    inputTokens: usage.inputTokens.total ?? guess?.input ?? 0,
    outputTokens: usage.outputTokens.total ?? guess?.output ?? 0,
    ...(cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
    ...(known ? {} : { estimated: true }),
  };
}

/** The AppError somewhere in `error`'s cause chain (our transport's, wrapped by the SDK). */
function appErrorIn(error: unknown): AppError | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current instanceof Error && !seen.has(current); current = current.cause) {
    if (current instanceof AppError) return current;
    seen.add(current);
  }
  return undefined;
}

interface Context {
  format: WireFormat;
  target: RequestTarget;
}

/** An error the provider sent inside its answer: classified by its body, as after HTTP 200. */
function errorEvent(error: Record<string, unknown>, context: Context): AppError {
  return errorForStreamEvent({ error }, { ...context.target, transient: isTransientStreamError(error) });
}

/**
 * What an `error` part of the stream means: the provider's error event (classified by cause), a
 * broken answer (transient), or nothing — an event type added later, which is skipped.
 */
function streamPartError(error: unknown, context: Context): AppError | undefined {
  const label = context.target.providerLabel;
  if (TypeValidationError.isInstance(error)) {
    const value = asRecord(error.value);
    if (typeof value.error === 'object' && value.error !== null) return errorEvent(asRecord(value.error), context);
    if (typeof value.error === 'string') return errorEvent({ message: value.error }, context);
    const type = typeof value.type === 'string' ? value.type : undefined;
    const later = context.format === 'anthropic' ? isSkippableAnthropicEvent(value) : !('choices' in value);
    if (later) return undefined;
    return malformedStream(label, `a \`${type ?? 'chunk'}\` event the format does not allow`, error);
  }
  if (JSONParseError.isInstance(error)) return malformedStream(label, 'a chunk that is not JSON', error);
  if (InvalidResponseDataError.isInstance(error) && /without a finish reason/.test(error.message))
    return endedEarly(label);
  if (error instanceof Error) return malformedStream(label, error.message, error);
  if (typeof error === 'string') return errorEvent({ message: error }, context);
  return errorEvent(asRecord(error), context);
}

/** What a failure thrown by the SDK means for us. */
function failureOf(error: unknown, context: Context): AppError {
  const ours = appErrorIn(error);
  if (ours) return ours;
  // Anthropic's first event was an error: the SDK throws it as a response error of its own making.
  if (APICallError.isInstance(error) && error.responseBody !== undefined) {
    try {
      const body = asRecord(JSON.parse(error.responseBody));
      if (typeof body.type === 'string') return errorEvent(body, context);
    } catch {
      // Not an error event: read below.
    }
  }
  if (APICallError.isInstance(error) && error.cause !== undefined) return failureOf(error.cause, context);
  if (AISDKError.isInstance(error))
    return streamPartError(error, context) ?? malformedStream(context.target.providerLabel, error.message, error);
  return connectionDropped(context.target.providerLabel, error);
}

/**
 * The idle limit: armed when the response's headers arrive, re-armed by every part of the answer
 * (keep-alives — Anthropic's pings, SSE comments — make none), it aborts a stalled answer.
 */
class IdleLimit {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly label: string,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(): void {
    if (this.controller.signal.aborted) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(streamStalled(this.label, this.ms)), this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/** Rejects with the signal's reason once it aborts (never resolves). */
function whenAborted(signal: AbortSignal): Promise<never> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  return aborted;
}

export async function* streamModelCall(
  call: ModelCall,
  request: ModelRequest,
  caller: AbortSignal | undefined,
): AsyncGenerator<ModelEvent> {
  const policy = retryPolicy(call.options);
  const target: RequestTarget = { ...call.target, model: request.model };
  const context: Context = { format: call.format, target };
  const deadline = callSignal(policy, caller, target.providerLabel);
  const idle = new IdleLimit(policy.streamIdleMs, target.providerLabel);
  const signal = AbortSignal.any([deadline.signal, idle.signal]);
  const aborted = whenAborted(signal);
  transports.set(
    signal,
    modelFetch(call.options, {
      policy,
      target,
      onResponse: () => idle.arm(),
      chatCompletions: call.format === 'openai',
    }),
  );
  const model = call.model;

  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined;
  const open = new Map<string, ReasoningBlock>();
  let finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }> | undefined;
  // OpenAI's refusal comes as text parts: the raw chunks say which (and hold Anthropic's starting text).
  const refusalPieces: string[] = [];
  let refusal = '';
  let streamedChars = 0;
  /** Anthropic's stop reason as sent: the SDK's, unless it refused the event that carried it. */
  let stop: ReturnType<typeof anthropicStop>;
  /** Anthropic: which counts the server really sent (the SDK starts both at 0, so its totals cannot tell). */
  const usageSent = { input: false, output: false };
  try {
    const started = model.doStream({
      prompt: toPrompt(request, call.format, {
        cache: call.cache === true,
        reasoningBack: call.reasoningBack === true,
      }),
      tools: toTools(request, { format: call.format, cache: call.cache === true }),
      maxOutputTokens: request.maxTokens,
      abortSignal: signal,
      includeRawChunks: true,
      ...(call.providerOptions ? { providerOptions: call.providerOptions } : {}),
    });
    // Abandoned on an abort: its stream, should it come, is closed.
    void started.then(
      (result) => (signal.aborted ? result.stream.cancel().catch(() => undefined) : undefined),
      () => undefined,
    );
    const { stream } = await Promise.race([started, aborted]);
    reader = stream.getReader();
    for (;;) {
      const next = await Promise.race([reader.read(), aborted]);
      if (next.done) break;
      const part = next.value;
      if (part.type === 'raw') {
        if (call.format === 'openai') {
          const piece = refusalIn(part.rawValue);
          if (piece !== undefined) refusalPieces.push(piece);
        } else {
          stop = anthropicStop(part.rawValue) ?? stop;
          noteAnthropicUsage(part.rawValue, usageSent);
          const text = startingText(part.rawValue);
          if (text !== undefined) {
            streamedChars += text.length;
            yield { type: 'text_delta', text };
          }
        }
        // Not progress: Anthropic's pings come this way too.
        continue;
      }
      idle.arm();
      switch (part.type) {
        case 'text-delta':
          if (refusalPieces[0] !== undefined && part.delta === refusalPieces[0]) {
            refusal += refusalPieces.shift();
          } else if (part.delta !== '') {
            streamedChars += part.delta.length;
            yield { type: 'text_delta', text: part.delta };
          }
          break;
        case 'reasoning-start':
          open.set(part.id, { type: 'reasoning', text: '', ...thinkingOf(part.providerMetadata) });
          break;
        case 'reasoning-delta': {
          const block = open.get(part.id) ?? { type: 'reasoning', text: '' };
          open.set(part.id, { ...block, text: block.text + part.delta, ...thinkingOf(part.providerMetadata) });
          if (part.delta !== '') {
            streamedChars += part.delta.length;
            yield { type: 'reasoning_delta', text: part.delta };
          }
          break;
        }
        case 'reasoning-end': {
          const block = open.get(part.id);
          open.delete(part.id);
          if (block && (block.text !== '' || block.signature !== undefined || block.redactedData !== undefined)) {
            yield { type: 'reasoning', block };
          }
          break;
        }
        case 'tool-call': {
          streamedChars += part.input.length;
          const parsed = parseToolArguments(part.input);
          yield parsed.parseError === undefined
            ? { type: 'tool_call', id: part.toolCallId, name: part.toolName, input: parsed.input }
            : {
                type: 'tool_call',
                id: part.toolCallId,
                name: part.toolName,
                input: undefined,
                parseError: parsed.parseError,
                rawArguments: part.input,
              };
          break;
        }
        case 'error': {
          const failure = streamPartError(part.error, context);
          if (failure) throw failure;
          break;
        }
        case 'finish':
          finish = part;
          break;
        default:
          // stream-start, response-metadata, text-start/end, tool-input-*: nothing the loop needs.
          break;
      }
      // Anthropic's answer is complete at `message_stop`: a server that keeps the body open after
      // it is not waited for (chat completions end at `[DONE]`, endAtDone).
      if (finish !== undefined && call.format === 'anthropic') break;
    }
  } catch (error) {
    // A pause, a stop or the deadline (the caller's reason), or the idle limit: said as such.
    if (deadline.signal.aborted) throw deadline.signal.reason;
    if (idle.signal.aborted) throw idle.signal.reason;
    throw failureOf(error, context);
  } finally {
    transports.delete(signal);
    idle.stop();
    deadline.done();
    // Closes the connection when the answer was left early (a no-op after its end).
    if (reader) void reader.cancel().catch(() => undefined);
  }
  // Anthropic says nothing when the stream ends without `message_stop`: the answer is incomplete.
  if (finish === undefined) throw endedEarly(target.providerLabel);
  const estimate = () => ({
    input: estimateTokens(request.messages, { system: request.system, tools: request.tools }),
    output: Math.ceil(streamedChars / 4),
  });
  const usage =
    call.format === 'anthropic'
      ? anthropicUsage(usageOf(finish.usage, estimate), usageSent, estimate)
      : usageOf(finish.usage, estimate);
  if (call.format === 'openai') {
    const declined = refusal.trim() !== '';
    yield {
      type: 'done',
      stopReason: declined ? 'refusal' : openAiStopReason(finish.finishReason.raw),
      usage,
      ...(declined ? { refusal: refusal.trim() } : {}),
    };
    return;
  }
  const stopReason = anthropicStopReason(finish.finishReason.raw ?? stop?.reason);
  const details = asRecord(asRecord(finish.providerMetadata?.anthropic).stopDetails);
  const explanation = typeof details.explanation === 'string' ? details.explanation : stop?.explanation;
  yield {
    type: 'done',
    stopReason,
    usage,
    ...(stopReason === 'refusal' && explanation ? { refusal: explanation } : {}),
  };
}
