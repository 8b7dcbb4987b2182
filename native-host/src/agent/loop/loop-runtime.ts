import type { AppError, EventData, EventType, ToolResult } from '@nextai/shared';

import type { Logger } from '../../core/logger.js';
import type { CallContext, ToolCallRequest } from '../../gateway/tool-gateway.js';
import type { ReadBlob } from '../context.js';
import type { ModelPrice } from '../pricing.js';
import type {
  ImageBlock,
  Message,
  ModelProvider,
  TextBlock,
  ToolDefinition,
  ToolResultBlock,
} from '../providers/types.js';
import type { QuestionStore } from '../question-store.js';
import { internImages } from '../run-images.js';
import { transitionRun, type RunEvents } from '../run-transition.js';
import type { RunError, RunRecord, RunState, RunStore, StepIntent } from '../run-store.js';
import { addUsage, emitUsage, type CountedUsage } from './limits.js';
import type { LoopState } from './loop-state.js';

/** The model a run talks to, chosen when the loop starts (the config may change between runs). */
export interface ModelChoice {
  provider: ModelProvider;
  model: string;
  /** Undefined when the model's price is not known. */
  price: ModelPrice | undefined;
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
  /** Holds for the run every `blob:` reference in a step's result, before the result is written. */
  holdBlobs(runId: string, value: unknown): void;
  /** The run's conversation images by reference, held by the run (RunImages.put / resolve). */
  storeImage(runId: string, image: ImageBlock): ImageBlock;
  resolveImages(messages: Message[]): Message[];
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
  /** Pause before asking again for an answer that broke off; doubled each time. */
  modelRetryDelayMs: number;
}

export const DEFAULT_OPTIONS: LoopOptions = {
  keepImages: 3,
  contextBudgetTokens: 120_000,
  maxOutputTokens: 8192,
  retryDelayMs: 250,
  modelRetryDelayMs: 1000,
};

/** A step to write once it is done: with its intent too when that was not written before acting. */
export interface FinishedStep {
  step: number;
  intent?: StepIntent;
  result: unknown;
  /** A model call's usage, added to the run's totals in the step's own write. */
  usage?: CountedUsage;
}

/** Why the loop was asked to stop driving. */
export type Interrupt = 'pause' | 'stop' | 'shutdown';

export class Interrupted extends Error {
  constructor(readonly kind: Interrupt) {
    super(`run ${kind}`);
  }
}

/** An error as the run record keeps it: translations only when the error has them. */
export function toRunError({ code, message, translations }: AppError): RunError {
  return translations ? { code, message, translations } : { code, message };
}

/**
 * What the parts of one run's loop share: the run's loop state, its step log and checkpoint,
 * its events, and the signals that interrupt it. The lifecycle (RunLoop) owns it; recovering,
 * thinking, acting and asking work through it.
 */
export class LoopRuntime {
  readonly options: LoopOptions;
  /** Aborted to stop or shut down: ends the model call and the tool call in progress. */
  readonly runAbort = new AbortController();
  /**
   * Aborted only to stop the run: tool calls get this one. At a shutdown a call is abandoned
   * rather than cancelled, so its approval request stays pending for the next start and an
   * action cut short is "outcome unknown" then, not a failure recorded now.
   */
  readonly stopAbort = new AbortController();
  /** Aborted to restart the current model call (a steer arrived) or to pause. */
  turnAbort = new AbortController();
  interrupt: Interrupt | undefined;
  /**
   * The daemon is stopping gracefully (RunLoop.drain) and the loop has not been shut down: the
   * action in progress goes on to its end — a read-only tool's automatic retries included — and
   * the loop stops before its next step.
   */
  draining = false;
  /** Set when the loop starts (restored from the checkpoint or fresh); undefined before. */
  state!: LoopState;

  constructor(
    readonly runId: string,
    readonly services: LoopServices,
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...services.options };
  }

  get run(): RunRecord {
    return this.services.runs.get(this.runId);
  }

  emit<T extends EventType>(type: T, data: EventData<T>): void {
    this.services.events.append(type, data);
  }

  transition(to: RunState, extra: { reason?: string; error?: RunError } = {}): void {
    transitionRun(this.services.runs, this.services.events, this.runId, to, extra);
  }

  checkpoint(): void {
    this.services.runs.checkpoint(this.runId, Math.max(0, this.state.nextStep - 1), this.state);
  }

  /** A finished step (intent included when it was not written before acting) and the checkpoint, in one transaction. */
  commit(step: FinishedStep, also?: () => void): void {
    this.services.runs.atomically(() => {
      if (step.intent) this.services.runs.recordStep(this.runId, step.step, step.intent, step.result);
      else this.services.runs.recordResult(this.runId, step.step, step.result);
      if (step.usage) addUsage(this, step.usage, step.usage.turns ?? 1);
      also?.();
      this.checkpoint();
    });
    if (step.usage) emitUsage(this);
  }

  /** A step number for an action whose intent is written only with its result. */
  reserveStep(): number {
    const step = this.state.nextStep;
    this.state.nextStep += 1;
    return step;
  }

  /** A step whose intent is written now, before acting. */
  beginStep(intent: StepIntent): number {
    this.ensureRunning();
    const step = this.state.nextStep;
    this.state.nextStep += 1;
    this.services.runs.recordIntent(this.runId, step, intent);
    return step;
  }

  /** The signal of a model call: aborted by a stop, a shutdown, a pause or a steer. */
  modelSignal(): AbortSignal {
    return AbortSignal.any([this.runAbort.signal, this.turnAbort.signal]);
  }

  /** True once a steer (or a pause) has cut the current model call short. */
  get turnCut(): boolean {
    return this.turnAbort.signal.aborted;
  }

  throwIfInterrupted(): void {
    if (this.interrupt !== undefined) throw new Interrupted(this.interrupt);
  }

  /** New steps need a running run; a run that waited and is no longer waiting for anything runs again. */
  ensureRunning(): void {
    const state = this.run.state;
    if (state === 'queued' || state === 'waiting_approval' || state === 'waiting_user' || state === 'paused') {
      this.transition('running');
    }
  }

  /** The images of a result as references to the run's stored images (see RunImages). */
  intern<B extends ToolResultBlock | TextBlock | ImageBlock>(block: B): B {
    return internImages(block, (image) => this.services.storeImage(this.runId, image));
  }
}
