import { describe, expect, it } from 'vitest';

import { daemonStopWork, drainWork, type DrainProgress, type StopParts, type StopWork } from './graceful-stop.js';

/** Work that ends when the test says: `finish()` ends one running call. */
function work(count: number): StopWork & { finish(): void } {
  let running = count;
  let wake: () => void = () => undefined;
  let changed = new Promise<void>((resolve) => (wake = resolve));
  return {
    runningCalls: () => running,
    busy: () => false,
    changed: () => changed,
    finish: () => {
      running -= 1;
      const previous = wake;
      changed = new Promise<void>((resolve) => (wake = resolve));
      previous();
    },
  };
}

function options(graceMs: number, hurry = new AbortController().signal) {
  const progress: DrainProgress[] = [];
  return { progress, options: { graceMs, hurry, onProgress: (step: DrainProgress) => progress.push(step) } };
}

describe('drainWork', () => {
  it('waits while tool calls run and ends once they have finished, saying each change', async () => {
    const calls = work(2);
    const { progress, options: drain } = options(60_000);
    const waiting = drainWork(calls, drain);
    await expect.poll(() => progress.length).toBe(1);
    calls.finish();
    await expect.poll(() => progress.length).toBe(2);
    calls.finish();
    await expect(waiting).resolves.toEqual({ outcome: 'finished', runningCalls: 0 });
    expect(progress.map((step) => step.runningCalls)).toEqual([2, 1]);
    expect(progress.every((step) => step.remainingMs > 0 && step.remainingMs <= 60_000)).toBe(true);
  });

  it('ends at once, with nothing said, when nothing runs', async () => {
    const { progress, options: drain } = options(60_000);
    await expect(drainWork(work(0), drain)).resolves.toEqual({ outcome: 'finished', runningCalls: 0 });
    expect(progress).toEqual([]);
  });

  it('waits for work that still winds down although no call runs', async () => {
    let busy = true;
    const { options: drain } = options(60_000);
    const waiting = drainWork(
      { runningCalls: () => 0, busy: () => busy, changed: () => new Promise(() => undefined) },
      drain,
    );
    let ended = false;
    void waiting.then(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toBe(false);
    busy = false;
    await expect(waiting).resolves.toEqual({ outcome: 'finished', runningCalls: 0 });
  });

  it('gives up when the grace period is over, saying how many calls are left to abort', async () => {
    const { progress, options: drain } = options(30);
    await expect(drainWork(work(1), drain)).resolves.toEqual({ outcome: 'grace_over', runningCalls: 1 });
    expect(progress.map((step) => step.runningCalls)).toEqual([1]);
  });

  it('stops waiting at once when hurried (a second stop)', async () => {
    const hurry = new AbortController();
    const { progress, options: drain } = options(60_000, hurry.signal);
    const waiting = drainWork(work(3), drain);
    await expect.poll(() => progress.length).toBe(1);
    hurry.abort();
    await expect(waiting).resolves.toEqual({ outcome: 'hurried', runningCalls: 3 });
  });
});

describe('daemonStopWork', () => {
  function parts(calls: { runId: string | undefined }[], goingOn: string[], loops = goingOn.length): StopParts {
    return {
      gateway: { executing: () => calls.map((call) => ({ ...call, done: new Promise(() => undefined) })) },
      runs: { goesOn: (runId) => goingOn.includes(runId), loopsRunning: loops, loopEnded: () => Promise.resolve() },
    };
  }

  it('counts direct calls and the calls of runs that go on, not those of runs waiting for a person', () => {
    const stopWork = daemonStopWork(
      parts([{ runId: undefined }, { runId: 'run-a' }, { runId: 'run-asking' }], ['run-a'], 2),
    );
    expect(stopWork.runningCalls()).toBe(2);
    expect(stopWork.busy()).toBe(true);
    expect(daemonStopWork(parts([{ runId: 'run-asking' }], [], 0)).runningCalls()).toBe(0);
    expect(daemonStopWork(parts([], [], 0)).busy()).toBe(false);
  });

  it('tells a change when a loop ends, and not before a direct call ends when no loop runs', async () => {
    await expect(daemonStopWork(parts([{ runId: 'run-a' }], ['run-a'])).changed()).resolves.toBeUndefined();
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    const direct: StopParts = {
      gateway: { executing: () => [{ runId: undefined, done }] },
      runs: { goesOn: () => false, loopsRunning: 0, loopEnded: () => Promise.resolve() },
    };
    let changed = false;
    const change = daemonStopWork(direct)
      .changed()
      .then(() => (changed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(changed).toBe(false);
    end();
    await change;
    expect(changed).toBe(true);
  });
});
