import { translationsOf, type EventData, type EventType } from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import { judgeCrash, type CrashJudgement } from './crash-judgement.js';
import type { BootMark, DaemonLife } from './daemon-life.js';
import type { DecisionWriter } from './decision-writer.js';
import { crashCounted, decideRecovery, type CrashVerdict } from './decisions.js';
import type { TaskExecutor } from './executor.js';
import type { CrashRecord, ScheduleRunRecord, ScheduleStore, ScheduleTask } from './schedule-store.js';

export interface RecoveryOptions {
  store: ScheduleStore;
  events: { append<T extends EventType>(type: T, data: EventData<T>): unknown };
  executor: Pick<TaskExecutor, 'abandon'>;
  writer: DecisionWriter;
  log: Logger;
  /** Follows an agent run that resumes by itself (the scheduler tracks it as one it started). */
  follow(task: ScheduleTask, run: ScheduleRunRecord, runId: string): void;
  /** What the last daemon recorded of its life (daemon-life.ts), if anything. */
  previous: DaemonLife | undefined;
  /** This machine's boot now. */
  boot: BootMark;
}

/**
 * Deals with how the last daemon ended and the runs it left going. Whether it died, and whether
 * the death is put down to a task, is judged once (crash-judgement.ts) and recorded in one
 * transaction: every task with a run going gets one more crash for its back-off, the task the
 * death is put down to one more in its streak, and every other task's streak ends. Each task with
 * a run going is told whether the death counts against it, and why (the log and a
 * `schedule.crash` event). Then each run is decided on its own ({@link decideRecovery}: a clean
 * stop suspended it, a death did not; three deaths in a row put down to its task turn the task
 * off), its writes in one transaction, its events, notifications and following an agent run after
 * the commit. A run that cannot be dealt with is logged, and the others still are.
 */
export function recoverRuns(options: RecoveryOptions, now: number): void {
  const { store, log } = options;
  const open = store.openRuns();
  let judgement: CrashJudgement;
  try {
    judgement = judgeCrash({
      previous: options.previous,
      boot: options.boot,
      open: open.flatMap((run) => {
        const task = taskOf(store, run.scheduleId);
        return task ? [{ run, taskName: task.name }] : [];
      }),
      agentRuns: store.agentRunsGoing(),
    });
  } catch (error) {
    // Without a judgement no death is put down to anyone: the runs are still dealt with.
    log.error('could not judge how the last daemon ended', { error: (error as Error).message });
    judgement = { died: open.some((run) => !run.suspended), suspect: undefined, excuses: new Map(), causes: [] };
  }
  const streaks = judgement.died ? recordDeath(options, judgement, open, now) : new Map<string, CrashRecord[]>();
  for (const run of open) {
    try {
      const verdict: CrashVerdict = {
        died: judgement.died,
        streak: streaks.get(run.scheduleId) ?? [],
        excuses: judgement.excuses.get(run.scheduleId) ?? [],
      };
      recoverRun(options, run, verdict, now);
    } catch (error) {
      log.error('could not deal with a scheduled run the last daemon left going', {
        run: run.id,
        error: (error as Error).message,
      });
    }
  }
}

/**
 * Records a death of the daemon (see {@link recoverRuns}) and says, for each task with a run
 * going, whether it counts against it and why. Returns the streak of the task it is put down to.
 */
function recordDeath(
  options: RecoveryOptions,
  judgement: CrashJudgement,
  open: readonly ScheduleRunRecord[],
  now: number,
): Map<string, CrashRecord[]> {
  const { store, log, events } = options;
  const going = open.filter((run) => !run.suspended);
  const streaks = new Map<string, CrashRecord[]>();
  const suspectRun = going.find((run) => run.scheduleId === judgement.suspect);
  const crash: CrashRecord | undefined = suspectRun && {
    foundAt: now,
    historyId: suspectRun.id,
    runStartedAt: suspectRun.startedAt,
  };
  if (judgement.suspect !== undefined && crash) {
    const before = taskOf(store, judgement.suspect)?.crashStreak ?? [];
    streaks.set(judgement.suspect, [...before, crash]);
  }
  try {
    store.recordCrash(
      going.map((run) => run.scheduleId),
      judgement.suspect !== undefined && crash ? { taskId: judgement.suspect, crash } : undefined,
    );
  } catch (error) {
    // Not written: the runs are still decided with what was judged (a streak that reached the
    // limit still turns the task off), and this death is not counted again later.
    log.error('could not record that the last daemon died', { error: (error as Error).message });
  }
  if (going.length === 0) {
    log.info('the last daemon died; no scheduled run was going', {
      known_causes: judgement.causes.map((cause) => cause.en),
    });
  }
  const told = new Set<string>();
  for (const run of going) {
    if (told.has(run.scheduleId)) continue;
    told.add(run.scheduleId);
    const task = taskOf(store, run.scheduleId);
    if (!task) continue;
    const streak = streaks.get(task.id) ?? [];
    const reason = crashCounted({ died: true, streak, excuses: judgement.excuses.get(task.id) ?? [] });
    log.warn(
      streak.length > 0
        ? 'the daemon died while a scheduled run was going; the death is put down to its task'
        : 'the daemon died while a scheduled run was going; the death is not put down to its task',
      {
        task: task.name,
        run: run.id,
        counted: streak.length > 0,
        deaths_in_a_row: streak.length,
        crashes_for_back_off: task.consecutiveCrashes,
        why: reason.en,
      },
    );
    events.append('schedule.crash', {
      schedule_id: task.id,
      history_id: run.id,
      counted: streak.length > 0,
      streak: streak.length,
      reason: reason.en,
      reason_translations: translationsOf(reason),
    });
  }
  return streaks;
}

function recoverRun(options: RecoveryOptions, open: ScheduleRunRecord, verdict: CrashVerdict, now: number): void {
  const { store, writer } = options;
  const found = taskOf(store, open.scheduleId);
  if (!found) return;
  let task: ScheduleTask = found;
  const actions = decideRecovery(open, task, now, verdict);
  const after: (() => void)[] = [];
  store.atomically(() => {
    for (const action of actions) {
      switch (action.kind) {
        case 'disable': {
          const { reason } = action;
          task = store.setEnabled(task.id, false, now, reason);
          const id = task.id;
          options.log.warn('turned off a scheduled task that kept crashing the daemon', {
            task: task.name,
            reason: reason.en,
          });
          after.push(() =>
            options.events.append('schedule.changed', {
              schedule_id: id,
              change: 'disabled',
              reason: reason.en,
              reason_translations: translationsOf(reason),
            }),
          );
          break;
        }
        case 'abandon_agent_run':
          after.push(() => void options.executor.abandon(action.runId, action.reason));
          break;
        case 'clear_retry':
          store.setRetry(task.id, null);
          break;
        case 'end_run': {
          const ended = writer.finish(open.id, task.id, action.end);
          if (ended) after.push(() => writer.announceEnd(ended));
          break;
        }
        case 'follow_agent_run': {
          if (action.unsuspend) store.setSuspended(open.id, false);
          const followed = task;
          after.push(() => options.follow(followed, store.getRun(open.id), action.runId));
          break;
        }
        default:
          action satisfies never;
      }
    }
  });
  for (const action of after) action();
}

function taskOf(store: ScheduleStore, id: string): ScheduleTask | undefined {
  try {
    return store.get(id);
  } catch {
    return undefined;
  }
}
