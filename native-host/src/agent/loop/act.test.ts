import type { ToolResult } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import type { ToolResultBlock, ToolUseBlock } from '../providers/types.js';
import {
  MAX_READ_ATTEMPTS,
  admitCall,
  needsObservationAfter,
  progressSummary,
  retryDelay,
  shouldRetry,
  sortResults,
  toOutcome,
  withNote,
} from './act.js';
import { actionKey, emptyFailureState, recordOutcome } from './failure-tracker.js';
import type { PendingTurn } from './loop-state.js';

const call = (name: string, input: Record<string, unknown> = {}, id = 'c1'): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});
const ok = (output: unknown): ToolResult => ({ ok: true, output, duration_ms: 1 });
const failed = (code: string, message = 'boom'): ToolResult =>
  ({ ok: false, error: { code, message }, duration_ms: 1 }) as ToolResult;
const result = (id: string): ToolResultBlock => ({ type: 'tool_result', toolUseId: id, content: [] });

describe('admitting a call', () => {
  const offered = () => ['system_info', 'file_read'];

  it('runs a well-formed call of a known tool, keyed by its action', () => {
    const write = call('file_write', { path: '/a', content: 'x' });
    expect(admitCall(write, undefined, emptyFailureState(), offered)).toEqual({
      run: true,
      effect: 'destructive',
      key: actionKey('file_write', { path: '/a', content: 'x' }),
    });
  });

  it('answers arguments that were not valid JSON without running the call', () => {
    expect(admitCall(call('file_read'), 'not valid JSON', emptyFailureState(), offered)).toEqual({
      run: false,
      answer: 'file_read was not run: not valid JSON',
    });
  });

  it('answers an unknown tool with the names of the tools there are', () => {
    let asked = 0;
    const tools = () => {
      asked += 1;
      return offered();
    };
    expect(admitCall(call('teleport'), undefined, emptyFailureState(), tools)).toEqual({
      run: false,
      answer: 'There is no tool named "teleport". The tools you can use are: system_info, file_read.',
    });
    expect(asked).toBe(1);
    admitCall(call('system_info'), undefined, emptyFailureState(), tools);
    expect(asked).toBe(1); // only asked when the answer needs them
  });

  it('refuses an action that has failed three times, but not another one', () => {
    const failures = emptyFailureState();
    const write = call('file_write', { path: '/a' });
    for (let i = 0; i < 3; i++) {
      recordOutcome(failures, actionKey('file_write', { path: '/a' }), {
        ok: false,
        code: 'NOT_WRITABLE',
        message: 'read-only',
        tool: 'file_write',
      });
    }
    expect(admitCall(write, undefined, failures, offered)).toMatchObject({
      run: false,
      answer: expect.stringContaining('Not run: this exact action has already failed 3 times'),
    });
    expect(admitCall(call('file_write', { path: '/b' }), undefined, failures, offered)).toMatchObject({ run: true });
  });
});

describe('retrying a failed call by itself', () => {
  it('retries a read-only tool after a failure that may pass, up to three tries in all', () => {
    for (const code of ['TIMEOUT', 'TOOL_FAILED', 'DISCONNECTED']) {
      expect(shouldRetry('read', failed(code), 1)).toBe(true);
    }
    expect(shouldRetry('read', failed('TOOL_FAILED'), MAX_READ_ATTEMPTS - 1)).toBe(true);
    expect(shouldRetry('read', failed('TOOL_FAILED'), MAX_READ_ATTEMPTS)).toBe(false);
  });

  it('never repeats a tool that changes something, a lasting failure or a success', () => {
    expect(shouldRetry('write', failed('TIMEOUT'), 1)).toBe(false);
    expect(shouldRetry('destructive', failed('TIMEOUT'), 1)).toBe(false);
    expect(shouldRetry('read', failed('NOT_FOUND'), 1)).toBe(false);
    expect(shouldRetry('read', failed('APPROVAL_DENIED'), 1)).toBe(false);
    expect(shouldRetry('read', ok({}), 1)).toBe(false);
  });

  it('doubles the pause after each try', () => {
    expect([1, 2, 3].map((attempts) => retryDelay(250, attempts))).toEqual([250, 500, 1000]);
  });
});

describe('looking at the screen after acting', () => {
  it('looks after a UI action, until the model takes a screenshot itself', () => {
    expect(needsObservationAfter(false, 'left_click', true)).toBe(true);
    expect(needsObservationAfter(false, 'left_click', false)).toBe(true);
    expect(needsObservationAfter(true, 'system_info', true)).toBe(true);
    expect(needsObservationAfter(true, 'screenshot', true)).toBe(false);
    expect(needsObservationAfter(true, 'screenshot', false)).toBe(true);
    expect(needsObservationAfter(false, 'file_write', true)).toBe(false);
  });
});

describe('tool results', () => {
  it('puts results in the order the model asked for the calls', () => {
    const pending: PendingTurn = {
      calls: [call('a', {}, 'x'), call('b', {}, 'y'), call('c', {}, 'z')],
      parseErrors: {},
      results: [result('z'), result('x'), result('y')],
      needsObservation: false,
    };
    sortResults(pending);
    expect(pending.results.map((block) => block.toolUseId)).toEqual(['x', 'y', 'z']);
  });

  it('turns a result into what the model is shown, with the failure note after it', () => {
    const read = call('file_read', { path: '/a' });
    expect(toOutcome(read, ok({ content: 'x' }))).toEqual({
      toolUseId: 'c1',
      name: 'file_read',
      input: { path: '/a' },
      ok: true,
      output: { content: 'x' },
    });
    expect(toOutcome(read, failed('NOT_FOUND', 'no such file'))).toEqual({
      toolUseId: 'c1',
      name: 'file_read',
      input: { path: '/a' },
      ok: false,
      error: { code: 'NOT_FOUND', message: 'no such file' },
    });
    const block: ToolResultBlock = { type: 'tool_result', toolUseId: 'c1', content: [{ type: 'text', text: 'r' }] };
    expect(withNote(block, 'note').content).toEqual([
      { type: 'text', text: 'r' },
      { type: 'text', text: 'note' },
    ]);
    expect(block.content).toHaveLength(1);
  });

  it('sums a result up in one line for progress displays, without images or file contents', () => {
    expect(progressSummary(ok({ path: '/a', content: 'secret', image: 'base64', size: 3, tags: ['x'] }))).toBe(
      'path=/a size=3 tags=["x"]',
    );
    expect(progressSummary(ok('plain'))).toBe('plain');
    expect(progressSummary(failed('TOOL_FAILED', 'e'.repeat(300)))).toHaveLength(200);
    const long = progressSummary(ok({ text: 'y'.repeat(300) }));
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });
});
