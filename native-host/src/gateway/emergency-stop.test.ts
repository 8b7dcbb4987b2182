import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { AuditLog } from './audit/index.js';
import { openDatabase, type Db } from '../storage/database.js';
import { EmergencyStop, type EmergencyStopActions } from './emergency-stop.js';

const log = createLogger({ component: 'test', level: 'error' });
let dir: string;
let db: Db;
let audit: AuditLog;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-stop-'));
  db = await openDatabase(path.join(dir, 'data.db'), log);
  audit = new AuditLog(db, path.join(dir, 'audit.anchor'));
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function actions(calls: string[], notes: string[] = []): EmergencyStopActions {
  return {
    abortRunningCalls: async () => {
      calls.push('abort');
      return 2;
    },
    cancelPendingApprovals: () => void calls.push('cancel-approvals'),
    releaseInputs: async () => {
      calls.push('release');
      return 'released';
    },
    endLaunchedApps: async () => {
      calls.push('end-apps');
      return { ended: 3, still_running: 0 };
    },
    endShellSessions: async () => {
      calls.push('end-shells');
      return 0;
    },
    endMarkedProcesses: async () => {
      calls.push('end-marked');
      return { ended: 0, still_running: 0 };
    },
    notify: async (_title, body) => {
      calls.push('notify');
      notes.push(body);
      return 'sent';
    },
    record: ({ engaged }) => void calls.push(engaged ? 'record-stop' : 'record-reset'),
  };
}

