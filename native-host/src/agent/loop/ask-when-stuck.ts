import { ESCALATE_AFTER_FAILURES, resetAfterEscalation, stuckQuestion } from './failure-tracker.js';
import type { LoopState } from './loop-state.js';
import type { LoopRuntime } from './loop-runtime.js';

/**
 * Whether the loop stops guessing and asks the person before the next turn: it is already
 * waiting on its question (also after a restart), or too many actions in a row have failed.
 */
export function mustAskPerson(state: Pick<LoopState, 'openQuestionId' | 'failures'>): boolean {
  return state.openQuestionId !== undefined || state.failures.consecutive >= ESCALATE_AFTER_FAILURES;
}

/** What the model is told at its next turn about the person's answer. */
export function answerNote(answer: string): string {
  return `The person answered your request for help: ${answer}`;
}

/**
 * Asks the person how to go on (the recent failures in the question) and waits for the answer,
 * in `waiting_user`; a question asked before a restart is waited for again rather than asked
 * twice. The answer reaches the model as a note, and the failure streak starts again.
 */
export async function askWhenStuck(runtime: LoopRuntime): Promise<void> {
  const { runId, services, state } = runtime;
  const existing = state.openQuestionId;
  let questionId = existing;
  let step: number;
  if (questionId === undefined) {
    const text = stuckQuestion(state.failures);
    const { question } = services.questions.ask({ runId, kind: 'stuck', question: text });
    questionId = question.id;
    step = runtime.beginStep({ kind: 'ask', question_id: question.id });
    state.openQuestionId = question.id;
    runtime.checkpoint();
    runtime.emit('run.question', {
      run_id: runId,
      question_id: question.id,
      kind: 'stuck',
      question: text,
      options: [],
    });
  } else {
    step =
      services.runs.stepsWithoutResult(runId).find((candidate) => candidate.intent.question_id === existing)?.step ??
      runtime.beginStep({ kind: 'ask', question_id: existing });
  }
  if (services.questions.get(questionId).answer === null) runtime.transition('waiting_user');
  const answer = await services.questions.wait(questionId, runtime.runAbort.signal).catch((error: unknown) => {
    runtime.throwIfInterrupted();
    throw error;
  });
  services.runs.recordResult(runId, step, { answer });
  resetAfterEscalation(state.failures);
  state.openQuestionId = undefined;
  state.notes.push(answerNote(answer));
  runtime.ensureRunning();
  runtime.checkpoint();
}
