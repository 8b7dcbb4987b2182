import { z } from 'zod';

/**
 * Everything that happens in the daemon is an event with a per-daemon increasing `seq`, kept in
 * the SQLite event log. Clients subscribe with the last `seq` they saw and receive what they
 * missed, then live events. Event names are `noun.verb`.
 */
export const EVENT_DATA_SCHEMAS = {
  'daemon.started': z.object({ pid: z.number().int(), version: z.string() }),
  'daemon.stopping': z.object({ reason: z.string() }),
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
  }),
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
