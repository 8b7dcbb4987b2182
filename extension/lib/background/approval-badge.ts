import { PendingApprovals } from '../pending-approvals.js';
import { showPendingApprovals } from '../badge.js';
import type { BackgroundContext } from './features.js';

/** The most requests one list reads (the daemon's limit); the badge shows "99+" long before. */
const LIST_LIMIT = 1000;

/**
 * The toolbar badge shows the number of pending approvals: read from the daemon
 * each time the connection comes up (a new daemon, a reconnection, events missed while away), and
 * kept current from `approval.requested` / `approval.answered` events, so an answer given in the
 * CLI or the panel changes the count at once.
 */
export function startApprovalBadge({ connection }: BackgroundContext): PendingApprovals {
  const pending = new PendingApprovals(async () => {
    const { approvals } = await connection.request('approvals.list', { status: 'pending', limit: LIST_LIMIT });
    return approvals;
  });
  let connected = false;
  let daemonStartedAt: string | undefined;
  connection.onStateChange((state) => {
    const nowConnected = state.status === 'connected';
    // A new connection, or the daemon behind the bridge changed: what we knew may be stale.
    if (nowConnected && (!connected || state.daemon?.started_at !== daemonStartedAt)) pending.refresh();
    connected = nowConnected;
    daemonStartedAt = state.daemon?.started_at;
  });
  connection.onEvent((event) => pending.onEvent(event));
  pending.subscribe(() => {
    showPendingApprovals(pending.count).catch((error: unknown) =>
      console.warn('NextAI: could not show the pending approvals on the toolbar badge.', error),
    );
  });
  return pending;
}
