import { say } from '@nextai/shared';

import type { ScheduleService } from '../scheduler/schedule-service.js';
import type { ClientConnection } from './client-connection.js';
import type { DaemonStorage } from './storage-alerts.js';

/**
 * The `schedules.*` methods: what `nextai schedule` and the panel's Schedules tab call. A change
 * of a task and its `schedule.changed` event are one durable write (`storage.write`): when the
 * database cannot be written it is refused whole, with a STORAGE_ERROR that says why.
 */
export function registerScheduleHandlers(
  connection: ClientConnection,
  schedules: ScheduleService,
  storage: Pick<DaemonStorage, 'write'>,
  asPerson: (what: string, method: string) => Promise<string>,
  notTheAgent: (what: string, method: string) => Promise<string>,
): void {
  const { peer } = connection;
  // A scheduled task runs later with the tools and folders it was granted: adding, changing and
  // removing tasks is the person's.
  peer.handle('schedules.list', () => schedules.list());
  peer.handle('schedules.get', ({ id, history_limit }) => schedules.get(id, history_limit));
  peer.handle('schedules.create', async (definition) => {
    await asPerson('add scheduled tasks', 'schedules.create');
    return {
      schedule: storage.write(say('the new scheduled task', '新的定时任务'), () => schedules.create(definition)),
    };
  });
  peer.handle('schedules.update', async ({ id, changes }) => {
    await asPerson('change scheduled tasks', 'schedules.update');
    return {
      schedule: storage.write(say('the change to the scheduled task', '对定时任务的更改'), () =>
        schedules.update(id, changes),
      ),
    };
  });
  peer.handle('schedules.delete', async ({ id }) => {
    await asPerson('remove scheduled tasks', 'schedules.delete');
    storage.write(say('the removal of the scheduled task', '定时任务的删除'), () => schedules.delete(id));
    return { deleted: true as const };
  });
  peer.handle('schedules.run_now', async ({ id }) => {
    await notTheAgent('run scheduled tasks', 'schedules.run_now');
    return { run: schedules.runNow(id) };
  });
  peer.handle('schedules.history', ({ id, limit }) => ({ runs: schedules.history(id, limit) }));
  peer.handle('schedules.preview', ({ cron, timezone, count }) => schedules.preview(cron, timezone, count));
}
