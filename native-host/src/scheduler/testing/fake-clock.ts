import type { Clock } from '../clock.js';

interface Timer {
  /** When it fires, on the monotonic clock (as Node's timers do). */
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A clock for tests: time moves only when the test says, and timers fire in order as it passes them.
 * Like the real one it has two clocks: the wall clock ({@link now}), which {@link jump} sets, and
 * the monotonic one timers run on, which only {@link advance} moves.
 */
export class FakeClock implements Clock {
  private time: number;
  private mono = 0;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(start: number | string) {
    this.time = typeof start === 'string' ? Date.parse(start) : start;
  }

  now(): number {
    return this.time;
  }

  monotonic(): number {
    return this.mono;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.mono + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((other) => other !== timer);
    };
  }

  /** Armed timers (the scheduler keeps one; more would mean it forgot to cancel one). */
  get pending(): number {
    return this.timers.length;
  }

  /** When the next timer fires (wall-clock time, if the clock is not set meanwhile), or undefined. */
  get nextAt(): number | undefined {
    const at = this.timers.reduce<number | undefined>(
      (soonest, timer) => Math.min(soonest ?? timer.at, timer.at),
      undefined,
    );
    return at === undefined ? undefined : this.time + (at - this.mono);
  }

  /**
   * Moves time forward by `ms`, firing every timer it passes in order, with `settle` awaited after
   * each (so work a timer starts can arm the next one before time moves on).
   */
  async advance(ms: number, settle: () => Promise<void> = flush): Promise<void> {
    const end = this.mono + ms;
    for (;;) {
      const next = [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next || next.at > end) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.pass(next.at);
      next.fn();
      await settle();
    }
    this.pass(end);
    await settle();
  }

  /** Drops every armed timer: the process that armed them died. */
  clearAll(): void {
    this.timers = [];
  }

  /**
   * Sets the wall clock (a machine that was off or asleep, a clock change) without firing
   * anything: the monotonic clock, and the timers on it, do not move.
   */
  jump(to: number | string): void {
    this.time = typeof to === 'string' ? Date.parse(to) : to;
  }

  /** Both clocks move on to monotonic time `at`. */
  private pass(at: number): void {
    if (at <= this.mono) return;
    this.time += at - this.mono;
    this.mono = at;
  }
}

/** Lets pending promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
