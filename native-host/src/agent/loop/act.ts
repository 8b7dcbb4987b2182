import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';

import { getTool, type ToolResult } from '@nextai/shared';

import { redactForAudit } from '../../gateway/audit/redact.js';
import type { ToolCallRequest } from '../../gateway/tool-gateway.js';
import { retainRecentImages, toToolResult, type ToolOutcome } from '../context.js';
import type { ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock } from '../providers/types.js';
import { TRANSIENT_CODES, actionKey, checkAttempt, recordOutcome, type FailureState } from './failure-tracker.js';
import type { PendingTurn } from './loop-state.js';
import { Interrupted, type FinishedStep, type LoopRuntime } from './loop-runtime.js';
import { isUiAction, observationBlocks } from './observation.js';

/** Tries of a read-only tool within one step, the first included. */
export const MAX_READ_ATTEMPTS = 3;

/**
 * Whether a call runs. It is answered with an error instead when its arguments were not valid
 * JSON, when there is no such tool (the answer names the ones there are), or when this exact
 * action has already failed too often. A call that runs is counted by its action key.
 */
export function admitCall(
  call: ToolUseBlock,
  parseError: string | undefined,
  failures: FailureState,
  offeredTools: () => string[],
): { run: true; effect: string; key: string } | { run: false; answer: string } {
  if (parseError !== undefined) return { run: false, answer: `${call.name} was not run: ${parseError}` };
  const tool = getTool(call.name);
  if (!tool) {
    const offered = offeredTools().join(', ');
    return { run: false, answer: `There is no tool named "${call.name}". The tools you can use are: ${offered}.` };
  }
  const key = actionKey(call.name, call.input);
  const attempt = checkAttempt(failures, key);
  return attempt.allowed ? { run: true, effect: tool.effect, key } : { run: false, answer: attempt.message };
}

/**
 * Whether a failed call is tried again at once, behind the model's back: only a tool that
 * reads (running it twice changes nothing), only when the failure may pass by itself (a
 * timeout, a hiccup, a lost connection), and at most MAX_READ_ATTEMPTS times in all. A tool
 * that changes something is never repeated without the model deciding to.
 */
export function shouldRetry(effect: string, result: ToolResult, attempts: number): boolean {
  return !result.ok && effect === 'read' && TRANSIENT_CODES.includes(result.error.code) && attempts < MAX_READ_ATTEMPTS;
}

/** The pause before try number `attempts + 1`: the base delay, doubled after each try. */
export function retryDelay(baseMs: number, attempts: number): number {
  return baseMs * 2 ** (attempts - 1);
}

/**
 * Whether the loop must look at the screen before the next turn: after a UI action it must,
 * until the model's own successful screenshot shows it.
 */
export function needsObservationAfter(needed: boolean, toolName: string, ok: boolean): boolean {
  if (toolName === 'screenshot' && ok) return false;
  return needed || isUiAction(toolName);
}

export function toOutcome(call: ToolUseBlock, result: ToolResult): ToolOutcome {
  return result.ok
    ? { toolUseId: call.id, name: call.name, input: call.input, ok: true, output: result.output }
    : {
        toolUseId: call.id,
        name: call.name,
        input: call.input,
        ok: false,
        error: { code: result.error.code, message: result.error.message },
      };
}

export function withNote(block: ToolResultBlock, note: string): ToolResultBlock {
  return { ...block, content: [...block.content, { type: 'text', text: note }] };
}

/** Results in the order the model asked for the calls (providers require it for parallel calls). */
export function sortResults(pending: PendingTurn): void {
  const order = new Map(pending.calls.map((call, index) => [call.id, index]));
  pending.results.sort((a, b) => (order.get(a.toolUseId) ?? 0) - (order.get(b.toolUseId) ?? 0));
}

/** One line for progress displays. */
export function progressSummary(result: ToolResult): string {
  // The error code travels in its own field.
  if (!result.ok) return result.error.message.slice(0, 200);
  const output = result.output;
  if (typeof output !== 'object' || output === null) return String(output).slice(0, 200);
  const shown = Object.entries(output as Record<string, unknown>)
    .filter(([key]) => key !== 'image' && key !== 'content')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return shown.length > 200 ? `${shown.slice(0, 199)}…` : shown;
}

