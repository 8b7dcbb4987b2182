import type { ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock } from '../providers/types.js';
import { emptyFailureState, type FailureState } from './failure-tracker.js';

/**
 * Everything the loop needs to carry on after a crash, saved as the run's checkpoint after every
 * step. The conversation holds at most a few screenshots as images (older ones are text), so a
 * checkpoint stays small.
 */
export interface LoopState {
  version: 1;
  /** The next step number to use (model calls, tool calls and observations share one sequence). */
  nextStep: number;
  /** Model turns taken. */
  turns: number;
  /** The conversation the model has seen, plus the last turn once it is committed. */
  messages: Message[];
  /**
   * The last model turn's tool calls while they execute: `results` holds the finished ones, in
   * the order of `calls`. Committed into `messages` as one user message when all are done.
   */
  pending?: PendingTurn | undefined;
  /** Text for the model's next turn that is not a tool result: steers, the person's answers. */
  notes: string[];
  failures: FailureState;
  /** The "stuck" question the loop is waiting on, so a restart waits for the same one. */
  openQuestionId?: string | undefined;
  /**
   * The model's context window filled up: `summarise` before the next turn, whatever the
   * conversation's estimated size; `summarised` once that was done — a turn that fills it again
   * then ends the run. Cleared by any other turn.
   */
  contextFull?: 'summarise' | 'summarised' | undefined;
}

export interface PendingTurn {
  calls: ToolUseBlock[];
  /** Tool calls whose arguments were not valid JSON, by id: answered with an error, never run. */
  parseErrors: Record<string, string>;
  results: ToolResultBlock[];
  /** A UI action ran, and no screenshot was taken after it: observe before the next turn. */
  needsObservation: boolean;
  /** What the loop's own look at the screen showed, after the results. */
  observation?: (TextBlock | ImageBlock)[] | undefined;
}

export function initialLoopState(messages: Message[]): LoopState {
  return { version: 1, nextStep: 1, turns: 0, messages, notes: [], failures: emptyFailureState() };
}

/** A checkpoint from an older or foreign shape is not trusted. */
export function isLoopState(value: unknown): value is LoopState {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<LoopState>;
  return candidate.version === 1 && Array.isArray(candidate.messages) && typeof candidate.nextStep === 'number';
}
