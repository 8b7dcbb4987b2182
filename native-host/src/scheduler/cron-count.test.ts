import { describe, expect, it } from 'vitest';

import { CronCounter, type CronSteps } from './cron-count.js';
import { CronSchedule } from './cron.js';
import { prng } from '../core/testing/prng.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Zones with the kinds of change there are: none, ±1 h at night, at midnight (Santiago, Havana), ½ h (Lord Howe), a ½-h offset. */
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Santiago',
  'America/Havana',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
];
/** Days with a daylight-saving change in one of the zones (2025), which the windows are put around. */
const CHANGES = ['2025-03-09', '2025-03-30', '2025-04-06', '2025-09-07', '2025-10-05', '2025-10-26', '2025-11-02'].map(
  (day) => Date.parse(`${day}T00:00:00Z`),
);

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** A cron expression of moderate density, so that stepping through a window to check it stays quick. */
function expression(random: () => number): string {
  const minute = pick(random, ['0', '30', '*/15', '5,35', '*/20', '0-10', '*']);
  const hour = pick(random, ['*', '*/3', '9-17', '0', '1', '2', '23', '0,12', '1-3']);
  const dom = pick(random, ['*', '*', '*', '1', '1-15', 'L', '9']);
  const month = pick(random, ['*', '*', '*', '3-4', '10-11']);
  const dow = pick(random, ['*', '*', '*', '1-5', '0', '6']);
  return `${minute} ${hour} ${dom} ${month} ${dow}`;
}

describe('counting cron times without stepping through each', () => {
  it('agrees with stepping through them, across daylight-saving changes in every kind of zone', () => {
    const random = prng(20250602);
    let checked = 0;
    for (let round = 0; round < 400 && checked < 150; round++) {
      const schedule = CronSchedule.parse(expression(random), pick(random, ZONES));
      const dense = schedule.expression.startsWith('* ') || schedule.expression.startsWith('0-10 ');
      const start = pick(random, CHANGES) + Math.floor((random() - 0.5) * 6 * DAY);
      const length = Math.floor(random() * (dense ? 2 : 12) * DAY) + Math.floor(random() * HOUR);
      const stepped = schedule.between(start, start + length, 5000);
      if (stepped.length === 5000) continue;
      checked += 1;
      const what = `${schedule.expression} in ${schedule.timezone}, (${new Date(start).toISOString()}, +${length} ms]`;
      expect(schedule.count(start, start + length), what).toBe(stepped.length);
      expect(schedule.recent(start, start + length, 7), what).toEqual(stepped.slice(-7));
    }
    expect(checked).toBeGreaterThanOrEqual(100);
  });

  it('counts a long downtime of an every-minute task exactly, in a few thousand steps rather than half a million', () => {
    const schedule = CronSchedule.parse('* * * * *', 'Europe/Berlin');
    let steps = 0;
    const counted: CronSteps = {
      next: (after) => {
        steps += 1;
        return schedule.next(after);
      },
      between: (after, until, limit) => {
        const times = schedule.between(after, until, limit);
        steps += times.length + 1;
        return times;
      },
    };
    const counter = new CronCounter(counted, CronSchedule.parse('0 0 * * *', 'Europe/Berlin'));
    const from = Date.parse('2025-03-01T00:00:30Z');
    // Every minute that passes, 31 days of them, though one local day (March 30th) lasts 23 hours.
    expect(counter.count(from, Date.parse('2025-04-01T00:00:30Z'))).toBe(31 * 24 * 60);
    steps = 0;
    expect(counter.count(from, from + 365 * DAY)).toBe(365 * 24 * 60);
    // About two steps a day, plus the two days with a change stepped through minute by minute.
    expect(steps).toBeLessThan(5000);
  });

  it('nothing in an empty or reversed window', () => {
    const schedule = CronSchedule.parse('0 9 * * *', 'UTC');
    const t = Date.parse('2025-06-02T09:00:00Z');
    expect(schedule.count(t, t)).toBe(0);
    expect(schedule.count(t, t - HOUR)).toBe(0);
    expect(schedule.count(t - 1, t)).toBe(1);
    expect(schedule.recent(t, t, 3)).toEqual([]);
  });
});
