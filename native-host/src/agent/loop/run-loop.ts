import { AppError, toAppError, type RunResultKind } from '@nextai/shared';

import { isStorageFailure, storageFailureOf } from '../../storage/storage-health.js';
import { isTransientModelError } from '../providers/sse.js';
import { settleRun, waitingForModel, waitingForStorage, type RunOutcome } from '../run-transition.js';
import { commitPending, executePending } from './act.js';
import { askWhenStuck, mustAskPerson } from './ask-when-stuck.js';
import { checkLimits } from './limits.js';
import {
  Interrupted,
  LoopRuntime,
  toRunError,
  type FinishedStep,
  type Interrupt,
  type LoopServices,
} from './loop-runtime.js';
import { CUT_OFF_NOTE, EMPTY_REPLY_NOTE, askedAfterEmptyReply, takeModelTurn, withNotes } from './model-turn.js';
import { recover, restore } from './recovery.js';
import { contextTooLong, summariseIfNeeded } from './summary.js';

export type { LoopLimits } from './limits.js';
export type { LoopOptions, LoopServices, ModelChoice } from './loop-runtime.js';

/**
 * What the session keeps of a run's end, for the next run in it to read: the answer, or a note
 * that there was none (a refused answer is not kept: it would be refused again).
 */
function sessionAnswer(kind: RunResultKind, result: string): string {
  const reason = result === '' ? '.' : `: ${result}`;
  switch (kind) {
    case 'answer':
      return result;
    case 'declined':
      return `[The model declined to answer${reason}]`;
    case 'filtered':
      return `[The provider's content filter stopped the answer${reason}]`;
    case 'no_answer':
      return '[The model gave no answer.]';
  }
}

/**
 * Drives one agent run: observe → reason → act → verify, until the model answers without
 * calling a tool, a limit is reached, or the run is stopped. Every tool call goes through the
 * policy chokepoint; each step writes its intent before acting and its result after, and the
 * loop state is checkpointed after every step, so a crash at any point resumes without doing
 * anything twice.
 *
 * This is the run's lifecycle: it restores and recovers (recovery.ts), then turns the loop —
 * limits (limits.ts), a summary when the conversation is too long (summary.ts), the model's
 * turn (model-turn.ts), its tool calls (act.ts), the person asked when stuck
 * (ask-when-stuck.ts) — and records how the run ends. What they share is a LoopRuntime.
 */
export class RunLoop {
  readonly done: Promise<void>;
  /**
   * Set when the database could not be written: the loop ended because of it (the run waits, and
   * its owner resumes it once writing works), or could not write how it ended. `unrecorded` is the
   * state the run is to be in that could not be written (its owner keeps it until it can be).
   */
  storageTrouble: { error: unknown; unrecorded: RunOutcome | undefined } | undefined;
  private readonly runtime: LoopRuntime;
  private stopReason = 'stopped by the person';
  /**
   * The person asked for a pause. Kept through a shutdown (which takes the interrupt over): the run
   * is then recorded paused, not left to go on by itself at the next start.
   */
  private pauseRequested = false;
  private readonly incomingNotes: string[] = [];
  /** Calls found after a restart that never ran (approval pending or refused, ask_user): their steps. */
  private reissued = new Map<string, number>();
  private started!: () => void;

  constructor(
    readonly runId: string,
    services: LoopServices,
  ) {
    this.runtime = new LoopRuntime(runId, services);
    const begin = new Promise<void>((resolve) => {
      this.started = resolve;
    });
    this.done = begin.then(() => this.drive());
  }

  /** Starts driving (separate from the constructor so the owner can register the loop first). */
  start(): this {
    this.started();
    return this;
  }

  /** Parks the run after the action in progress (an in-flight model call is abandoned and redone later). */
  pause(): void {
    // A pause asked while the loop drains holds across the restart: the run waits for the person then too.
    if (this.runtime.interrupt === undefined || this.runtime.draining) this.runtime.interrupt = 'pause';
    this.pauseRequested = true;
    this.runtime.turnAbort.abort(new Interrupted('pause'));
  }

