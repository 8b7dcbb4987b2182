import {
  AppError,
  DEFAULT_SCHEDULE_LIMITS,
  type EventData,
  type EventType,
  type HeartbeatView,
  type PresenceView,
  type ScheduleChanges,
  type ScheduleDefinitionInput,
  type ScheduleRunView,
  type ScheduleView,
  scheduleDefinitionSchema,
  describeZodError,
  say,
  translationsOf,
} from '@nextai/shared';

import type { Clock } from './clock.js';
import { CronSchedule, checkTimeZone, dayIn, localTimeZone } from './cron.js';
import { checkDefinition, needsScreen, type DefinitionChecks } from './definition.js';
import type { PresenceMonitor } from './presence/presence.js';
import type { Scheduler } from './scheduler.js';
import { runView, type ScheduleStore, type ScheduleTask, type TaskDefinition } from './schedule-store.js';

export interface ScheduleServiceOptions {
  store: ScheduleStore;
  scheduler: Scheduler;
  clock: Clock;
  checks: DefinitionChecks;
  presence: PresenceMonitor;
  heartbeat: () => HeartbeatView;
  events: { append<T extends EventType>(type: T, data: EventData<T>): unknown };
}

/** What the CLI and the panel do with scheduled tasks: create, change, list, run now, look back. */
export class ScheduleService {
  constructor(private readonly options: ScheduleServiceOptions) {}

  create(input: ScheduleDefinitionInput): ScheduleView {
    const parsed = scheduleDefinitionSchema.safeParse(input);
    if (!parsed.success)
      throw new AppError('INVALID_ARGUMENT', `The task is not valid: ${describeZodError(parsed.error)}`);
    const definition = checkDefinition(parsed.data, this.options.checks);
    const task = this.options.store.create(definition, this.options.clock.now());
    this.options.events.append('schedule.changed', { schedule_id: task.id, change: 'created' });
    this.options.scheduler.poke();
    return this.view(task);
  }

  update(ref: string, changes: ScheduleChanges): ScheduleView {
    const { store, scheduler, clock } = this.options;
    const task = store.find(ref);
    const enabledOnly = Object.keys(changes).every((key) => key === 'enabled');
    if (enabledOnly && changes.enabled !== undefined) {
      const updated = store.setEnabled(
        task.id,
        changes.enabled,
        clock.now(),
        changes.enabled ? null : say('by you', '由你手动关闭'),
      );
      scheduler.forget(task.id);
      this.options.events.append('schedule.changed', {
        schedule_id: task.id,
        change: changes.enabled ? 'enabled' : 'disabled',
      });
      scheduler.poke();
      return this.view(updated);
    }
    const merged = { ...definitionInput(task.definition), ...changes };
    const parsed = scheduleDefinitionSchema.safeParse(merged);
    if (!parsed.success)
      throw new AppError('INVALID_ARGUMENT', `The task is not valid: ${describeZodError(parsed.error)}`);
    const definition = checkDefinition(parsed.data, this.options.checks);
    const timingChanged = definition.cron !== task.definition.cron || definition.timezone !== task.definition.timezone;
    const updated = store.update(task.id, definition, clock.now(), {
      resetCursor: timingChanged || (definition.enabled && !task.enabled),
    });
    scheduler.forget(task.id);
    this.options.events.append('schedule.changed', { schedule_id: task.id, change: 'updated' });
    scheduler.poke();
    return this.view(updated);
  }

