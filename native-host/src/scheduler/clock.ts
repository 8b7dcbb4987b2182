/**
 * Time for the scheduler, injectable so tests step it by hand. Timers are one-shot; the scheduler
 * keeps exactly one armed, for the next thing due (no polling).
 */
export interface Clock {
  /** Milliseconds since the epoch (wall-clock time: cron times are wall-clock times). */
  now(): number;
  /**
   * Milliseconds on a clock that only moves forward, from an arbitrary start: the time the
   * process has run. Setting the wall clock does not move it (nor, on Linux and macOS, does the
   * time the machine sleeps). Durations are measured on it; `now() - monotonic()` changing
   * between two readings is the wall clock having been set (see clock-watch.ts).
   */
  monotonic(): number;
  /** Calls `fn` once after `ms` milliseconds (on the monotonic clock); the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer: (ms, fn) => {
    const timer = setTimeout(fn, Math.max(0, ms));
    // The daemon's socket keeps the process alive; a timer alone must not.
    timer.unref();
    return () => clearTimeout(timer);
  },
};
