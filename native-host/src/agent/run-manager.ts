import {
  AppError,
  DEFAULT_RUN_LIMITS,
  ENDED_RUN_STATES,
  say,
  toInputJsonSchema,
  type AnyTool,
  type DaemonEvent,
  type GrantedToolSet,
  type RunLimits,
  type RunView,
  type ToolResult,
} from '@nextai/shared';

import type { Db } from '../storage/database.js';
import type { ImageStore } from '../storage/image-store.js';
import { storageHealth, type StorageHealth } from '../storage/storage-health.js';
import type { CallContext, ToolCallRequest } from '../gateway/tool-gateway.js';
import type { Logger } from '../core/logger.js';
import type { ToolContext } from '../tools/types.js';
import { cacheAndReasoning } from './loop/limits.js';
import { initialLoopState, isLoopState } from './loop/loop-state.js';
import { RunLoop, type LoopOptions, type ModelChoice } from './loop/run-loop.js';
import type { Message } from './providers/types.js';
import { QuestionStore } from './question-store.js';
import { RunImages } from './run-images.js';
import { RunStore, type RunError, type RunRecord } from './run-store.js';
import { settleRun, transitionRun, waitsForStorage, type RunEvents, type RunOutcome } from './run-transition.js';
import { SessionStore, type SessionRecord } from './session-store.js';

export interface RunManagerOptions {
  db: Db;
  events: RunEvents & { subscribe(listener: (event: DaemonEvent) => void): () => void };
  /** The policy chokepoint. */
  callTool(request: ToolCallRequest, context: CallContext): Promise<ToolResult>;
  /** Tools that can run now (host tools with a handler, browser tools with a browser connected). */
  availableTools(): AnyTool[];
  /** Chooses the model from config.json and the environment; throws a clear AppError when none is set up. */
  model(): ModelChoice;
  /** The project id for a name (the default project when undefined); throws for an unknown one. */
  projectId(name: string | undefined): string;
  approvals: {
    statusForRunCall(runId: string, callId: string): string | undefined;
    pendingForRun(runId: string): string[];
    get(id: string): { run_id: string | null };
  };
  /** The one image store: what tools return by reference, and the images runs hold. */
  images: ImageStore;
  systemPrompt(run: RunRecord): string;
  /** The emergency stop's latched state: while it is on, no run starts or resumes. */
  emergency?: () => { active: boolean; reason?: string | undefined };
  log: Logger;
  loopOptions?: Partial<LoopOptions>;
  clock?: () => Date;
  /** How often the watchdog looks for runs to resume (runs that waited for the database, runs without their loop). */
  watchdogMs?: number;
}

const WATCHDOG_MS = 5000;
/** States of a run whose loop waits for a person: an answer to its question, or an approval. */
const WAITS_FOR_PERSON: ReadonlySet<string> = new Set(['waiting_user', 'waiting_approval']);
/** The longest the watchdog waits between two restarts of the same run. */
const MAX_RESTART_BACKOFF_MS = 5 * 60 * 1000;

/** Earlier messages of a session shown to the model when a run continues it. */
const HISTORY_MESSAGES = 20;
const HISTORY_CHARS = 40_000;

/**
 * Agent runs in the daemon: starts them, drives each with a RunLoop, answers the controls
 * (pause, resume, stop, steer, answer), parks a run while it waits for an approval, and resumes
 * unfinished runs after a restart. Sessions hold the chat the runs belong to.
 *
 * The database failing to write is a condition, not a run's failure: a loop that meets it ends
 * and its run is paused with the reason (STORAGE_ERROR); a state that cannot even be written is
 * kept here, shown in views, and written later. A watchdog — every few seconds, and whenever a
 * write works again — writes what waited, resumes the runs that waited for the database, and
 * resumes any run it drove that is left unfinished without its loop.
 */
