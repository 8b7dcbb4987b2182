import { z } from 'zod';

import { messageTranslationsSchema } from '../i18n.js';

/**
 * Agent runs and chat sessions on the wire: what `nextai run`, `nextai runs`,
 * `nextai sessions` and the side panel send and receive. The daemon keeps them in SQLite.
 */

export const RUN_STATES = [
  'queued',
  'running',
  'waiting_user',
  'waiting_approval',
  'paused',
  'finished',
  'failed',
  'stopped',
] as const;
export const runStateSchema = z.enum(RUN_STATES);
export type RunStateName = z.infer<typeof runStateSchema>;

/**
 * How a finished run ended: with the model's `answer`; `declined` by the model itself; `filtered`,
 * the answer cut by the provider's content filter; or `no_answer`, the model said nothing (asked
 * twice). For all but `answer`, `result` holds the provider's reason when it gave one, else "".
 */
export const RUN_RESULT_KINDS = ['answer', 'declined', 'filtered', 'no_answer'] as const;
export type RunResultKind = (typeof RUN_RESULT_KINDS)[number];

/** End states: nothing happens to the run after these. */
export const ENDED_RUN_STATES: readonly RunStateName[] = ['finished', 'failed', 'stopped'];

/** What one run may spend. Every field optional on the way in; the daemon fills the defaults. */
export const runLimitsSchema = z
  .object({
    max_steps: z
      .number()
      .int()
      .positive()
      .max(10_000)
      .optional()
      .describe('Model turns (think → act) the run may take'),
    max_tokens: z.number().int().positive().optional().describe('Input plus output tokens over the whole run'),
    max_cost_usd: z.number().positive().optional().describe('Money the run may spend on the model, in US dollars'),
  })
  .strict();
export type RunLimits = z.infer<typeof runLimitsSchema>;

export const DEFAULT_RUN_LIMITS = { max_steps: 100, max_tokens: 2_000_000, max_cost_usd: 5 } as const;

export const runUsageSchema = z.object({
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  /** Parts of the input read from and written to the provider's prompt cache (absent: none). */
  cache_read_tokens: z.number().int().optional(),
  cache_write_tokens: z.number().int().optional(),
  /** Part of the output the model spent thinking (absent: none). */
  reasoning_tokens: z.number().int().optional(),
  cost_usd: z.number(),
  /** False when the model's price is unknown: `cost_usd` then counts only what could be priced. */
  cost_known: z.boolean(),
});

export const runQuestionSchema = z.object({
  id: z.string(),
  /** `ask_user` from the model, or `stuck` when the loop gave up after retries and alternatives. */
  kind: z.enum(['ask_user', 'stuck']),
  question: z.string(),
  options: z.array(z.string()),
  asked_at: z.string(),
});
export type RunQuestion = z.infer<typeof runQuestionSchema>;

export const runViewSchema = z.object({
  id: z.string(),
  session_id: z.string().nullable(),
  goal: z.string(),
  project: z.string(),
  state: runStateSchema,
  limits: z.object({ max_steps: z.number(), max_tokens: z.number(), max_cost_usd: z.number() }),
  usage: runUsageSchema,
  /** Model turns taken so far. */
  turns: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
  error: z
    .object({ code: z.string(), message: z.string(), translations: messageTranslationsSchema.optional() })
    .nullable(),
  /** The agent's last words when it finished. */
  result: z.string().nullable(),
  /** How it finished (RUN_RESULT_KINDS); absent before it has, and for runs finished by older versions. */
  result_kind: z.enum(RUN_RESULT_KINDS).optional(),
  /** The open question while the run waits for the person. */
  question: runQuestionSchema.nullable(),
  /** Pending approval ids while the run waits for one. */
  approvals: z.array(z.string()),
  model: z.string().nullable(),
});
export type RunView = z.infer<typeof runViewSchema>;

export const runStepViewSchema = z.object({
  step: z.number().int(),
  kind: z.string(),
  intent: z.record(z.string(), z.unknown()),
  result: z.unknown(),
  intent_at: z.string(),
  result_at: z.string().nullable(),
});

