import { AppError, say, toAppError } from '@nextai/shared';

import { sleep } from '../../core/sleep.js';

import { isStorageFailure } from '../../storage/storage-health.js';
import { isRecord } from '../context.js';
import type {
  Message,
  ModelEvent,
  ReasoningBlock,
  StopReason,
  TextBlock,
  ToolUseBlock,
  Usage,
} from '../providers/types.js';
import { isTransientModelError } from '../providers/sse.js';
import { callCost } from './limits.js';
import { Interrupted, toRunError, type FinishedStep, type Interrupt, type LoopRuntime } from './loop-runtime.js';

/** What the model said in one turn, and its step, written once the loop state that follows is ready. */
export interface ModelTurn {
  text: string;
  calls: ToolUseBlock[];
  /** Tool calls whose arguments were not valid JSON, by id. */
  parseErrors: Record<string, string>;
  /** What follows the turn (afterTurn). */
  next: TurnNext;
  /** The provider's words for why the model declined, when it sent some. */
  refusal?: string | undefined;
  step: FinishedStep;
}

/** What the model sent back, read off its stream. */
export interface StreamedReply {
  text: string;
  /** Its thinking, as the provider sent it (kept in the conversation, see ReasoningBlock). */
  reasoning: ReasoningBlock[];
  calls: ToolUseBlock[];
  parseErrors: Record<string, string>;
  usage: Usage;
  stopReason: StopReason;
  /** Why the model declined, in the provider's words (only when it said). */
  refusal?: string;
}

/**
 * What to do when a model call ends with an error: the loop was interrupted (pause, stop,
 * shutdown) and stops driving; a steer cut the call short and it is asked again with the new
 * instruction; otherwise the model failed, and the run with it.
 */
export type StreamFailure = { kind: 'interrupted'; interrupt: Interrupt } | { kind: 'steered' } | { kind: 'failed' };

export function afterStreamError(interrupt: Interrupt | undefined, turnCut: boolean): StreamFailure {
  if (interrupt !== undefined) return { kind: 'interrupted', interrupt };
  if (turnCut) return { kind: 'steered' };
  return { kind: 'failed' };
}

/**
 * What follows a turn:
 * - `declined` / `filtered`: the model refused, or the provider's content filter cut the answer —
 *   the run ends and says so; tool calls of a refused answer are not run;
 * - `act`: tool calls are acted on;
 * - `continue`: a reply cut off at the output limit is continued (with a note);
 * - `resume`: a turn the server paused (Anthropic `pause_turn`) is sent again as it is, and goes on;
 * - `too_long`: the context window filled up: the conversation is summarised and the turn asked again;
 * - `empty`: neither text nor a tool call;
 * - `answer`: the answer, which ends the run.
 */
export type TurnNext = 'declined' | 'filtered' | 'act' | 'continue' | 'resume' | 'too_long' | 'empty' | 'answer';

export function afterTurn(turn: { text: string; calls: readonly unknown[]; stopReason: StopReason }): TurnNext {
  if (turn.stopReason === 'refusal') return 'declined';
  if (turn.stopReason === 'content_filter') return 'filtered';
  if (turn.calls.length > 0) return 'act';
  if (turn.stopReason === 'max_tokens') return 'continue';
  if (turn.stopReason === 'pause_turn') return 'resume';
  if (turn.stopReason === 'context_window') return 'too_long';
  return turn.text.trim() === '' ? 'empty' : 'answer';
}

/** The note for the model's next turn when its reply was cut off. */
export const CUT_OFF_NOTE = 'Your reply was cut off at the output limit. Continue where you stopped.';

/** The note for the model's next turn when its reply was empty: it is asked once more. */
export const EMPTY_REPLY_NOTE =
  'Your reply was empty: no text and no tool call. Answer the person, or call a tool to go on.';