export class RunManager {
  readonly runs: RunStore;
  readonly sessions: SessionStore;
  readonly questions: QuestionStore;
  readonly images: RunImages;
  private readonly loops = new Map<string, RunLoop>();
  private readonly definitionCache = new Map<
    string,
    { name: string; description: string; inputSchema: Record<string, unknown> }
  >();
  private readonly unsubscribe: () => void;
  private closed = false;
  /** A graceful stop has begun (see drain): nothing starts or resumes, loops wind down. */
  private draining = false;
  private readonly health: StorageHealth;
  /** States of runs that could not be written (the database could not be): kept until they can be. */
  private readonly unrecorded = new Map<string, RunOutcome>();
  /** Runs this manager drove and that have not ended: one of them without its loop is resumed. */
  private readonly driven = new Set<string>();
  /** The watchdog's restarts of each run, for its back-off. */
  private readonly restarts = new Map<string, { count: number; at: number }>();
  private readonly watchdogMs: number;
  private readonly watchdog: ReturnType<typeof setInterval>;
  private readonly stopFollowingHealth: () => void;

  constructor(private readonly options: RunManagerOptions) {
    const clock = options.clock ?? (() => new Date());
    this.runs = new RunStore(options.db, clock);
    this.sessions = new SessionStore(options.db, clock);
    this.questions = new QuestionStore(options.db, clock);
    this.images = new RunImages(options.images);
    // Deferred: the listener runs inside EventLog.append, and a transition appends an event itself.
    this.unsubscribe = options.events.subscribe((event) => {
      if (event.type === 'approval.requested' || event.type === 'approval.answered') {
        queueMicrotask(() => this.onApprovalEvent(event));
      }
      if (event.type === 'run.state') {
        const { run_id, state } = event.data as { run_id: string; state: string };
        if ((ENDED_RUN_STATES as readonly string[]).includes(state)) {
          this.driven.delete(run_id);
          this.restarts.delete(run_id);
        }
        // While the daemon drains, a run that begins to wait for a person has nothing to finish.
        if (this.draining && WAITS_FOR_PERSON.has(state)) queueMicrotask(() => this.loops.get(run_id)?.shutdown());
      }
    });
    this.health = storageHealth(options.db);
    this.stopFollowingHealth = this.health.onRecovered(() => this.watch());
    this.watchdogMs = options.watchdogMs ?? WATCHDOG_MS;
    this.watchdog = setInterval(() => this.watch(), this.watchdogMs);
    this.watchdog.unref();
  }

  // -------------------------------------------------------------------------------------------
  // Runs

  start(
    input: {
      goal: string;
      project?: string | undefined;
      sessionId?: string | undefined;
      limits?: RunLimits | undefined;
      /** What the run may use (a scheduled task's grant); it can only tighten the project's policy. */
      grant?: GrantedToolSet | undefined;
      /** Who starts it when not a person: "schedule", "heartbeat" (audit records and approvals show it). */
      source?: string | undefined;
    },
    by: string,
  ): RunView {
    const goal = input.goal.trim();
    if (goal === '') throw new AppError('INVALID_ARGUMENT', 'A run needs a goal: say what the agent should do.');
    this.refuseDuringEmergency('started');
    this.refuseWhileStopping();
    let session: SessionRecord | undefined =
      input.sessionId === undefined ? undefined : this.sessions.get(input.sessionId);
    const project = this.options.projectId(input.project ?? session?.project);
    // Fail now, with the reason, rather than start a run that cannot think.
    this.options.model();
    const history = session ? this.history(session.id) : [];
    session ??= this.sessions.create({ title: titleFor(goal), project });
    if (input.sessionId === undefined)
      this.options.events.append('session.changed', { session_id: session.id, change: 'created' });
    const limits = { ...DEFAULT_RUN_LIMITS, ...stripUndefined(input.limits ?? {}) };
    const run = this.runs.create({
      goal,
      project,
      sessionId: session.id,
      limits,
      ...(input.grant ? { grant: input.grant } : {}),
      ...(input.source ? { source: input.source } : {}),
    });
    this.sessions.appendMessage(session.id, 'user', { text: goal, run_id: run.id, by });
    this.options.events.append('session.changed', { session_id: session.id, change: 'message' });
    this.runs.checkpoint(
      run.id,
      0,
      initialLoopState([...history, { role: 'user', content: [{ type: 'text', text: goal }] }]),
    );
    this.options.events.append('run.state', { run_id: run.id, state: 'queued' });
    this.launch(run.id);
    return this.view(run.id);
  }

