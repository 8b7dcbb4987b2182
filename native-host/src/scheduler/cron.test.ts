import { describe, expect, it } from 'vitest';

import { CronSchedule, checkTimeZone, dayIn, describeCron } from './cron.js';

describe('CronSchedule', () => {
  it('steps through times in the zone, strictly after the given instant', () => {
    const weekdays = CronSchedule.parse('0 9 * * 1-5', 'Asia/Shanghai');
    // Friday 2025-06-06 09:00 Shanghai = 01:00 UTC; the next is Monday.
    expect(new Date(weekdays.next(Date.parse('2025-06-06T01:00:00Z'))!).toISOString()).toBe('2025-06-09T01:00:00.000Z');
    expect(
      weekdays
        .between(Date.parse('2025-06-05T00:00:00Z'), Date.parse('2025-06-10T00:00:00Z'), 10)
        .map((time) => new Date(time).toISOString()),
    ).toEqual(['2025-06-05T01:00:00.000Z', '2025-06-06T01:00:00.000Z', '2025-06-09T01:00:00.000Z']);
    expect(new Date(weekdays.latestAtOrBefore(Date.parse('2025-06-09T01:00:00Z'))!).toISOString()).toBe(
      '2025-06-09T01:00:00.000Z',
    );
  });

  it('accepts the @nicknames and says what an expression means in English and Chinese', () => {
    expect(CronSchedule.parse('@daily', 'UTC').describe()).toEqual({ en: 'At 00:00', 'zh-CN': '在00:00' });
    expect(describeCron('0 9 * * 1-5')).toEqual({
      en: 'At 09:00, Monday through Friday',
      'zh-CN': '在09:00, 星期一至星期五',
    });
    expect(describeCron('*/5 * * * *')['zh-CN']).toBe('每隔 5 分钟');
  });

  it('refuses an invalid expression with the reason and an example', () => {
    expect(() => CronSchedule.parse('61 * * * *', 'UTC')).toThrow(
      /not a valid cron expression: Invalid value for minute: 61/,
    );
    expect(() => CronSchedule.parse('* * * * * *', 'UTC')).toThrow(/requires exactly 5 parts/);
    expect(() => CronSchedule.parse('every day', 'UTC')).toThrow(/Use five fields/);
  });

  it('refuses an unknown time zone', () => {
    expect(() => checkTimeZone('Mars/Olympus_Mons')).toThrow(/"Mars\/Olympus_Mons" is not a time zone/);
    expect(checkTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
  });

  it('names the calendar day of an instant in a zone', () => {
    expect(dayIn(Date.parse('2025-06-01T23:30:00Z'), 'Asia/Shanghai')).toBe('2025-06-02');
    expect(dayIn(Date.parse('2025-06-01T23:30:00Z'), 'America/New_York')).toBe('2025-06-01');
  });
});
