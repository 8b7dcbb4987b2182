/**
 * Time for the scheduler, injectable so tests step it by hand. Timers are one-shot; the scheduler
 * keeps exactly one armed, for the next thing due (no polling).
 */
export interface Clock {
  /** Milliseconds since the epoch (wall-clock time: cron times are wall-clock times). */
  now(): number;
  /** Calls `fn` once after `ms` milliseconds; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const timer = setTimeout(fn, Math.max(0, ms));
    // The daemon's socket keeps the process alive; a timer alone must not.
    timer.unref();
    return () => clearTimeout(timer);
  },
};