  view(id: string): RunView {
    return this.toView(this.runs.get(id));
  }

  list(filter: { state?: RunView['state'] | 'active'; sessionId?: string; limit?: number }): RunView[] {
    const records =
      filter.state === 'active'
        ? this.runs
            .unfinishedRuns()
            .slice(-(filter.limit ?? 50))
            .reverse()
        : this.runs.list({
            ...(filter.state !== undefined ? { state: filter.state } : {}),
            ...(filter.sessionId !== undefined ? { sessionId: filter.sessionId } : {}),
            limit: filter.limit ?? 50,
          });
    // A state kept in memory (not written yet) is the one shown, and filtered on.
    const state = filter.state;
    if (state !== undefined && state !== 'active' && this.unrecorded.size > 0) {
      for (const [id, outcome] of this.unrecorded) {
        if (outcome.to !== state || records.some((run) => run.id === id)) continue;
        const run = this.runs.get(id);
        if (filter.sessionId === undefined || run.sessionId === filter.sessionId) records.push(run);
      }
      records.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      records.splice(filter.limit ?? 50);
    }
    return records
      .map((run) => this.toView(run))
      .filter((view) =>
        state === undefined
          ? true
          : state === 'active'
            ? !(ENDED_RUN_STATES as readonly string[]).includes(view.state)
            : view.state === state,
      );
  }

  /** A run's steps, all of them or those numbered `from` and up. */
  steps(id: string, from = 0) {
    return this.runs.steps(id, from).map((step) => ({
      step: step.step,
      kind: step.kind,
      intent: step.intent,
      result: step.result,
      intent_at: step.intentAt,
      result_at: step.resultAt,
    }));
  }

  pause(id: string): RunView {
    const run = this.unfinished(id, 'paused');
    const loop = this.loops.get(id);
    if (loop) {
      if (run.state !== 'paused') loop.pause();
    } else if (run.state !== 'paused' || waitsForStorage(run)) {
      // A run that waited for the database now waits for the person.
      this.settle(id, { to: 'paused', reason: 'paused by the person' });
    }
    return this.view(id);
  }

  /** Pauses every run in progress (the emergency stop): they wait for the person to resume them. */
  pauseAll(reason: string): void {
    for (const loop of this.loops.values()) loop.pause();
    // Runs waiting for the database wait for the person too: nothing resumes them by itself now.
    try {
      for (const [id, outcome] of this.unrecorded) {
        if (outcome.to === 'paused') this.unrecorded.set(id, { to: 'paused', reason });
      }
      for (const run of this.runs.unfinishedRuns()) {
        if (waitsForStorage(run) && !this.loops.has(run.id)) this.settle(run.id, { to: 'paused', reason });
      }
    } catch (error) {
      this.options.log.warn('could not hold the runs that wait for the database', { error: (error as Error).message });
    }
    this.options.log.info('paused every run', { reason, runs: this.loops.size });
  }

  resume(id: string): RunView {
    const run = this.unfinished(id, 'resumed');
    if (this.loops.has(id)) return this.toView(run);
    this.refuseDuringEmergency('resumed');
    this.refuseWhileStopping();
    // What could not be written is written first (STORAGE_ERROR to the person while it still cannot be).
    this.writeUnrecorded(id);
    if (this.runs.get(id).state === 'paused') {
      transitionRun(this.runs, this.options.events, id, 'running', { reason: 'resumed' });
    }
    this.launch(id);
    return this.view(id);
  }

  async stop(id: string, reason: string): Promise<RunView> {
    const run = this.toRecordView(this.runs.get(id));
    if (run.state === 'stopped') return this.toView(run);
    this.unfinished(id, 'stopped');
    const loop = this.loops.get(id);
    if (loop) {
      loop.stop(reason);
      await withTimeout(loop.done, 5000);
    } else {
      // Kept in memory and written later when the database cannot be written now: a stop is never lost.
      this.settle(id, { to: 'stopped', reason });
    }
    return this.view(id);
  }

