import { z } from 'zod';

import { messageTranslationsSchema } from '../i18n.js';
import { RUN_EVENT_SCHEMAS } from './runs.js';
import { SCHEDULE_EVENT_SCHEMAS } from './schedules.js';
import { STORAGE_EVENT_SCHEMAS } from './storage.js';

/**
 * Everything that happens in the daemon is an event with a per-daemon increasing `seq`, kept in
 * the SQLite event log. Clients subscribe with the last `seq` they saw and receive what they
 * missed, then live events. Event names are `noun.verb`.
 */
export const EVENT_DATA_SCHEMAS = {
  'daemon.started': z.object({ pid: z.number().int(), version: z.string() }),
  'daemon.stopping': z.object({ reason: z.string() }),
  /**
   * A graceful stop waits for the tool calls still running: said when their number changes, and
   * once more (with `ended`) when the wait is over — they finished, the grace period ran out (the
   * rest are aborted), or a second stop said not to wait.
   */
  'daemon.draining': z.object({
    running_calls: z.number().int().nonnegative(),
    remaining_ms: z.number().int().nonnegative(),
    ended: z.enum(['finished', 'grace_over', 'hurried']).optional(),
  }),
  'client.connected': z.object({
    client_id: z.string(),
    kind: z.string(),
    name: z.string(),
    origin: z.string().optional(),
  }),
  'client.disconnected': z.object({ client_id: z.string(), kind: z.string(), name: z.string() }),
  'tool.started': z.object({ call_id: z.string(), tool: z.string(), source: z.string() }),
  'tool.finished': z.object({
    call_id: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    duration_ms: z.number(),
    error_code: z.string().optional(),
    action: z.string().optional(),
  }),
  'approval.requested': z.object({
    approval_id: z.string(),
    call_id: z.string(),
    run_id: z.string().optional(),
    tool: z.string(),
    risk: z.string(),
    layer: z.string(),
    reason: z.string(),
    /** `reason` in the panel's other languages. */
    reason_translations: messageTranslationsSchema.optional(),
  }),
  'approval.answered': z.object({
    approval_id: z.string(),
    call_id: z.string(),
    run_id: z.string().optional(),
    status: z.enum(['approved', 'denied', 'cancelled']),
    scope: z.enum(['once', 'run']).optional(),
    by: z.string(),
  }),
  'policy.notified': z.object({
    call_id: z.string(),
    tool: z.string(),
    delivered: z.boolean(),
    reason: z.string().optional(),
  }),
  'policy.changed': z.object({ source: z.string(), summary: z.string() }),
  /** The panel's preferences changed (another panel, another browser profile): follow them. */
  'settings.ui_changed': z.object({ language: z.string(), setup_done: z.boolean() }),
  'policy.rejected': z.object({ file: z.string(), problems: z.array(z.string()) }),
  'emergency.engaged': z.object({
    reason: z.string(),
    by: z.string(),
    aborted_calls: z.number().int(),
    /** Apps the agent had started that the stop ended. */
    apps_ended: z.number().int().optional(),
  }),
  'emergency.reset': z.object({ by: z.string() }),
  'run.breaker_tripped': z.object({ run_id: z.string(), consecutive: z.number().int(), total: z.number().int() }),
  /** From `file_watch`: something under a watched path was created, modified or deleted (`path` is absolute). */
  'file.changed': z.object({
    watch_id: z.string(),
    path: z.string(),
    change: z.enum(['create', 'modify', 'delete']),
  }),
  /**
   * A sandboxed shell of a terminal session was ended: the policy no longer allows what its
   * sandbox reaches (the person narrowed the allowed folders or hid more). `shell`: which of the
   * session's shells (confined, confined_network).
   */
  'terminal.shell_ended': z.object({ session_id: z.string(), shell: z.string(), reason: z.string() }),
  ...RUN_EVENT_SCHEMAS,
  ...SCHEDULE_EVENT_SCHEMAS,
  ...STORAGE_EVENT_SCHEMAS,
} as const;

export type EventType = keyof typeof EVENT_DATA_SCHEMAS;
export type EventData<T extends EventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;

export const eventSchema = z.object({
  seq: z.number().int().positive(),
  type: z.string().min(1),
  /** ISO 8601 time the daemon recorded the event. */
  time: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type DaemonEvent = z.infer<typeof eventSchema>;
