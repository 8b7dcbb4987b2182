import type { ScheduleService } from '../scheduler/schedule-service.js';
import type { ClientConnection } from './client-connection.js';

/** The `schedules.*` methods: what `nextai schedule` and the panel's Schedules tab call. */
export function registerScheduleHandlers(
  connection: ClientConnection,
  schedules: ScheduleService,
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
    return { schedule: schedules.create(definition) };
  });
  peer.handle('schedules.update', async ({ id, changes }) => {
    await asPerson('change scheduled tasks', 'schedules.update');
    return { schedule: schedules.update(id, changes) };
  });
  peer.handle('schedules.delete', async ({ id }) => {
    await asPerson('remove scheduled tasks', 'schedules.delete');
    schedules.delete(id);
    return { deleted: true as const };
  });
  peer.handle('schedules.run_now', async ({ id }) => {
    await notTheAgent('run scheduled tasks', 'schedules.run_now');
    return { run: schedules.runNow(id) };
  });
  peer.handle('schedules.history', ({ id, limit }) => ({ runs: schedules.history(id, limit) }));
  peer.handle('schedules.preview', ({ cron, timezone, count }) => schedules.preview(cron, timezone, count));
}
