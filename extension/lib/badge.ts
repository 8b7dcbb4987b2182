import { browser } from 'wxt/browser';

import type { ConnectionState } from './connection-state.js';

/**
 * The toolbar badge: empty when all is well, "…" while connecting, "!" in red when the host
 * cannot be reached. (Issue #6 adds the pending-approval count.)
 */
export function badgeFor(state: ConnectionState): { text: string; color: string; title: string } {
  switch (state.status) {
    case 'connected':
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

// Firefox MV2 has `browserAction`, Chromium MV3 `action`.
const action = browser.action ?? (browser as unknown as { browserAction: typeof browser.action }).browserAction;

export async function showBadge(state: ConnectionState): Promise<void> {
  const badge = badgeFor(state);
  await Promise.all([
    action.setBadgeText({ text: badge.text }),
    action.setBadgeBackgroundColor({ color: badge.color }),
    action.setTitle({ title: badge.title }),
  ]);
}
