const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** What counting needs of a cron schedule (see cron.ts). */
export interface CronSteps {
  /** The first cron time strictly after `after`, or null. */
  next(after: number): number | null;
  /** Cron times in (after, until], oldest first, at most `limit` of them. */
  between(after: number, until: number, limit: number): number[];
}

/**
 * Counts the cron times in (after, until] without stepping through each of them: after a week of
 * downtime an every-minute task has 10 080 missed times, and croner takes about 50 µs a step. A
 * skip row must say how many runs it stands for, not "at least the first thousand".
 *
 * It goes a local day at a time (`midnights` is the same zone's "0 0 * * *"). A day that lasts
 * exactly 24 hours has no change of UTC offset in it, so its local hours are plain hours and — a
 * cron expression's minutes and hours not depending on the day — every such day that has a cron
 * time has the same number of them (hours that match × minutes that match), and every matching
 * hour the same number of minutes. Such a day costs one step to see whether it matches, a part
 * of one a step per hour. A day with a daylight-saving change (23, 25 or 23½ hours), where croner
 * moves or merges times, is stepped through one time at a time: it is exact, and there are two
 * such days a year.
 */
export class CronCounter {
  /** Cron times in a plain day that has any, and in a plain hour that has any (learnt once). */
  private perDay: number | undefined;
  private perHour: number | undefined;

  constructor(
    private readonly schedule: CronSteps,
    private readonly midnights: CronSteps & { latestAtOrBefore(time: number): number | null },
  ) {}

  count(after: number, until: number): number {
    if (until <= after) return 0;
    let day = this.midnights.latestAtOrBefore(after);
    if (day === null) return this.schedule.between(after, until, Infinity).length;
    let total = 0;
    while (day <= until) {
      const end = this.midnights.next(day);
      const lo = Math.max(after, day - 1);
      if (end === null) return total + this.schedule.between(lo, until, Infinity).length;
      const hi = Math.min(until, end - 1);
      if (hi > lo) total += this.inDay(day, end, lo, hi);
      day = end;
    }
    return total;
  }

  /** Cron times in (lo, hi], which lies in the local day [day, end). */
  private inDay(day: number, end: number, lo: number, hi: number): number {
    // Only a day that starts at a local midnight and lasts 24 hours is plain (see the class).
    const plain = end - day === DAY && this.midnights.next(day - 1) === day;
    if (!plain) return this.schedule.between(lo, hi, Infinity).length;
    if (!this.has(lo, hi)) return 0;
    if (lo === day - 1 && hi === end - 1) return (this.perDay ??= this.countDay(day));
    let total = 0;
    for (let hour = day; hour < end; hour += HOUR) {
      const from = Math.max(lo, hour - 1);
      const to = Math.min(hi, hour + HOUR - 1);
      if (to <= from) continue;
      if (from === hour - 1 && to === hour + HOUR - 1) total += this.inPlainHour(hour);
      else total += this.schedule.between(from, to, Infinity).length;
    }
    return total;
  }

  /** Cron times in the whole plain day starting at `day` (which has at least one). */
  private countDay(day: number): number {
    let total = 0;
    for (let hour = day; hour < day + DAY; hour += HOUR) total += this.inPlainHour(hour);
    return total;
  }

  /** Cron times in the plain hour starting at `hour`. */
  private inPlainHour(hour: number): number {
    if (!this.has(hour - 1, hour + HOUR - 1)) return 0;
    return (this.perHour ??= this.schedule.between(hour - 1, hour + HOUR - 1, Infinity).length);
  }

  /** Whether there is a cron time in (lo, hi]. */
  private has(lo: number, hi: number): boolean {
    const first = this.schedule.next(lo);
    return first !== null && first <= hi;
  }
}