/**
 * Runs the last turn's tool calls that have no result yet, in order, then looks at the screen
 * when a UI action asks for it. `reissued` holds calls found unfinished after a restart that
 * certainly never ran, with the steps they keep.
 */
export async function executePending(
  runtime: LoopRuntime,
  pending: PendingTurn,
  reissued: Map<string, number>,
): Promise<void> {
  for (const call of pending.calls) {
    if (pending.results.some((result) => result.toolUseId === call.id)) continue;
    // Quick tools (a to-do list, a small file) answer without waiting on anything outside the
    // daemon, so a turn of many of them would run as one chain of promises and nobody else would
    // be heard until it ended: an emergency stop, a pause, a panel's read waited seconds. Each
    // call first lets what has arrived meanwhile be read and answered.
    await yieldToEventLoop();
    runtime.throwIfInterrupted();
    const { block, finished } = await executeCall(runtime, call, pending, reissued);
    pending.results.push(block);
    sortResults(pending);
    // The result and the state that includes it: one durable write. A call answered without
    // running (bad arguments, unknown tool) is not saved: it would be answered the same way again.
    if (finished) runtime.commit(finished);
  }
  if (pending.needsObservation) {
    runtime.throwIfInterrupted();
    await observe(runtime, pending);
  }
}

async function executeCall(
  runtime: LoopRuntime,
  call: ToolUseBlock,
  pending: PendingTurn,
  reissued: Map<string, number>,
): Promise<{ block: ToolResultBlock; finished?: FinishedStep }> {
  const { runId, services, state } = runtime;
  const admitted = admitCall(call, pending.parseErrors[call.id], state.failures, () =>
    services.tools().map((definition) => definition.name),
  );
  if (!admitted.run) {
    return {
      block: {
        type: 'tool_result',
        toolUseId: call.id,
        isError: true,
        content: [{ type: 'text', text: admitted.answer }],
      },
    };
  }
  const { effect, key } = admitted;

  // A call asked again after a restart keeps its step (its intent is already written).
  const existing = reissued.get(call.id);
  reissued.delete(call.id);
  const step =
    existing ?? runtime.beginStep({ kind: 'tool_call', tool: call.name, call_id: call.id, input: call.input });
  const input = call.input as Record<string, unknown>;
  runtime.emit('run.step', {
    run_id: runId,
    step,
    kind: 'tool_call',
    phase: 'started',
    tool: call.name,
    call_id: call.id,
    input: redactForAudit(input, { maxStringLength: 500 }) as Record<string, unknown>,
  });
  const started = performance.now();
  const callTool = (): Promise<ToolResult> => callChokepoint(runtime, { name: call.name, input, call_id: call.id });
  let result = await callTool();
  let attempts = 1;
  while (shouldRetry(effect, result, attempts) && mayRetry(runtime)) {
    await sleep(retryDelay(runtime.options.retryDelayMs, attempts), undefined, {
      signal: runtime.runAbort.signal,
    }).catch(() => undefined);
    if (!mayRetry(runtime)) break;
    attempts += 1;
    result = await callTool();
  }
  if (!result.ok && runtime.interrupt === 'stop') {
    services.runs.recordResult(runId, step, storable(runtime, result));
    throw new Interrupted('stop');
  }
  const verdict = recordOutcome(
    state.failures,
    key,
    result.ok ? { ok: true } : { ok: false, code: result.error.code, message: result.error.message, tool: call.name },
  );
  const stored = storable(runtime, result);
  runtime.emit('run.step', {
    run_id: runId,
    step,
    kind: 'tool_call',
    phase: 'finished',
    tool: call.name,
    call_id: call.id,
    ok: result.ok,
    duration_ms: Math.round(performance.now() - started),
    summary: progressSummary(result),
    ...(attempts > 1 ? { attempt: attempts } : {}),
    ...(result.ok ? {} : { error_code: result.error.code }),
    ...(!result.ok && result.error.translations ? { summary_translations: result.error.translations } : {}),
  });
  pending.needsObservation = needsObservationAfter(pending.needsObservation, call.name, result.ok);
  const block = runtime.intern(toToolResult(toOutcome(call, result), { readBlob: services.readBlob }));
  return {
    block: verdict.note ? withNote(block, verdict.note) : block,
    finished: { step, result: verdict.note ? { ...stored, note: verdict.note } : stored },
  };
}

