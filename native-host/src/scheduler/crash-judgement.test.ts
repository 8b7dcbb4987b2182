import { describe, expect, it } from 'vitest';

import { judgeCrash, type CrashEvidence } from './crash-judgement.js';
import type { DaemonLife } from './daemon-life.js';
import type { ScheduleRunRecord } from './schedule-store.js';
import { scheduleRun, T0 } from './testing/records.js';

const BOOT = { id: 'boot-1', bootedAt: T0 - 86_400_000 };

function life(fields: Partial<DaemonLife> = {}): DaemonLife {
  return { life: 'life-1', pid: 42, startedAt: T0 - 3_600_000, boot: BOOT, ...fields };
}

function open(taskId: string, fields: Partial<ScheduleRunRecord> = {}): { run: ScheduleRunRecord; taskName: string } {
  return { taskName: `name of ${taskId}`, run: scheduleRun({ id: `run-of-${taskId}`, scheduleId: taskId, ...fields }) };
}

function judge(evidence: Partial<CrashEvidence>) {
  const judged = judgeCrash({ previous: life(), boot: BOOT, open: [], agentRuns: [], ...evidence });
  return { ...judged, excuses: Object.fromEntries([...judged.excuses].map(([id, why]) => [id, why.map((w) => w.en)])) };
}

describe('whether the last daemon died, and whether the death is put down to a task', () => {
  it('one task’s run alone, nothing else known: put down to it', () => {
    expect(judge({ open: [open('a')] })).toMatchObject({ died: true, suspect: 'a', excuses: { a: [] }, causes: [] });
  });

  it('a clean stop is no death, even with a run it could not mark suspended', () => {
    expect(judge({ previous: life({ stoppedAt: T0 }), open: [open('a')] })).toMatchObject({ died: false });
    // No record (an older daemon): suspended runs say it stopped cleanly, one left going that it died.
    expect(judge({ previous: undefined, open: [open('a', { suspended: true })] }).died).toBe(false);
    expect(judge({ previous: undefined, open: [open('a')] })).toMatchObject({ died: true, suspect: 'a' });
    expect(judge({ previous: undefined, open: [] }).died).toBe(false);
  });

  it('a death with nothing going is a death no task is blamed for', () => {
    expect(judge({ open: [] })).toMatchObject({ died: true, suspect: undefined, excuses: {} });
  });

  it('two tasks going: put down to neither, each told the other was going', () => {
    expect(judge({ open: [open('a'), open('b')] })).toMatchObject({
      suspect: undefined,
      excuses: {
        a: ['runs of other tasks were going too ("name of b")'],
        b: ['runs of other tasks were going too ("name of a")'],
      },
    });
    // Two runs of the same task (overlap allowed) are still that task alone.
    expect(judge({ open: [open('a'), open('a', { id: 'second' })] }).suspect).toBe('a');
  });

  it('another agent run going (a chat, the heartbeat) excuses the task; its own agent run does not', () => {
    const own = open('a', { runId: 'agent-own' });
    expect(judge({ open: [own], agentRuns: [{ id: 'agent-own', source: 'schedule' }] }).suspect).toBe('a');
    const judged = judge({
      open: [own],
      agentRuns: [
        { id: 'agent-own', source: 'schedule' },
        { id: 'chat-1', source: null },
        { id: 'hb-1', source: 'heartbeat' },
      ],
    });
    expect(judged).toMatchObject({
      suspect: undefined,
      excuses: { a: ['other agent runs were going too (run chat-1, the heartbeat’s run hb-1)'] },
    });
  });

  it('a restart of the machine or a database that could not be written excuses every task', () => {
    const rebooted = judge({ boot: { id: 'boot-2', bootedAt: T0 - 60_000 }, open: [open('a')] });
    expect(rebooted.suspect).toBeUndefined();
    expect(rebooted.excuses.a?.[0]).toContain('the computer restarted while the daemon ran');
    const failing = judge({
      previous: life({ storageFault: { code: 'SQLITE_FULL', since: T0 - 60_000 } }),
      open: [open('a')],
    });
    expect(failing.excuses.a).toEqual([
      'the database could not be written (SQLITE_FULL, since 2025-06-02T08:59:00.000Z)',
    ]);
    // Without a boot id (not Linux), boot times minutes apart are the same boot; hours apart are not.
    const noId = (bootedAt: number) => ({ bootedAt });
    const same = judge({
      previous: life({ boot: noId(T0 - 86_400_000) }),
      boot: noId(T0 - 86_400_000 + 60_000),
      open: [open('a')],
    });
    expect(same.suspect).toBe('a');
    const other = judge({
      previous: life({ boot: noId(T0 - 86_400_000) }),
      boot: noId(T0 - 600_000),
      open: [open('a')],
    });
    expect(other.suspect).toBeUndefined();
  });
});
