import { AppError, ENDED_RUN_STATES, type DaemonEvent, type EventData, type EventType } from '@nextai/shared';

import { storageFailureOf } from '../storage/storage-health.js';
import type { RunError, RunState, RunStore } from './run-store.js';

export interface RunEvents {
  append<T extends EventType>(type: T, data: EventData<T>): unknown;
}

/** The error code a paused run carries while it waits for the database to be writable again. */
export const STORAGE_WAIT_CODE = 'STORAGE_ERROR';

/** What a run is to become, with why: written now, or kept until the database can be written. */
export interface RunOutcome {
  to: RunState;
  reason?: string | undefined;
  error?: RunError | undefined;
}

/** A run paused because the database could not be written: it goes on by itself once it can. */
export function waitingForStorage(message: string): RunOutcome {
  return {
    to: 'paused',
    reason: `waiting for the database to be writable again: ${message}`,
    error: {
      code: STORAGE_WAIT_CODE,
      message: `Waiting for the database to be writable again (${message}). The run goes on by itself when it is.`,
    },
  };
}

/**
 * A run paused because the model could not answer after its retries (the connection, a stall, an
 * overload): it waits for the person to try again (Retry in the panel, `nextai runs resume`)
 * instead of failing for good. The error keeps the model's code and says what happened.
 */
export function waitingForModel(error: AppError): RunOutcome {
  const english =
    `${error.message} The run is paused: try again when the model is reachable ` +
    '(Retry in the panel, or `nextai runs resume`).';
  const chinese =
    `${error.translations?.['zh-CN'] ?? error.message} 任务已暂停：模型恢复后请重试` +
    '（在面板中点“重试”，或运行 `nextai runs resume`）。';
  return {
    to: 'paused',
    reason: `the model could not answer: ${error.message}`,
    error: { code: error.code, message: english, translations: { 'zh-CN': chinese } },
  };
}

/** Whether a run is paused only until the database can be written again (not by the person). */
export function waitsForStorage(run: { state: RunState; error: RunError | null }): boolean {
  return run.state === 'paused' && run.error?.code === STORAGE_WAIT_CODE;
}

/**
 * Moves a run to `to` and announces it with a `run.state` event, in one transaction; no event
 * when it is there already. Everything that changes a run's state goes through here, so the event
 * log and the runs table never disagree. When the database cannot be written it throws
 * STORAGE_ERROR and nothing changed.
 */
export function transitionRun(
  runs: RunStore,
  events: RunEvents,
  runId: string,
  to: RunState,
  extra: { reason?: string | undefined; error?: RunError | undefined } = {},
): void {
  try {
    runs.atomically(() => {
      const previous = runs.get(runId).state;
      if (previous === to) return;
      runs.transition(runId, to, extra.error);
      events.append('run.state', {
        run_id: runId,
        state: to,
        previous,
        ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
        ...(extra.error ? { error_code: extra.error.code } : {}),
      });
    });
  } catch (error) {
    const failure = storageFailureOf(error);
    if (!failure || error instanceof AppError) throw error;
    throw new AppError('STORAGE_ERROR', `Could not write to the database: ${failure.message}`, { cause: error });
  }
}

/**
 * Moves a run that has not ended to `outcome.to` by the moves the state machine allows: a run not
 * started yet, or waiting for the person or an approval, is paused by way of running; a run
 * already paused only changes the reason it shows. Nothing happens to a run that ended meanwhile.
 */
export function settleRun(runs: RunStore, events: RunEvents, runId: string, outcome: RunOutcome): void {
  const state = runs.get(runId).state;
  if ((ENDED_RUN_STATES as readonly string[]).includes(state)) return;
  if (outcome.to === 'paused') {
    if (state === 'paused') {
      runs.setPauseReason(runId, outcome.error ?? null);
      return;
    }
    if (state !== 'running') transitionRun(runs, events, runId, 'running');
  }
  transitionRun(runs, events, runId, outcome.to, outcome);
}

/**
 * Calls `listener` with the id of each run that reaches an ended state (finished, failed,
 * stopped) — every state change is a `run.state` event (transitionRun) — so what was kept for the
 * run while it went on can be let go. Returns the unsubscribe function.
 */
export function onRunEnded(
  events: { subscribe(listener: (event: DaemonEvent) => void): () => void },
  listener: (runId: string) => void,
): () => void {
  return events.subscribe((event) => {
    if (event.type !== 'run.state') return;
    const { run_id, state } = event.data as EventData<'run.state'>;
    if ((ENDED_RUN_STATES as readonly string[]).includes(state)) listener(run_id);
  });
}