export const sessionViewSchema = z.object({
  id: z.string(),
  title: z.string(),
  project: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const sessionMessageViewSchema = z.object({
  seq: z.number().int(),
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  content: z.unknown(),
  created_at: z.string(),
});

const runId = z.string().min(1).max(100);

export const RUN_METHODS = {
  /** Starts an agent run; it is driven in the daemon and reported through `run.*` events. */
  'runs.start': {
    params: z.object({
      goal: z.string().min(1).max(100_000),
      project: z.string().min(1).max(100).optional(),
      /** Continue a chat session; a new session titled after the goal when omitted. */
      session_id: z.string().min(1).max(100).optional(),
      limits: runLimitsSchema.optional(),
    }),
    result: z.object({ run: runViewSchema }),
  },
  'runs.list': {
    params: z.object({
      state: z.union([runStateSchema, z.literal('active')]).optional(),
      session_id: z.string().optional(),
      limit: z.number().int().positive().max(1000).default(50),
    }),
    result: z.object({ runs: z.array(runViewSchema) }),
  },
  'runs.get': {
    params: z.object({
      id: runId,
      steps: z.boolean().default(false),
      /**
       * Only the steps numbered from this one on: a client that holds the finished steps before it
       * (they never change) reads just what is new or still open, not a 500-step run each time.
       */
      steps_from: z.number().int().min(0).optional(),
    }),
    result: z.object({ run: runViewSchema, steps: z.array(runStepViewSchema).optional() }),
  },
  /** Parks a running run after the action in progress; `runs.resume` continues it. */
  'runs.pause': { params: z.object({ id: runId }), result: z.object({ run: runViewSchema }) },
  /** Continues a paused run, or one a daemon restart left unfinished. */
  'runs.resume': { params: z.object({ id: runId }), result: z.object({ run: runViewSchema }) },
  /** Ends a run: the model call and the tool in progress are aborted. */
  'runs.stop': {
    params: z.object({ id: runId, reason: z.string().max(500).optional() }),
    result: z.object({ run: runViewSchema }),
  },
  /** A new instruction for a run in progress, read by the model at its next turn. */
  'runs.steer': {
    params: z.object({ id: runId, text: z.string().min(1).max(20_000) }),
    result: z.object({ run: runViewSchema }),
  },
  /** Answers the question a run is waiting on (`ask_user`, or the loop asking for help). */
  'runs.answer': {
    params: z.object({ id: runId, answer: z.string().min(1).max(20_000) }),
    result: z.object({ run: runViewSchema }),
  },
  'sessions.create': {
    params: z.object({ title: z.string().min(1).max(200).optional(), project: z.string().min(1).max(100).optional() }),
    result: z.object({ session: sessionViewSchema }),
  },
  'sessions.list': {
    params: z.object({
      search: z.string().max(200).optional(),
      project: z.string().optional(),
      limit: z.number().int().positive().max(1000).default(50),
      offset: z.number().int().min(0).default(0),
    }),
    result: z.object({ sessions: z.array(sessionViewSchema) }),
  },
  'sessions.get': {
    params: z.object({ id: z.string().min(1) }),
    result: z.object({ session: sessionViewSchema, runs: z.array(runViewSchema) }),
  },
  'sessions.rename': {
    params: z.object({ id: z.string().min(1), title: z.string().min(1).max(200) }),
    result: z.object({ session: sessionViewSchema }),
  },
  /** Deletes the session and its messages; its runs stay in the history (a running one is stopped). */
  'sessions.delete': {
    params: z.object({ id: z.string().min(1) }),
    result: z.object({ deleted: z.literal(true) }),
  },
  'sessions.messages': {
    params: z.object({
      id: z.string().min(1),
      after_seq: z.number().int().min(0).default(0),
      limit: z.number().int().positive().max(5000).default(500),
    }),
    result: z.object({ messages: z.array(sessionMessageViewSchema) }),
  },
} as const;

/** Events of agent runs (merged into EVENT_DATA_SCHEMAS). */
export const RUN_EVENT_SCHEMAS = {
  'run.state': z.object({
    run_id: z.string(),
    state: runStateSchema,
    previous: runStateSchema.optional(),
    reason: z.string().optional(),
    error_code: z.string().optional(),
  }),
  /** A piece of the model's text as it streams. */
  'run.text': z.object({ run_id: z.string(), step: z.number().int(), delta: z.string() }),
  /** A piece of the model's thinking as it streams (reasoning models): shown apart from its text. */
  'run.reasoning': z.object({ run_id: z.string(), step: z.number().int(), delta: z.string() }),
  /** A step began (`phase: started`) or ended (`finished`): a model call, a tool call, an observation. */
  'run.step': z.object({
    run_id: z.string(),
    step: z.number().int(),
    kind: z.enum(['model_call', 'tool_call', 'observe', 'summary']),
    phase: z.enum(['started', 'finished']),
    tool: z.string().optional(),
    call_id: z.string().optional(),
    input: z.record(z.string(), z.unknown()).optional(),
    ok: z.boolean().optional(),
    summary: z.string().optional(),
    /** `summary` in the panel's other languages (a policy refusal, a denial). */
    summary_translations: messageTranslationsSchema.optional(),
    error_code: z.string().optional(),
    duration_ms: z.number().optional(),
    attempt: z.number().int().optional(),
    /** Tokens of this model call; the cache and reasoning counts are parts of the input and output. */
    input_tokens: z.number().int().optional(),
    output_tokens: z.number().int().optional(),
    cache_read_tokens: z.number().int().optional(),
    cache_write_tokens: z.number().int().optional(),
    reasoning_tokens: z.number().int().optional(),
    cost_usd: z.number().optional(),
  }),
  /** The run's running totals after a model call. */
  'run.usage': z.object({
    run_id: z.string(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cache_read_tokens: z.number().int().optional(),
    cache_write_tokens: z.number().int().optional(),
    reasoning_tokens: z.number().int().optional(),
    cost_usd: z.number(),
    turns: z.number().int(),
  }),
  'run.question': z.object({
    run_id: z.string(),
    question_id: z.string(),
    kind: z.enum(['ask_user', 'stuck']),
    question: z.string(),
    options: z.array(z.string()),
  }),
  'run.answered': z.object({ run_id: z.string(), question_id: z.string(), by: z.string() }),
  'run.steered': z.object({ run_id: z.string(), text: z.string(), by: z.string() }),
  'run.todo': z.object({
    run_id: z.string(),
    items: z.array(z.object({ id: z.string(), content: z.string(), status: z.string() })),
  }),
  'session.changed': z.object({ session_id: z.string(), change: z.enum(['created', 'renamed', 'deleted', 'message']) }),
} as const;