  delete(ref: string): void {
    const task = this.options.store.find(ref);
    if (this.options.scheduler.runningCount(task.id) > 0) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `"${task.name}" is running now; disable it and wait for the run to end (or stop its run), then remove it.`,
      );
    }
    this.options.store.delete(task.id);
    this.options.scheduler.forget(task.id);
    this.options.events.append('schedule.changed', { schedule_id: task.id, change: 'deleted' });
    this.options.scheduler.poke();
  }

  async list(): Promise<{ schedules: ScheduleView[]; heartbeat: HeartbeatView; presence: PresenceView }> {
    const presence = await this.options.presence.read();
    return {
      schedules: this.options.store.list().map((task) => this.view(task)),
      heartbeat: this.options.heartbeat(),
      presence: {
        on_battery: presence.onBattery,
        battery_percent: presence.batteryPercent,
        screen_locked: presence.screenLocked,
        sleeping: presence.sleeping,
        notes: presence.notes,
      },
    };
  }

  get(ref: string, historyLimit: number): { schedule: ScheduleView; history: ScheduleRunView[] } {
    const task = this.options.store.find(ref);
    return { schedule: this.view(task), history: this.options.store.history(task.id, historyLimit).map(runView) };
  }

  history(ref: string | undefined, limit: number): ScheduleRunView[] {
    const id = ref === undefined ? undefined : this.options.store.find(ref).id;
    return this.options.store.history(id, limit).map(runView);
  }

  runNow(ref: string): ScheduleRunView {
    const task = this.options.store.find(ref);
    return runView(this.options.scheduler.runNow(task));
  }

  preview(cron: string, timezone: string | undefined, count: number) {
    const zone = checkTimeZone(timezone ?? localTimeZone());
    const schedule = CronSchedule.parse(cron, zone);
    const next: string[] = [];
    let cursor = this.options.clock.now();
    for (let i = 0; i < count; i++) {
      const at = schedule.next(cursor);
      if (at === null) break;
      next.push(new Date(at).toISOString());
      cursor = at;
    }
    return { timezone: zone, description: schedule.describe(), next_runs: next };
  }

  view(task: ScheduleTask): ScheduleView {
    const { scheduler, store, clock } = this.options;
    const definition = task.definition;
    const schedule = CronSchedule.parse(definition.cron, definition.timezone);
    const next = scheduler.nextRunAt(task);
    const last = store.lastRun(task.id);
    const deferral = scheduler.deferralOf(task.id);
    return {
      id: task.id,
      name: task.name,
      cron: definition.cron,
      timezone: definition.timezone,
      description: schedule.describe(),
      kind: definition.steps ? 'steps' : 'agent',
      instruction: definition.instruction ?? null,
      steps: definition.steps ?? null,
      project: definition.project,
      granted_tools: definition.granted_tools ?? null,
      enabled: task.enabled,
      disabled_reason: task.disabledReason?.en ?? null,
      disabled_reason_translations: task.disabledReason ? translationsOf(task.disabledReason) : null,
      catch_up: definition.catch_up,
      allow_overlap: definition.allow_overlap,
      retry_on_failure: definition.retry_on_failure,
      max_retries: definition.max_retries,
      retry_backoff_seconds: definition.retry_backoff_seconds,
      limits: { ...DEFAULT_SCHEDULE_LIMITS, ...definition.limits },
      daily_cost_cap_usd: definition.daily_cost_cap_usd,
      urgent: definition.urgent,
      needs_screen: needsScreen(definition),
      next_run_at: next === null ? null : new Date(next).toISOString(),
      retry_at: task.retry ? new Date(task.retry.at).toISOString() : null,
      deferred: deferral?.en ?? null,
      deferred_translations: deferral ? translationsOf(deferral) : null,
      last_run: last ? runView(last) : null,
      running: scheduler.runningCount(task.id) > 0,
      cost_today_usd: store.costOnDay(task.id, dayIn(clock.now(), definition.timezone)),
      created_at: task.createdAt,
      updated_at: task.updatedAt,
    };
  }
}

/** A stored definition as the input it came from (for merging a partial change into it). */
function definitionInput(definition: TaskDefinition): ScheduleDefinitionInput {
  const { implicit_grant: implicit, granted_tools: grant, ...rest } = definition;
  return implicit || grant === undefined ? rest : { ...rest, granted_tools: grant };
}
