import { browser } from 'wxt/browser';

import type { ConnectionState } from './connection-state.js';

export interface Badge {
  text: string;
  color: string;
  title: string;
}

/**
 * The toolbar badge: "…" while connecting, "!" in red when the host cannot be reached (a problem
 * with the connection matters more than a count that may be stale), otherwise the number of
 * approval requests waiting for the person, empty when there are none.
 */
export function badgeFor(state: ConnectionState, pendingApprovals = 0): Badge {
  switch (state.status) {
    case 'connected':
      if (pendingApprovals > 0) {
        return {
          text: pendingApprovals > 99 ? '99+' : String(pendingApprovals),
          color: '#d9480f',
          title:
            pendingApprovals === 1
              ? 'NextAI Agent — 1 approval request is waiting for you'
              : `NextAI Agent — ${pendingApprovals} approval requests are waiting for you`,
        };
      }
      return { text: '', color: '#2e7d32', title: 'NextAI Agent — connected' };
    case 'connecting':
      return {
        text: '…',
        color: '#8a6d00',
        title: state.daemonRestarting ? 'NextAI Agent — restarting the daemon' : 'NextAI Agent — connecting',
      };
    case 'disconnected':
      return {
        text: '!',
        color: '#c62828',
        title: `NextAI Agent — not connected: ${state.error?.message ?? 'the host is not running'}`,
      };
  }
}

// What the badge is made from: the background sets each part as it changes (the connection in
// entrypoints/background.ts, the count in background/approval-badge.ts) and the badge shows both.
let lastState: ConnectionState | undefined;
let pending = 0;
let shown: Badge | undefined;

// Firefox MV2 has `browserAction`, Chromium MV3 `action`. Looked up on use: unit tests import
// badgeFor where there is no `browser`.
const action = () => browser.action ?? (browser as unknown as { browserAction: typeof browser.action }).browserAction;

/** Shows the connection state (with the last pending count). */
export function showBadge(state: ConnectionState): Promise<void> {
  lastState = state;
  return render();
}

/** Shows the number of pending approvals (with the last connection state). */
export function showPendingApprovals(count: number): Promise<void> {
  pending = count;
  return render();
}

async function render(): Promise<void> {
  if (!lastState) return;
  const badge = badgeFor(lastState, pending);
  // The connection state changes with every event (its last seq): skip calls that change nothing.
  if (shown && shown.text === badge.text && shown.color === badge.color && shown.title === badge.title) return;
  shown = badge;
  await Promise.all([
    action().setBadgeText({ text: badge.text }),
    action().setBadgeBackgroundColor({ color: badge.color }),
    action().setTitle({ title: badge.title }),
  ]);
}
