import { describe, expect, it } from 'vitest';

import { badgeFor } from './badge.js';
import { INITIAL_STATE, type ConnectionState } from './connection-state.js';

const connected: ConnectionState = { ...INITIAL_STATE, status: 'connected' };

describe('badgeFor', () => {
  it('shows the pending approvals when connected, empty when there are none', () => {
    expect(badgeFor(connected, 0).text).toBe('');
    expect(badgeFor(connected, 3)).toMatchObject({ text: '3', title: expect.stringContaining('3 approval requests') });
    expect(badgeFor(connected, 1).title).toContain('1 approval request is');
    expect(badgeFor(connected, 250).text).toBe('99+');
  });

  it('a connection problem wins over the count', () => {
    expect(badgeFor({ ...INITIAL_STATE, status: 'connecting' }, 4).text).toBe('…');
    expect(
      badgeFor(
        { ...INITIAL_STATE, status: 'disconnected', error: { code: 'X', message: 'gone', hostMissing: false } },
        4,
      ),
    ).toMatchObject({ text: '!', title: 'NextAI Agent — not connected: gone' });
  });
});
