import { translationsOf, type EventData, type EventType } from '@nextai/shared';

import type { Logger } from '../core/logger.js';
import type { DecisionWriter } from './decision-writer.js';
import { decideRecovery } from './decisions.js';
import type { TaskExecutor } from './executor.js';
import type { ScheduleRunRecord, ScheduleStore, ScheduleTask } from './schedule-store.js';

export interface RecoveryOptions {
  store: ScheduleStore;
  events: { append<T extends EventType>(type: T, data: EventData<T>): unknown };
  executor: Pick<TaskExecutor, 'abandon'>;
  writer: DecisionWriter;
  log: Logger;
  /** Follows an agent run that resumes by itself (the scheduler tracks it as one it started). */
  follow(task: ScheduleTask, run: ScheduleRunRecord, runId: string): void;
}

/**
 * Deals with the runs the last daemon left going, as {@link decideRecovery} decides: a clean stop
 * suspended them, a crash did not. A run the daemon died during counts as a crash of its task;
 * after three in a row the task is turned off. Each run's decision — the crash streak, turning
 * the task off, the run's end and the retry it gets — is written in one transaction; events,
 * notifications and following an agent run come after its commit. A run that cannot be dealt
 * with is logged, and the others still are.
 */
export function recoverRuns(options: RecoveryOptions, now: number): void {
  for (const open of options.store.openRuns()) {
    try {
      recoverRun(options, open, now);
    } catch (error) {
      options.log.error('could not deal with a scheduled run the last daemon left going', {
        run: open.id,
        error: (error as Error).message,
      });
    }
  }
}

function recoverRun(options: RecoveryOptions, open: ScheduleRunRecord, now: number): void {
  const { store, writer, log } = options;
  let task: ScheduleTask;
  try {
    task = store.get(open.scheduleId);
  } catch {
    return;
  }
  const actions = decideRecovery(open, task, now);
  const after: (() => void)[] = [];
  store.atomically(() => {
    for (const action of actions) {
      switch (action.kind) {
        case 'count_crash':
          store.setCrashes(task.id, action.crashes);
          task = store.get(task.id);
          log.warn('a scheduled run was going when the daemon died', {
            task: task.name,
            run: open.id,
            consecutive_crashes: action.crashes,
          });
          break;
        case 'disable': {
          const { reason } = action;
          store.setEnabled(task.id, false, now, reason);
          after.push(() =>
            options.events.append('schedule.changed', {
              schedule_id: task.id,
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
        case 'follow_agent_run':
          if (action.unsuspend) store.setSuspended(open.id, false);
          after.push(() => options.follow(task, store.getRun(open.id), action.runId));
          break;
        default:
          action satisfies never;
      }
    }
  });
  for (const action of after) action();
}
