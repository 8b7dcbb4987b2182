import type { ErrorCode } from '@nextai/shared';

/**
 * Error recovery in the agent loop: the same action is tried at most three times; after that the
 * model must find an alternative (a different tool, path or method); when the alternatives fail
 * too, the loop stops guessing and asks the person. Pure bookkeeping — the loop acts on it — kept
 * in the checkpoint so a restart does not reset the counts.
 */
export const MAX_ATTEMPTS_PER_ACTION = 3;
/** Consecutive failed actions (three tries of one plus three alternatives) before asking the person. */
export const ESCALATE_AFTER_FAILURES = 6;

export interface FailureState {
  /** Failures per action key (tool + canonical input). */
  byAction: Record<string, number>;
  /** Failed actions since the last success. */
  consecutive: number;
  /** The last failures, for the question to the person. */
  recent: string[];
}

export function emptyFailureState(): FailureState {
  return { byAction: {}, consecutive: 0, recent: [] };
}

/**
 * Outcomes that say nothing about whether the action works: the person said no, or everything
 * was stopped. Denials have their own circuit breaker in the policy.
 */
const NOT_A_FAILURE: readonly string[] = ['APPROVAL_DENIED', 'APPROVAL_CANCELLED', 'EMERGENCY_STOPPED'];

/** Failures worth trying again at once for a tool that only reads (nothing can happen twice). */
export const TRANSIENT_CODES: readonly ErrorCode[] = ['TIMEOUT', 'TOOL_FAILED', 'DISCONNECTED'];

export function actionKey(tool: string, input: unknown): string {
  return `${tool} ${canonicalJson(input)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Whether the action may run; when not, the text the model gets instead. */
export function checkAttempt(
  state: FailureState,
  key: string,
): { allowed: true } | { allowed: false; message: string } {
  const failures = state.byAction[key] ?? 0;
  if (failures < MAX_ATTEMPTS_PER_ACTION) return { allowed: true };
  return {
    allowed: false,
    message:
      `Not run: this exact action has already failed ${failures} times in this run. ` +
      'Try an alternative instead — a different tool, path, selector or method — or ask the person with ask_user.',
  };
}

export interface FailureVerdict {
  /** Appended to the tool result so the model knows where it stands; absent after a success. */
  note?: string;
  /** Time to stop and ask the person. */
  escalate: boolean;
}

/** Records one action's outcome (mutates `state`). */
export function recordOutcome(
  state: FailureState,
  key: string,
  outcome: { ok: true } | { ok: false; code: string; message: string; tool: string },
): FailureVerdict {
  if (outcome.ok) {
    state.consecutive = 0;
    state.recent = [];
    delete state.byAction[key];
    return { escalate: false };
  }
  if (NOT_A_FAILURE.includes(outcome.code)) return { escalate: false };
  const failures = (state.byAction[key] ?? 0) + 1;
  state.byAction[key] = failures;
  state.consecutive += 1;
  state.recent = [...state.recent, `${outcome.tool}: ${outcome.message}`].slice(-3);
  const escalate = state.consecutive >= ESCALATE_AFTER_FAILURES;
  const note =
    failures >= MAX_ATTEMPTS_PER_ACTION
      ? `This exact action has now failed ${failures} times; it will not be run again. Try an alternative: a different tool, path or method.`
      : `This action has failed ${failures} time${failures === 1 ? '' : 's'} (at most ${MAX_ATTEMPTS_PER_ACTION} tries). Retry it only if the failure looks temporary; otherwise try another way.`;
  return { note, escalate };
}

/** Once the person has been asked, the count starts again. */
export function resetAfterEscalation(state: FailureState): void {
  state.consecutive = 0;
  state.recent = [];
}

/** The question put to the person when the loop is stuck. */
export function stuckQuestion(state: FailureState): string {
  const lines = state.recent.map((line) => `- ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
  return [
    `I am stuck: the last ${state.consecutive} actions failed, including retries and alternatives.`,
    ...lines,
    'How should I continue? (You can also stop the run.)',
  ].join('\n');
}
