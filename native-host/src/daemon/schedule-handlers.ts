import type { ScheduleService } from '../scheduler/schedule-service.js';
import type { ClientConnection } from './client-connection.js';

/** The `schedules.*` methods: what `nextai schedule` and the panel's Schedules tab call. */
export function registerScheduleHandlers(connection: ClientConnection, schedules: ScheduleService): void {
  const { peer } = connection;
  peer.handle('schedules.list', () => schedules.list());
  peer.handle('schedules.get', ({ id, history_limit }) => schedules.get(id, history_limit));
  peer.handle('schedules.create', (definition) => ({ schedule: schedules.create(definition) }));
  peer.handle('schedules.update', ({ id, changes }) => ({ schedule: schedules.update(id, changes) }));
  peer.handle('schedules.delete', ({ id }) => {
    schedules.delete(id);
    return { deleted: true as const };
  });
  peer.handle('schedules.run_now', ({ id }) => ({ run: schedules.runNow(id) }));
  peer.handle('schedules.history', ({ id, limit }) => ({ runs: schedules.history(id, limit) }));
  peer.handle('schedules.preview', ({ cron, timezone, count }) => schedules.preview(cron, timezone, count));
}
