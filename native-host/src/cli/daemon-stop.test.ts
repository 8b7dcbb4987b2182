import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { describeDrain, describeStart, droppedAtOnce, parseGraceSeconds, requestedGraceMs } from './daemon-stop.js';

describe('nextai daemon stop', () => {
  it('asks for no grace with --now, for --grace in ms, and otherwise leaves it to the daemon', () => {
    expect(requestedGraceMs({ now: true, grace: 10 })).toBe(0);
    expect(requestedGraceMs({ grace: 2.5 })).toBe(2500);
    expect(requestedGraceMs({})).toBeUndefined();
    expect(parseGraceSeconds('0')).toBe(0);
    expect(parseGraceSeconds('90')).toBe(90);
    for (const wrong of ['', '-1', 'soon', '3601']) expect(() => parseGraceSeconds(wrong)).toThrow(/from 0 to 3600/);
  });

  it('says what it waits for, and what it aborts', () => {
    expect(describeStart(0, 30_000)).toBeUndefined();
    expect(describeStart(2, 30_000)).toBe('waiting for 2 running tool calls to finish (up to 30 s)…');
    expect(describeStart(1, 0)).toBe('stopping now: aborting 1 running tool call');
    expect(describeDrain({ running_calls: 1, remaining_ms: 27_400 }, 2)).toBe(
      'waiting for 1 running tool call to finish (up to 28 s more)…',
    );
    // Nothing new: the same count as shown.
    expect(describeDrain({ running_calls: 2, remaining_ms: 29_000 }, 2)).toBeUndefined();
    expect(describeDrain({ running_calls: 0, remaining_ms: 12_000, ended: 'finished' }, 1)).toBe(
      'the running tool calls finished',
    );
    expect(describeDrain({ running_calls: 0, remaining_ms: 30_000, ended: 'finished' }, undefined)).toBeUndefined();
    expect(describeDrain({ running_calls: 1, remaining_ms: 0, ended: 'grace_over' }, 1)).toBe(
      'the grace period is over: aborting 1 running tool call still going',
    );
    expect(describeDrain({ running_calls: 3, remaining_ms: 0, ended: 'hurried' }, 3)).toBe(
      'stopping now: aborting 3 running tool calls',
    );
  });

  it('takes a connection dropped at once for a daemon that is stopping, not one that is missing or stuck', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(droppedAtOnce(reset)).toBe(true);
    // As the connection passes it on (FramedStream).
    const pipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    expect(droppedAtOnce(new AppError('DISCONNECTED', 'write EPIPE', { cause: pipe }))).toBe(true);
    expect(droppedAtOnce(new AppError('DAEMON_UNAVAILABLE', 'The daemon closed the connection.'))).toBe(true);
    const stuck = new AppError('DAEMON_UNAVAILABLE', 'accepts no connections', {
      details: { reason: 'not_responding' },
    });
    expect(droppedAtOnce(stuck)).toBe(false);
    expect(droppedAtOnce(new AppError('BUSY', 'too many clients'))).toBe(false);
    expect(droppedAtOnce(new Error('something else'))).toBe(false);
  });
});
