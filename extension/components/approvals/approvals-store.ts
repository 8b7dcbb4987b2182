import { AppError, type Approval } from '@nextai/shared';

import type { PanelClient } from '../../lib/panel-client.js';
import { PendingApprovals, type AnsweredEvent, type PendingApproval } from '../../lib/pending-approvals.js';

/** Something the inbox tells the person once: a request answered elsewhere, or gone. */
export type InboxNotice =
  | { id: number; kind: 'answered_elsewhere'; tool: string; status: AnsweredEvent['status']; by: string }
  | { id: number; kind: 'already_answered'; tool: string; message: string }
  | { id: number; kind: 'gone'; tool: string };

export interface AnswerChoice {
  decision: 'approve' | 'deny';
  scope: 'once' | 'run';
  message?: string;
}

const MAX_NOTICES = 4;
const LIST_LIMIT = 1000;

/**
 * The panel's inbox: the pending requests (kept like the badge's, from the list and the events),
 * the tools' titles, what this panel answered itself, and notices. One per panel client, so the
 * tab counter and the tab share it and nothing is lost while the tab is not shown.
 */
export class ApprovalsStore {
  readonly pending: PendingApprovals;
  notices: readonly InboxNotice[] = [];
  /** Each tool's title and category, from tools.list. */
  tools: ReadonlyMap<string, { title: string; category: string }> = new Map();
  private readonly mine = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private nextNotice = 1;
  private wasConnected = false;
  private daemonStartedAt: string | undefined;
  private version = 0;

  constructor(private readonly client: PanelClient) {
    this.pending = new PendingApprovals(async () => {
      const { approvals } = await client.call('approvals.list', { status: 'pending', limit: LIST_LIMIT });
      return approvals;
    });
    this.pending.subscribe(() => this.emit());
    this.pending.onAnswered((answer, approval) => {
      if (this.mine.has(answer.id)) return;
      this.notify({ kind: 'answered_elsewhere', tool: approval.tool, status: answer.status, by: answer.by });
    });
    client.onEvent((event) => this.pending.onEvent(event));
    client.subscribe(() => this.onClientChange());
    this.onClientChange();
  }

  /** Changes with every update (for useSyncExternalStore). */
  get snapshot(): number {
    return this.version;
  }

  titleOf(tool: string): string {
    return this.tools.get(tool)?.title ?? tool;
  }

  categoryOf(tool: string): string | undefined {
    return this.tools.get(tool)?.category;
  }

  retry(): void {
    this.pending.refresh();
  }

  /**
   * Sends the person's answer. An answer that lost the race to another client, or a request that
   * no longer exists, becomes a notice rather than an error; anything else is thrown for the card.
   */
  async answer(approval: Approval, choice: AnswerChoice): Promise<void> {
    this.mine.add(approval.id);
    try {
      await this.client.call('approvals.answer', {
        id: approval.id,
        decision: choice.decision,
        scope: choice.scope,
        ...(choice.message ? { message: choice.message } : {}),
      });
      this.pending.forget(approval.id);
    } catch (error) {
      this.mine.delete(approval.id);
      if (error instanceof AppError && error.code === 'ALREADY_ANSWERED') {
        this.notify({ kind: 'already_answered', tool: approval.tool, message: error.message });
        this.pending.forget(approval.id);
        return;
      }
      if (error instanceof AppError && error.code === 'NOT_FOUND') {
        this.notify({ kind: 'gone', tool: approval.tool });
        this.pending.forget(approval.id);
        return;
      }
      throw error;
    }
  }

  dismiss(id: number): void {
    this.notices = this.notices.filter((notice) => notice.id !== id);
    this.emit();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private onClientChange(): void {
    const { state } = this.client;
    const connected = state.status === 'connected';
    // On connect, after a reconnection and when the daemon behind the bridge changed (restart):
    // read the list again; events missed meanwhile may not all come back.
    if (connected && (!this.wasConnected || state.daemon?.started_at !== this.daemonStartedAt)) {
      this.pending.refresh();
      if (this.tools.size === 0) this.loadTools();
    }
    if (connected !== this.wasConnected) this.emit();
    this.wasConnected = connected;
    this.daemonStartedAt = state.daemon?.started_at;
  }

  private loadTools(): void {
    this.client
      .call('tools.list', {})
      .then(({ tools }) => {
        this.tools = new Map(tools.map((tool) => [tool.name, { title: tool.title, category: tool.category }]));
        this.emit();
      })
      .catch((error: unknown) => {
        // Titles are a nicety: cards fall back to the tool's name.
        console.warn('NextAI: could not read the tool titles for the approval cards.', error);
      });
  }

  private notify(notice: DistributiveOmit<InboxNotice, 'id'>): void {
    this.notices = [...this.notices, { ...notice, id: this.nextNotice++ } as InboxNotice].slice(-MAX_NOTICES);
    this.emit();
  }

  private emit(): void {
    this.version += 1;
    for (const listener of this.listeners) listener();
  }
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

const stores = new WeakMap<PanelClient, ApprovalsStore>();

/** The inbox of this panel's client (created on first use). */
export function approvalsStoreOf(client: PanelClient): ApprovalsStore {
  let store = stores.get(client);
  if (!store) {
    store = new ApprovalsStore(client);
    stores.set(client, store);
  }
  return store;
}

export type { PendingApproval };
