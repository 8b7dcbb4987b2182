import type { ScheduleRunRecord } from '../schedule-store.js';

/** 2025-06-02 09:00 UTC: the due time the scheduler's logic tests start from. */
export const T0 = Date.parse('2025-06-02T09:00:00Z');

/** A scheduled run as the store holds it while it goes (started at T0), with `fields` changed. */
export function scheduleRun(fields: Partial<ScheduleRunRecord> = {}): ScheduleRunRecord {
  return {
    id: 'run-1',
    scheduleId: 'task-1',
    scheduledFor: T0,
    day: '2025-06-02',
    startedAt: T0,
    finishedAt: null,
    state: 'running',
    outcome: null,
    trigger: 'cron',
    attempt: 1,
    missed: 0,
    missedTimes: [],
    durationMs: null,
    costUsd: 0,
    summary: null,
    errorCode: null,
    runId: null,
    steps: [],
    suspended: false,
    usedMs: 0,
    ...fields,
  };
}
