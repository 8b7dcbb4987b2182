import { describe, expect, it, vi } from 'vitest';

import type { Message, ModelEvent } from '../providers/types.js';
import {
  coalesced,
  CUT_OFF_NOTE,
  EMPTY_REPLY_NOTE,
  afterStreamError,
  afterTurn,
  askedAfterEmptyReply,
  assistantMessage,
  readReply,
  reasoningText,
  withNotes,
} from './model-turn.js';

async function* events(...list: ModelEvent[]): AsyncIterable<ModelEvent> {
  for (const event of list) yield event;
}

describe('the model turn', () => {
  it('reads text, tool calls, usage and the stop reason off the stream, passing text on as it comes', async () => {
    const deltas: string[] = [];
    const reply = await readReply(
      events(
        { type: 'text_delta', text: 'Let me ' },
        { type: 'text_delta', text: 'look.' },
        { type: 'tool_call', id: 'a', name: 'system_info', input: { category: 'os' } },
        { type: 'tool_call', id: 'b', name: 'file_read', input: undefined, parseError: 'not valid JSON' },
        { type: 'done', stopReason: 'tool_use', usage: { inputTokens: 10, outputTokens: 5 } },
      ),
      (delta) => deltas.push(delta),
    );
    expect(deltas).toEqual(['Let me ', 'look.']);
    expect(reply).toEqual({
      text: 'Let me look.',
      reasoning: [],
      calls: [
        { type: 'tool_use', id: 'a', name: 'system_info', input: { category: 'os' } },
        // Arguments that are not an object become {}; the parse error answers the call.
        { type: 'tool_use', id: 'b', name: 'file_read', input: {} },
      ],
      parseErrors: { b: 'not valid JSON' },
      usage: { inputTokens: 10, outputTokens: 5 },
      stopReason: 'tool_use',
    });
  });

  it('counts a stream that ends without saying why as no usage and an "other" stop', async () => {
    expect(await readReply(events(), () => undefined)).toEqual({
      text: '',
      reasoning: [],
      calls: [],
      parseErrors: {},
      usage: { inputTokens: 0, outputTokens: 0 },
      stopReason: 'other',
    });
  });

  it('passes thinking on as it comes and keeps its blocks first in the assistant message', async () => {
    const thinking: string[] = [];
    const reply = await readReply(
      events(
        { type: 'reasoning_delta', text: 'Check the ' },
        { type: 'reasoning_delta', text: 'OS.' },
        { type: 'reasoning', block: { type: 'reasoning', text: 'Check the OS.', signature: 'SIG' } },
        { type: 'reasoning', block: { type: 'reasoning', text: '', redactedData: 'OPAQUE' } },
        { type: 'text_delta', text: 'Looking.' },
        { type: 'tool_call', id: 'a', name: 'system_info', input: {} },
        { type: 'done', stopReason: 'tool_use', usage: { inputTokens: 10, outputTokens: 5, reasoningTokens: 3 } },
      ),
      () => undefined,
      (delta) => thinking.push(delta),
    );
    expect(thinking).toEqual(['Check the ', 'OS.']);
    expect(reasoningText(reply.reasoning)).toBe('Check the OS.');
    expect(assistantMessage(reply.text, reply.calls, reply.reasoning)).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Check the OS.', signature: 'SIG' },
        { type: 'reasoning', text: '', redactedData: 'OPAQUE' },
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'a', name: 'system_info', input: {} },
      ],
    });
    // Thinking alone, with neither text nor a call, is no turn.
    expect(assistantMessage('', [], reply.reasoning)).toBeUndefined();
  });

  it('after a failed model call: an interrupt wins, then a steer, else the run fails', () => {
    expect(afterStreamError('stop', true)).toEqual({ kind: 'interrupted', interrupt: 'stop' });
    expect(afterStreamError('pause', false)).toEqual({ kind: 'interrupted', interrupt: 'pause' });
    expect(afterStreamError('shutdown', false)).toEqual({ kind: 'interrupted', interrupt: 'shutdown' });
    expect(afterStreamError(undefined, true)).toEqual({ kind: 'steered' });
    expect(afterStreamError(undefined, false)).toEqual({ kind: 'failed' });
  });

  it('an answer ends the run, a reply cut off goes on, tool calls are acted on', () => {
    expect(afterTurn({ text: 'Done.', calls: [], stopReason: 'end_turn' })).toBe('answer');
    expect(afterTurn({ text: 'Done.', calls: [], stopReason: 'other' })).toBe('answer');
    expect(afterTurn({ text: 'Half', calls: [], stopReason: 'max_tokens' })).toBe('continue');
    expect(afterTurn({ text: '', calls: [{}], stopReason: 'max_tokens' })).toBe('act');
    expect(afterTurn({ text: '', calls: [{}], stopReason: 'tool_use' })).toBe('act');
    expect(CUT_OFF_NOTE).toContain('cut off at the output limit');
  });

  it('a refusal or a content filter ends the turn as such, even with calls; a paused turn goes on; a full context is told apart', () => {
    expect(afterTurn({ text: '', calls: [], stopReason: 'refusal' })).toBe('declined');
    expect(afterTurn({ text: 'Sure, here', calls: [{}], stopReason: 'refusal' })).toBe('declined');
    expect(afterTurn({ text: '', calls: [], stopReason: 'content_filter' })).toBe('filtered');
    expect(afterTurn({ text: 'Searching…', calls: [], stopReason: 'pause_turn' })).toBe('resume');
    expect(afterTurn({ text: 'The files are', calls: [], stopReason: 'context_window' })).toBe('too_long');
    expect(afterTurn({ text: '', calls: [{}], stopReason: 'context_window' })).toBe('act');
  });

  it('an empty reply is no answer, asked for once more', () => {
    expect(afterTurn({ text: ' \n', calls: [], stopReason: 'end_turn' })).toBe('empty');
    const goal: Message = { role: 'user', content: [{ type: 'text', text: 'goal' }] };
    expect(askedAfterEmptyReply([goal])).toBe(false);
    expect(askedAfterEmptyReply(withNotes([goal], [EMPTY_REPLY_NOTE]))).toBe(true);
    expect(askedAfterEmptyReply([...withNotes([goal], [EMPTY_REPLY_NOTE]), { role: 'assistant', content: [] }])).toBe(
      false,
    );
  });

  it('reads the provider’s reason for a refusal off the stream', async () => {
    const reply = await readReply(
      events({
        type: 'done',
        stopReason: 'refusal',
        usage: { inputTokens: 3, outputTokens: 0 },
        refusal: 'I can’t help with that.',
      }),
      () => undefined,
    );
    expect(reply).toMatchObject({ stopReason: 'refusal', refusal: 'I can’t help with that.', text: '' });
  });

  it('puts the reply into the conversation: its text when there is any, then its calls', () => {
    const call = { type: 'tool_use' as const, id: 'a', name: 'system_info', input: {} };
    expect(assistantMessage('  ', [])).toBeUndefined();
    expect(assistantMessage('', [call])).toEqual({ role: 'assistant', content: [call] });
    expect(assistantMessage('Hi', [call])).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hi' }, call],
    });
  });

  it('adds notes to the last user message, or as a new one after the model', () => {
    const goal: Message = { role: 'user', content: [{ type: 'text', text: 'goal' }] };
    const reply: Message = { role: 'assistant', content: [{ type: 'text', text: 'ok' }] };
    expect(withNotes([goal], [])).toEqual([goal]);
    expect(withNotes([goal], ['a', 'b'])).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'goal' },
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
    expect(withNotes([goal, reply], ['a'])).toEqual([
      goal,
      reply,
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
    ]);
    expect(withNotes([], ['a'])).toEqual([{ role: 'user', content: [{ type: 'text', text: 'a' }] }]);
  });
});

describe('streamed deltas as events', () => {
  it('go out a few a second, joined, and at once past a size; what waits is sent at the end', () => {
    vi.useFakeTimers();
    try {
      const sent: string[] = [];
      const deltas = coalesced((delta) => sent.push(delta));
      for (const token of ['The', ' per', 'son', ' asked']) deltas.push(token);
      expect(sent).toEqual([]);
      vi.advanceTimersByTime(100);
      expect(sent).toEqual(['The person asked']);
      deltas.push('x'.repeat(5000));
      expect(sent).toHaveLength(2);
      deltas.push(' the end');
      deltas.flush();
      expect(sent.join('')).toBe(`The person asked${'x'.repeat(5000)} the end`);
      vi.advanceTimersByTime(1000);
      expect(sent).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a send that fails from the timer is thrown to the reader, never from the timer', () => {
    vi.useFakeTimers();
    try {
      const deltas = coalesced(() => {
        throw new Error('the database is full');
      });
      deltas.push('a');
      expect(() => vi.advanceTimersByTime(100)).not.toThrow();
      expect(() => deltas.push('b')).toThrow('the database is full');
      expect(() => deltas.flush()).toThrow('the database is full');
    } finally {
      vi.useRealTimers();
    }
  });
});
