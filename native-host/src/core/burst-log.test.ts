import { afterEach, describe, expect, it, vi } from 'vitest';

import { BurstLog } from './burst-log.js';

afterEach(() => vi.useRealTimers());

describe('BurstLog', () => {
  it('says the first event of a burst at once and the count once it is over', () => {
    vi.useFakeTimers();
    const said: string[] = [];
    const log = new BurstLog(
      () => said.push('started'),
      (count) => said.push(`ended after ${count}`),
      1000,
    );
    for (let i = 0; i < 20_000; i++) log.note();
    expect(said).toEqual(['started']);
    // Each event pushes the end further: the burst is over only after a quiet second.
    vi.advanceTimersByTime(900);
    log.note();
    vi.advanceTimersByTime(900);
    expect(said).toEqual(['started']);
    vi.advanceTimersByTime(200);
    expect(said).toEqual(['started', 'ended after 20001']);
    // The next event starts another burst; one alone needs no count.
    log.note();
    vi.advanceTimersByTime(1000);
    expect(said).toEqual(['started', 'ended after 20001', 'started']);
  });

  it('ends the burst at once on flush', () => {
    const said: string[] = [];
    const log = new BurstLog(
      () => said.push('started'),
      (count) => said.push(`ended after ${count}`),
    );
    log.note();
    log.note();
    log.flush();
    log.flush();
    expect(said).toEqual(['started', 'ended after 2']);
  });
});
