import { ENDED_RUN_STATES, type DaemonEvent, type EventData, type EventType } from '@nextai/shared';

import type { RunError, RunState, RunStore } from './run-store.js';

export interface RunEvents {
  append<T extends EventType>(type: T, data: EventData<T>): unknown;
}

/**
 * Moves a run to `to` and announces it with a `run.state` event; no event when it is there
 * already. Everything that changes a run's state goes through here, so the event log and the
 * runs table never disagree.
 */
export function transitionRun(
  runs: RunStore,
  events: RunEvents,
  runId: string,
  to: RunState,
  extra: { reason?: string | undefined; error?: RunError | undefined } = {},
): void {
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