  steer(id: string, text: string, by: string): RunView {
    const run = this.unfinished(id, 'steered');
    const loop = this.loops.get(id);
    if (loop) {
      loop.steer(text);
    } else {
      // A paused run: the instruction waits in its checkpoint for the next turn.
      const checkpoint = this.runs.latestCheckpoint(id);
      if (checkpoint && isLoopState(checkpoint.state)) {
        checkpoint.state.notes.push(`The person adds an instruction while you work: ${text}`);
        this.runs.checkpoint(id, checkpoint.step, checkpoint.state);
      }
    }
    this.recordSessionMessage(run, 'user', { text, run_id: id, steer: true, by });
    this.options.events.append('run.steered', { run_id: id, text, by });
    return this.view(id);
  }

  /** Answers the question the run waits on (ask_user, or the loop asking for help). */
  answer(id: string, text: string, by: string): RunView {
    const run = this.unfinished(id, 'answered');
    const question = this.questions.answer(id, text, by);
    this.options.events.append('run.answered', { run_id: id, question_id: question.id, by });
    this.recordSessionMessage(run, 'user', { text, run_id: id, answer_to: question.question, by });
    if (this.runs.get(id).state === 'waiting_user') {
      transitionRun(this.runs, this.options.events, id, 'running', { reason: 'the person answered' });
    }
    if (!this.loops.has(id) && this.runs.get(id).state !== 'paused') this.launch(id);
    return this.view(id);
  }

  /** After a restart: every run that had not ended carries on from its last checkpoint (paused ones wait). */
  resumeUnfinished(): string[] {
    const resumed: string[] = [];
    if (this.options.emergency?.().active) {
      // They wait for the person: `nextai runs resume <id>` after the stop is reset.
      this.options.log.info('the emergency stop is on: unfinished runs are not resumed');
      return resumed;
    }
    for (const run of this.runs.unfinishedRuns()) {
      // A state not written yet (a run held by holdUnfinished while writes failed) holds it too.
      if (this.loops.has(run.id) || this.unrecorded.has(run.id)) continue;
      // Paused by the person: it waits for them. Paused for the database: it goes on.
      if (run.state === 'paused' && !waitsForStorage(run)) continue;
      if (run.state === 'paused') {
        try {
          transitionRun(this.runs, this.options.events, run.id, 'running', { reason: 'the daemon started again' });
        } catch (error) {
          // Still not writable: the watchdog resumes it once it is.
          if (!this.health.noteFailure(error)) throw error;
          continue;
        }
      }
      this.launch(run.id);
      resumed.push(run.id);
    }
    if (resumed.length > 0) this.options.log.info('resuming unfinished runs', { runs: resumed });
    return resumed;
  }

  /**
   * The database was replaced while the previous daemon ran (a backup restored): the runs in it are
   * back at an earlier checkpoint, and what they did after it may have happened already. So none
   * goes on by itself: each run that would (queued, running, waiting for the database) is paused
   * with `why`, for the person to look and resume it. Runs waiting for the person stay so (their
   * answer is the person's act); resumeUnfinished() after this starts only those.
   */
  holdUnfinished(why: RunError): string[] {
    const held: string[] = [];
    for (const run of this.runs.unfinishedRuns()) {
      if (this.loops.has(run.id) || run.state === 'waiting_user' || run.state === 'waiting_approval') continue;
      if (run.state === 'paused' && !waitsForStorage(run)) continue;
      this.settle(run.id, { to: 'paused', reason: why.message, error: why });
      held.push(run.id);
    }
    if (held.length > 0)
      this.options.log.warn('the database was replaced: unfinished runs wait for the person', { runs: held });
    return held;
  }