  stop(reason?: string): void {
    if (reason !== undefined) this.stopReason = reason;
    this.runtime.interrupt = 'stop';
    this.runtime.stopAbort.abort(new Interrupted('stop'));
    this.runtime.runAbort.abort(new Interrupted('stop'));
  }

  /**
   * The daemon is going away: stop driving, leave the run as it is so it resumes at the next start
   * — or, when the person asked for a pause that the loop had not reached yet, paused (see end).
   */
  shutdown(): void {
    this.runtime.draining = false;
    if (this.runtime.interrupt !== 'stop') this.runtime.interrupt = 'shutdown';
    this.runtime.runAbort.abort(new Interrupted('shutdown'));
  }

  /**
   * The daemon is stopping gracefully: the tool call in progress goes on, and its result is
   * committed with the checkpoint as usual; the loop then stops before its next step and leaves
   * the run to resume at the next start — with that result, not "outcome unknown". A model call
   * in progress is abandoned now: it changes nothing outside, and is made again after the restart.
   * A later shutdown() abandons the tool call too.
   */
  drain(): void {
    if (this.runtime.interrupt !== undefined) return;
    this.runtime.draining = true;
    this.runtime.interrupt = 'shutdown';
    this.runtime.turnAbort.abort(new Interrupted('shutdown'));
  }

  /** A new instruction: shown to the model at its next turn; a model call in progress starts over with it. */
  steer(text: string): void {
    const note = `The person adds an instruction while you work: ${text}`;
    if (this.runtime.state) {
      // Saved at once, so a crash before the next turn does not lose it. Safe between any two
      // awaits of the loop: the state is consistent there (a step begun but not finished only
      // moved nextStep on, which a restore accounts for).
      this.runtime.state.notes.push(note);
      this.runtime.checkpoint();
    } else {
      this.incomingNotes.push(note);
    }
    this.runtime.turnAbort.abort(new AppError('INVALID_ARGUMENT', 'steered'));
  }

  // -------------------------------------------------------------------------------------------

  private async drive(): Promise<void> {
    const runtime = this.runtime;
    try {
      restore(runtime);
      if (runtime.run.state === 'queued') runtime.transition('running');
      this.reissued = recover(runtime);
      for (;;) {
        runtime.throwIfInterrupted();
        if (runtime.state.pending) {
          await executePending(runtime, runtime.state.pending, this.reissued);
          commitPending(runtime);
          continue;
        }
        if (mustAskPerson(runtime.state)) {
          await askWhenStuck(runtime);
          continue;
        }
        checkLimits(runtime.run);
        runtime.turnAbort = new AbortController();
        this.takeNotes();
        await summariseIfNeeded(runtime);
        const turn = await takeModelTurn(runtime);
        if (turn === 'restart') continue;
        const { state } = runtime;
        if ('tooLong' in turn) {
          // The provider refused the request as too long: summarised already, it does not fit.
          if (state.contextFull === 'summarised') throw turn.tooLong;
          state.contextFull = 'summarise';
          runtime.checkpoint();
          continue;
        }
        const contextFull = state.contextFull;
        state.contextFull = undefined;
        switch (turn.next) {
          case 'answer':
            this.finish(turn.step, 'answer', turn.text);
            return;
          case 'declined':
          case 'filtered':
            // Ended in a way the person sees: the provider's reason when it gave one, never an empty ✓.
            this.finish(turn.step, turn.next, turn.refusal ?? '');
            return;
          case 'empty':
            if (askedAfterEmptyReply(state.messages)) {
              this.finish(turn.step, 'no_answer', '');
              return;
            }
            state.notes.push(EMPTY_REPLY_NOTE);
            break;
          case 'continue':
            state.notes.push(CUT_OFF_NOTE);
            break;
          case 'resume':
            // The paused turn is in the conversation: sent again as it is, the model goes on.
            break;
          case 'too_long':
            if (contextFull === 'summarised') {
              runtime.commit(turn.step);
              throw contextTooLong(runtime.services.model().model);
            }
            state.contextFull = 'summarise';
            break;
          case 'act':
            state.pending = { calls: turn.calls, parseErrors: turn.parseErrors, results: [], needsObservation: false };
            break;
        }
        // The model call and the loop state that follows from it: one durable write.
        runtime.commit(turn.step);
      }
    } catch (error) {
      this.end(error);
    }
  }

