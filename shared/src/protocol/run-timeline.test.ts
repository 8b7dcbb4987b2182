import { describe, expect, it } from 'vitest';

import type { DaemonEvent } from './events.js';
import {
  applyEvent,
  buildTimeline,
  mergeSteps,
  orderedItems,
  toolCallCount,
  type RunStepView,
} from './run-timeline.js';
import type { RunView } from './runs.js';

const run = (patch: Partial<RunView> = {}): RunView => ({
  id: 'r1',
  session_id: 's1',
  goal: 'which os?',
  project: 'default',
  state: 'running',
  limits: { max_steps: 100, max_tokens: 1000, max_cost_usd: 5 },
  usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0, cost_known: true },
  turns: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  finished_at: null,
  error: null,
  result: null,
  question: null,
  approvals: [],
  model: 'm',
  ...patch,
});

let seq = 0;
const event = (type: string, data: Record<string, unknown>): DaemonEvent => ({
  seq: ++seq,
  type,
  time: `2026-01-01T00:00:0${Math.min(seq, 9)}.000Z`,
  data: { run_id: 'r1', ...data },
});

const steps: RunStepView[] = [
  {
    step: 1,
    kind: 'model_call',
    intent: { kind: 'model_call', turn: 1 },
    result: { ok: true, text: 'Let me check.', tool_calls: [{ id: 'c1', name: 'system_info' }] },
    intent_at: '2026-01-01T00:00:01.000Z',
    result_at: '2026-01-01T00:00:01.000Z',
  },
  {
    step: 2,
    kind: 'tool_call',
    intent: { kind: 'tool_call', tool: 'screenshot', call_id: 'c1', input: {} },
    result: { ok: true, output: { image: 'blob:abc', width: 10, height: 10 }, duration_ms: 12 },
    intent_at: '2026-01-01T00:00:02.000Z',
    result_at: '2026-01-01T00:00:02.000Z',
  },
];

describe('run timeline', () => {
  it('builds items from stored steps: the text, and the tool call with its screenshot reference', () => {
    const timeline = buildTimeline(run(), steps, []);
    const items = orderedItems(timeline);
    expect(items).toMatchObject([
      { kind: 'text', step: 1, text: 'Let me check.', streaming: false },
      { kind: 'tool', step: 2, tool: 'screenshot', status: 'ok', image: 'blob:abc', durationMs: 12 },
    ]);
    expect(toolCallCount(timeline)).toBe(1);
  });

  it('streams text from events and never applies an event twice', () => {
    const timeline = buildTimeline(run(), [], []);
    const first = event('run.text', { step: 1, delta: 'Hel' });
    applyEvent(timeline, first);
    applyEvent(timeline, event('run.text', { step: 1, delta: 'lo' }));
    expect(applyEvent(timeline, first)).toBe(false);
    expect(orderedItems(timeline)).toMatchObject([{ kind: 'text', text: 'Hello', streaming: true }]);
  });

  it('folds the model’s thinking into its step’s item, before its text, live and from the stored step', () => {
    const timeline = buildTimeline(run(), [], []);
    applyEvent(timeline, event('run.reasoning', { step: 1, delta: 'Which OS? ' }));
    expect(orderedItems(timeline)).toMatchObject([
      { kind: 'text', text: '', reasoning: 'Which OS? ', streaming: true },
    ]);
    applyEvent(timeline, event('run.reasoning', { step: 1, delta: 'Ask.' }));
    applyEvent(timeline, event('run.text', { step: 1, delta: 'Checking.' }));
    expect(orderedItems(timeline)).toMatchObject([{ kind: 'text', text: 'Checking.', reasoning: 'Which OS? Ask.' }]);
    // After a reload: the step's record holds both; thinking alone (a call, no text) still shows.
    const stored = [
      { ...steps[0]!, result: { ok: true, text: 'Checking.', reasoning: 'Which OS? Ask.' } },
      { ...steps[0]!, step: 2, result: { ok: true, text: '', reasoning: 'Now the tool.' } },
    ];
    expect(orderedItems(buildTimeline(run(), stored, []))).toMatchObject([
      { kind: 'text', step: 1, text: 'Checking.', reasoning: 'Which OS? Ask.', streaming: false },
      { kind: 'text', step: 2, text: '', reasoning: 'Now the tool.' },
    ]);
  });

  it('a rebuild from steps plus recent events shows each step once', () => {
    seq = 100;
    const events = [
      event('run.text', { step: 1, delta: 'Let me ' }),
      event('run.text', { step: 1, delta: 'check.' }),
      event('run.step', { step: 2, kind: 'tool_call', phase: 'started', tool: 'screenshot', input: {} }),
      event('run.step', {
        step: 2,
        kind: 'tool_call',
        phase: 'finished',
        tool: 'screenshot',
        ok: true,
        summary: 'width=10',
      }),
      event('run.text', { step: 3, delta: 'It is ' }),
    ];
    const timeline = buildTimeline(run(), steps, events);
    expect(orderedItems(timeline)).toMatchObject([
      { kind: 'text', text: 'Let me check.' },
      { kind: 'tool', status: 'ok', summary: 'width=10', image: 'blob:abc' },
      { kind: 'text', step: 3, text: 'It is ', streaming: true },
    ]);
    // Live events after the rebuild continue the text; replays of older ones do nothing.
    for (const old of events) expect(applyEvent(timeline, old)).toBe(false);
    applyEvent(timeline, event('run.text', { step: 3, delta: 'Linux.' }));
    expect(orderedItems(timeline).at(-1)).toMatchObject({ text: 'It is Linux.' });
  });

  it('follows the run: usage, a question and its answer, the end', () => {
    const timeline = buildTimeline(run(), [], []);
    applyEvent(timeline, event('run.usage', { input_tokens: 5, output_tokens: 6, cost_usd: 0.01, turns: 2 }));
    expect(timeline.run).toMatchObject({ turns: 2, usage: { cost_usd: 0.01, input_tokens: 5 } });
    applyEvent(
      timeline,
      event('run.question', { question_id: 'q1', kind: 'ask_user', question: 'Which?', options: ['A'] }),
    );
    expect(timeline.run.question).toMatchObject({ id: 'q1', options: ['A'] });
    applyEvent(timeline, event('run.answered', { question_id: 'q1', by: 'cli' }));
    expect(timeline.run.question).toBeNull();
    applyEvent(
      timeline,
      event('run.step', {
        step: 4,
        kind: 'tool_call',
        phase: 'started',
        tool: 'bash_execute',
        input: { command: 'sleep 9' },
      }),
    );
    applyEvent(timeline, event('run.state', { state: 'stopped' }));
    expect(timeline.run.state).toBe('stopped');
    expect(orderedItems(timeline)).toMatchObject([{ kind: 'tool', status: 'unknown' }]);
  });

  it('places steers and answers of the run after the step they followed', () => {
    const timeline = buildTimeline(
      run(),
      steps,
      [],
      [
        { seq: 1, role: 'user', content: { text: 'which os?', run_id: 'r1' }, created_at: '2026-01-01T00:00:00.000Z' },
        {
          seq: 2,
          role: 'user',
          content: { text: 'be brief', run_id: 'r1', steer: true },
          created_at: '2026-01-01T00:00:01.500Z',
        },
        {
          seq: 3,
          role: 'user',
          content: { text: 'other', run_id: 'r2', steer: true },
          created_at: '2026-01-01T00:00:01.500Z',
        },
      ],
    );
    expect(orderedItems(timeline).map((item) => item.kind)).toEqual(['text', 'user', 'tool']);
  });
});