  /**
   * A graceful stop begins: no run starts or resumes from now on, and the watchdog restarts none.
   * Each loop finishes the tool call it is executing and stops before its next step (RunLoop.drain);
   * a loop that waits for a person stops now — there is nothing to finish, and its question or
   * approval request waits for the next start. shutdown() ends what is left.
   */
  drain(): void {
    if (this.draining || this.closed) return;
    this.draining = true;
    clearInterval(this.watchdog);
    for (const [id, loop] of this.loops) {
      if (this.waitsForPerson(id)) loop.shutdown();
      else loop.drain();
    }
  }

  /** Whether a run's loop goes on: it has one, and it does not wait for a person. */
  goesOn(runId: string): boolean {
    return this.loops.has(runId) && !this.waitsForPerson(runId);
  }

  /** Loops that have not ended. */
  get loopsRunning(): number {
    return this.loops.size;
  }

  /** Settles when one of the loops running now ends (at once when there is none). */
  loopEnded(): Promise<void> {
    const loops = [...this.loops.values()];
    if (loops.length === 0) return Promise.resolve();
    return Promise.race(loops.map((loop) => loop.done.catch(() => undefined)));
  }

  /** The daemon is stopping: loops stop driving and leave their runs to be resumed at the next start. */
  async shutdown(graceMs = 3000): Promise<void> {
    this.closed = true;
    this.unsubscribe();
    clearInterval(this.watchdog);
    this.stopFollowingHealth();
    const loops = [...this.loops.values()];
    for (const loop of loops) loop.shutdown();
    await withTimeout(Promise.allSettled(loops.map((loop) => loop.done)), graceMs);
  }

  // -------------------------------------------------------------------------------------------
  // Tools that belong to runs

  /** `ask_user`: the run waits in waiting_user until the person answers (from any client). */
  async askUser(
    input: { question: string; options?: string[] | undefined },
    context: ToolContext,
  ): Promise<{ answer: string }> {
    const runId = context.runId;
    if (runId === undefined) {
      throw new AppError(
        'INVALID_ARGUMENT',
        'ask_user works inside an agent run (start one with `nextai run "<goal>"`); there is nobody to ask here.',
      );
    }
    const { question, created } = this.questions.ask({
      runId,
      callId: context.callId,
      kind: 'ask_user',
      question: input.question,
      options: input.options,
    });
    if (question.answer !== null) return { answer: question.answer };
    if (created) {
      this.options.events.append('run.question', {
        run_id: runId,
        question_id: question.id,
        kind: 'ask_user',
        question: question.question,
        options: question.options,
      });
    }
    if (this.runs.get(runId).state === 'running') {
      transitionRun(this.runs, this.options.events, runId, 'waiting_user', { reason: 'asked the person' });
    }
    return { answer: await this.questions.wait(question.id, context.signal) };
  }

  /** `todo_write`: the plan is echoed to the model and shown to the person. */
  todoWrite(
    input: { items: { id: string; content: string; status: 'pending' | 'in_progress' | 'completed' }[] },
    context: ToolContext,
  ): { items: typeof input.items } {
    if (context.runId !== undefined) {
      this.options.events.append('run.todo', { run_id: context.runId, items: input.items });
    }
    return { items: input.items };
  }

  /** What the model is offered: the available tools with their JSON Schemas (computed once per tool). */
  toolDefinitions(
    grant?: GrantedToolSet | null,
  ): { name: string; description: string; inputSchema: Record<string, unknown> }[] {
    // A run with a grant is offered only the granted tools: the rest would be refused anyway.
    const tools = grant
      ? this.options.availableTools().filter((tool) => grant.tools.includes(tool.name))
      : this.options.availableTools();
    return tools.map((tool) => {
      let definition = this.definitionCache.get(tool.name);
      if (!definition) {
        definition = { name: tool.name, description: tool.description, inputSchema: toInputJsonSchema(tool) };
        this.definitionCache.set(tool.name, definition);
      }
      return definition;
    });
  }

  // -------------------------------------------------------------------------------------------

