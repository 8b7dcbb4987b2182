import type { Clock } from '../clock.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** A clock for tests: time moves only when the test says, and timers fire in order as it passes them. */
export class FakeClock implements Clock {
  private time: number;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(start: number | string) {
    this.time = typeof start === 'string' ? Date.parse(start) : start;
  }

  now(): number {
    return this.time;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer: Timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((other) => other !== timer);
    };
  }

  /** Armed timers (the scheduler keeps one; more would mean it forgot to cancel one). */
  get pending(): number {
    return this.timers.length;
  }

  /** When the next timer fires, or undefined. */
  get nextAt(): number | undefined {
    return this.timers.reduce<number | undefined>(
      (soonest, timer) => Math.min(soonest ?? timer.at, timer.at),
      undefined,
    );
  }

  /**
   * Moves time forward by `ms`, firing every timer it passes in order, with `settle` awaited after
   * each (so work a timer starts can arm the next one before time moves on).
   */
  async advance(ms: number, settle: () => Promise<void> = flush): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const next = [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next || next.at > end) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.time = Math.max(this.time, next.at);
      next.fn();
      await settle();
    }
    this.time = end;
    await settle();
  }

  /** Drops every armed timer: the process that armed them died. */
  clearAll(): void {
    this.timers = [];
  }

  /** Sets the wall clock (a machine that was off, a clock change) without firing anything. */
  jump(to: number | string): void {
    this.time = typeof to === 'string' ? Date.parse(to) : to;
  }
}

/** Lets pending promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
