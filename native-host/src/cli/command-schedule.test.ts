import { describe, expect, it } from 'vitest';

import { timeIn } from './command-schedule.js';

describe('times in `nextai schedule` output', () => {
  it('shows a moment on the task’s own clock, with the zone named', () => {
    expect(timeIn('2026-11-27T01:00:00.000Z', 'Asia/Shanghai')).toBe('2026-11-27 09:00 Asia/Shanghai');
    expect(timeIn('2026-11-27T01:00:00.000Z', 'America/New_York')).toBe('2026-11-26 20:00 America/New_York');
    // Summer time: New York is UTC−4 in July.
    expect(timeIn('2026-07-01T12:30:00.000Z', 'America/New_York')).toBe('2026-07-01 08:30 America/New_York');
    expect(timeIn('2026-11-27T00:05:00.000Z', 'UTC')).toBe('2026-11-27 00:05 UTC');
  });
});
