import { describe, expect, it } from 'vitest';

import { sleep } from './sleep.js';

describe('sleep', () => {
  it('waits, and ends at once with the reason when aborted', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('the emergency stop'));
    await expect(waiting).rejects.toThrow('the emergency stop');
    await expect(sleep(60_000, AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});