/** Whether the model was already asked again after an empty reply: the conversation ends with that note. */
export function askedAfterEmptyReply(messages: readonly Message[]): boolean {
  const last = messages[messages.length - 1];
  const block = last?.role === 'user' ? last.content[last.content.length - 1] : undefined;
  return block?.type === 'text' && block.text === EMPTY_REPLY_NOTE;
}

/**
 * The conversation with `notes` (steers, the person's answers) in the next user message: added
 * to the last message when that is the person's, else as a new one.
 */
export function withNotes(messages: Message[], notes: readonly string[]): Message[] {
  if (notes.length === 0) return messages;
  const blocks: TextBlock[] = notes.map((text) => ({ type: 'text', text }));
  const last = messages[messages.length - 1];
  if (last?.role === 'user') return [...messages.slice(0, -1), { role: 'user', content: [...last.content, ...blocks] }];
  return [...messages, { role: 'user', content: blocks }];
}

/**
 * The model's turn as it goes into the conversation, its thinking first as it came; undefined
 * when it said nothing and called nothing (thinking alone is no turn).
 */
export function assistantMessage(
  text: string,
  calls: readonly ToolUseBlock[],
  reasoning: readonly ReasoningBlock[] = [],
): Message | undefined {
  const content: (ReasoningBlock | TextBlock | ToolUseBlock)[] = [];
  if (text.trim() !== '') content.push({ type: 'text', text });
  content.push(...calls);
  return content.length > 0 ? { role: 'assistant', content: [...reasoning, ...content] } : undefined;
}

/** The thinking's text, for people (the panel, the step's record); redacted thinking has none. */
export function reasoningText(reasoning: readonly ReasoningBlock[]): string {
  return reasoning
    .map((block) => block.text)
    .filter((text) => text !== '')
    .join('\n\n');
}

/**
 * Reads a model's stream to its end; `onText` gets each piece of text as it arrives, `onReasoning`
 * each piece of its thinking.
 */
export async function readReply(
  stream: AsyncIterable<ModelEvent>,
  onText: (delta: string) => void,
  onReasoning: (delta: string) => void = () => undefined,
): Promise<StreamedReply> {
  let text = '';
  const reasoning: ReasoningBlock[] = [];
  const calls: ToolUseBlock[] = [];
  const parseErrors: Record<string, string> = {};
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let stopReason: StopReason = 'other';
  let refusal: string | undefined;
  for await (const event of stream) {
    if (event.type === 'text_delta') {
      text += event.text;
      onText(event.text);
    } else if (event.type === 'reasoning_delta') {
      onReasoning(event.text);
    } else if (event.type === 'reasoning') {
      reasoning.push(event.block);
    } else if (event.type === 'tool_call') {
      const input = isRecord(event.input) ? event.input : {};
      calls.push({ type: 'tool_use', id: event.id, name: event.name, input });
      if (event.parseError !== undefined) parseErrors[event.id] = event.parseError;
    } else {
      usage = event.usage;
      stopReason = event.stopReason;
      refusal = event.refusal;
    }
  }
  return { text, reasoning, calls, parseErrors, usage, stopReason, ...(refusal !== undefined ? { refusal } : {}) };
}

/**
 * A model call refused because the conversation does not fit the context window (a provider's
 * HTTP 400, classified by cause in providers/error-causes.ts): like a turn that filled it, the
 * conversation is summarised and the turn asked again, once.
 */
export function isContextTooLong(error: AppError): boolean {
  return (error.details as { cause?: unknown } | undefined)?.cause === 'context_too_long';
}

/** A model call the provider refused: the conversation does not fit its context window. */
export interface TooLong {
  tooLong: AppError;
}

/** The model calls one turn may make when an answer breaks off (a drop, a stall, an error event). */
export const MODEL_ATTEMPTS = 4;

/**
 * Whether a failed model call is tried again at once: only a failure of the answer itself (the
 * request was taken, then the stream dropped, stalled or sent an error) — a request the
 * provider client already retried (attempts in its details) is not retried again here.
 */
