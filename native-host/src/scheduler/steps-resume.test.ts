import { describe, expect, it } from 'vitest';

import type { StepRecord } from './schedule-store.js';
import { carriedSteps, stepFingerprint, uncertainStep } from './steps-resume.js';

const STEPS = [
  { tool: 'file_write', input: { path: '~/a', content: 'a' } },
  { tool: 'bash_execute', input: { command: 'make-invoice && send' } },
  { tool: 'system_info', input: {} },
];

function record(index: number, result: Partial<StepRecord> = {}): StepRecord {
  const step = STEPS[index]!;
  return { tool: step.tool, call_id: `c${index}`, started_at: 't', fingerprint: stepFingerprint(step), ...result };
}
const done = (index: number) => record(index, { finished_at: 't', ok: true });

describe('what a retry of a fixed-step run does again', () => {
  it('carries over the finished steps, up to the first that did not finish', () => {
    expect(carriedSteps(STEPS, [done(0), record(1)]).map((step) => step.tool)).toEqual(['file_write']);
    expect(carriedSteps(STEPS, [done(0), done(1), done(2)])).toHaveLength(3);
    expect(carriedSteps(STEPS, [])).toEqual([]);
  });

  it('stops carrying where the task was edited since (the edited step runs)', () => {
    const edited = [STEPS[0]!, { tool: 'bash_execute', input: { command: 'make-invoice' } }, STEPS[2]!];
    expect(carriedSteps(edited, [done(0), done(1)])).toHaveLength(1);
    // A record from before fingerprints were written: the same tool is taken as the same step.
    const { fingerprint: _ignored, ...old } = done(0);
    expect(carriedSteps(STEPS, [old])).toHaveLength(1);
  });

  it('a step begun with no result, or cut short midway, may have happened', () => {
    expect(uncertainStep(STEPS, [done(0), record(1)])).toMatchObject({ index: 1, record: { tool: 'bash_execute' } });
    const cut = record(1, { finished_at: 't', ok: false, error_code: 'DISCONNECTED', cut_short: true });
    expect(uncertainStep(STEPS, [done(0), cut])?.index).toBe(1);
  });

  it('is safe to do again: a failure the tool reported, a call that only waited for approval, a read', () => {
    const failed = record(1, { finished_at: 't', ok: false, error_code: 'TOOL_FAILED' });
    expect(uncertainStep(STEPS, [done(0), failed])).toBeUndefined();
    expect(uncertainStep(STEPS, [done(0), record(1, { awaiting_approval: true })])).toBeUndefined();
    const cancelled = record(1, {
      awaiting_approval: true,
      cut_short: true,
      finished_at: 't',
      ok: false,
      error_code: 'APPROVAL_CANCELLED',
    });
    expect(uncertainStep(STEPS, [done(0), cancelled])).toBeUndefined();
    expect(uncertainStep(STEPS, [done(0), done(1), record(2)])).toBeUndefined();
    expect(uncertainStep(STEPS, [done(0)])).toBeUndefined();
  });
});
