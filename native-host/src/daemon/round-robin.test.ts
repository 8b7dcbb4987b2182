import { describe, expect, it } from 'vitest';

import { RoundRobin, type TakesTurns } from './round-robin.js';

/** A member with `count` pieces of work that records, in a shared list, when each was done. */
function member(name: string, count: number, done: string[]): TakesTurns & { left: number } {
  return {
    left: count,
    takeTurn() {
      this.left--;
      done.push(name);
      return this.left > 0;
    },
  };
}

const idle = () => new Promise((resolve) => setImmediate(resolve));

describe('RoundRobin', () => {
  it('serves one that arrives later within a turn or two, however much another has waiting', async () => {
    const done: string[] = [];
    const ring = new RoundRobin({ turnsPerPass: 4 });
    const flood = member('flood', 10_000, done);
    ring.wake(flood);
    await idle();
    await idle();
    const ping = member('ping', 1, done);
    const before = done.length;
    ring.wake(ping);
    await expect.poll(() => done.includes('ping')).toBe(true);
    // The flood had its turn in this pass at most once before the ping's.
    expect(done.indexOf('ping') - before).toBeLessThanOrEqual(1);
    await expect.poll(() => flood.left, { timeout: 10_000 }).toBe(0);
    expect(ring.waiting).toBe(0);
  });

  it('gives each its turn in order, and a member woken twice one place', async () => {
    const done: string[] = [];
    const ring = new RoundRobin({ turnsPerPass: 100 });
    const a = member('a', 3, done);
    const b = member('b', 2, done);
    ring.wake(a);
    ring.wake(b);
    ring.wake(a);
    await expect.poll(() => done.length).toBe(5);
    expect(done).toEqual(['a', 'b', 'a', 'b', 'a']);
  });

  it('yields to the event loop between passes', async () => {
    const done: string[] = [];
    const ring = new RoundRobin({ turnsPerPass: 1 });
    const a = member('a', 100_000, done);
    ring.wake(a);
    const doneWhenTimerRan = await new Promise<number>((resolve) => setTimeout(() => resolve(done.length), 0));
    expect(doneWhenTimerRan).toBeGreaterThan(0);
    expect(doneWhenTimerRan).toBeLessThan(100_000);
    await expect.poll(() => a.left, { timeout: 20_000 }).toBe(0);
  });
});
