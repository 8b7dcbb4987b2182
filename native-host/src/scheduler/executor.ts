import type { Localized, ScheduleOutcome } from '@nextai/shared';

import type { ScheduleRunRecord, ScheduleTask, StepRecord } from './schedule-store.js';

/** How one run of a task ended. */
export interface ExecutionResult {
  outcome: Exclude<ScheduleOutcome, 'skipped' | 'crashed' | 'interrupted'>;
  /** How it went, in every language (the panel shows the person's). */
  summary: Localized;
  costUsd: number;
  errorCode?: string | undefined;
}

export interface ExecutionContext {
  run: ScheduleRunRecord;
  /** What the run may still spend today (the task's daily cap minus what it spent), in US dollars. */
  budgetUsd: number;
  /** Aborted when the run must stop (its wall-time limit, the daemon stopping). */
  signal: AbortSignal;
  /**
   * A retry of a fixed-step run: the steps the earlier attempt finished, carried over and not done
   * again (see steps-resume.ts). Absent for a first attempt and for agent runs.
   */
  resume?: { carried: StepRecord[] } | undefined;
  /** The run waits for the person (an approval, a question) or goes on again. */
  onState(state: 'running' | 'waiting_approval' | 'waiting_user', detail?: string): void;
  /** A fixed-step run's steps, written before and after each call. */
  onSteps(steps: StepRecord[]): void;
  /** The agent run behind this one, once it exists. */
  onAgentRun(runId: string): void;
  /** Money spent so far (an agent run reports it after each model call). */
  onCost(costUsd: number): void;
}

export interface Execution {
  /** Settles when the run has ended; never rejects (a failure is a result). */
  done: Promise<ExecutionResult>;
  /** Stops the run (a person, a wall-time limit); `done` then settles. */
  cancel(reason: string): void;
}

/**
 * Runs a task: every step and every agent run goes through the daemon's tool gateway and run
 * machinery, so the policy, approvals and audit apply exactly as to anything else.
 */
export interface TaskExecutor {
  start(task: ScheduleTask, context: ExecutionContext): Execution;
  /** Follows an agent run that was going when the daemon last stopped (it resumes on its own). */
  reattach(task: ScheduleTask, runId: string, context: ExecutionContext): Execution;
  /** Ends an agent run that will not be followed any more (its task crashed the daemon too often). */
  abandon(runId: string, reason: string): Promise<void>;
}
