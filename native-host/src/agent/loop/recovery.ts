import type { ToolResult } from '@nextai/shared';

import { toToolResult, type ReadBlob } from '../context.js';
import type { ToolResultBlock, ToolUseBlock } from '../providers/types.js';
import type { StepRecord } from '../run-store.js';
import { sortResults, toOutcome, withNote } from './act.js';
import { initialLoopState, isLoopState, type LoopState, type PendingTurn } from './loop-state.js';
import type { LoopRuntime } from './loop-runtime.js';

/** What the model is told about an action the daemon may or may not have finished before it stopped. */
export const OUTCOME_UNKNOWN =
  'Outcome unknown: the agent was interrupted (the daemon stopped) while this action was running, so it may or may not have happened. Observe first (take a screenshot, read the file, list what exists) before acting; do not simply repeat it.';

/** The tool result standing in for a call whose outcome is unknown. */
export function outcomeUnknownBlock(call: Pick<ToolUseBlock, 'id' | 'name'>): ToolResultBlock {
  return {
    type: 'tool_result',
    toolUseId: call.id,
    isError: true,
    content: [{ type: 'text', text: `${call.name}: ${OUTCOME_UNKNOWN}` }],
  };
}

/**
 * The checkpoint's loop state, going on after it: intents written after the checkpoint keep
 * their numbers, so new steps come after the last step recorded.
 */
export function resumeFrom(state: LoopState, lastStep: number): LoopState {
  return { ...state, nextStep: Math.max(state.nextStep, lastStep + 1) };
}

/**
 * True when a call certainly did not execute, so asking again is harmless: ask_user only asks,
 * and a call whose approval is still pending, or was refused, never ran. `approvalStatus` is
 * asked only when it matters.
 */
export function canAskAgain(toolName: string, approvalStatus: () => string | undefined): boolean {
  if (toolName === 'ask_user') return true;
  const status = approvalStatus();
  return status === 'pending' || status === 'denied' || status === 'cancelled';
}

/**
 * What becomes of a step begun but not finished before a restart:
 * - `ask_again`: a call of the turn in progress that never ran; it runs on the same step.
 * - `outcome_unknown`: a call that may have run; it is never repeated, and the model is told to
 *   look before acting.
 * - `wait_again`: the loop's question to the person, waited for again.
 * - `interrupted`: a model call, summary or observation; these change nothing and are simply
 *   done again.
 */
export type OpenStepRecovery =
  | { action: 'ask_again'; call: ToolUseBlock }
  | { action: 'outcome_unknown'; call: ToolUseBlock }
  | { action: 'wait_again' }
  | { action: 'interrupted' };

export function recoveryFor(
  step: Pick<StepRecord, 'kind' | 'intent'>,
  pending: PendingTurn | undefined,
  approvalStatus: (callId: string) => string | undefined,
): OpenStepRecovery {
  const callId = typeof step.intent.call_id === 'string' ? step.intent.call_id : undefined;
  const call = callId === undefined ? undefined : pending?.calls.find((candidate) => candidate.id === callId);
  if (call && pending && !pending.results.some((result) => result.toolUseId === call.id)) {
    const again = canAskAgain(call.name, () => approvalStatus(callId as string));
    return { action: again ? 'ask_again' : 'outcome_unknown', call };
  }
  if (step.kind === 'ask' && typeof step.intent.question_id === 'string') return { action: 'wait_again' };
  return { action: 'interrupted' };
}

/**
 * The result of a call recorded on its step after the last checkpoint, as the model sees it
 * (with the failure tracker's note, if any); undefined when the step holds no tool result.
 */
export function resultFromStep(
  step: Pick<StepRecord, 'result'>,
  call: ToolUseBlock,
  readBlob: ReadBlob,
  intern: (block: ToolResultBlock) => ToolResultBlock,
): ToolResultBlock | undefined {
  const stored = step.result as (ToolResult & { note?: string }) | { outcome: 'unknown' } | null;
  if (stored === null || typeof stored !== 'object') return undefined;
  if ('outcome' in stored) return outcomeUnknownBlock(call);
  if (!('ok' in stored)) return undefined;
  const block = intern(toToolResult(toOutcome(call, stored), { readBlob }));
  return stored.note ? withNote(block, stored.note) : block;
}

/** The loop state to start from: the run's last checkpoint, or a fresh one with the goal. */
export function restore(runtime: LoopRuntime): void {
  const { runId, services } = runtime;
  const checkpoint = services.runs.latestCheckpoint(runId);
  if (checkpoint && isLoopState(checkpoint.state)) {
    runtime.state = resumeFrom(checkpoint.state, services.runs.steps(runId).at(-1)?.step ?? 0);
    return;
  }
  const run = runtime.run;
  runtime.state = initialLoopState([{ role: 'user', content: [{ type: 'text', text: run.goal }] }]);
  runtime.checkpoint();
}

/**
 * Settles the steps begun but not finished before a crash (see recoveryFor) and takes the
 * results recorded after the last checkpoint into the turn in progress. Returns the calls to
 * ask again, by id, with the steps they keep (their intents are already written).
 */
export function recover(runtime: LoopRuntime): Map<string, number> {
  const { runId, services, state } = runtime;
  const reissued = new Map<string, number>();
  const open = services.runs.stepsWithoutResult(runId);
  const pending = state.pending;
  for (const step of open) {
    const recovery = recoveryFor(step, pending, (callId) => services.approvalStatus(runId, callId));
    if (recovery.action === 'ask_again') {
      reissued.set(recovery.call.id, step.step);
    } else if (recovery.action === 'outcome_unknown') {
      const { call } = recovery;
      services.runs.recordResult(runId, step.step, { ok: false, outcome: 'unknown' });
      pending?.results.push(outcomeUnknownBlock(call));
      runtime.emit('run.step', {
        run_id: runId,
        step: step.step,
        kind: 'tool_call',
        phase: 'finished',
        tool: call.name,
        call_id: call.id,
        ok: false,
        error_code: 'OUTCOME_UNKNOWN',
        summary: 'interrupted by a restart: outcome unknown',
      });
    } else if (recovery.action === 'interrupted') {
      services.runs.recordResult(runId, step.step, { interrupted: true });
    }
  }
  if (pending) {
    // Results recorded after the last checkpoint are taken from their steps.
    const finished = services.runs.steps(runId).filter((step) => step.resultAt !== null);
    for (const call of pending.calls) {
      if (pending.results.some((result) => result.toolUseId === call.id)) continue;
      const step = finished.find((candidate) => candidate.intent.call_id === call.id);
      const block = step && resultFromStep(step, call, services.readBlob, (inner) => runtime.intern(inner));
      if (block) pending.results.push(block);
    }
    sortResults(pending);
  }
  runtime.checkpoint();
  return reissued;
}
