import { z } from 'zod';

/** `authority`: a request for the person's authority (approvals, stop, policy) refused for its caller. */
export const AUDIT_KINDS = ['decision', 'execution', 'approval', 'emergency_stop', 'policy', 'authority'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/**
 * What callers append. Strict, so a misspelt field is a bug found at the call site rather than a
 * field silently missing from the record; `parameters` and `details` take any JSON.
 */
export const auditEntrySchema = z
  .object({
    kind: z.enum(AUDIT_KINDS),
    call_id: z.string().optional(),
    run_id: z.string().optional(),
    source: z.string().optional(),
    project: z.string().optional(),
    tool: z.string().optional(),
    parameters: z.unknown().optional(),
    risk: z.string().optional(),
    action: z.string().optional(),
    result: z.string().optional(),
    layer: z.string().optional(),
    reason: z.string().optional(),
    duration_ms: z.number().optional(),
    error: z.string().optional(),
    actor: z.string().optional(),
    details: z.unknown().optional(),
  })
  .strict();

export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** One row of the log as written: the entry (already redacted) and its place in the chain. */
export interface AuditRecord {
  seq: number;
  time: string;
  kind: AuditKind;
  entry: AuditEntry;
  /** The hash of the row before; 64 zeros for the first row. */
  prev_hash: string;
  hash: string;
}

export type AuditProblemKind =
  | 'edited'
  | 'deleted'
  | 'reordered'
  | 'truncated'
  | 'anchor_missing'
  | 'anchor_mismatch'
  | 'malformed'
  /** The chain holds, but safety state kept beside it (the emergency stop) was changed outside NextAI. */
  | 'state_mismatch';

export interface AuditProblem {
  /** The first row that is wrong (for a deletion or truncation: the first row that is missing). */
  seq: number;
  kind: AuditProblemKind;
  /** One sentence a person can act on, naming the row. */
  message: string;
}

export type AuditVerification =
  { ok: true; rows: number; head?: { seq: number; hash: string } } | { ok: false; rows: number; problem: AuditProblem };
