import type { ScheduleRunView } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { translator } from '../../lib/i18n.js';
import { outcomeOf, toolList, triggerText, whenText } from './format.js';

const run = (change: Partial<ScheduleRunView>): ScheduleRunView => ({
  id: 'r',
  schedule_id: 's',
  scheduled_for: '2025-06-02T09:00:00.000Z',
  started_at: '2025-06-02T09:00:00.000Z',
  finished_at: null,
  state: 'finished',
  outcome: 'succeeded',
  trigger: 'cron',
  attempt: 1,
  missed: 0,
  duration_ms: 10,
  cost_usd: 0,
  summary: null,
  summary_translations: null,
  error_code: null,
  run_id: null,
  ...change,
});

describe('schedule formatting', () => {
  it('says when, relative and absolute', () => {
    const now = Date.parse('2025-06-02T08:55:00Z');
    expect(whenText('2025-06-02T09:00:00Z', now, 'en')).toMatch(/^in 5 min\. · \d{2}:\d{2}/u);
    expect(whenText('2025-06-04T09:00:00Z', now, 'en')).toMatch(/^in 2 days · Wed, Jun 4/u);
  });

  it('names outcomes and triggers in both languages', () => {
    const en = translator('en');
    const zh = translator('zh-CN');
    expect(outcomeOf(run({}), en)).toEqual({ text: 'Succeeded', tone: 'ok' });
    expect(outcomeOf(run({ outcome: 'timed_out' }), zh)).toEqual({ text: '超时', tone: 'bad' });
    expect(outcomeOf(run({ outcome: null, state: 'waiting_approval' }), en)).toEqual({
      text: 'Waiting for approval',
      tone: 'busy',
    });
    expect(triggerText(run({ trigger: 'retry', attempt: 3 }), zh)).toBe('第 3 次尝试');
    expect(triggerText(run({}), en)).toBeUndefined();
  });

  it('reads a list of tools, with Chinese commas too', () => {
    expect(toolList(' file_read, file_search，notification_send  ')).toEqual([
      'file_read',
      'file_search',
      'notification_send',
    ]);
  });
});