describe('EmergencyStop', () => {
  it('latches before acting, does everything it must, and reports the timing', async () => {
    const calls: string[] = [];
    const notes: string[] = [];
    const stop = new EmergencyStop(db, actions(calls, notes), audit);
    const report = await stop.engage('panic', 'cli');
    expect(report).toMatchObject({
      already_active: false,
      aborted_calls: 2,
      apps_ended: 3,
      apps_still_running: 0,
      inputs_released: 'released',
      notification: 'sent',
    });
    expect(report.ended_ms).toBeGreaterThanOrEqual(0);
    expect(calls).toEqual([
      'cancel-approvals',
      'abort',
      'release',
      'end-apps',
      'end-shells',
      'end-marked',
      'record-stop',
      'notify',
    ]);
    // The person is told how many apps the agent had started were ended.
    expect(notes[0]).toContain('Ended 3 apps the agent had started.');
    expect(stop.state()).toMatchObject({ active: true, reason: 'panic', by: 'cli' });
  });

  it('says which apps could not be ended, and still stops when ending them fails', async () => {
    const notes: string[] = [];
    const base = actions([], notes);
    const stuck = new EmergencyStop(
      db,
      { ...base, endLaunchedApps: async () => ({ ended: 1, still_running: 1 }) },
      audit,
    );
    const report = await stuck.engage('panic', 'cli');
    expect(report).toMatchObject({ apps_ended: 1, apps_still_running: 1 });
    expect(notes[0]).toContain('Ended 1 app the agent had started. 1 app the agent started could not be ended');
    stuck.reset('cli');
    const broken = new EmergencyStop(
      db,
      {
        ...base,
        endLaunchedApps: async () => {
          throw new Error('no process table');
        },
      },
      audit,
    );
    const second = await broken.engage('panic', 'cli');
    expect(broken.state().active).toBe(true);
    expect(second).toMatchObject({ apps_ended: 0 });
    expect(notes[1]).toContain('could not be checked; close them yourself');
  });

  it('ends the shell sessions with the apps, and only then what still carries the agent’s mark', async () => {
    const order: string[] = [];
    const notes: string[] = [];
    let release!: () => void;
    const sessionsEnded = new Promise<void>((resolve) => (release = resolve));
    const stop = new EmergencyStop(
      db,
      {
        ...actions([], notes),
        endLaunchedApps: async () => {
          order.push('apps');
          return { ended: 0, still_running: 0 };
        },
        // The sessions take a while to end: the sweep by mark must wait for them.
        endShellSessions: async () => {
          order.push('shells started');
          setTimeout(release, 30);
          await sessionsEnded;
          order.push('shells ended');
          return 2;
        },
        endMarkedProcesses: async () => {
          order.push('marked');
          return { ended: 3, still_running: 1 };
        },
      },
      audit,
    );
    await stop.engage('panic', 'cli');
    expect(order).toEqual(['apps', 'shells started', 'shells ended', 'marked']);
    expect(notes[0]).toContain("Ended the agent's 2 shell sessions and everything they had started.");
    expect(notes[0]).toContain('Ended 3 processes the agent had started that ran on their own.');
    expect(notes[0]).toContain('1 process the agent started could not be ended; end it yourself.');
  });

  it('still stops, and says so, when the shells or the sweep by mark fail', async () => {
    const notes: string[] = [];
    const stop = new EmergencyStop(
      db,
      {
        ...actions([], notes),
        endShellSessions: async () => {
          throw new Error('pty gone');
        },
        endMarkedProcesses: async () => {
          throw new Error('no /proc');
        },
      },
      audit,
    );
    const report = await stop.engage('panic', 'cli');
    expect(stop.state().active).toBe(true);
    expect(report).toMatchObject({ apps_ended: 3, aborted_calls: 2 });
    expect(notes[0]).toContain("The agent's shell sessions could not all be ended");
    expect(notes[0]).toContain('Processes the agent started could not be looked for');
  });

  it('stops everything even when the database cannot be written (a full disk, a lock)', async () => {
    const calls: string[] = [];
    const stop = new EmergencyStop(db, actions(calls), audit);
    db.pragma('query_only = ON');
    try {
      const report = await stop.engage('panic', 'cli');
      expect(report).toMatchObject({ already_active: false, aborted_calls: 2 });
      expect(calls).toEqual(expect.arrayContaining(['abort', 'end-apps', 'end-shells', 'end-marked']));
      expect(stop.state()).toMatchObject({ active: true, reason: 'panic' });
    } finally {
      db.pragma('query_only = OFF');
    }
  });

  it('stays set across a restart until reset', async () => {
    await new EmergencyStop(db, actions([]), audit).engage('panic', 'cli');
    const restarted = new EmergencyStop(db, actions([]), audit);
    expect(restarted.state().active).toBe(true);
    expect(restarted.reset('cli')).toEqual({ was_active: true });
    expect(restarted.state()).toEqual({ active: false });
    expect(restarted.reset('cli')).toEqual({ was_active: false });
  });

  it('pressing it again keeps the first reason and says it was already on', async () => {
    const stop = new EmergencyStop(db, actions([]), audit);
    await stop.engage('first', 'panel');
    expect((await stop.engage('second', 'cli')).already_active).toBe(true);
    expect(stop.state()).toMatchObject({ reason: 'first', by: 'panel' });
  });

  it('deleting its row outside NextAI lifts nothing: the chain still holds the stop, and verify names the change', async () => {
    await new EmergencyStop(db, actions([]), audit).engage('panic', 'person (CLI)');
    db.prepare('DELETE FROM safety_state').run();
    const restarted = new EmergencyStop(db, actions([]), audit);
    expect(restarted.state()).toMatchObject({ active: true, reason: 'panic', by: 'person (CLI)' });
    expect(restarted.disagreement()).toMatch(/lifted outside NextAI/);
    expect(audit.verify().ok).toBe(true);
    // A reset by the person is a row of the chain too, and then the two agree again.
    expect(restarted.reset('person (CLI)')).toEqual({ was_active: true });
    expect(restarted.disagreement()).toBeUndefined();
    expect(new EmergencyStop(db, actions([]), audit).state().active).toBe(false);
    expect(audit.list().map((record) => [record.kind, record.entry.result])).toEqual([
      ['emergency_stop', 'reset'],
      ['emergency_stop', 'stop'],
    ]);
  });

  it('a reset the audit log cannot record does not happen', async () => {
    const stop = new EmergencyStop(db, actions([]), audit);
    await stop.engage('panic', 'cli');
    const failing = new EmergencyStop(db, actions([]), {
      append: () => {
        throw new Error('disk full');
      },
      latest: (kind) => audit.latest(kind),
    });
    expect(() => failing.reset('cli')).toThrow(/stays on/);
    expect(failing.state().active).toBe(true);
  });
});
