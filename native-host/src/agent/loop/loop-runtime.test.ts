import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import type { RunState } from '../run-store.js';
import { initialLoopState } from './loop-state.js';
import { DEFAULT_OPTIONS, Interrupted, LoopRuntime, toRunError, type LoopServices } from './loop-runtime.js';

/** A run store that keeps what the loop writes in arrays: enough for the step log and the checkpoint. */
function fakeServices(state: RunState = 'running', options: LoopServices['options'] = undefined) {
  const writes: unknown[][] = [];
  const events: { type: string; data: unknown }[] = [];
  const run = { id: 'r1', state };
  const runs = {
    get: () => run,
    transition: (_id: string, to: RunState) => {
      run.state = to;
    },
    recordIntent: (...args: unknown[]) => writes.push(['intent', ...args.slice(1)]),
    recordResult: (...args: unknown[]) => writes.push(['result', ...args.slice(1)]),
    recordStep: (...args: unknown[]) => writes.push(['step', ...args.slice(1)]),
    checkpoint: (_id: string, step: number) => writes.push(['checkpoint', step]),
    atomically: <T>(inner: () => T): T => {
      writes.push(['begin']);
      const value = inner();
      writes.push(['end']);
      return value;
    },
  };
  const services = {
    runs,
    events: { append: (type: string, data: unknown) => events.push({ type, data }) },
    options,
  } as unknown as LoopServices;
  return { services, writes, events, run };
}

describe('the loop runtime', () => {
  it('keeps an error for the run record, with translations only when it has them', () => {
    expect(toRunError(new AppError('TIMEOUT', 'slow'))).toEqual({ code: 'TIMEOUT', message: 'slow' });
    const translated = new AppError('LIMIT_REACHED', { en: 'limit', 'zh-CN': '上限' });
    expect(toRunError(translated)).toEqual({
      code: 'LIMIT_REACHED',
      message: 'limit',
      translations: { 'zh-CN': '上限' },
    });
  });

  it('takes the default options, overridden by the services', () => {
    expect(new LoopRuntime('r1', fakeServices().services).options).toEqual(DEFAULT_OPTIONS);
    const options = new LoopRuntime('r1', fakeServices('running', { retryDelayMs: 1 }).services).options;
    expect(options).toEqual({ ...DEFAULT_OPTIONS, retryDelayMs: 1 });
  });

  it('numbers steps in one sequence: an intent written before acting, or one reserved for later', () => {
    const { services, writes } = fakeServices();
    const runtime = new LoopRuntime('r1', services);
    runtime.state = initialLoopState([]);
    expect(runtime.reserveStep()).toBe(1);
    expect(runtime.beginStep({ kind: 'tool_call', tool: 'x' })).toBe(2);
    expect(runtime.state.nextStep).toBe(3);
    expect(writes).toEqual([['intent', 2, { kind: 'tool_call', tool: 'x' }]]);
  });

  it('commits a finished step with the checkpoint in one transaction', () => {
    const { services, writes } = fakeServices();
    const runtime = new LoopRuntime('r1', services);
    runtime.state = { ...initialLoopState([]), nextStep: 3 };
    runtime.commit({ step: 1, intent: { kind: 'model_call' }, result: { ok: true } });
    runtime.commit({ step: 2, result: { ok: false } });
    expect(writes).toEqual([
      ['begin'],
      ['step', 1, { kind: 'model_call' }, { ok: true }],
      ['checkpoint', 2],
      ['end'],
      ['begin'],
      ['result', 2, { ok: false }],
      ['checkpoint', 2],
      ['end'],
    ]);
  });

  it('a run that waited runs again when it takes a new step', () => {
    for (const state of ['queued', 'waiting_user', 'waiting_approval', 'paused'] as const) {
      const { services, run, events } = fakeServices(state);
      new LoopRuntime('r1', services).ensureRunning();
      expect(run.state).toBe('running');
      expect(events).toEqual([{ type: 'run.state', data: { run_id: 'r1', state: 'running', previous: state } }]);
    }
    const { services, events } = fakeServices('running');
    new LoopRuntime('r1', services).ensureRunning();
    expect(events).toEqual([]);
  });

  it('a model call is cut by a steer or pause of the turn, and by a stop of the run', () => {
    const runtime = new LoopRuntime('r1', fakeServices().services);
    expect(runtime.modelSignal().aborted).toBe(false);
    runtime.turnAbort.abort();
    expect(runtime.turnCut).toBe(true);
    expect(runtime.modelSignal().aborted).toBe(true);
    runtime.turnAbort = new AbortController();
    expect(runtime.turnCut).toBe(false);
    runtime.runAbort.abort();
    expect(runtime.modelSignal().aborted).toBe(true);
  });

  it('throws the interrupt asked for, if any', () => {
    const runtime = new LoopRuntime('r1', fakeServices().services);
    expect(() => runtime.throwIfInterrupted()).not.toThrow();
    runtime.interrupt = 'pause';
    expect(() => runtime.throwIfInterrupted()).toThrow(Interrupted);
    expect(() => runtime.throwIfInterrupted()).toThrow('run pause');
  });
});
