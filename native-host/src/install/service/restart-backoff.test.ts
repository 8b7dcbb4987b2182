import { describe, expect, it } from 'vitest';

import { restartDelay } from './restart-backoff.js';

describe('restartDelay', () => {
  it('grows 5 s → 15 s → 60 s in all (the service manager waits its own part) and stays at 60 s', () => {
    const totals: number[] = [];
    let state: { running: boolean; failures: number } | undefined = { running: true, failures: 0 };
    for (let i = 0; i < 5; i++) {
      const { failures, waitMs } = restartDelay(state, 5000);
      totals.push(5000 + waitMs);
      state = { running: true, failures };
    }
    expect(totals).toEqual([5000, 15_000, 60_000, 60_000, 60_000]);
  });

  it('does not wait after a clean stop or the first start, nor more than the manager when it waits a minute itself', () => {
    expect(restartDelay(undefined, 5000)).toEqual({ failures: 0, waitMs: 0 });
    expect(restartDelay({ running: false, failures: 2 }, 5000)).toEqual({ failures: 0, waitMs: 0 });
    expect(restartDelay({ running: true, failures: 0 }, 60_000)).toEqual({ failures: 1, waitMs: 0 });
  });
});
