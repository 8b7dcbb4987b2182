import { MAX_CATCH_UP_EACH, type CatchUpPolicy } from '@nextai/shared';

export interface DueTimes {
  /**
   * The oldest cron times due now (after the task's cursor, at or before now), oldest first: all
   * of them, or at least the first {@link MISSED_LIST_MAX} (what a skip row lists).
   */
  times: number[];
  /** How many are due in all: counted, not estimated, however many `times` lists. */
  total: number;
  /**
   * The newest ones due, oldest first, when `times` does not list them all: at least the last
   * {@link MAX_CATCH_UP_EACH} + 1, so every plan can name the times it keeps, fires or drops last.
   */
  recent?: number[];
  /** The latest due time. */
  latest: number;
}

/** Due times a skip row lists (the count and the range always cover all of them). */
export const MISSED_LIST_MAX = 50;

/**
 * Due times dropped, as one history row records them: `count` of them, from `first` to `last`,
 * the oldest up to {@link MISSED_LIST_MAX} listed in `times`. They always agree: `times` is the
 * start of the run of times from `first` to `last`, all of them when `count` is not above the cap.
 */
export interface SkippedSpan {
  count: number;
  first: number;
  last: number;
  times: number[];
}

export interface CatchUpPlan {
  /** The run to start now, if any; `missedTimes`: the oldest of those it also stands for. */
  fire?: { scheduledFor: number; missed: number; missedTimes: number[]; late: boolean };
  /** Due times dropped (recorded in the history as one skip). */
  skipped?: SkippedSpan;
  /** The task's new cursor: every cron time up to it is dealt with. */
  cursor: number;
}

/**
 * The due time at `index` (0: the oldest): from `times` at the start, from `recent` at the end.
 * The scheduler lists enough of both ends for every plan below; anything else is a bug.
 */
export function dueTimeAt(due: DueTimes, index: number): number {
  if (index >= 0 && index < due.times.length) return due.times[index]!;
  const recent = due.recent ?? [];
  const fromEnd = index - (due.total - recent.length);
  const time = index < due.total ? recent[fromEnd] : undefined;
  if (time === undefined) {
    throw new Error(
      `due time ${index} of ${due.total} is not listed (${due.times.length} first, ${recent.length} last)`,
    );
  }
  return time;
}

/** The due times from index `from` up to (not including) `to`, as a skip records them. */
export function spanOf(due: DueTimes, from: number, to: number): SkippedSpan {
  const listed = Math.min(to, from + MISSED_LIST_MAX);
  const times: number[] = [];
  for (let index = from; index < listed; index++) times.push(dueTimeAt(due, index));
  return { count: to - from, first: dueTimeAt(due, from), last: dueTimeAt(due, to - 1), times };
}

/**
 * What to do with the cron times that are due: the one on time runs; those that are late (the
 * machine was off, the daemon down, the task held back) follow the task's catch-up policy —
 * `skip` drops them, `once` runs one for all (the latest), `each` runs them one after another
 * (the oldest first; at most {@link MAX_CATCH_UP_EACH}, older ones beyond that are dropped).
 * A time counts as late when it is more than `graceMs` in the past. What is dropped is exactly
 * what is neither run nor left for later: the run fired is never inside the span skipped.
 */
export function planCatchUp(due: DueTimes, policy: CatchUpPolicy, now: number, graceMs: number): CatchUpPlan {
  const onTime = (time: number) => now - time <= graceMs;
  const latestLate = !onTime(due.latest);
  switch (policy) {
    case 'skip': {
      if (!latestLate) {
        // The latest runs; only the ones before it are dropped.
        return {
          fire: { scheduledFor: due.latest, missed: 0, missedTimes: [], late: false },
          ...(due.total > 1 ? { skipped: spanOf(due, 0, due.total - 1) } : {}),
          cursor: due.latest,
        };
      }
      return { skipped: spanOf(due, 0, due.total), cursor: due.latest };
    }
    case 'once': {
      const standsFor = due.total > 1 ? spanOf(due, 0, due.total - 1).times : [];
      return {
        fire: { scheduledFor: due.latest, missed: due.total - 1, missedTimes: standsFor, late: latestLate },
        cursor: due.latest,
      };
    }
    case 'each': {
      // Too many to run each: the oldest beyond the cap are dropped, the rest run one by one.
      const dropped = Math.max(0, due.total - MAX_CATCH_UP_EACH);
      const keptFrom = dueTimeAt(due, dropped);
      return {
        fire: { scheduledFor: keptFrom, missed: 0, missedTimes: [], late: !onTime(keptFrom) },
        ...(dropped > 0 ? { skipped: spanOf(due, 0, dropped) } : {}),
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
