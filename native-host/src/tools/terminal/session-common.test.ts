import { spawnSync } from 'node:child_process';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { posixResyncLine } from '../../platform/shells.js';
import {
  describeExit,
  exitStatus,
  finish,
  isStop,
  randomMarker,
  resyncStatusFinder,
  waitForOutcome,
  type Outcome,
} from './session-common.js';

const text = (value: string, truncated = false) => ({ text: value, truncated, totalBytes: value.length });
const never = new Promise<never>(() => undefined);

describe('randomMarker', () => {
  it('is the label between the host’s prefix and 32 random hex digits, new each time', () => {
    const marker = randomMarker('END');
    expect(marker).toMatch(/^__NEXTAI_END_[0-9a-f]{32}__$/);
    expect(randomMarker('END')).not.toBe(marker);
  });
});

describe('resyncStatusFinder', () => {
  const marker = randomMarker('SYNC');
  const find = resyncStatusFinder(marker);

  it('reads the status printed after the marker once its line has ended', () => {
    expect(find(`noise\r\n${marker}130\r\n`)).toBe(130);
    expect(find(`${marker}0\n`)).toBe(0);
  });

  it('finds nothing before the line ends, nor after another marker', () => {
    expect(find(`${marker}13`)).toBeUndefined();
    expect(find('')).toBeUndefined();
    expect(resyncStatusFinder(randomMarker('SYNC'))(`${marker}0\n`)).toBeUndefined();
  });

  it('finds nothing in the typed line itself, only in what the shell prints', () => {
    const line = posixResyncLine(marker);
    expect(find(line)).toBeUndefined();
    const printed = spawnSync('sh', ['-c', `(exit 3); ${line}`], { encoding: 'utf8' });
    expect(find(line + printed.stdout)).toBe(3);
  });
});

describe('waitForOutcome', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is done, or exit, by whichever comes first', async () => {
    await expect(waitForOutcome(Promise.resolve(), never, { timeoutMs: 1_000 })).resolves.toEqual({ kind: 'done' });
    await expect(waitForOutcome(never, Promise.resolve(), { timeoutMs: 1_000 })).resolves.toEqual({ kind: 'exit' });
  });

  it('is a time-out when nothing comes in time', async () => {
    vi.useFakeTimers();
    const outcome = waitForOutcome(never, never, { timeoutMs: 500 });
    await vi.advanceTimersByTimeAsync(500);
    await expect(outcome).resolves.toEqual({ kind: 'timeout' });
  });

  it('is an abort when the signal aborts, before or while waiting, and lets go of the signal', async () => {
    const before = new AbortController();
    before.abort();
    await expect(
      waitForOutcome(Promise.resolve(), never, { timeoutMs: 1_000, signal: before.signal }),
    ).resolves.toEqual({ kind: 'abort' });

    const during = new AbortController();
    const remove = vi.spyOn(during.signal, 'removeEventListener');
    const outcome = waitForOutcome(never, never, { timeoutMs: 1_000, signal: during.signal });
    during.abort();
    await expect(outcome).resolves.toEqual({ kind: 'abort' });
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
  });

  it('is abandoned, its status still to be asked, when that comes first', async () => {
    await expect(waitForOutcome(never, never, { timeoutMs: 1_000 }, Promise.resolve())).resolves.toEqual({
      kind: 'abandoned',
      status: -1,
    });
  });
});

describe('finish', () => {
  const notices = ['a notice'];

  it('keeps the exit code of a call that was not stopped', () => {
    expect(finish({ kind: 'done' }, text('out'), text('err'), { exitCode: 2, notices })).toEqual({
      stdout: 'out',
      stderr: 'err',
      exitCode: 2,
      timedOut: false,
      aborted: false,
      truncated: false,
      notices,
    });
    expect(finish({ kind: 'abandoned', status: 130 }, text(''), text(''), { exitCode: 130, notices }).exitCode).toBe(
      130,
    );
  });

  it('has no exit code for a stopped call, and says how it was stopped', () => {
    const timedOut = finish({ kind: 'timeout' }, text(''), text(''), { exitCode: 0, notices });
    expect(timedOut).toMatchObject({ exitCode: null, timedOut: true, aborted: false });
    const aborted = finish({ kind: 'abort' }, text(''), text(''), { exitCode: 0, notices });
    expect(aborted).toMatchObject({ exitCode: null, timedOut: false, aborted: true });
  });

  it('is truncated when either stream was', () => {
    expect(finish({ kind: 'done' }, text('', true), text(''), { exitCode: 0, notices }).truncated).toBe(true);
    expect(finish({ kind: 'done' }, text(''), text('', true), { exitCode: 0, notices }).truncated).toBe(true);
  });
});

describe('isStop', () => {
  it('is true for a time-out and an abort only', () => {
    const outcomes: Outcome[] = [
      { kind: 'done' },
      { kind: 'exit' },
      { kind: 'timeout' },
      { kind: 'abort' },
      { kind: 'abandoned', status: 1 },
    ];
    expect(outcomes.filter(isStop).map((outcome) => outcome.kind)).toEqual(['timeout', 'abort']);
  });
});

describe('exitStatus and describeExit', () => {
  it('report an exit code as it is, and a signal as a shell does (128 + the signal)', () => {
    expect(exitStatus({ exitCode: 3 })).toBe(3);
    expect(exitStatus({ exitCode: 0, signal: 9 })).toBe(137);
    expect(describeExit({ exitCode: 3 })).toBe('exit code 3');
    expect(describeExit({ exitCode: 0, signal: 9 })).toBe('killed by signal 9');
  });
});