export function retryModelCallNow(error: AppError, attempt: number): boolean {
  const details = error.details as { attempts?: unknown } | undefined;
  return attempt < MODEL_ATTEMPTS && isTransientModelError(error) && details?.attempts === undefined;
}

/**
 * One model turn: the conversation and the tools go to the model, its text is streamed out as
 * it comes, and its reply joins the conversation. 'restart' when a steer cut the call short
 * (it is asked again with the new instruction). An answer that breaks off is asked for again,
 * each attempt its own step, so the panel shows the broken one as failed and nothing is counted
 * twice. A model call changes nothing outside, so its step is written once, with its result.
 */
export async function takeModelTurn(runtime: LoopRuntime): Promise<'restart' | TooLong | ModelTurn> {
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await attemptModelCall(runtime, attempt);
    if (outcome !== 'again') return outcome;
  }
}

async function attemptModelCall(
  runtime: LoopRuntime,
  attempt: number,
): Promise<'restart' | 'again' | TooLong | ModelTurn> {
  const { runId, services, state } = runtime;
  const run = runtime.run;
  const { provider, model, price } = services.model();
  runtime.ensureRunning();
  const step = runtime.reserveStep();
  const intent = { kind: 'model_call', turn: state.turns + 1, model, ...(attempt > 1 ? { attempt } : {}) };
  const started = performance.now();
  runtime.emit('run.step', { run_id: runId, step, kind: 'model_call', phase: 'started' });
  let reply: StreamedReply;
  try {
    const stream = provider.stream(
      {
        model,
        system: services.systemPrompt(run),
        messages: services.resolveImages(state.messages),
        tools: services.tools(),
        maxTokens: runtime.options.maxOutputTokens,
      },
      { signal: runtime.modelSignal() },
    );
    // A delta is often one token: sent on as a few events a second, not one stored event a token
    // (a long thinking would push every other run's events out of the event log).
    const text = coalesced((delta) => runtime.emit('run.text', { run_id: runId, step, delta }));
    const thinking = coalesced((delta) => runtime.emit('run.reasoning', { run_id: runId, step, delta }));
    try {
      reply = await readReply(stream, text.push, thinking.push);
    } finally {
      thinking.flush();
      text.flush();
    }
  } catch (error) {
    // The database failed under the stream (its text could not be recorded): not the model's
    // failure, and nothing can be written now — the run waits for the database (RunLoop.end).
    if (isStorageFailure(error)) throw error;
    const failure = afterStreamError(runtime.interrupt, runtime.turnCut);
    if (failure.kind === 'interrupted') {
      services.runs.recordStep(runId, step, intent, { interrupted: failure.interrupt });
      throw new Interrupted(failure.interrupt);
    }
    if (failure.kind === 'steered') {
      runtime.commit({ step, intent, result: { interrupted: 'steer' } });
      runtime.emit('run.step', {
        run_id: runId,
        step,
        kind: 'model_call',
        phase: 'finished',
        ok: false,
        summary: 'restarted with the new instruction',
      });
      return 'restart';
    }
    const appError = toAppError(error, 'UNAVAILABLE');
    // The step says what happened to it, a retry included: it is what the panel shows later too.
    const failed = (shown: AppError) => {
      services.runs.recordStep(runId, step, intent, { ok: false, error: toRunError(shown) });
      runtime.emit('run.step', {
        run_id: runId,
        step,
        kind: 'model_call',
        phase: 'finished',
        ok: false,
        error_code: appError.code,
        summary: shown.message,
        ...(shown.translations ? { summary_translations: shown.translations } : {}),
      });
    };
    if (isContextTooLong(appError)) {
      // The loop summarises and asks again (or ends the run when that was done already).
      failed(appError);
      return { tooLong: appError };
    }
    const again = retryModelCallNow(appError, attempt);
    const delayMs = runtime.options.modelRetryDelayMs * 2 ** (attempt - 1);
    failed(again ? tryingAgain(appError, delayMs, attempt + 1) : appError);
    if (!again) throw appError;
    await sleep(delayMs, runtime.modelSignal()).catch(() => undefined);
    if (runtime.interrupt !== undefined) throw new Interrupted(runtime.interrupt);
    return runtime.turnCut ? 'restart' : 'again';
  }
  const { text, reasoning, calls, parseErrors, usage, stopReason, refusal } = reply;
  state.turns += 1;
  const next = afterTurn(reply);
  // A refused answer stays out of the conversation (Anthropic asks for that: kept, it is refused
  // again), and so does one the context window cut short (it is asked for again). A paused turn
  // goes back as it is, but without trailing white space, which the API refuses at the end.
  const kept = next === 'declined' || next === 'filtered' || next === 'too_long' ? undefined : text;
  const message =
    kept === undefined ? undefined : assistantMessage(next === 'resume' ? kept.trimEnd() : kept, calls, reasoning);
  if (message) state.messages.push(message);
  const cost = callCost(usage, price);
  const thought = reasoningText(reasoning);
  const result = {
    ok: true,
    stop_reason: stopReason,
    ...(refusal !== undefined ? { refusal } : {}),
    usage,
    cost_usd: cost,
    text,
    ...(thought !== '' ? { reasoning: thought } : {}),
    tool_calls: calls.map((call) => ({ id: call.id, name: call.name })),
  };
  runtime.emit('run.step', {
    run_id: runId,
    step,
    kind: 'model_call',
    phase: 'finished',
    ok: true,
    duration_ms: Math.round(performance.now() - started),
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    ...(usage.cacheReadTokens !== undefined ? { cache_read_tokens: usage.cacheReadTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
    ...(usage.reasoningTokens !== undefined ? { reasoning_tokens: usage.reasoningTokens } : {}),
    cost_usd: cost,
  });
  // The usage is counted with the step, in its write: an answer lost to a crash before that
  // write is asked for again and counted once.
  const counted = { usage, model, price, cost };
  return {
    text,
    calls,
    parseErrors,
    next,
    refusal,
    step: { step, intent, result, usage: counted },
  };
}

/** What the panel shows for an answer that broke off and is asked for again. */
function tryingAgain(error: AppError, delayMs: number, nextAttempt: number): AppError {
  const seconds = Math.max(1, Math.round(delayMs / 1000));
  return new AppError(
    error.code,
    say(
      `${error.message} Trying again in ${seconds} s (attempt ${nextAttempt} of ${MODEL_ATTEMPTS}).`,
      `${error.translations?.['zh-CN'] ?? error.message} ${seconds} 秒后重试（第 ${nextAttempt} 次，共 ${MODEL_ATTEMPTS} 次）。`,
    ),
  );
}

/** How often streamed text goes out as an event at most, and how much may wait for it. */
const DELTA_INTERVAL_MS = 100;
const DELTA_MAX_CHARS = 4096;

/**
 * Deltas joined into one `send` every DELTA_INTERVAL_MS (or sooner, once DELTA_MAX_CHARS wait);
 * `flush` sends what waits at once (the answer ended, or broke off).
 */
export function coalesced(send: (delta: string) => void): { push: (delta: string) => void; flush: () => void } {
  let waiting = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** What sending from the timer threw (the database failed): thrown to the stream's reader, never from a timer. */
  let failed: { error: unknown } | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (failed) throw failed.error;
    if (waiting === '') return;
    const delta = waiting;
    waiting = '';
    send(delta);
  };
  const fromTimer = () => {
    try {
      flush();
    } catch (error) {
      failed ??= { error };
    }
  };
  const push = (delta: string) => {
    if (failed) throw failed.error;
    waiting += delta;
    if (waiting.length >= DELTA_MAX_CHARS) flush();
    else timer ??= setTimeout(fromTimer, DELTA_INTERVAL_MS);
  };
  return { push, flush };
}
