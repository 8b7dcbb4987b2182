import { randomUUID } from 'node:crypto';

import {
  AppError,
  say,
  type Approval,
  type Decision,
  type DecisionTranslations,
  type SandboxInfo,
  type SensitiveKind,
} from '@nextai/shared';

import { canonicalJson } from './audit/chain.js';
import type { Db } from '../storage/database.js';
import type { EventLog } from '../storage/event-log.js';
import { storageWrite } from '../storage/storage-writes.js';

export type ApprovalAnswer =
  | { status: 'approved'; scope: 'once' | 'run' }
  | { status: 'denied'; message: string | null }
  | { status: 'cancelled'; message: string };

export interface ApprovalRequest {
  callId: string;
  runId?: string | undefined;
  project: string;
  source: string;
  tool: string;
  input: Record<string, unknown>;
  decision: Decision;
  /** The sensitive page action the person is asked about (the page agent lets only it through). */
  sensitive?: SensitiveKind | undefined;
}

/** What an earlier answer must have been given to, for it to stand for a repeated call. */
export interface AskedFor {
  decision: Pick<Decision, 'layer' | 'per_call' | 'risk'>;
  sensitive?: SensitiveKind | undefined;
}

interface ApprovalRow {
  id: string;
  created_at: string;
  call_id: string;
  run_id: string | null;
  project: string;
  source: string;
  tool: string;
  input: string;
  risk: string;
  layer: string;
  reason: string;
  findings: string;
  translations: string;
  per_call: number;
  sensitive_kind: string | null;
  sandbox: string | null;
  status: Approval['status'];
  scope: Approval['scope'];
  message: string | null;
  answered_at: string | null;
  answered_by: string | null;
}

/**
 * Pending approvals are rows in SQLite, not dialogs: they survive browser, daemon and machine
 * restarts, and any client (side panel, CLI, notification) can answer them. Nothing is ever
 * approved because time passed — a request waits until a person answers or the caller goes away.
 *
 * Each change is one write transaction with its event: when the database cannot be written it
 * is refused whole (STORAGE_ERROR), never a row without its event or an answer nobody waiting hears.
 */
export class ApprovalQueue {
  private readonly waiters = new Map<string, ((answer: ApprovalAnswer) => void)[]>();