  private launch(id: string): void {
    if (this.closed || this.draining) return;
    const loop = new RunLoop(id, {
      runs: this.runs,
      questions: this.questions,
      events: this.options.events,
      callTool: (request, context) => this.options.callTool(request, context),
      tools: () => this.toolDefinitions(this.runs.get(id).grant),
      model: () => this.options.model(),
      systemPrompt: (run) => this.options.systemPrompt(run),
      readBlob: (reference) => this.options.images.get(reference),
      putBlob: (data, mimeType) => this.options.images.put(data, mimeType),
      holdBlobs: (runId, value) => this.images.holdReferences(runId, value),
      storeImage: (runId, image) => this.images.put(runId, image),
      resolveImages: (messages) => this.images.resolve(messages),
      approvalStatus: (runId, callId) => this.options.approvals.statusForRunCall(runId, callId),
      recordAnswer: (run, text) => this.recordSessionMessage(run, 'assistant', { text, run_id: run.id }),
      log: this.options.log,
      ...(this.options.loopOptions ? { options: this.options.loopOptions } : {}),
    });
    this.loops.set(id, loop);
    this.driven.add(id);
    void loop.done.finally(() => {
      if (this.loops.get(id) === loop) this.loops.delete(id);
      const trouble = loop.storageTrouble;
      if (trouble) {
        if (trouble.unrecorded) this.unrecorded.set(id, trouble.unrecorded);
        // The health tries writing again from now on; the watchdog hears when it works.
        this.health.noteFailure(trouble.error);
      }
    });
    loop.start();
  }

  /**
   * The watchdog. When the database could not be written, it first checks that it can be now;
   * then it writes the run states that waited in memory, resumes the runs that waited for the
   * database, and resumes any run this manager drove that is unfinished without its loop (its loop
   * died without recording why) — each run again only after a growing pause, so a run that keeps
   * failing does not spin. Nothing resumes while the emergency stop is on.
   */
  private watch(): void {
    if (this.closed || this.draining) return;
    try {
      if (this.health.failing || this.unrecorded.size > 0) {
        if (!this.health.probe()) return;
      }
      for (const id of [...this.unrecorded.keys()]) {
        try {
          this.writeUnrecorded(id);
        } catch (error) {
          if (this.health.noteFailure(error)) return;
          this.options.log.error('could not record the state a run was left in; it is dropped', {
            run_id: id,
            error: (error as Error).message,
          });
          this.unrecorded.delete(id);
        }
      }
      if (this.options.emergency?.().active) return;
      // A monotonic clock: the back-off between restarts holds when the wall clock is set.
      const now = performance.now();
      for (const run of this.runs.unfinishedRuns()) {
        if (this.loops.has(run.id)) continue;
        const storage = waitsForStorage(run);
        if (!storage && (run.state === 'paused' || !this.driven.has(run.id))) continue;
        if (!this.mayRestart(run.id, now)) continue;
        if (storage) {
          transitionRun(this.runs, this.options.events, run.id, 'running', {
            reason: 'the database can be written again',
          });
          this.options.log.info('a run that waited for the database goes on', { run_id: run.id });
        } else {
          this.options.log.warn('a run was left unfinished without its loop; resuming it', {
            run_id: run.id,
            state: run.state,
          });
        }
        this.launch(run.id);
      }
    } catch (error) {
      if (!this.health.noteFailure(error)) {
        this.options.log.error('the run watchdog failed', { error: (error as Error).message });
      }
    }
  }

  /** Whether the watchdog may restart a run now: at once the first time, then after 1, 2, 4… watchdog periods. */
  private mayRestart(id: string, now: number): boolean {
    const last = this.restarts.get(id);
    // A run that went well for a long while starts over with no back-off.
    const count = last && now - last.at < MAX_RESTART_BACKOFF_MS * 2 ? last.count : 0;
    if (last && count > 0) {
      const wait = Math.min(this.watchdogMs * 2 ** (count - 1), MAX_RESTART_BACKOFF_MS);
      if (now - last.at < wait) return false;
    }
    this.restarts.set(id, { count: count + 1, at: now });
    return true;
  }