describe('reading only the new steps of a long run', () => {
  const open: RunStepView = {
    step: 3,
    kind: 'tool_call',
    intent: { kind: 'tool_call', tool: 'bash_execute', call_id: 'c2', input: { command: 'ls' } },
    result: null,
    intent_at: '2026-01-01T00:00:03.000Z',
    result_at: null,
  };

  it('asks next from the first step still open, or after the last one', () => {
    expect(buildTimeline(run(), [...steps, open], []).stepsFrom).toBe(3);
    expect(buildTimeline(run(), steps, []).stepsFrom).toBe(3);
    expect(buildTimeline(run(), [], []).stepsFrom).toBe(0);
  });

  it('merges a later read: the open step gets its result, earlier items stay, a Chinese refusal is kept', () => {
    const timeline = buildTimeline(run(), [...steps, open], []);
    const before = timeline.items.get(2);
    const refused: RunStepView = {
      ...open,
      result: {
        ok: false,
        error: {
          code: 'POLICY_BLOCKED',
          message: 'Blocked (filesystem): no.',
          translations: { 'zh-CN': '已阻止：不行。' },
        },
      },
      result_at: '2026-01-01T00:00:04.000Z',
    };
    const next: RunStepView = { ...steps[0]!, step: 4, intent_at: '2026-01-01T00:00:05.000Z' };
    mergeSteps(timeline, run({ turns: 2 }), [refused, next], []);
    expect(timeline.items.get(2)).toBe(before);
    expect(timeline.items.get(3)).toMatchObject({
      kind: 'tool',
      status: 'failed',
      summary: 'Blocked (filesystem): no.',
      summaryTranslations: { 'zh-CN': '已阻止：不行。' },
    });
    expect(timeline.items.get(4)).toMatchObject({ kind: 'text', text: 'Let me check.' });
    expect(timeline.run.turns).toBe(2);
    expect(timeline.stepsFrom).toBe(5);
  });
});
