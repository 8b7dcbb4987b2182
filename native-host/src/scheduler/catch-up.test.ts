import { MAX_CATCH_UP_EACH, type CatchUpPolicy } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { MISSED_LIST_MAX, planCatchUp, spanOf, type DueTimes, type SkippedSpan } from './catch-up.js';
import { prng } from '../core/testing/prng.js';

const MINUTE = 60_000;
const GRACE = 2 * MINUTE;
const POLICIES: readonly CatchUpPolicy[] = ['skip', 'once', 'each'];

/**
 * `all` due times as the scheduler hands them over: every one listed when there are few, else
 * the first `listed` and the last MAX_CATCH_UP_EACH + 1, with the true count.
 */
function dueTimes(all: number[], listed: number): DueTimes {
  if (all.length <= listed) return { times: all, total: all.length, latest: all.at(-1)! };
  return {
    times: all.slice(0, listed),
    total: all.length,
    recent: all.slice(-(MAX_CATCH_UP_EACH + 1)),
    latest: all.at(-1)!,
  };
}

/** A skip's count, range and list agree with each other and with the due times it covers. */
function expectWhole(span: SkippedSpan, all: number[], what: string): void {
  const covered = all.filter((time) => time >= span.first && time <= span.last);
  expect(span.count, what).toBe(covered.length);
  expect(span.first, what).toBe(covered[0]);
  expect(span.last, what).toBe(covered.at(-1));
  expect(span.times, what).toEqual(covered.slice(0, MISSED_LIST_MAX));
}

describe('catch-up plans: what is skipped, run and left always adds up', () => {
  it('for any due times, policy and lateness: count, range and list of a skip agree; nothing is both skipped and run', () => {
    const random = prng(1802);
    for (let round = 0; round < 3000; round++) {
      const step = [MINUTE, 5 * MINUTE, 60 * MINUTE][Math.floor(random() * 3)]!;
      const count = 1 + Math.floor(random() ** 2 * 400);
      const first = Date.parse('2025-06-02T00:00:00Z');
      const all = Array.from({ length: count }, (_, index) => first + index * step);
      const latest = all.at(-1)!;
      // On time, just late, or long late.
      const now = latest + [0, GRACE, GRACE + 1, 6 * 60 * MINUTE][Math.floor(random() * 4)]!;
      const listed = MISSED_LIST_MAX + Math.floor(random() * 120);
      const policy = POLICIES[Math.floor(random() * POLICIES.length)]!;
      const what = `${policy}, ${count} due every ${step / MINUTE} min, ${listed} listed, now latest+${now - latest} ms`;
      const plan = planCatchUp(dueTimes(all, listed), policy, now, GRACE);

      if (plan.skipped) expectWhole(plan.skipped, all, what);
      const fired = plan.fire?.scheduledFor;
      if (fired !== undefined && plan.skipped) {
        expect(fired < plan.skipped.first || fired > plan.skipped.last, what).toBe(true);
      }
      // Everything up to the new cursor is dealt with: skipped, run, or stood for by the run.
      const dealtWith = all.filter((time) => time <= plan.cursor).length;
      const fire = plan.fire;
      expect((plan.skipped?.count ?? 0) + (fire ? 1 + fire.missed : 0), what).toBe(dealtWith);
      if (fire) {
        expect(fire.missedTimes, what).toEqual(all.slice(0, Math.min(fire.missed, MISSED_LIST_MAX)));
        expect(fire.late, what).toBe(now - fire.scheduledFor > GRACE);
      }
      if (policy === 'once') expect([fire?.scheduledFor, fire?.missed], what).toEqual([latest, count - 1]);
      if (policy === 'each') {
        // The newest MAX_CATCH_UP_EACH run one by one, from the oldest of them.
        expect(fire?.scheduledFor, what).toBe(all[Math.max(0, count - MAX_CATCH_UP_EACH)]);
      }
      if (policy === 'skip') {
        expect(plan.cursor, what).toBe(latest);
        expect(fire?.scheduledFor, what).toBe(now - latest <= GRACE ? latest : undefined);
      }
    }
  });

  it('skip with the latest time on time runs it and drops only the ones before it', () => {
    const t = Date.parse('2025-06-02T12:00:00Z');
    const all = [t - 4 * 60 * MINUTE, t - 3 * 60 * MINUTE, t - 2 * 60 * MINUTE, t - 60 * MINUTE, t];
    const plan = planCatchUp(dueTimes(all, 1000), 'skip', t + 30_000, GRACE);
    expect(plan.fire).toEqual({ scheduledFor: t, missed: 0, missedTimes: [], late: false });
    expect(plan.skipped).toEqual({ count: 4, first: all[0], last: all[3], times: all.slice(0, 4) });
  });

  it('a span lists the oldest times, at most MISSED_LIST_MAX of them, and counts them all', () => {
    const all = Array.from({ length: 5000 }, (_, index) => index * MINUTE);
    const span = spanOf(dueTimes(all, 1000), 0, 5000);
    expect([span.count, span.first, span.last, span.times.length]).toEqual([5000, 0, 4999 * MINUTE, MISSED_LIST_MAX]);
    expect(() => spanOf(dueTimes(all, 1000), 0, 2000)).toThrow('due time 1999 of 5000 is not listed');
  });
});