/**
 * Whether a read-only tool's automatic retry goes on: not once the run is paused, stopped or shut
 * down — but during a graceful stop's drain it does, as part of the action in progress (the
 * retries are few and short, and the drain waits for them within its grace period).
 */
function mayRetry(runtime: LoopRuntime): boolean {
  return runtime.interrupt === undefined || (runtime.interrupt === 'shutdown' && runtime.draining);
}

/** A tool call through the policy; at a shutdown the loop stops waiting for it (see LoopRuntime.stopAbort). */
async function callChokepoint(runtime: LoopRuntime, request: ToolCallRequest): Promise<ToolResult> {
  const run = runtime.run;
  const call = runtime.services.callTool(request, {
    source: run.source ?? 'run',
    project: run.project,
    runId: runtime.runId,
    // A scheduled task's grant: the policy decides every call of the run with it (tighten only).
    ...(run.grant ? { grant: run.grant } : {}),
    cancel: runtime.stopAbort.signal,
  });
  const shutdown = runtime.runAbort.signal;
  if (shutdown.aborted && runtime.interrupt === 'shutdown') throw new Interrupted('shutdown');
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<never>((_, reject) => {
    onAbort = () => {
      if (runtime.interrupt === 'shutdown') reject(new Interrupted('shutdown'));
    };
    shutdown.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([call, abandoned]);
  } finally {
    if (onAbort) shutdown.removeEventListener('abort', onAbort);
  }
}

/**
 * The step record keeps images as blob references (the same bytes the conversation shows are the
 * same stored image), and the run holds every image its record names, so the record never points
 * at a pruned payload.
 */
function storable(runtime: LoopRuntime, result: ToolResult): ToolResult {
  const stored = withImageReference(runtime, result);
  runtime.services.holdBlobs(runtime.runId, stored);
  return stored;
}

function withImageReference(runtime: LoopRuntime, result: ToolResult): ToolResult {
  if (!result.ok || typeof result.output !== 'object' || result.output === null) return result;
  const output = result.output as Record<string, unknown>;
  const image = output.image;
  if (typeof image !== 'string' || image.startsWith('blob:')) return result;
  const mimeType = typeof output.format === 'string' && output.format === 'png' ? 'image/png' : 'image/jpeg';
  return { ...result, output: { ...output, image: runtime.services.putBlob(Buffer.from(image, 'base64'), mimeType) } };
}

/** Verify: after UI actions the model sees the screen — or is told it did not change. */
async function observe(runtime: LoopRuntime, pending: PendingTurn): Promise<void> {
  const { runId, services } = runtime;
  runtime.ensureRunning();
  // Looking changes nothing: the step is written once, with what was seen.
  const step = runtime.reserveStep();
  runtime.emit('run.step', { run_id: runId, step, kind: 'observe', phase: 'started', tool: 'screenshot' });
  const result = await callChokepoint(runtime, { name: 'screenshot', input: {} });
  const blocks = observationBlocks(result, services.readBlob);
  runtime.emit('run.step', {
    run_id: runId,
    step,
    kind: 'observe',
    phase: 'finished',
    tool: 'screenshot',
    ok: result.ok,
    summary: blocks.summary,
  });
  pending.needsObservation = false;
  pending.observation = blocks.content.map((block) => runtime.intern(block));
  runtime.commit({ step, intent: { kind: 'observe', tool: 'screenshot' }, result: storable(runtime, result) });
}

/**
 * The finished turn's results (and what the loop saw of the screen) become one user message;
 * only the last few screenshots stay images (the others stay stored, held by the run, for its
 * step records).
 */
export function commitPending(runtime: LoopRuntime): void {
  const { state } = runtime;
  const pending = state.pending;
  if (!pending) return;
  const content: (TextBlock | ImageBlock | ToolResultBlock)[] = [...pending.results, ...(pending.observation ?? [])];
  state.messages.push({ role: 'user', content });
  state.pending = undefined;
  state.messages = retainRecentImages(state.messages, runtime.options.keepImages);
  // Not saved here: the next model call saves it with its own step. Until then, the saved
  // state still has this turn pending with every result, and committing it again gives this.
}
