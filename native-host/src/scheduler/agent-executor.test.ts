import type { RunView } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { resultOf } from './agent-executor.js';

function run(overrides: Partial<RunView>): RunView {
  return {
    id: 'run-1',
    session_id: null,
    goal: 'Report the disk usage',
    project: 'default',
    state: 'finished',
    limits: { max_steps: 100, max_tokens: 2_000_000, max_cost_usd: 5 },
    usage: { input_tokens: 10, output_tokens: 5, cost_usd: 0.01, cost_known: true },
    turns: 1,
    created_at: '2025-01-01T10:00:00.000Z',
    updated_at: '2025-01-01T10:00:03.500Z',
    finished_at: '2025-01-01T10:00:03.500Z',
    error: null,
    result: 'Disk 40% full.',
    question: null,
    approvals: [],
    model: 'claude-test',
    ...overrides,
  };
}

describe('a scheduled run’s outcome', () => {
  it('an answer succeeded, with the answer as the summary', () => {
    expect(resultOf(run({ result_kind: 'answer' }))).toMatchObject({
      outcome: 'succeeded',
      summary: { en: 'Disk 40% full.' },
    });
  });

  it('a refusal or a content filter is denied — not retried, and not "succeeded"', () => {
    expect(resultOf(run({ result: 'I can’t help with that.', result_kind: 'declined' }))).toEqual({
      outcome: 'denied',
      summary: {
        en: 'The model declined to answer: I can’t help with that.',
        'zh-CN': '模型拒绝回答：I can’t help with that.',
      },
      costUsd: 0.01,
    });
    expect(resultOf(run({ result: '', result_kind: 'filtered' }))).toMatchObject({
      outcome: 'denied',
      summary: { en: "The provider's content filter stopped the answer." },
    });
  });

  it('no answer at all failed (another try may answer)', () => {
    expect(resultOf(run({ result: '', result_kind: 'no_answer' }))).toMatchObject({
      outcome: 'failed',
      summary: { en: 'The model gave no answer.' },
    });
  });
});
