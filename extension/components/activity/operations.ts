/**
 * The operation log folded from the daemon's audit records: every tool call
 * leaves a decision, maybe an approval, then an execution record with the same `call_id`. One
 * row per call, whatever asked for it (a run, the CLI, an MCP client); emergency stops get a row
 * of their own.
 */

export type OperationStatus = 'running' | 'waiting' | 'ok' | 'failed' | 'blocked';

export interface Operation {
  /** The call id, or `emergency:<seq>` for a stop or a reset. */
  id: string;
  kind: 'call' | 'emergency';
  /** Sequence number of the first record: the row's place in the log. */
  seq: number;
  time: string;
  tool: string;
  source?: string;
  runId?: string;
  parameters?: unknown;
  risk?: string;
  status: OperationStatus;
  durationMs?: number;
  /** Why it failed or was blocked (an error, a policy reason, a denial). */
  detail?: string;
  /** For emergency rows: who stopped or reset. */
  actor?: string;
  emergency?: 'stop' | 'reset';
}

export interface AuditRecordLike {
  seq: number;
  time: string;
  kind: string;
  entry: Record<string, unknown>;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Folds records (any order, possibly overlapping earlier folds) into `known`, newest row first. */
export function foldAudit(
  known: ReadonlyMap<string, Operation>,
  records: readonly AuditRecordLike[],
): Map<string, Operation> {
  const next = new Map(known);
  const sorted = [...records].sort((a, b) => a.seq - b.seq);
  for (const record of sorted) {
    const entry = record.entry;
    if (record.kind === 'emergency_stop') {
      const id = `emergency:${record.seq}`;
      const stop = entry.result !== 'reset';
      next.set(id, {
        id,
        kind: 'emergency',
        seq: record.seq,
        time: record.time,
        tool: stop ? 'emergency_stop' : 'emergency_reset',
        status: stop ? 'blocked' : 'ok',
        emergency: stop ? 'stop' : 'reset',
        ...(text(entry.actor) ? { actor: text(entry.actor) } : {}),
        ...(stop && text(entry.reason) ? { detail: text(entry.reason) } : {}),
      });
      continue;
    }
    const callId = text(entry.call_id);
    if (!callId || !['decision', 'approval', 'execution'].includes(record.kind)) continue;
    const current: Operation = next.get(callId) ?? {
      id: callId,
      kind: 'call',
      seq: record.seq,
      time: record.time,
      tool: text(entry.tool) ?? '?',
      status: 'running',
    };
    const updated: Operation = { ...current, seq: Math.min(current.seq, record.seq) };
    if (text(entry.source)) updated.source = text(entry.source);
    if (text(entry.run_id)) updated.runId = text(entry.run_id);
    if (record.kind === 'decision') {
      updated.time = record.time;
      if (entry.parameters !== undefined) updated.parameters = entry.parameters;
      if (text(entry.risk)) updated.risk = text(entry.risk);
      if (entry.result === 'invalid_input') {
        updated.status = 'failed';
        updated.detail = text(entry.reason);
      } else if (entry.action === 'always_block') {
        updated.status = 'blocked';
        updated.detail = text(entry.reason);
      } else if (current.status === 'running') {
        updated.status = entry.action === 'require_approval' ? 'waiting' : 'running';
      }
    } else if (record.kind === 'approval') {
      if (entry.result === 'approved') {
        if (updated.status === 'waiting') updated.status = 'running';
      } else {
        updated.status = 'blocked';
        updated.detail = text(entry.reason) ?? text(entry.result);
      }
    } else {
      updated.status = entry.result === 'success' ? 'ok' : 'failed';
      if (typeof entry.duration_ms === 'number') updated.durationMs = entry.duration_ms;
      if (text(entry.error)) updated.detail = text(entry.error);
    }
    next.set(callId, updated);
  }
  return next;
}

/** Rows newest first. */
export function newestFirst(operations: ReadonlyMap<string, Operation>): Operation[] {
  return [...operations.values()].sort((a, b) => b.seq - a.seq);
}

/** Parameters people look for first, in this order; the rest is compact JSON. */
const KEY_PARAMETERS = [
  'command',
  'path',
  'url',
  'description',
  'text',
  'query',
  'keys',
  'window_title',
  'name',
  'app',
  'action',
  'content',
  'mode',
];

/** A one-line summary of a call's parameters, at most `max` characters. */
export function summariseParameters(tool: string, parameters: unknown, max = 120): string {
  if (parameters === null || typeof parameters !== 'object') return '';
  const input = parameters as Record<string, unknown>;
  const cut = (value: string) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);
  if (typeof input.from_x === 'number' && typeof input.to_x === 'number') {
    return `(${num(input.from_x)}, ${num(input.from_y)}) → (${num(input.to_x)}, ${num(input.to_y)})`;
  }
  if (typeof input.x === 'number' && typeof input.y === 'number') {
    const extra = typeof input.direction === 'string' ? ` ${input.direction}` : '';
    return `(${num(input.x)}, ${num(input.y)})${extra}`;
  }
  for (const key of KEY_PARAMETERS) {
    const value = input[key];
    if (typeof value === 'string' && value.length > 0) return cut(key === 'text' ? `“${value}”` : value);
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return cut(value.join(' + '));
  }
  const json = JSON.stringify(input);
  return json === '{}' ? '' : cut(json);
}

function num(value: unknown): string {
  return typeof value === 'number' ? String(Math.round(value)) : '?';
}
