import { describe, expect, it } from 'vitest';

import type { ToolResultBlock, ToolUseBlock } from '../providers/types.js';
import { initialLoopState, type PendingTurn } from './loop-state.js';
import {
  OUTCOME_UNKNOWN,
  canAskAgain,
  outcomeUnknownBlock,
  recoveryFor,
  resultFromStep,
  resumeFrom,
} from './recovery.js';

const write: ToolUseBlock = { type: 'tool_use', id: 'w1', name: 'file_write', input: { path: '/a', content: '1' } };
const ask: ToolUseBlock = { type: 'tool_use', id: 'q1', name: 'ask_user', input: { question: 'Proceed?' } };

function pending(results: ToolResultBlock[] = []): PendingTurn {
  return { calls: [write, ask], parseErrors: {}, results, needsObservation: false };
}

const toolStep = (call: ToolUseBlock) => ({
  kind: 'tool_call',
  intent: { kind: 'tool_call', tool: call.name, call_id: call.id, input: call.input },
});
const noBlob = () => {
  throw new Error('no blob expected');
};
const same = (block: ToolResultBlock) => block;

describe('resuming after a restart', () => {
  it('numbers new steps after the last one recorded, even past the checkpoint', () => {
    const state = { ...initialLoopState([]), nextStep: 4 };
    expect(resumeFrom(state, 6).nextStep).toBe(7);
    expect(resumeFrom(state, 2).nextStep).toBe(4);
    expect(resumeFrom(initialLoopState([]), 0).nextStep).toBe(1);
  });

  it('tells the model to look before acting when an action may or may not have happened', () => {
    const block = outcomeUnknownBlock(write);
    expect(block).toEqual({
      type: 'tool_result',
      toolUseId: 'w1',
      isError: true,
      content: [{ type: 'text', text: `file_write: ${OUTCOME_UNKNOWN}` }],
    });
    expect(OUTCOME_UNKNOWN).toContain('Observe first');
    expect(OUTCOME_UNKNOWN).toContain('do not simply repeat it');
  });

  it('asks again only what certainly never ran: ask_user, or a call whose approval is pending or refused', () => {
    let asked = 0;
    const status = (value: string | undefined) => () => {
      asked += 1;
      return value;
    };
    expect(canAskAgain('ask_user', status('approved'))).toBe(true);
    expect(asked).toBe(0);
    for (const value of ['pending', 'denied', 'cancelled']) expect(canAskAgain('file_write', status(value))).toBe(true);
    for (const value of ['approved', 'expired', undefined])
      expect(canAskAgain('file_write', status(value))).toBe(false);
  });
});

describe('what becomes of a step left open by a crash', () => {
  it('a tool call that may have run is "outcome unknown"', () => {
    expect(recoveryFor(toolStep(write), pending(), () => undefined)).toEqual({
      action: 'outcome_unknown',
      call: write,
    });
    expect(recoveryFor(toolStep(write), pending(), () => 'approved')).toEqual({
      action: 'outcome_unknown',
      call: write,
    });
  });

  it('a call waiting for approval, or refused, is asked again on its step', () => {
    const seen: string[] = [];
    const status = (callId: string) => {
      seen.push(callId);
      return 'pending';
    };
    expect(recoveryFor(toolStep(write), pending(), status)).toEqual({ action: 'ask_again', call: write });
    expect(seen).toEqual(['w1']);
    expect(recoveryFor(toolStep(ask), pending(), () => undefined)).toEqual({ action: 'ask_again', call: ask });
  });

  it('the loop’s own question is waited for again', () => {
    expect(recoveryFor({ kind: 'ask', intent: { kind: 'ask', question_id: 'q' } }, undefined, () => undefined)).toEqual(
      {
        action: 'wait_again',
      },
    );
  });

  it('model calls, summaries, observations and calls already answered are closed as interrupted', () => {
    const interrupted = { action: 'interrupted' };
    expect(recoveryFor({ kind: 'summary', intent: { kind: 'summary' } }, pending(), () => undefined)).toEqual(
      interrupted,
    );
    expect(recoveryFor({ kind: 'ask', intent: { kind: 'ask' } }, pending(), () => undefined)).toEqual(interrupted);
    // Its result is already in the turn: nothing to settle.
    const answered = pending([{ type: 'tool_result', toolUseId: 'w1', content: [] }]);
    expect(recoveryFor(toolStep(write), answered, () => 'pending')).toEqual(interrupted);
    // No turn in progress, or a call that is not in it.
    expect(recoveryFor(toolStep(write), undefined, () => 'pending')).toEqual(interrupted);
    const other: ToolUseBlock = { ...write, id: 'elsewhere' };
    expect(recoveryFor(toolStep(other), pending(), () => 'pending')).toEqual(interrupted);
  });
});

describe('results recorded after the last checkpoint', () => {
  it('shows a recorded result as the model would have seen it, note included', () => {
    const block = resultFromStep(
      { result: { ok: true, output: { bytes_written: 1 }, duration_ms: 1, note: 'This action has failed 1 time' } },
      write,
      noBlob,
      same,
    );
    expect(block?.toolUseId).toBe('w1');
    expect(block?.isError).toBeFalsy();
    expect(JSON.stringify(block?.content)).toContain('bytes_written');
    expect(block?.content.at(-1)).toEqual({ type: 'text', text: 'This action has failed 1 time' });
  });

  it('shows a recorded failure as an error', () => {
    const block = resultFromStep(
      { result: { ok: false, error: { code: 'NOT_WRITABLE', message: 'read-only' }, duration_ms: 1 } },
      write,
      noBlob,
      same,
    );
    expect(block).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('read-only') }],
    });
  });

  it('passes the block through the run’s image store', () => {
    const interned: ToolResultBlock[] = [];
    resultFromStep({ result: { ok: true, output: {}, duration_ms: 1 } }, write, noBlob, (block) => {
      interned.push(block);
      return block;
    });
    expect(interned).toHaveLength(1);
  });

  it('an outcome already found unknown stays unknown; a step without a tool result gives nothing', () => {
    expect(resultFromStep({ result: { ok: false, outcome: 'unknown' } }, write, noBlob, same)).toEqual(
      outcomeUnknownBlock(write),
    );
    expect(resultFromStep({ result: null }, write, noBlob, same)).toBeUndefined();
    expect(resultFromStep({ result: 'text' }, write, noBlob, same)).toBeUndefined();
    expect(resultFromStep({ result: { interrupted: true } }, write, noBlob, same)).toBeUndefined();
  });
});
