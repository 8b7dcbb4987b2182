import { z } from 'zod';

import { messageTranslationsSchema } from '../i18n.js';
import { grantedToolSetSchema } from '../policy/config.js';

/**
 * Scheduled tasks, the heartbeat and power awareness on the wire: what
 * `nextai schedule` and the side panel's Schedules tab send and receive. The daemon keeps the
 * tasks and their history in SQLite and fires them with no browser connected.
 */

/** One fixed tool call of a task that needs no model: `{"tool": name, "input": {…}}`. */
export const scheduleStepSchema = z
  .object({
    tool: z.string().min(1).max(100),
    input: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type ScheduleStep = z.infer<typeof scheduleStepSchema>;

/**
 * What happens to runs missed while the machine was off or the task was held back:
 * `skip` drops them, `once` runs one for all of them (the default), `each` runs every one, in
 * order (at most {@link MAX_CATCH_UP_EACH}).
 */
export const CATCH_UP_POLICIES = ['skip', 'once', 'each'] as const;
export const catchUpPolicySchema = z.enum(CATCH_UP_POLICIES);
export type CatchUpPolicy = z.infer<typeof catchUpPolicySchema>;
export const MAX_CATCH_UP_EACH = 24;

/** What one run of a task may spend; the daemon fills the defaults. */
export const scheduleLimitsSchema = z
  .object({
    max_steps: z.number().int().positive().max(10_000).optional().describe('Model turns of an agent run'),
    max_tokens: z.number().int().positive().optional().describe('Input plus output tokens of an agent run'),
    max_cost_usd: z.number().positive().max(10_000).optional().describe('Money one run may spend, in US dollars'),
    max_wall_seconds: z
      .number()
      .int()
      .positive()
      .max(7 * 24 * 3600)
      .optional()
      .describe('Wall-clock time one run may take before it is stopped'),
  })
  .strict();
export type ScheduleLimits = z.infer<typeof scheduleLimitsSchema>;

export const DEFAULT_SCHEDULE_LIMITS = {
  max_steps: 50,
  max_tokens: 1_000_000,
  max_cost_usd: 1,
  max_wall_seconds: 1800,
} as const;

/** Money all runs of one task may spend in one day (in the task's time zone) unless it says otherwise. */
export const DEFAULT_DAILY_COST_CAP_USD = 5;

/** The fields of a task, without defaults (what an edit may change). */
const scheduleDefinitionFields = {
  name: z.string().trim().min(1).max(100),
  /** Five fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly, @yearly. */
  cron: z.string().trim().min(1).max(200),
  /** An IANA zone such as "Asia/Shanghai"; the daemon's own zone when omitted. */
  timezone: z.string().trim().min(1).max(100).optional(),
  instruction: z.string().trim().min(1).max(20_000).optional(),
  steps: z.array(scheduleStepSchema).min(1).max(50).optional(),
  project: z.string().min(1).max(100).optional(),
  /** The tools the task may use and restrictions on them; they can only tighten the project's policy. */
  granted_tools: grantedToolSetSchema.optional(),
  enabled: z.boolean(),
  catch_up: catchUpPolicySchema,
  /** Whether a run may start while the previous run of the same task is still going. */
  allow_overlap: z.boolean(),
  retry_on_failure: z.boolean(),
  max_retries: z.number().int().min(0).max(10),
  /** The first retry waits this long; each next one twice as long (at most an hour). */
  retry_backoff_seconds: z.number().int().min(1).max(86_400),
  limits: scheduleLimitsSchema,
  daily_cost_cap_usd: z.number().positive().max(10_000),
  /** Urgent tasks are not deferred while the computer runs on battery. */
  urgent: z.boolean(),
};

/** A task as created: exactly one of `instruction` (an agent run) or `steps` (fixed tool calls). */
export const scheduleDefinitionSchema = z
  .object({
    ...scheduleDefinitionFields,
    enabled: scheduleDefinitionFields.enabled.default(true),
    catch_up: scheduleDefinitionFields.catch_up.default('once'),
    allow_overlap: scheduleDefinitionFields.allow_overlap.default(false),
    retry_on_failure: scheduleDefinitionFields.retry_on_failure.default(true),
    max_retries: scheduleDefinitionFields.max_retries.default(3),
    retry_backoff_seconds: scheduleDefinitionFields.retry_backoff_seconds.default(60),
    limits: scheduleDefinitionFields.limits.default({}),
    daily_cost_cap_usd: scheduleDefinitionFields.daily_cost_cap_usd.default(DEFAULT_DAILY_COST_CAP_USD),
    urgent: scheduleDefinitionFields.urgent.default(false),
  })
  .strict();

/**
 * Changes to a task: only the fields given. No defaults here — a default would put back every
 * setting the change does not name (turning a task off must not reset its cost cap or limits).
 */
export const scheduleChangesSchema = z.object(scheduleDefinitionFields).partial().strict();
export type ScheduleChanges = z.infer<typeof scheduleChangesSchema>;
export type ScheduleDefinition = z.infer<typeof scheduleDefinitionSchema>;
export type ScheduleDefinitionInput = z.input<typeof scheduleDefinitionSchema>;

export const SCHEDULE_RUN_STATES = ['running', 'waiting_approval', 'waiting_user', 'finished'] as const;
export const SCHEDULE_OUTCOMES = [
  'succeeded',
  'failed',
  'timed_out',
  'stopped',
  'denied',
  'blocked',
  'limit_reached',
  'crashed',
  'interrupted',
  'skipped',
] as const;
export type ScheduleOutcome = (typeof SCHEDULE_OUTCOMES)[number];
export const SCHEDULE_TRIGGERS = ['cron', 'catch_up', 'retry', 'manual'] as const;
export type ScheduleTrigger = (typeof SCHEDULE_TRIGGERS)[number];

/** One entry of a task's history: a run (or a run that was skipped, with the reason). */
export const scheduleRunViewSchema = z.object({
  id: z.string(),
  schedule_id: z.string(),
  /** The cron time this run was for (ISO 8601). */
  scheduled_for: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  state: z.enum(SCHEDULE_RUN_STATES),
  outcome: z.enum(SCHEDULE_OUTCOMES).nullable(),
  trigger: z.enum(SCHEDULE_TRIGGERS),
  /** 1 for the first try; retries count up. */
  attempt: z.number().int(),
  /** Earlier cron times this run also stands for (catch-up `once`), or that a skip covers. */
  missed: z.number().int(),
  /** The oldest of those (ISO 8601, oldest first, at most 50): `missed` counts them all. */
  missed_times: z.array(z.string()).optional(),
  duration_ms: z.number().nullable(),
  cost_usd: z.number(),
  /** How it went, in English; `summary_translations` has it in the panel's other languages. */
  summary: z.string().nullable(),
  summary_translations: messageTranslationsSchema.nullable(),
  error_code: z.string().nullable(),
  /** The agent run, for tasks with an instruction. */
  run_id: z.string().nullable(),
});
export type ScheduleRunView = z.infer<typeof scheduleRunViewSchema>;

const descriptionSchema = z.object({ en: z.string(), 'zh-CN': z.string() });

export const scheduleViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  cron: z.string(),
  timezone: z.string(),
  /** The cron expression in words. */
  description: descriptionSchema,
  kind: z.enum(['agent', 'steps']),
  instruction: z.string().nullable(),
  steps: z.array(scheduleStepSchema).nullable(),
  project: z.string(),
  granted_tools: grantedToolSetSchema.nullable(),
  enabled: z.boolean(),
  /** Why the daemon turned the task off (it crashed the daemon repeatedly), if it did. */
  disabled_reason: z.string().nullable(),
  disabled_reason_translations: messageTranslationsSchema.nullable(),
  catch_up: catchUpPolicySchema,
  allow_overlap: z.boolean(),
  retry_on_failure: z.boolean(),
  max_retries: z.number().int(),
  retry_backoff_seconds: z.number().int(),
  limits: z.object({
    max_steps: z.number(),
    max_tokens: z.number(),
    max_cost_usd: z.number(),
    max_wall_seconds: z.number(),
  }),
  daily_cost_cap_usd: z.number(),
  urgent: z.boolean(),
  /** Uses the screen, mouse, keyboard or windows: held back while the screen is locked or off. */
  needs_screen: z.boolean(),
  next_run_at: z.string().nullable(),
  /** When a failed run is tried again. */
  retry_at: z.string().nullable(),
  /** Why a due run waits (on battery, screen locked, emergency stop…), while it does. */
  deferred: z.string().nullable(),
  deferred_translations: messageTranslationsSchema.nullable(),
  last_run: scheduleRunViewSchema.nullable(),
  running: z.boolean(),
  cost_today_usd: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ScheduleView = z.infer<typeof scheduleViewSchema>;

export const heartbeatViewSchema = z.object({
  enabled: z.boolean(),
  file: z.string(),
  interval_minutes: z.number(),
  /** Open checklist items found at the last look. */
  open_items: z.array(z.string()),
  last_checked_at: z.string().nullable(),
  next_check_at: z.string().nullable(),
  /** The agent run the open items became, if one is going or was the last. */
  run_id: z.string().nullable(),
  /**
   * What went wrong at the last look or when the last run ended (HEARTBEAT.md could not be read or
   * written), until a look goes well; null when nothing did.
   */
  problem: z.string().nullable(),
});
export type HeartbeatView = z.infer<typeof heartbeatViewSchema>;

export const presenceViewSchema = z.object({
  /** null when the machine has no battery or it cannot be read. */
  on_battery: z.boolean().nullable(),
  battery_percent: z.number().nullable(),
  screen_locked: z.boolean().nullable(),
  sleeping: z.boolean(),
  /** What could not be read and why (no logind, no battery…). */
  notes: z.array(z.string()),
});
export type PresenceView = z.infer<typeof presenceViewSchema>;

const scheduleRef = z.string().min(1).max(200).describe('Task id or name');

export const SCHEDULE_METHODS = {
  'schedules.list': {
    params: z.object({}),
    result: z.object({
      schedules: z.array(scheduleViewSchema),
      heartbeat: heartbeatViewSchema,
      presence: presenceViewSchema,
    }),
  },
  'schedules.get': {
    params: z.object({ id: scheduleRef, history_limit: z.number().int().positive().max(1000).default(20) }),
    result: z.object({ schedule: scheduleViewSchema, history: z.array(scheduleRunViewSchema) }),
  },
  /** Validates the whole task (cron, zone, steps against the tool catalog, grant against the project's policy). */
  'schedules.create': {
    params: scheduleDefinitionSchema,
    result: z.object({ schedule: scheduleViewSchema }),
  },
  /** Changes some fields; the task is validated again as a whole. */
  'schedules.update': {
    params: z.object({
      id: scheduleRef,
      changes: scheduleChangesSchema,
    }),
    result: z.object({ schedule: scheduleViewSchema }),
  },
  'schedules.delete': {
    params: z.object({ id: scheduleRef }),
    result: z.object({ deleted: z.literal(true) }),
  },
  /** Starts a run now, whatever the cron says (not while the previous one runs, unless overlap is allowed). */
  'schedules.run_now': {
    params: z.object({ id: scheduleRef }),
    result: z.object({ run: scheduleRunViewSchema }),
  },
  'schedules.history': {
    params: z.object({
      id: scheduleRef.optional(),
      limit: z.number().int().positive().max(1000).default(50),
    }),
    result: z.object({ runs: z.array(scheduleRunViewSchema) }),
  },
  /** A cron expression in words and its next times, or the reason it is refused. */
  'schedules.preview': {
    params: z.object({
      cron: z.string().min(1).max(200),
      timezone: z.string().min(1).max(100).optional(),
      count: z.number().int().positive().max(20).default(3),
    }),
    result: z.object({ timezone: z.string(), description: descriptionSchema, next_runs: z.array(z.string()) }),
  },
} as const;

/** Events of the scheduler, the heartbeat and power awareness (merged into EVENT_DATA_SCHEMAS). */
export const SCHEDULE_EVENT_SCHEMAS = {
  'schedule.changed': z.object({
    schedule_id: z.string(),
    change: z.enum(['created', 'updated', 'deleted', 'enabled', 'disabled']),
    reason: z.string().optional(),
    reason_translations: messageTranslationsSchema.optional(),
  }),
  /** A run of a task started, waits for the person, ended, or was skipped. */
  'schedule.run': z.object({
    schedule_id: z.string(),
    history_id: z.string(),
    state: z.enum(SCHEDULE_RUN_STATES),
    outcome: z.enum(SCHEDULE_OUTCOMES).optional(),
    trigger: z.enum(SCHEDULE_TRIGGERS),
    scheduled_for: z.string(),
    attempt: z.number().int(),
    duration_ms: z.number().optional(),
    cost_usd: z.number().optional(),
    summary: z.string().optional(),
    summary_translations: messageTranslationsSchema.optional(),
    run_id: z.string().optional(),
  }),
  /**
   * The daemon died while a run of the task was going: whether the death is put down to the task
   * (`counted`: it was the only thing going and no other cause is known), how many in a row are
   * (at 3 it is turned off), and why.
   */
  'schedule.crash': z.object({
    schedule_id: z.string(),
    history_id: z.string(),
    counted: z.boolean(),
    streak: z.number().int(),
    reason: z.string(),
    reason_translations: messageTranslationsSchema.optional(),
  }),
  /** A due run waits for a condition (battery, screen, emergency stop, sleep). */
  'schedule.deferred': z.object({
    schedule_id: z.string(),
    reason: z.string(),
    reason_translations: messageTranslationsSchema.optional(),
  }),
  'heartbeat.checked': z.object({
    open_items: z.number().int(),
    run_id: z.string().optional(),
    reason: z.string().optional(),
  }),
  /** The heartbeat could not do its part: read HEARTBEAT.md, or check off what its run did. */
  'heartbeat.problem': z.object({
    problem: z.string(),
    run_id: z.string().optional(),
  }),
  /**
   * The wall clock was set back or forward (or, forward, the machine slept) by at least a minute
   * while the daemon ran; `message` says what that means for scheduled tasks.
   */
  'clock.changed': z.object({
    direction: z.enum(['back', 'forward']),
    minutes: z.number().int(),
    message: z.string(),
    message_translations: messageTranslationsSchema.optional(),
  }),
  'power.changed': z.object({
    on_battery: z.boolean().nullable(),
    screen_locked: z.boolean().nullable(),
    sleeping: z.boolean(),
  }),
} as const;
