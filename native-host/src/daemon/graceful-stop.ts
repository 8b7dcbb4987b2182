import type { EventData } from '@nextai/shared';

import type { Logger } from '../core/logger.js';

/** What a graceful stop waits for. */
export interface StopWork {
  /** Tool calls still executing that the stop waits for. */
  runningCalls(): number;
  /** Whether something else still winds down (a run's loop writing the result it just got). */
  busy(): boolean;
  /** Settles when some of it may have ended. */
  changed(): Promise<unknown>;
}

export interface DrainProgress {
  runningCalls: number;
  remainingMs: number;
}

export type DrainOutcome = 'finished' | 'grace_over' | 'hurried';

export interface DrainOptions {
  graceMs: number;
  /** Aborted to stop waiting at once (a second signal, `nextai daemon stop --now`). */
  hurry: AbortSignal;
  /** Told the number of running calls whenever it changes. */
  onProgress(progress: DrainProgress): void;
  now?: () => number;
}

/**
 * How often the wait looks again without being told: a new call that started, a run that began to
 * wait for a person (its loop ends then) — `changed` covers what ends, not what begins.
 */
const LOOK_AGAIN_MS = 250;

/**
 * Waits until the work has wound down, the grace period is over, or `hurry` is aborted, whichever
 * comes first, and says which, with how many calls were still running then (those are aborted
 * next). It aborts nothing itself: what to stop, and how, is the caller's.
 */
export async function drainWork(
  work: StopWork,
  options: DrainOptions,
): Promise<{ outcome: DrainOutcome; runningCalls: number }> {
  const now = options.now ?? Date.now;
  const deadline = now() + options.graceMs;
  let reported: number | undefined;
  for (;;) {
    const runningCalls = work.runningCalls();
    if (runningCalls === 0 && !work.busy()) return { outcome: 'finished', runningCalls };
    if (options.hurry.aborted) return { outcome: 'hurried', runningCalls };
    const remainingMs = deadline - now();
    if (remainingMs <= 0) return { outcome: 'grace_over', runningCalls };
    if (runningCalls !== reported) {
      reported = runningCalls;
      options.onProgress({ runningCalls, remainingMs });
    }
    await firstOf(work.changed(), Math.min(LOOK_AGAIN_MS, remainingMs), options.hurry);
  }
}

/** Resolves when `promise` settles, `ms` have passed or `signal` is aborted; leaves no timer or listener behind. */
async function firstOf(promise: Promise<unknown>, ms: number, signal: AbortSignal): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      promise.then(
        () => undefined,
        () => undefined,
      ),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
        onAbort = resolve;
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** What the daemon's parts tell a graceful stop. */
export interface StopParts {
  gateway: { executing(): { runId: string | undefined; done: Promise<unknown> }[] };
  runs: {
    /** Whether the run's loop goes on (it is not waiting for a person). */
    goesOn(runId: string): boolean;
    /** Loops that have not ended. */
    readonly loopsRunning: number;
    /** Settles when one of the loops running now ends (asked only while some run). */
    loopEnded(): Promise<void>;
  };
}

/**
 * The daemon's work a graceful stop waits for: tool calls called directly (the CLI, the panel)
 * and those of runs whose loop goes on. A call of a run that waits for a person (ask_user) has
 * nothing to finish; its run takes the question up again after the restart.
 */
export function daemonStopWork({ gateway, runs }: StopParts): StopWork {
  const calls = () => gateway.executing().filter((call) => call.runId === undefined || runs.goesOn(call.runId));
  return {
    runningCalls: () => calls().length,
    busy: () => runs.loopsRunning > 0,
    changed: async () => {
      const ends = calls().map((call) => call.done);
      if (runs.loopsRunning > 0) ends.push(runs.loopEnded());
      // Nothing to end: never settles (drainWork looks again after a while anyway).
      await Promise.race(ends);
      // The gateway and the run manager forget what ended in callbacks of their own: look after those.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/**
 * The graceful part of a daemon's stop: no run starts or goes on to its next step, model calls in
 * flight are abandoned, and the tool calls already running may finish — their results committed —
 * for up to `graceMs`, or until `hurry` is aborted. The stop aborts whatever is left after this.
 * The wait is said in the log and as `daemon.draining` events (`nextai daemon stop` shows them).
 */
export async function drainBeforeStop(
  parts: StopParts & {
    runs: { drain(): void };
    events: { record(type: 'daemon.draining', data: EventData<'daemon.draining'>): void };
    log: Logger;
  },
  graceMs: number,
  hurry: AbortSignal,
): Promise<void> {
  const { events, log } = parts;
  parts.runs.drain();
  const { outcome, runningCalls } = await drainWork(daemonStopWork(parts), {
    graceMs,
    hurry,
    onProgress: (progress) => {
      log.info('waiting for running tool calls to finish before stopping (a second stop or signal: now)', {
        running_calls: progress.runningCalls,
        remaining_ms: progress.remainingMs,
      });
      events.record('daemon.draining', {
        running_calls: progress.runningCalls,
        remaining_ms: Math.max(0, Math.round(progress.remainingMs)),
      });
    },
  });
  if (outcome === 'finished') log.info('the running tool calls finished; stopping');
  else log.warn('stopping without waiting longer for running tool calls', { outcome, aborting: runningCalls });
  events.record('daemon.draining', { running_calls: runningCalls, remaining_ms: 0, ended: outcome });
}
