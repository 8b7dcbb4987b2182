import {
  AppError,
  getTool,
  say,
  toAppError,
  type EventData,
  type EventType,
  type Localized,
  type ToolResult,
} from '@nextai/shared';

import type { Logger } from '../../core/logger.js';
import type { CallContext, ToolCallRequest } from '../../gateway/tool-gateway.js';
import { abortableSleep } from '../providers/retry.js';
import {
  isRecord,
  planSummary,
  retainRecentImages,
  toToolResult,
  type ReadBlob,
  type ToolOutcome,
} from '../context.js';
import type {
  ImageBlock,
  Message,
  ModelProvider,
  TextBlock,
  ToolDefinition,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from '../providers/types.js';
import { costOf, type ModelPrice } from '../pricing.js';
import type { QuestionStore } from '../question-store.js';
import { internImages } from '../run-images.js';
import { transitionRun, type RunEvents } from '../run-transition.js';
import type { RunError, RunRecord, RunState, RunStore, StepRecord } from '../run-store.js';
import { redactForAudit } from '../../gateway/audit/redact.js';
import {
  ESCALATE_AFTER_FAILURES,
  TRANSIENT_CODES,
  actionKey,
  checkAttempt,
  recordOutcome,
  resetAfterEscalation,
  stuckQuestion,
} from './failure-tracker.js';
import { initialLoopState, isLoopState, type LoopState, type PendingTurn } from './loop-state.js';
import { isUiAction, observationBlocks } from './observation.js';
import { summaryRequest, foldSummary } from './summary.js';

/** The model a run talks to, chosen when the loop starts (the config may change between runs). */
export interface ModelChoice {
  provider: ModelProvider;
  model: string;
  /** Undefined when the model's price is not known. */
  price: ModelPrice | undefined;
}

export interface LoopLimits {
  max_steps: number;
  max_tokens: number;
  max_cost_usd: number;
}

export interface LoopServices {
  runs: RunStore;
  questions: QuestionStore;
  events: RunEvents;
  /** The policy chokepoint (ToolGateway.call). */
  callTool(request: ToolCallRequest, context: CallContext): Promise<ToolResult>;
  /** The tools offered to the model (the available ones). */
  tools(): ToolDefinition[];
  model(): ModelChoice;
  systemPrompt(run: RunRecord): string;
  readBlob: ReadBlob;
  /** Stores an image so step records hold a reference, not megabytes of base64. */
  putBlob(data: Buffer, mimeType: string): string;
  /** The run's conversation images by reference (RunImageStore.put / resolve / retainOnly). */
  storeImage(runId: string, image: ImageBlock): ImageBlock;
  resolveImages(messages: Message[]): Message[];
  dropImagesExcept(runId: string, messages: Message[]): void;
  /** Latest approval status of a run's tool call (see ApprovalQueue.statusForRunCall). */
  approvalStatus(runId: string, callId: string): string | undefined;
  /** The session the run's final answer is written to. */
  recordAnswer(run: RunRecord, text: string): void;
  log: Logger;
  options?: Partial<LoopOptions>;
}

export interface LoopOptions {
  /** Screenshots kept as images in the conversation. */
  keepImages: number;
  /** Estimated tokens above which old turns are summarised. */
  contextBudgetTokens: number;
  maxOutputTokens: number;
  /** Pause before an automatic retry of a read-only tool; doubled each time. */
  retryDelayMs: number;
}

const DEFAULT_OPTIONS: LoopOptions = {
  keepImages: 3,
  contextBudgetTokens: 120_000,
  maxOutputTokens: 8192,
  retryDelayMs: 250,
};

/** A step to write once it is done: with its intent too when that was not written before acting. */
interface FinishedStep {
  step: number;
  intent?: { kind: string; [key: string]: unknown };
  result: unknown;
}

/** Why the loop was asked to stop driving. */
type Interrupt = 'pause' | 'stop' | 'shutdown';

class Interrupted extends Error {
  constructor(readonly kind: Interrupt) {
    super(`run ${kind}`);
  }
}

const OUTCOME_UNKNOWN =
  'Outcome unknown: the agent was interrupted (the daemon stopped) while this action was running, so it may or may not have happened. Observe first (take a screenshot, read the file, list what exists) before acting; do not simply repeat it.';

/**
 * Drives one agent run: observe → reason → act → verify, until the model answers without
 * calling a tool, a limit is reached, or the run is stopped. Every tool call goes through the
 * policy chokepoint; each step writes its intent before acting and its result after, and the
 * loop state is checkpointed after every step, so a crash at any point resumes without doing
 * anything twice.
 */
export class RunLoop {
  readonly done: Promise<void>;
  private readonly options: LoopOptions;
  /** Aborted to stop or shut down: ends the model call and the tool call in progress. */
  private readonly runAbort = new AbortController();
  /**
   * Aborted only to stop the run: tool calls get this one. At a shutdown a call is abandoned
   * rather than cancelled, so its approval request stays pending for the next start and an
   * action cut short is "outcome unknown" then, not a failure recorded now.
   */
  private readonly stopAbort = new AbortController();
  /** Aborted to restart the current model call (a steer arrived) or to pause. */
  private turnAbort = new AbortController();
  private interrupt: Interrupt | undefined;
  private stopReason = 'stopped by the person';
  private state!: LoopState;
  private readonly incomingNotes: string[] = [];
  /** Calls found after a restart that never ran (approval pending or refused, ask_user): their steps. */
  private readonly reissued = new Map<string, number>();
  private started!: () => void;

  constructor(
    readonly runId: string,
    private readonly services: LoopServices,
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...services.options };
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
    if (this.interrupt === undefined) this.interrupt = 'pause';
    this.turnAbort.abort(new Interrupted('pause'));
  }

  stop(reason?: string): void {
    if (reason !== undefined) this.stopReason = reason;
    this.interrupt = 'stop';
    this.stopAbort.abort(new Interrupted('stop'));
    this.runAbort.abort(new Interrupted('stop'));
  }

  /** The daemon is going away: stop driving, leave the run as it is so it resumes at the next start. */
  shutdown(): void {
    if (this.interrupt !== 'stop') this.interrupt = 'shutdown';
    this.runAbort.abort(new Interrupted('shutdown'));
  }

  /** A new instruction: shown to the model at its next turn; a model call in progress starts over with it. */
  steer(text: string): void {
    const note = `The person adds an instruction while you work: ${text}`;
    if (this.state) {
      // Saved at once, so a crash before the next turn does not lose it. Safe between any two
      // awaits of the loop: the state is consistent there (a step begun but not finished only
      // moved nextStep on, which a restore accounts for).
      this.state.notes.push(note);
      this.checkpoint();
    } else {
      this.incomingNotes.push(note);
    }
    this.turnAbort.abort(new AppError('INVALID_ARGUMENT', 'steered'));
  }

  // -------------------------------------------------------------------------------------------

  private get run(): RunRecord {
    return this.services.runs.get(this.runId);
  }

  private emit<T extends EventType>(type: T, data: EventData<T>): void {
    this.services.events.append(type, data);
  }

  private transition(to: RunState, extra: { reason?: string; error?: RunError } = {}): void {
    transitionRun(this.services.runs, this.services.events, this.runId, to, extra);
  }

  private checkpoint(): void {
    this.services.runs.checkpoint(this.runId, Math.max(0, this.state.nextStep - 1), this.state);
  }

  /** A finished step (intent included when it was not written before acting) and the checkpoint, in one transaction. */
  private commit(step: FinishedStep): void {
    this.services.runs.atomically(() => {
      if (step.intent) this.services.runs.recordStep(this.runId, step.step, step.intent, step.result);
      else this.services.runs.recordResult(this.runId, step.step, step.result);
      this.checkpoint();
    });
  }

  /** A step number for an action whose intent is written only with its result. */
  private reserveStep(): number {
    const step = this.state.nextStep;
    this.state.nextStep += 1;
    return step;
  }

  private signal(): AbortSignal {
    return AbortSignal.any([this.runAbort.signal, this.turnAbort.signal]);
  }

  private throwIfInterrupted(): void {
    if (this.interrupt !== undefined) throw new Interrupted(this.interrupt);
  }

  /** New steps need a running run; a run that waited and is no longer waiting for anything runs again. */
  private ensureRunning(): void {
    const state = this.run.state;
    if (state === 'queued' || state === 'waiting_approval' || state === 'waiting_user' || state === 'paused') {
      this.transition('running');
    }
  }

  private async drive(): Promise<void> {
    try {
      this.restore();
      if (this.run.state === 'queued') this.transition('running');
      await this.recover();
      for (;;) {
        this.throwIfInterrupted();
        if (this.state.pending) {
          await this.executePending(this.state.pending);
          this.commitPending();
          continue;
        }
        if (this.state.openQuestionId !== undefined || this.state.failures.consecutive >= ESCALATE_AFTER_FAILURES) {
          await this.askWhenStuck();
          continue;
        }
        this.checkLimits();
        this.turnAbort = new AbortController();
        this.takeNotes();
        await this.maybeSummarise();
        const turn = await this.modelTurn();
        if (turn === 'restart') continue;
        if (turn.calls.length === 0 && !turn.cutOff) {
          this.finish(turn.text, turn.step);
          return;
        }
        if (turn.calls.length === 0) {
          this.state.notes.push('Your reply was cut off at the output limit. Continue where you stopped.');
        } else {
          this.state.pending = {
            calls: turn.calls,
            parseErrors: turn.parseErrors,
            results: [],
            needsObservation: false,
          };
        }
        // The model call and the loop state that follows from it: one durable write.
        this.commit(turn.step);
      }
    } catch (error) {
      this.end(error);
    }
  }

  private end(error: unknown): void {
    const kind = error instanceof Interrupted ? error.kind : this.interrupt;
    try {
      if (kind === 'shutdown') return;
      if (kind === 'pause') {
        if (this.state) this.checkpoint();
        const state = this.run.state;
        if (state === 'running') this.transition('paused', { reason: 'paused by the person' });
        else if (state === 'waiting_user' || state === 'waiting_approval') {
          // Paused while waiting: parked once the wait ends.
          this.transition('running');
          this.transition('paused', { reason: 'paused by the person' });
        }
        return;
      }
      if (kind === 'stop') {
        if (this.state) this.checkpoint();
        this.transition('stopped', { reason: this.stopReason });
        return;
      }
      const appError = toAppError(error, 'INTERNAL');
      if (appError.code === 'INTERNAL') {
        this.services.log.error('agent run failed unexpectedly', { run_id: this.runId, error: appError.message });
      }
      if (this.state) this.checkpoint();
      const { code, message, translations } = appError;
      this.transition('failed', { error: translations ? { code, message, translations } : { code, message } });
    } catch (inner) {
      // The run record itself could not be written (database closed at shutdown): nothing more to do.
      this.services.log.error('could not record the end of a run', {
        run_id: this.runId,
        error: (inner as Error).message,
      });
    }
  }

  // -------------------------------------------------------------------------------------------
  // Restoring and recovering after a restart

  private restore(): void {
    const checkpoint = this.services.runs.latestCheckpoint(this.runId);
    if (checkpoint && isLoopState(checkpoint.state)) {
      this.state = checkpoint.state;
      // Intents written after the checkpoint keep their numbers; new steps come after them.
      const last = this.services.runs.steps(this.runId).at(-1)?.step ?? 0;
      this.state.nextStep = Math.max(this.state.nextStep, last + 1);
      return;
    }
    const run = this.run;
    this.state = initialLoopState([{ role: 'user', content: [{ type: 'text', text: run.goal }] }]);
    this.checkpoint();
  }

  /**
   * Steps begun but not finished before a crash. Model calls and observations are simply done
   * again (they change nothing); a tool call that never ran (its approval still pending or
   * refused) is asked again with the same id; any other is "outcome unknown", never repeated.
   */
  private async recover(): Promise<void> {
    const open = this.services.runs.stepsWithoutResult(this.runId);
    const pending = this.state.pending;
    for (const step of open) {
      const callId = typeof step.intent.call_id === 'string' ? step.intent.call_id : undefined;
      const call = callId === undefined ? undefined : pending?.calls.find((candidate) => candidate.id === callId);
      if (call && pending && !pending.results.some((result) => result.toolUseId === call.id)) {
        if (this.canAskAgain(call, callId as string)) {
          // executePending asks again on this step, whose intent is already written.
          this.reissued.set(call.id, step.step);
          continue;
        }
        this.services.runs.recordResult(this.runId, step.step, { ok: false, outcome: 'unknown' });
        pending.results.push({
          type: 'tool_result',
          toolUseId: call.id,
          isError: true,
          content: [{ type: 'text', text: `${call.name}: ${OUTCOME_UNKNOWN}` }],
        });
        this.emit('run.step', {
          run_id: this.runId,
          step: step.step,
          kind: 'tool_call',
          phase: 'finished',
          tool: call.name,
          call_id: call.id,
          ok: false,
          error_code: 'OUTCOME_UNKNOWN',
          summary: 'interrupted by a restart: outcome unknown',
        });
        continue;
      }
      if (step.kind === 'ask' && typeof step.intent.question_id === 'string') continue; // waited for again
      this.services.runs.recordResult(this.runId, step.step, { interrupted: true });
    }
    if (pending) {
      // Results recorded after the last checkpoint are taken from their steps.
      const finished = this.services.runs.steps(this.runId).filter((step) => step.resultAt !== null);
      for (const call of pending.calls) {
        if (pending.results.some((result) => result.toolUseId === call.id)) continue;
        const step = finished.find((candidate) => candidate.intent.call_id === call.id);
        const block = step && this.blockFromStep(step, call);
        if (block) pending.results.push(block);
      }
      sortResults(pending);
    }
    this.checkpoint();
  }

  /** True when the call certainly did not execute and asking again is harmless. */
  private canAskAgain(call: ToolUseBlock, callId: string): boolean {
    if (call.name === 'ask_user') return true;
    const status = this.services.approvalStatus(this.runId, callId);
    return status === 'pending' || status === 'denied' || status === 'cancelled';
  }

  private blockFromStep(step: StepRecord, call: ToolUseBlock): ToolResultBlock | undefined {
    const stored = step.result as (ToolResult & { note?: string }) | { outcome: 'unknown' } | null;
    if (stored === null || typeof stored !== 'object') return undefined;
    if ('outcome' in stored) {
      return {
        type: 'tool_result',
        toolUseId: call.id,
        isError: true,
        content: [{ type: 'text', text: `${call.name}: ${OUTCOME_UNKNOWN}` }],
      };
    }
    if (!('ok' in stored)) return undefined;
    const block = this.intern(toToolResult(toOutcome(call, stored), { readBlob: this.services.readBlob }));
    return stored.note ? withNote(block, stored.note) : block;
  }

  // -------------------------------------------------------------------------------------------
  // Thinking

  private checkLimits(): void {
    const run = this.run;
    const limits = run.limits as unknown as LoopLimits;
    const tokens = run.usage.inputTokens + run.usage.outputTokens;
    let message: Localized | undefined;
    if (run.turns >= limits.max_steps) {
      message = say(
        `The run reached its limit of ${limits.max_steps} steps before finishing. Start a new run (or raise --max-steps) to continue.`,
        `任务在完成前达到了 ${limits.max_steps} 步的上限。要继续，请开始新的任务（或提高 --max-steps）。`,
      );
    } else if (tokens >= limits.max_tokens) {
      message = say(
        `The run used ${tokens} tokens, its limit is ${limits.max_tokens}. Start a new run with a higher limit to continue.`,
        `任务用了 ${tokens} 个 token，上限是 ${limits.max_tokens}。要继续，请用更高的上限开始新的任务。`,
      );
    } else if (run.usage.costUsd >= limits.max_cost_usd) {
      const spent = run.usage.costUsd.toFixed(4);
      message = say(
        `The run spent $${spent}, its limit is $${limits.max_cost_usd}. Start a new run with a higher limit to continue.`,
        `任务花费了 $${spent}，上限是 $${limits.max_cost_usd}。要继续，请用更高的上限开始新的任务。`,
      );
    }
    if (message !== undefined) throw new AppError('LIMIT_REACHED', message);
  }

  /** Moves steers and answers that arrived into the next user message. */
  private takeNotes(): void {
    if (this.incomingNotes.length > 0) {
      this.state.notes.push(...this.incomingNotes.splice(0));
    }
    if (this.state.notes.length === 0) return;
    const last = this.state.messages[this.state.messages.length - 1];
    const blocks: TextBlock[] = this.state.notes.map((text) => ({ type: 'text', text }));
    if (last?.role === 'user') last.content.push(...blocks);
    else this.state.messages.push({ role: 'user', content: blocks });
    this.state.notes = [];
    this.checkpoint();
  }

  private async maybeSummarise(): Promise<void> {
    const run = this.run;
    const system = this.services.systemPrompt(run);
    const tools = this.services.tools();
    const plan = planSummary(this.state.messages, {
      budgetTokens: this.options.contextBudgetTokens,
      system,
      tools,
    });
    if (!plan) return;
    const { provider, model, price } = this.services.model();
    const step = this.beginStep({ kind: 'summary', folded_messages: plan.end - plan.start });
    this.emit('run.step', { run_id: this.runId, step, kind: 'summary', phase: 'started' });
    let text = '';
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
    try {
      for await (const event of provider.stream(summaryRequest(model, plan.messages), { signal: this.signal() })) {
        if (event.type === 'text_delta') text += event.text;
        if (event.type === 'done') usage = event.usage;
      }
    } catch (error) {
      this.services.runs.recordResult(this.runId, step, { interrupted: this.interrupt ?? 'steer' });
      this.throwIfInterrupted();
      // A steer arrived: the next turn summarises again with it. A failing model fails the turn itself.
      if (this.turnAbort.signal.aborted) return;
      throw error;
    }
    const cost = this.addUsage(usage, model, price, 0);
    this.state.messages = foldSummary(this.state.messages, plan, text);
    this.services.runs.recordResult(this.runId, step, { usage, cost_usd: cost, summary_chars: text.length });
    this.emit('run.step', { run_id: this.runId, step, kind: 'summary', phase: 'finished', ok: true });
    this.checkpoint();
  }

  private beginStep(intent: { kind: string; [key: string]: unknown }): number {
    this.ensureRunning();
    const step = this.state.nextStep;
    this.state.nextStep += 1;
    this.services.runs.recordIntent(this.runId, step, intent);
    return step;
  }

  private addUsage(usage: Usage, model: string, price: ModelPrice | undefined, turns: number): number {
    const cost = price ? costOf(usage, price) : 0;
    const run = this.services.runs.addUsage(this.runId, {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costUsd: cost,
      costKnown: price !== undefined,
      turns,
      model,
    });
    this.emit('run.usage', {
      run_id: this.runId,
      input_tokens: run.usage.inputTokens,
      output_tokens: run.usage.outputTokens,
      cost_usd: run.usage.costUsd,
      turns: run.turns,
    });
    return cost;
  }

  private async modelTurn(): Promise<
    | 'restart'
    | {
        text: string;
        calls: ToolUseBlock[];
        parseErrors: Record<string, string>;
        cutOff: boolean;
        step: FinishedStep;
      }
  > {
    const run = this.run;
    const { provider, model, price } = this.services.model();
    this.ensureRunning();
    // A model call changes nothing outside: its step is written once, with its result.
    const step = this.reserveStep();
    const intent = { kind: 'model_call', turn: this.state.turns + 1, model };
    const started = performance.now();
    this.emit('run.step', { run_id: this.runId, step, kind: 'model_call', phase: 'started' });
    let text = '';
    const calls: ToolUseBlock[] = [];
    const parseErrors: Record<string, string> = {};
    let usage: Usage = { inputTokens: 0, outputTokens: 0 };
    let stopReason = 'other';
    try {
      const stream = provider.stream(
        {
          model,
          system: this.services.systemPrompt(run),
          messages: this.services.resolveImages(this.state.messages),
          tools: this.services.tools(),
          maxTokens: this.options.maxOutputTokens,
        },
        { signal: this.signal() },
      );
      for await (const event of stream) {
        if (event.type === 'text_delta') {
          text += event.text;
          this.emit('run.text', { run_id: this.runId, step, delta: event.text });
        } else if (event.type === 'tool_call') {
          const input = isRecord(event.input) ? event.input : {};
          calls.push({ type: 'tool_use', id: event.id, name: event.name, input });
          if (event.parseError !== undefined) parseErrors[event.id] = event.parseError;
        } else {
          usage = event.usage;
          stopReason = event.stopReason;
        }
      }
    } catch (error) {
      if (this.interrupt !== undefined) {
        this.services.runs.recordStep(this.runId, step, intent, { interrupted: this.interrupt });
        throw new Interrupted(this.interrupt);
      }
      if (this.turnAbort.signal.aborted) {
        // A steer arrived: ask again with it.
        this.commit({ step, intent, result: { interrupted: 'steer' } });
        this.emit('run.step', {
          run_id: this.runId,
          step,
          kind: 'model_call',
          phase: 'finished',
          ok: false,
          summary: 'restarted with the new instruction',
        });
        return 'restart';
      }
      const appError = toAppError(error, 'UNAVAILABLE');
      const { code, message, translations } = appError;
      this.services.runs.recordStep(this.runId, step, intent, {
        ok: false,
        error: translations ? { code, message, translations } : { code, message },
      });
      this.emit('run.step', {
        run_id: this.runId,
        step,
        kind: 'model_call',
        phase: 'finished',
        ok: false,
        error_code: code,
        summary: message,
        ...(translations ? { summary_translations: translations } : {}),
      });
      throw appError;
    }
    const cost = this.addUsage(usage, model, price, 1);
    this.state.turns += 1;
    const content: (TextBlock | ToolUseBlock)[] = [];
    if (text.trim() !== '') content.push({ type: 'text', text });
    content.push(...calls);
    if (content.length > 0) this.state.messages.push({ role: 'assistant', content });
    const result = {
      ok: true,
      stop_reason: stopReason,
      usage,
      cost_usd: cost,
      text,
      tool_calls: calls.map((call) => ({ id: call.id, name: call.name })),
    };
    this.emit('run.step', {
      run_id: this.runId,
      step,
      kind: 'model_call',
      phase: 'finished',
      ok: true,
      duration_ms: Math.round(performance.now() - started),
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      cost_usd: cost,
    });
    return { text, calls, parseErrors, cutOff: stopReason === 'max_tokens', step: { step, intent, result } };
  }

  // -------------------------------------------------------------------------------------------
  // Acting

  private async executePending(pending: PendingTurn): Promise<void> {
    for (const call of pending.calls) {
      if (pending.results.some((result) => result.toolUseId === call.id)) continue;
      this.throwIfInterrupted();
      const { block, finished } = await this.executeCall(call, pending);
      pending.results.push(block);
      sortResults(pending);
      // The result and the state that includes it: one durable write. A call answered without
      // running (bad arguments, unknown tool) is not saved: it would be answered the same way again.
      if (finished) this.commit(finished);
    }
    if (pending.needsObservation) {
      this.throwIfInterrupted();
      await this.observe(pending);
    }
  }

  private async executeCall(
    call: ToolUseBlock,
    pending: PendingTurn,
  ): Promise<{ block: ToolResultBlock; finished?: FinishedStep }> {
    const errorBlock = (text: string): { block: ToolResultBlock } => ({
      block: { type: 'tool_result', toolUseId: call.id, isError: true, content: [{ type: 'text', text }] },
    });
    const parseError = pending.parseErrors[call.id];
    if (parseError !== undefined) {
      return errorBlock(`${call.name} was not run: ${parseError}`);
    }
    const tool = getTool(call.name);
    if (!tool) {
      const offered = this.services.tools().map((definition) => definition.name);
      return errorBlock(`There is no tool named "${call.name}". The tools you can use are: ${offered.join(', ')}.`);
    }
    const key = actionKey(call.name, call.input);
    const attempt = checkAttempt(this.state.failures, key);
    if (!attempt.allowed) return errorBlock(attempt.message);

    // A call asked again after a restart keeps its step (its intent is already written).
    const existing = this.reissued.get(call.id);
    this.reissued.delete(call.id);
    const step =
      existing ?? this.beginStep({ kind: 'tool_call', tool: call.name, call_id: call.id, input: call.input });
    const input = call.input as Record<string, unknown>;
    this.emit('run.step', {
      run_id: this.runId,
      step,
      kind: 'tool_call',
      phase: 'started',
      tool: call.name,
      call_id: call.id,
      input: redactForAudit(input, { maxStringLength: 500 }) as Record<string, unknown>,
    });
    const started = performance.now();
    let result = await this.callTool(call, input);
    // Tools that only read are tried again at once when the failure may be passing (seed §5.4);
    // a tool that changes something is never repeated behind the model's back.
    let attempts = 1;
    while (
      !result.ok &&
      tool.effect === 'read' &&
      TRANSIENT_CODES.includes(result.error.code) &&
      attempts < 3 &&
      this.interrupt === undefined
    ) {
      await abortableSleep(this.options.retryDelayMs * 2 ** (attempts - 1), this.runAbort.signal).catch(
        () => undefined,
      );
      if (this.interrupt !== undefined) break;
      attempts += 1;
      result = await this.callTool(call, input);
    }
    if (!result.ok && this.interrupt === 'stop') {
      this.services.runs.recordResult(this.runId, step, this.storable(result));
      throw new Interrupted('stop');
    }
    const verdict = recordOutcome(
      this.state.failures,
      key,
      result.ok ? { ok: true } : { ok: false, code: result.error.code, message: result.error.message, tool: call.name },
    );
    const stored = this.storable(result);
    this.emit('run.step', {
      run_id: this.runId,
      step,
      kind: 'tool_call',
      phase: 'finished',
      tool: call.name,
      call_id: call.id,
      ok: result.ok,
      duration_ms: Math.round(performance.now() - started),
      summary: summarise(result),
      ...(attempts > 1 ? { attempt: attempts } : {}),
      ...(result.ok ? {} : { error_code: result.error.code }),
      ...(!result.ok && result.error.translations ? { summary_translations: result.error.translations } : {}),
    });
    if (isUiAction(call.name)) pending.needsObservation = true;
    if (call.name === 'screenshot' && result.ok) pending.needsObservation = false;
    const block = this.intern(toToolResult(toOutcome(call, result), { readBlob: this.services.readBlob }));
    return {
      block: verdict.note ? withNote(block, verdict.note) : block,
      finished: { step, result: verdict.note ? { ...stored, note: verdict.note } : stored },
    };
  }

  /** The images of a result as references to the run's stored images (see RunImageStore). */
  private intern<B extends ToolResultBlock | TextBlock | ImageBlock>(block: B): B {
    return internImages(block, (image) => this.services.storeImage(this.runId, image));
  }

  private callTool(call: ToolUseBlock, input: Record<string, unknown>): Promise<ToolResult> {
    return this.callChokepoint({ name: call.name, input, call_id: call.id });
  }

  /** A tool call through the policy; at a shutdown the loop stops waiting for it (see stopAbort). */
  private async callChokepoint(request: ToolCallRequest): Promise<ToolResult> {
    const run = this.run;
    const call = this.services.callTool(request, {
      source: run.source ?? 'run',
      project: run.project,
      runId: this.runId,
      // A scheduled task's grant: the policy decides every call of the run with it (tighten only).
      ...(run.grant ? { grant: run.grant } : {}),
      cancel: this.stopAbort.signal,
    });
    const shutdown = this.runAbort.signal;
    if (shutdown.aborted && this.interrupt === 'shutdown') throw new Interrupted('shutdown');
    let onAbort: (() => void) | undefined;
    const abandoned = new Promise<never>((_, reject) => {
      onAbort = () => {
        if (this.interrupt === 'shutdown') reject(new Interrupted('shutdown'));
      };
      shutdown.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([call, abandoned]);
    } finally {
      if (onAbort) shutdown.removeEventListener('abort', onAbort);
    }
  }

  /** The step record keeps images as blob references: a run of 500 screenshots must not fill the database. */
  private storable(result: ToolResult): ToolResult {
    if (!result.ok || typeof result.output !== 'object' || result.output === null) return result;
    const output = result.output as Record<string, unknown>;
    const image = output.image;
    if (typeof image !== 'string' || image.startsWith('blob:')) return result;
    const mimeType = typeof output.format === 'string' && output.format === 'png' ? 'image/png' : 'image/jpeg';
    return { ...result, output: { ...output, image: this.services.putBlob(Buffer.from(image, 'base64'), mimeType) } };
  }

  /** Verify: after UI actions the model sees the screen — or is told it did not change. */
  private async observe(pending: PendingTurn): Promise<void> {
    this.ensureRunning();
    // Looking changes nothing: the step is written once, with what was seen.
    const step = this.reserveStep();
    this.emit('run.step', { run_id: this.runId, step, kind: 'observe', phase: 'started', tool: 'screenshot' });
    const result = await this.callChokepoint({ name: 'screenshot', input: {} });
    const blocks = observationBlocks(result, this.services.readBlob);
    this.emit('run.step', {
      run_id: this.runId,
      step,
      kind: 'observe',
      phase: 'finished',
      tool: 'screenshot',
      ok: result.ok,
      summary: blocks.summary,
    });
    pending.needsObservation = false;
    pending.observation = blocks.content.map((block) => this.intern(block));
    this.commit({ step, intent: { kind: 'observe', tool: 'screenshot' }, result: this.storable(result) });
  }

  private commitPending(): void {
    const pending = this.state.pending;
    if (!pending) return;
    const content: (TextBlock | ImageBlock | ToolResultBlock)[] = [...pending.results, ...(pending.observation ?? [])];
    this.state.messages.push({ role: 'user', content });
    this.state.pending = undefined;
    this.state.messages = retainRecentImages(this.state.messages, this.options.keepImages);
    // Not saved here: the next model call saves it with its own step. Until then, the saved
    // state still has this turn pending with every result, and committing it again gives this.
    this.services.dropImagesExcept(this.runId, this.state.messages);
  }

  // -------------------------------------------------------------------------------------------
  // Asking the person

  private async askWhenStuck(): Promise<void> {
    const existing = this.state.openQuestionId;
    let questionId = existing;
    let step: number;
    if (questionId === undefined) {
      const text = stuckQuestion(this.state.failures);
      const { question } = this.services.questions.ask({ runId: this.runId, kind: 'stuck', question: text });
      questionId = question.id;
      step = this.beginStep({ kind: 'ask', question_id: question.id });
      this.state.openQuestionId = question.id;
      this.checkpoint();
      this.emit('run.question', {
        run_id: this.runId,
        question_id: question.id,
        kind: 'stuck',
        question: text,
        options: [],
      });
    } else {
      step =
        this.services.runs.stepsWithoutResult(this.runId).find((candidate) => candidate.intent.question_id === existing)
          ?.step ?? this.beginStep({ kind: 'ask', question_id: existing });
    }
    if (this.services.questions.get(questionId).answer === null) this.transition('waiting_user');
    const answer = await this.services.questions.wait(questionId, this.runAbort.signal).catch((error: unknown) => {
      this.throwIfInterrupted();
      throw error;
    });
    this.services.runs.recordResult(this.runId, step, { answer });
    resetAfterEscalation(this.state.failures);
    this.state.openQuestionId = undefined;
    this.state.notes.push(`The person answered your request for help: ${answer}`);
    this.ensureRunning();
    this.checkpoint();
  }

  // -------------------------------------------------------------------------------------------

  private finish(text: string, step: FinishedStep): void {
    const answer = text.trim();
    this.services.runs.atomically(() => {
      this.services.runs.recordStep(this.runId, step.step, step.intent ?? { kind: 'model_call' }, step.result);
      this.services.runs.setResult(this.runId, answer);
      this.checkpoint();
    });
    this.services.recordAnswer(this.run, answer);
    this.transition('finished');
  }
}

function toOutcome(call: ToolUseBlock, result: ToolResult): ToolOutcome {
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

function withNote(block: ToolResultBlock, note: string): ToolResultBlock {
  return { ...block, content: [...block.content, { type: 'text', text: note }] };
}

/** Results in the order the model asked for the calls (providers require it for parallel calls). */
function sortResults(pending: PendingTurn): void {
  const order = new Map(pending.calls.map((call, index) => [call.id, index]));
  pending.results.sort((a, b) => (order.get(a.toolUseId) ?? 0) - (order.get(b.toolUseId) ?? 0));
}

/** One line for progress displays. */
function summarise(result: ToolResult): string {
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