  /**
   * Moves a run that has no loop to `outcome` — or, when the database cannot be written, keeps it
   * in memory (shown in views) to be written once it can be.
   */
  private settle(id: string, outcome: RunOutcome): void {
    // Not tried while writes fail: a lock another process holds would stall the daemon for the
    // busy timeout at every try. The watchdog writes it once writing works.
    if (!this.health.failing) {
      try {
        settleRun(this.runs, this.options.events, id, outcome);
        this.unrecorded.delete(id);
        return;
      } catch (error) {
        if (!this.health.noteFailure(error)) throw error;
      }
    }
    this.unrecorded.set(id, outcome);
    this.options.log.warn('could not record the state of a run yet; it is kept until the database can be written', {
      run_id: id,
      state: outcome.to,
    });
  }

  /** Writes a run's state that waited in memory; throws (STORAGE_ERROR) while it still cannot be written. */
  private writeUnrecorded(id: string): void {
    const outcome = this.unrecorded.get(id);
    if (!outcome) return;
    settleRun(this.runs, this.options.events, id, outcome);
    this.unrecorded.delete(id);
  }

  private refuseDuringEmergency(verb: string): void {
    const emergency = this.options.emergency?.();
    if (emergency?.active) {
      throw new AppError(
        'EMERGENCY_STOPPED',
        `The emergency stop is on (${emergency.reason ?? 'no reason given'}), so no run can be ${verb}. ` +
          'Lift it with `nextai stop --reset` (or the reset button in the side panel) first.',
      );
    }
  }

  private refuseWhileStopping(): void {
    if (!this.draining && !this.closed) return;
    throw new AppError(
      'UNAVAILABLE',
      say(
        'The daemon is stopping (it lets the tool calls in progress finish first), so no run can start or resume now. Start the daemon again (`nextai daemon --detach`) and try again.',
        '守护进程正在停止（先让进行中的工具调用完成），现在不能开始或继续运行。请重新启动守护进程（`nextai daemon --detach`）后再试。',
      ),
    );
  }

  private waitsForPerson(id: string): boolean {
    try {
      return WAITS_FOR_PERSON.has(this.toRecordView(this.runs.get(id)).state);
    } catch (error) {
      // Not readable now (the database): the loop is taken to go on; the grace period bounds the wait.
      this.options.log.warn('could not read the state of a run while stopping', {
        run_id: id,
        error: (error as Error).message,
      });
      return false;
    }
  }

  private unfinished(id: string, verb: string): RunRecord {
    const run = this.toRecordView(this.runs.get(id));
    if ((ENDED_RUN_STATES as readonly string[]).includes(run.state)) {
      const more = run.sessionId
        ? ` Start a new run in its session to go on: nextai run --session ${run.sessionId} "<goal>".`
        : '';
      throw new AppError(
        'INVALID_ARGUMENT',
        `Run ${id} has ${run.state === 'finished' ? 'finished' : `ended (${run.state})`}; it cannot be ${verb}.${more}`,
        {
          details: { runId: id, state: run.state },
        },
      );
    }
    return run;
  }

  private onApprovalEvent(event: DaemonEvent): void {
    if (this.closed) return;
    try {
      if (event.type === 'approval.requested') {
        const runId = event.data.run_id;
        if (typeof runId !== 'string') return;
        if (this.runs.get(runId).state === 'running') {
          transitionRun(this.runs, this.options.events, runId, 'waiting_approval', {
            reason: 'waiting for an approval',
          });
        }
        return;
      }
      // While the daemon stops, a run's loop does not go on to act on an answer (the gateway runs
      // nothing answered now either): the run keeps waiting, and takes the answer up after the restart.
      if (this.draining) return;
      const approvalId = event.data.approval_id;
      if (typeof approvalId !== 'string') return;
      const runId = this.options.approvals.get(approvalId).run_id;
      if (runId === null) return;
      const run = this.runs.get(runId);
      if (run.state === 'waiting_approval' && this.options.approvals.pendingForRun(runId).length === 0) {
        transitionRun(this.runs, this.options.events, runId, 'running', { reason: 'approval answered' });
      }
    } catch (error) {
      this.options.log.warn('could not follow an approval for a run', { error: (error as Error).message });
    }
  }

