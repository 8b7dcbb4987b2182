import { describe, expect, it } from 'vitest';

import {
  ESCALATE_AFTER_FAILURES,
  MAX_ATTEMPTS_PER_ACTION,
  actionKey,
  checkAttempt,
  emptyFailureState,
  recordOutcome,
  resetAfterEscalation,
  stuckQuestion,
} from './failure-tracker.js';

const failure = (message = 'boom', code = 'TOOL_FAILED') => ({ ok: false as const, code, message, tool: 'file_write' });

describe('failure tracker', () => {
  it('keys an action by tool and input, whatever the key order', () => {
    expect(actionKey('t', { a: 1, b: [1, { c: 2, d: 3 }] })).toBe(actionKey('t', { b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(actionKey('t', { a: 1 })).not.toBe(actionKey('t', { a: 2 }));
    expect(actionKey('t', { a: 1 })).not.toBe(actionKey('u', { a: 1 }));
  });

  it('allows three tries of one action, then refuses it with a pointer to alternatives', () => {
    const state = emptyFailureState();
    const key = actionKey('file_write', { path: '/a' });
    for (let attempt = 1; attempt <= MAX_ATTEMPTS_PER_ACTION; attempt++) {
      expect(checkAttempt(state, key)).toEqual({ allowed: true });
      const verdict = recordOutcome(state, key, failure());
      expect(verdict.note).toContain(
        attempt < MAX_ATTEMPTS_PER_ACTION ? `failed ${attempt} time` : 'will not be run again',
      );
    }
    const refused = checkAttempt(state, key);
    expect(refused).toMatchObject({ allowed: false, message: expect.stringContaining('Try an alternative') });
    // Another action is still allowed.
    expect(checkAttempt(state, actionKey('file_write', { path: '/b' }))).toEqual({ allowed: true });
  });

  it('escalates after six failures in a row, and a success resets the streak', () => {
    const state = emptyFailureState();
    for (let i = 1; i < ESCALATE_AFTER_FAILURES; i++) {
      expect(recordOutcome(state, actionKey('x', { i }), failure(`failure ${i}`)).escalate).toBe(false);
    }
    recordOutcome(state, actionKey('x', { ok: 1 }), { ok: true });
    expect(state.consecutive).toBe(0);
    let last = { escalate: false };
    for (let i = 1; i <= ESCALATE_AFTER_FAILURES; i++)
      last = recordOutcome(state, actionKey('y', { i }), failure(`failure ${i}`));
    expect(last.escalate).toBe(true);
    const question = stuckQuestion(state);
    expect(question).toContain('last 6 actions failed');
    expect(question).toContain('failure 6');
    expect(question).not.toContain('failure 3'); // only the last three are quoted
    resetAfterEscalation(state);
    expect(state.consecutive).toBe(0);
  });

  it('does not count denials, cancelled approvals or the emergency stop as failures of the action', () => {
    const state = emptyFailureState();
    const key = actionKey('bash_execute', { command: 'x' });
    for (const code of ['APPROVAL_DENIED', 'APPROVAL_CANCELLED', 'EMERGENCY_STOPPED']) {
      expect(recordOutcome(state, key, failure('no', code))).toEqual({ escalate: false });
    }
    expect(state).toEqual(emptyFailureState());
  });
});
