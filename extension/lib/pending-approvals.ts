import type { Approval, DaemonEvent, DecisionTranslations, MessageTranslations } from '@nextai/shared';

/** What an `approval.requested` event says in other languages: the reason (findings come with the full request). */
function reasonOnly(translations: MessageTranslations | undefined): DecisionTranslations {
  const zh = translations?.['zh-CN'];
  return zh === undefined ? {} : { 'zh-CN': { reason: zh, findings: [] } };
}

/** A pending request as known so far: from `approvals.list` (complete) or only from its event. */
export interface PendingApproval extends Approval {
  /** False while only the `approval.requested` event is known (no parameters or findings yet). */
  complete: boolean;
}

export interface AnsweredEvent {
  id: string;
  status: 'approved' | 'denied' | 'cancelled';
  by: string;
}

/** Answered ids remembered so a replayed `approval.requested` cannot bring one back. */
const MAX_REMEMBERED_ANSWERS = 5000;

/**
 * The pending approval requests, kept from `approvals.list` (the truth, read on connect and after
 * every change) and the `approval.*` events (so an answer given anywhere removes a request at once).
 * Used by the background for the toolbar badge and by the side panel for the inbox.
 *
 * Events and list answers can cross: a list sent before an answer may still hold the answered
 * request, and a request raised while a list is on its way is not in it. So answered ids are
 * remembered, each entry notes when it was learnt, and a list only drops entries it knew about.
 */
export class PendingApprovals {
  private readonly entries = new Map<string, { approval: PendingApproval; learntAt: number }>();
  private readonly answered = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly answeredListeners = new Set<(answer: AnsweredEvent, approval: PendingApproval) => void>();
  private clock = 0;
  private inFlight = false;
  private again = false;
  private sorted: PendingApproval[] = [];
  /** Why the last list failed; cleared by the next one that succeeds. */
  error: Error | undefined;
  /** True once a list has succeeded. */
  loaded = false;

  constructor(private readonly load: () => Promise<Approval[]>) {}

  get items(): readonly PendingApproval[] {
    return this.sorted;
  }

  get count(): number {
    return this.entries.size;
  }

  get(id: string): PendingApproval | undefined {
    return this.entries.get(id)?.approval;
  }

  /** Reads the list again (coalesced: one request on the way at a time, then one more if asked). */
  refresh(): void {
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.inFlight = true;
    const sentAt = ++this.clock;
    this.load()
      .then((list) => this.apply(list, sentAt))
      .catch((error: unknown) => {
        this.error = error instanceof Error ? error : new Error(String(error));
        this.emit();
      })
      .finally(() => {
        this.inFlight = false;
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      });
  }

  /** A daemon event; anything but `approval.*` is ignored. */
  onEvent(event: DaemonEvent): void {
    if (event.type === 'approval.requested') {
      const data = event.data as {
        approval_id: string;
        call_id: string;
        run_id?: string;
        tool: string;
        risk: string;
        layer: string;
        reason: string;
        reason_translations?: MessageTranslations;
      };
      if (this.answered.has(data.approval_id) || this.entries.has(data.approval_id)) return;
      this.entries.set(data.approval_id, {
        learntAt: ++this.clock,
        approval: {
          id: data.approval_id,
          created_at: event.time,
          call_id: data.call_id,
          run_id: data.run_id ?? null,
          project: '',
          source: '',
          tool: data.tool,
          input: {},
          sandbox: null,
          risk: data.risk,
          layer: data.layer,
          reason: data.reason,
          findings: [],
          translations: reasonOnly(data.reason_translations),
          per_call: false,
          status: 'pending',
          scope: null,
          message: null,
          answered_at: null,
          answered_by: null,
          complete: false,
        },
      });
      this.changed();
      // The event has no parameters or findings: the list has them.
      this.refresh();
    } else if (event.type === 'approval.answered') {
      const data = event.data as { approval_id: string; status: AnsweredEvent['status']; by: string };
      this.remove(data.approval_id, { id: data.approval_id, status: data.status, by: data.by });
    }
  }

  /** Forgets a request known to be answered (e.g. the daemon said ALREADY_ANSWERED or NOT_FOUND). */
  forget(id: string): void {
    this.remove(id);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called when a request that was shown is answered (by anyone), before it is removed. */
  onAnswered(listener: (answer: AnsweredEvent, approval: PendingApproval) => void): () => void {
    this.answeredListeners.add(listener);
    return () => this.answeredListeners.delete(listener);
  }

  private remove(id: string, answer?: AnsweredEvent): void {
    this.answered.add(id);
    if (this.answered.size > MAX_REMEMBERED_ANSWERS) {
      const oldest = this.answered.values().next().value;
      if (oldest !== undefined) this.answered.delete(oldest);
    }
    const entry = this.entries.get(id);
    if (!entry) return;
    if (answer) for (const listener of this.answeredListeners) listener(answer, entry.approval);
    this.entries.delete(id);
    this.changed();
  }

  private apply(list: Approval[], sentAt: number): void {
    const listed = new Set(list.map((approval) => approval.id));
    // Entries learnt before the list was sent and not in it are no longer pending.
    for (const [id, entry] of this.entries) {
      if (!listed.has(id) && entry.learntAt < sentAt) this.entries.delete(id);
    }
    for (const approval of list) {
      if (approval.status !== 'pending' || this.answered.has(approval.id)) continue;
      this.entries.set(approval.id, { approval: { ...approval, complete: true }, learntAt: sentAt });
    }
    this.error = undefined;
    this.loaded = true;
    this.changed();
  }

  private changed(): void {
    this.sorted = [...this.entries.values()]
      .map((entry) => entry.approval)
      // Stable: requests of the same millisecond keep the daemon's order.
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
    this.emit();
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
