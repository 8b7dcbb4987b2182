import { setTimeout as wait } from 'node:timers/promises';

/**
 * Waits `ms` milliseconds. With a signal, an abort ends the wait at once and rejects with the
 * signal's reason — why the work was cancelled (the emergency stop, a time-out) — rather than
 * Node's bare AbortError. The one sleep of the daemon.
 */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return wait(ms);
  try {
    await wait(ms, undefined, { signal });
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
}