  /** Moves steers and answers that arrived into the next user message. */
  private takeNotes(): void {
    const { state } = this.runtime;
    if (this.incomingNotes.length > 0) {
      state.notes.push(...this.incomingNotes.splice(0));
    }
    if (state.notes.length === 0) return;
    state.messages = withNotes(state.messages, state.notes);
    state.notes = [];
    this.runtime.checkpoint();
  }

  /** The run ends `finished`: with the model's answer, or — marked by `kind` — without one. */
  private finish(step: FinishedStep, kind: RunResultKind, text: string): void {
    const { runId, services } = this.runtime;
    const result = text.trim();
    this.runtime.commit(step, () => services.runs.setResult(runId, result, kind));
    services.recordAnswer(this.runtime.run, sessionAnswer(kind, result));
    this.runtime.transition('finished');
  }

  /**
   * A shutdown ended a loop the person had asked to pause, before the pause took hold (a tool call
   * was still running: a pause waits for it, a stop that no longer waits does not). The run is
   * recorded paused — with its last checkpoint, as after any shutdown: the call cut short is
   * "outcome unknown" once the person resumes it — so it does not go on by itself at the next start.
   * When the database cannot be written this is lost, and the run goes on at the next start.
   */
  private pausedAtShutdown(): void {
    const { services } = this.runtime;
    try {
      settleRun(services.runs, services.events, this.runId, { to: 'paused', reason: 'paused by the person' });
    } catch (inner) {
      services.log.warn('could not record the pause of a run as the daemon stopped; it goes on at the next start', {
        run_id: this.runId,
        error: (inner as Error).message,
      });
    }
  }

  private end(error: unknown): void {
    const runtime = this.runtime;
    const { log } = runtime.services;
    const kind: Interrupt | undefined = error instanceof Interrupted ? error.kind : runtime.interrupt;
    if (kind === 'shutdown') {
      if (this.pauseRequested) this.pausedAtShutdown();
      return;
    }
    const storage = kind === undefined ? storageFailureOf(error) : undefined;
    let outcome: RunOutcome;
    if (kind === 'pause') outcome = { to: 'paused', reason: 'paused by the person' };
    else if (kind === 'stop') outcome = { to: 'stopped', reason: this.stopReason };
    else if (storage) {
      // Not the run's failure: it waits, and goes on from its last checkpoint once writing works.
      this.storageTrouble = { error, unrecorded: undefined };
      log.warn('a run waits: the database cannot be written', { run_id: this.runId, error: storage.message });
      outcome = waitingForStorage(storage.message);
    } else if (isTransientModelError(error)) {
      outcome = waitingForModel(error as AppError);
    } else {
      const appError = toAppError(error, 'INTERNAL');
      if (appError.code === 'INTERNAL') {
        log.error('agent run failed unexpectedly', { run_id: this.runId, error: appError.message });
      }
      outcome = { to: 'failed', error: toRunError(appError) };
    }
    // The state in memory is saved with the end — unless the database could not be written: then
    // the last checkpoint stands and the run resumes from it, as after a crash (an action whose
    // result was not written is "outcome unknown" then, never repeated blindly).
    if (runtime.state && !storage) {
      try {
        runtime.checkpoint();
      } catch (inner) {
        if (isStorageFailure(inner)) this.storageTrouble = { error: inner, unrecorded: undefined };
        log.warn('could not save the last state of a run; it goes on from its previous checkpoint', {
          run_id: this.runId,
          error: (inner as Error).message,
        });
      }
    }
    try {
      settleRun(runtime.services.runs, runtime.services.events, this.runId, outcome);
    } catch (inner) {
      if (isStorageFailure(inner)) {
        // Kept by the run manager (shown, and written once the database can be written).
        this.storageTrouble = { error: inner, unrecorded: outcome };
        log.warn('could not record the state of a run yet; it is kept until the database can be written', {
          run_id: this.runId,
          state: outcome.to,
          error: (inner as Error).message,
        });
        return;
      }
      // The run record itself could not be written (database closed at shutdown): nothing more to do.
      log.error('could not record the end of a run', { run_id: this.runId, error: (inner as Error).message });
    }
  }
}