  /** The run as it is: with the state kept in memory when that could not be written yet. */
  private toRecordView(run: RunRecord): RunRecord {
    const outcome = this.unrecorded.get(run.id);
    if (!outcome) return run;
    const ended = (ENDED_RUN_STATES as readonly string[]).includes(outcome.to);
    return {
      ...run,
      state: outcome.to,
      error: outcome.error ?? null,
      finishedAt: ended ? (run.finishedAt ?? run.updatedAt) : null,
    };
  }

  private toView(stored: RunRecord): RunView {
    const run = this.toRecordView(stored);
    const question = run.state === 'waiting_user' || run.state === 'paused' ? this.questions.open(run.id) : undefined;
    const limits = { ...DEFAULT_RUN_LIMITS, ...(run.limits as Partial<typeof DEFAULT_RUN_LIMITS>) };
    return {
      id: run.id,
      session_id: run.sessionId,
      goal: run.goal,
      project: run.project,
      state: run.state,
      limits,
      usage: {
        input_tokens: run.usage.inputTokens,
        output_tokens: run.usage.outputTokens,
        ...cacheAndReasoning(run.usage),
        cost_usd: run.usage.costUsd,
        cost_known: run.usage.costKnown,
      },
      turns: run.turns,
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      finished_at: run.finishedAt,
      error: run.error,
      result: run.result,
      ...(run.resultKind !== null ? { result_kind: run.resultKind } : {}),
      question: question
        ? {
            id: question.id,
            kind: question.kind,
            question: question.question,
            options: question.options,
            asked_at: question.asked_at,
          }
        : null,
      approvals: run.state === 'waiting_approval' ? this.options.approvals.pendingForRun(run.id) : [],
      model: run.model,
    };
  }

  /** The session's earlier chat as alternating user/assistant text, most recent last, within a budget. */
  private history(sessionId: string): Message[] {
    const all = this.sessions.messages(sessionId);
    const recent = all
      .filter((message) => message.role === 'user' || message.role === 'assistant')
      .slice(-HISTORY_MESSAGES);
    const messages: Message[] = [];
    let chars = 0;
    for (const message of recent.reverse()) {
      const text = textOf(message.content);
      if (text === '' || chars + text.length > HISTORY_CHARS) break;
      chars += text.length;
      messages.unshift(
        message.role === 'user'
          ? { role: 'user', content: [{ type: 'text', text }] }
          : { role: 'assistant', content: [{ type: 'text', text }] },
      );
    }
    // The APIs want user first and strict alternation; merge neighbours of one role.
    const merged: Message[] = [];
    for (const message of messages) {
      const last = merged[merged.length - 1];
      if (last && last.role === message.role) {
        (last.content as { type: 'text'; text: string }[]).push(
          ...(message.content as { type: 'text'; text: string }[]),
        );
      } else {
        merged.push(message);
      }
    }
    while (merged[0]?.role === 'assistant') merged.shift();
    // The new goal is a user message: the history must end with the assistant.
    if (merged[merged.length - 1]?.role === 'user') {
      merged.push({ role: 'assistant', content: [{ type: 'text', text: '(no answer was recorded)' }] });
    }
    return merged;
  }

  private recordSessionMessage(run: RunRecord, role: 'user' | 'assistant', content: Record<string, unknown>): void {
    if (run.sessionId === null) return;
    try {
      this.sessions.appendMessage(run.sessionId, role, content);
      this.options.events.append('session.changed', { session_id: run.sessionId, change: 'message' });
    } catch (error) {
      // The session was deleted while the run went on: the run keeps its own record.
      if ((error as AppError).code !== 'NOT_FOUND') throw error;
    }
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (typeof content === 'object' && content !== null && typeof (content as { text?: unknown }).text === 'string') {
    return (content as { text: string }).text;
  }
  return '';
}

function titleFor(goal: string): string {
  const line = goal.split('\n')[0]?.trim() ?? goal;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function stripUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as Partial<T>;
}

async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
