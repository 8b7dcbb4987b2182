import { MAX_CATCH_UP_EACH, type CatchUpPolicy } from '@nextai/shared';

export interface DueTimes {
  /** Cron times due now (after the task's cursor, at or before now), oldest first, at most a bounded number. */
  times: number[];
  /** Due times there are in all (more than `times` when the enumeration was cut short). */
  total: number;
  /** The latest due time. */
  latest: number;
}

export interface CatchUpPlan {
  /** The run to start now, if any. */
  fire?: { scheduledFor: number; missed: number; late: boolean };
  /** Due times dropped, with the span they cover (recorded in the history as one skip). */
  skipped?: { count: number; first: number; last: number };
  /** The task's new cursor: every cron time up to it is dealt with. */
  cursor: number;
}

/**
 * What to do with the cron times that are due: the one on time runs; those that are late (the
 * machine was off, the daemon down, the task held back) follow the task's catch-up policy —
 * `skip` drops them, `once` runs one for all (the latest), `each` runs them one after another
 * (the oldest first; at most {@link MAX_CATCH_UP_EACH}, older ones beyond that are dropped).
 * A time counts as late when it is more than `graceMs` in the past.
 */
export function planCatchUp(due: DueTimes, policy: CatchUpPolicy, now: number, graceMs: number): CatchUpPlan {
  const onTime = (time: number) => now - time <= graceMs;
  const latestLate = !onTime(due.latest);
  switch (policy) {
    case 'skip': {
      if (!latestLate) {
        const dropped = due.total - 1;
        return {
          fire: { scheduledFor: due.latest, missed: 0, late: false },
          ...(dropped > 0 ? { skipped: { count: dropped, first: due.times[0] ?? due.latest, last: due.latest } } : {}),
          cursor: due.latest,
        };
      }
      return { skipped: { count: due.total, first: due.times[0] ?? due.latest, last: due.latest }, cursor: due.latest };
    }
    case 'once':
      return {
        fire: { scheduledFor: due.latest, missed: due.total - 1, late: latestLate },
        cursor: due.latest,
      };
    case 'each': {
      const first = due.times[0] ?? due.latest;
      if (due.total <= MAX_CATCH_UP_EACH) {
        return { fire: { scheduledFor: first, missed: 0, late: !onTime(first) }, cursor: first };
      }
      // Too many to run each: the oldest beyond the cap are dropped, the rest run one by one.
      const dropped = due.total - MAX_CATCH_UP_EACH;
      const keptFrom = due.times[dropped];
      if (keptFrom === undefined) {
        // The enumeration was cut short before reaching the ones kept: drop what it saw and look again.
        const lastSeen = due.times.at(-1) ?? due.latest;
        return { skipped: { count: due.times.length, first, last: lastSeen }, cursor: lastSeen };
      }
      const lastDropped = due.times[dropped - 1] ?? first;
      return {
        fire: { scheduledFor: keptFrom, missed: 0, late: !onTime(keptFrom) },
        skipped: { count: dropped, first, last: lastDropped },
        cursor: keptFrom,
      };
    }
  }
}

/** The first retry waits `baseSeconds`, each next one twice as long, never more than an hour. */
export function retryDelayMs(attempt: number, baseSeconds: number): number {
  const factor = 2 ** Math.max(0, attempt - 1);
  return Math.min(baseSeconds * factor, 3600) * 1000;
}

/**
 * How long a task whose run died with the daemon waits before it is tried again: long enough that
 * a task that crashes the daemon cannot put it in a tight loop (5 min, then 20 min…). After
 * {@link CRASH_LIMIT} crashes in a row the task is turned off instead.
 */
export function crashBackoffMs(consecutiveCrashes: number): number {
  return 5 * 60_000 * 4 ** Math.max(0, consecutiveCrashes - 1);
}

export const CRASH_LIMIT = 3;