  constructor(
    private readonly db: Db,
    private readonly events: EventLog,
    /** The wall clock the request and answer times are read from (tests set it). */
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Records a request and returns its id; `wait(id)` resolves when it is answered. */
  request(request: ApprovalRequest): Approval {
    const id = randomUUID();
    storageWrite(this.db, say('the approval request', '审批请求'), () => this.insert(id, request));
    return this.get(id);
  }

  private insert(id: string, request: ApprovalRequest): void {
    const { decision } = request;
    this.db
      .prepare(
        `INSERT INTO approvals (id, created_at, call_id, run_id, project, source, tool, input, risk, layer, reason, findings, translations, per_call, sensitive_kind, sandbox, status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
      )
      .run(
        id,
        this.clock().toISOString(),
        request.callId,
        request.runId ?? null,
        request.project,
        request.source,
        request.tool,
        JSON.stringify(request.input),
        decision.risk,
        decision.layer,
        decision.reason,
        JSON.stringify(decision.findings),
        JSON.stringify(decision.translations),
        decision.per_call ? 1 : 0,
        request.sensitive ?? null,
        decision.sandbox ? JSON.stringify(decision.sandbox) : null,
      );
    this.events.append('approval.requested', {
      approval_id: id,
      call_id: request.callId,
      ...(request.runId ? { run_id: request.runId } : {}),
      tool: request.tool,
      risk: decision.risk,
      layer: decision.layer,
      reason: decision.reason,
      ...(decision.translations['zh-CN']
        ? { reason_translations: { 'zh-CN': decision.translations['zh-CN'].reason } }
        : {}),
    });
  }

  /**
   * The request a run already made for this very call — same run, call id, tool and input — that
   * is still pending or was answered (perhaps while the daemon was down). A run resumed after a
   * restart repeats its call with the same id and gets that answer instead of asking again.
   * A cancelled request does not count: the person never answered it.
   *
   * The latest such request is the one made last (rowid), not the one with the latest time: the
   * clock may have been set back between two requests.
   *
   * The answer stands only for what the person was shown: the same decision layer, per-call
   * status and risk, and the same sensitive page action. A call that has since become something
   * else (the button now submits a password form) is asked about again; a still-pending request
   * for the old description is closed, since no one waits for its answer any more.
   */
  findForRunCall(
    runId: string,
    callId: string,
    tool: string,
    input: Record<string, unknown>,
    now: AskedFor,
  ): Approval | undefined {
    const rows = this.db
      .prepare(
        `SELECT * FROM approvals WHERE run_id = ? AND call_id = ? AND tool = ? AND status != 'cancelled' ORDER BY rowid DESC`,
      )
      .all(runId, callId, tool) as ApprovalRow[];
    const wanted = canonicalJson(input);
    const row = rows.find((candidate) => canonicalJson(JSON.parse(candidate.input)) === wanted);
    if (!row) return undefined;
    const same =
      row.layer === now.decision.layer &&
      (row.per_call === 1) === now.decision.per_call &&
      row.risk === now.decision.risk &&
      (row.sensitive_kind ?? undefined) === now.sensitive;
    if (same) return toApproval(row);
    if (row.status === 'pending') this.cancel(row.id, 'the call changed since it was asked about; it was asked again');
    return undefined;
  }

  /**
   * The status of the latest request for a run's tool call, whatever it was; undefined when the
   * call never asked. A resumed run uses it to tell "never executed" (pending, denied, cancelled)
   * from "may have executed" (approved). The latest is the one made last (rowid): after the clock
   * was set back, an older request can carry the later time — and taking its "cancelled" for the
   * answer to the newer, approved one would run the call again.
   */
  statusForRunCall(runId: string, callId: string): Approval['status'] | undefined {
    return this.db
      .prepare('SELECT status FROM approvals WHERE run_id = ? AND call_id = ? ORDER BY rowid DESC LIMIT 1')
      .pluck()
      .get(runId, callId) as Approval['status'] | undefined;
  }

  /** Ids of the pending requests of one run. */
  pendingForRun(runId: string): string[] {
    return this.db
      .prepare(`SELECT id FROM approvals WHERE run_id = ? AND status = 'pending' ORDER BY created_at`)
      .pluck()
      .all(runId) as string[];
  }

  /** How many requests wait for the person, across every run and caller. */
  pendingCount(): number {
    return this.db.prepare(`SELECT count(*) FROM approvals WHERE status = 'pending'`).pluck().get() as number;
  }

  /**
   * Resolves once no request waits for the person (at once when none does); rejects when
   * `signal` aborts. The agent's mouse and keyboard wait on this: while the person is being
   * asked, nothing the agent types or clicks can land on the Approve button.
   */
  async whenNonePending(signal?: AbortSignal, pollMs = 100): Promise<void> {
    while (this.pendingCount() > 0) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, pollMs);
        function done() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        signal?.addEventListener('abort', done, { once: true });
      });
    }
    signal?.throwIfAborted();
  }

  /** Resolves with the answer; at once if the request was answered already (after a restart). */
  wait(id: string): Promise<ApprovalAnswer> {
    const approval = this.get(id);
    if (approval.status !== 'pending') return Promise.resolve(answerOf(approval));
    return new Promise((resolve) => {
      const list = this.waiters.get(id) ?? [];
      list.push(resolve);
      this.waiters.set(id, list);
    });
  }

  /**
   * A person's answer. Unknown ids and requests that were already answered are errors that say
   * so; "for this run" needs a request that belongs to a run.
   */
  answer(
    id: string,
    answer: { decision: 'approve' | 'deny'; scope: 'once' | 'run'; message?: string | undefined },
    by: string,
  ): Approval {
    const approval = this.find(id);
    if (!approval)
      throw new AppError('NOT_FOUND', `There is no approval request with id "${id}". See \`nextai approvals list\`.`);
    if (approval.status !== 'pending') {
      throw new AppError(
        'ALREADY_ANSWERED',
        `Approval request ${id} was already ${approval.status}${approval.answered_by ? ` by ${approval.answered_by}` : ''}${approval.answered_at ? ` at ${approval.answered_at}` : ''}.`,
      );
    }
    if (answer.decision === 'approve' && answer.scope === 'run') {
      if (!approval.run_id) {
        throw new AppError(
          'INVALID_ARGUMENT',
          'This request is not part of an agent run, so it cannot be approved for a run; approve it once.',
        );
      }
      if (approval.per_call) {
        throw new AppError(
          'INVALID_ARGUMENT',
          'This is a sensitive operation: it must be approved each time, not for the whole run.',
        );
      }
    }
    const status = answer.decision === 'approve' ? 'approved' : 'denied';
    const scope = answer.decision === 'approve' ? answer.scope : null;
    const now = this.clock().toISOString();
    // The answer, the run's tally and the event stand or fall together; whoever waits hears it
    // only once it is saved.
    const updated = storageWrite(this.db, say('the answer to the approval request', '对审批请求的答复'), () => {
      this.db
        .prepare(
          `UPDATE approvals SET status = ?, scope = ?, message = ?, answered_at = ?, answered_by = ? WHERE id = ? AND status = 'pending'`,
        )
        .run(status, scope, answer.message ?? null, now, by, id);
      if (approval.run_id) this.recordRunAnswer(approval.run_id, approval.tool, status, scope);
      const answered = this.get(id);
      this.events.append('approval.answered', {
        approval_id: id,
        call_id: answered.call_id,
        ...(answered.run_id ? { run_id: answered.run_id } : {}),
        status,
        ...(scope ? { scope } : {}),
        by,
      });
      return answered;
    });
    this.settle(id, answerOf(updated));
    return updated;
  }

  /** The caller went away or the emergency stop was pressed: the request is closed unanswered. */
  cancel(id: string, why: string): void {
    const cancelled = storageWrite(this.db, say('the closing of the approval request', '审批请求的关闭'), () => {
      const result = this.db
        .prepare(
          `UPDATE approvals SET status = 'cancelled', message = ?, answered_at = ?, answered_by = 'nextai' WHERE id = ? AND status = 'pending'`,
        )
        .run(why, this.clock().toISOString(), id);
      if (result.changes === 0) return false;
      const approval = this.get(id);
      this.events.append('approval.answered', {
        approval_id: id,
        call_id: approval.call_id,
        ...(approval.run_id ? { run_id: approval.run_id } : {}),
        status: 'cancelled',
        by: 'nextai',
      });
      return true;
    });
    if (cancelled) this.settle(id, { status: 'cancelled', message: why });
  }

  list(status: 'pending' | 'all', limit: number): Approval[] {
    const rows =
      status === 'pending'
        ? (this.db
            .prepare(`SELECT * FROM approvals WHERE status = 'pending' ORDER BY created_at LIMIT ?`)
            .all(limit) as ApprovalRow[])
        : (this.db.prepare('SELECT * FROM approvals ORDER BY created_at DESC LIMIT ?').all(limit) as ApprovalRow[]);
    return rows.map(toApproval);
  }

  get(id: string): Approval {
    const approval = this.find(id);
    if (!approval) throw new AppError('NOT_FOUND', `There is no approval request with id "${id}".`);
    return approval;
  }

  /** Per-run state the policy decides with. */
  runState(runId: string, tool: string): { approvedForRun: boolean; denials: { consecutive: number; total: number } } {
    const approved = this.db
      .prepare('SELECT approved_for_run FROM run_safety WHERE run_id = ? AND tool = ?')
      .pluck()
      .get(runId, tool) as number | undefined;
    const denials = this.db.prepare('SELECT consecutive, total FROM run_denials WHERE run_id = ?').get(runId) as
      { consecutive: number; total: number } | undefined;
    return { approvedForRun: approved === 1, denials: denials ?? { consecutive: 0, total: 0 } };
  }

  private recordRunAnswer(
    runId: string,
    tool: string,
    status: 'approved' | 'denied',
    scope: 'once' | 'run' | null,
  ): void {
    if (status === 'approved') {
      this.db
        .prepare(
          'INSERT INTO run_denials (run_id, consecutive, total) VALUES (?, 0, 0) ON CONFLICT (run_id) DO UPDATE SET consecutive = 0',
        )
        .run(runId);
      if (scope === 'run') {
        this.db
          .prepare(
            'INSERT INTO run_safety (run_id, tool, approved_for_run) VALUES (?, ?, 1) ON CONFLICT (run_id, tool) DO UPDATE SET approved_for_run = 1',
          )
          .run(runId, tool);
      }
      return;
    }
    this.db
      .prepare(
        'INSERT INTO run_denials (run_id, consecutive, total) VALUES (?, 1, 1) ON CONFLICT (run_id) DO UPDATE SET consecutive = consecutive + 1, total = total + 1',
      )
      .run(runId);
  }

  private find(id: string): Approval | undefined {
    const row = this.db.prepare('SELECT * FROM approvals WHERE id = ?').get(id) as ApprovalRow | undefined;
    return row && toApproval(row);
  }

  private settle(id: string, answer: ApprovalAnswer): void {
    const waiting = this.waiters.get(id) ?? [];
    this.waiters.delete(id);
    for (const resolve of waiting) resolve(answer);
  }
}

function toApproval(row: ApprovalRow): Approval {
  // What kind of sensitive action it was is for matching a repeated call, not part of the
  // approval clients are sent (its reason describes it).
  const { sensitive_kind: _kind, sandbox, ...rest } = row;
  return {
    ...rest,
    sandbox: sandbox ? (JSON.parse(sandbox) as SandboxInfo) : null,
    input: JSON.parse(row.input) as Record<string, unknown>,
    findings: JSON.parse(row.findings) as string[],
    translations: JSON.parse(row.translations) as DecisionTranslations,
    per_call: row.per_call === 1,
  };
}

function answerOf(approval: Approval): ApprovalAnswer {
  switch (approval.status) {
    case 'approved':
      return { status: 'approved', scope: approval.scope ?? 'once' };
    case 'denied':
      return { status: 'denied', message: approval.message };
    default:
      return { status: 'cancelled', message: approval.message ?? 'cancelled' };
  }
}
