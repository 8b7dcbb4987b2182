import fs from 'node:fs';

import {
  DEFAULT_SCHEDULE_LIMITS,
  type DaemonEvent,
  type EventData,
  type EventType,
  type HeartbeatView,
  type RunView,
} from '@nextai/shared';

import type { Logger } from '../../core/logger.js';
import { writeFileAtomic } from '../../policy/policy-store.js';
import type { Clock } from '../clock.js';
import type { PresenceMonitor } from '../presence/presence.js';
import type { SchedulerConfig } from '../scheduler-config.js';
import { checkOff, openItems, reportedDone } from './parser.js';

/** What the heartbeat remembers across restarts (in the `meta` table). */
interface HeartbeatMemory {
  run_id: string;
  items: string[];
  processed: boolean;
}

export interface HeartbeatOptions {
  /** `<data dir>/HEARTBEAT.md`. */
  file: string;
  config(): SchedulerConfig['heartbeat'];
  clock: Clock;
  runs: {
    start(input: { goal: string; project?: string | undefined; limits?: object; source?: string }, by: string): RunView;
    view(id: string): RunView;
  };
  events: {
    append<T extends EventType>(type: T, data: EventData<T>): unknown;
    subscribe(listener: (event: DaemonEvent) => void): () => void;
  };
  memory: { get(): string | undefined; set(value: string): void };
  presence: PresenceMonitor;
  emergency(): { active: boolean };
  notify(title: string, body: string): Promise<unknown>;
  log: Logger;
}

const ENDED = new Set(['finished', 'failed', 'stopped']);

/**
 * The heartbeat: at an interval the daemon reads the optional HEARTBEAT.md in its data
 * directory; its open checklist items (`- [ ] …`) become one agent run, and items the run reports
 * done are checked off in the file afterwards. With nothing open — or no file — no model is
 * called at all. One heartbeat run at a time; the interval is three times as long on battery.
 */
export class Heartbeat {
  private cancelTimer: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;
  private lastCheckedAt: number | null = null;
  private nextCheckAt: number | null = null;
  private lastOpen: string[] = [];
  private stopped = false;
  private checking: Promise<void> | undefined;
  /** What went wrong last, until a look goes well (shown in the view). */
  private problem: string | null = null;

  constructor(private readonly options: HeartbeatOptions) {}

  start(): void {
    this.unsubscribe = this.options.events.subscribe((event) => {
      if (event.type !== 'run.state' || !ENDED.has(String(event.data.state))) return;
      // Deferred: the listener runs inside EventLog.append, before the transition is complete.
      // Nothing may throw out of the microtask — that would be an uncaught exception, which ends
      // the daemon — so whatever goes wrong is reported (log, event, view) and the next look
      // tries again.
      queueMicrotask(() => {
        try {
          if (this.memory()?.run_id === event.data.run_id) this.settleRun();
        } catch (error) {
          this.report('the heartbeat could not check off what its run did in HEARTBEAT.md', error);
        }
      });
    });
    // The first look comes one interval after start: a restart loop must not become a model-call loop.
    this.arm(this.intervalMs(false));
  }

  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.unsubscribe?.();
  }

  view(): HeartbeatView {
    const config = this.options.config();
    let open = this.lastOpen;
    try {
      // The file as it is now (small, read on request): the panel shows what the next look will find.
      const text = this.readFile();
      open = text === undefined ? [] : openItems(text).map((item) => item.text);
    } catch (error) {
      this.options.log.warn('could not read HEARTBEAT.md', { error: (error as Error).message });
    }
    return {
      enabled: config.enabled,
      file: this.options.file,
      interval_minutes: config.interval_minutes,
      open_items: open,
      last_checked_at: this.lastCheckedAt === null ? null : new Date(this.lastCheckedAt).toISOString(),
      next_check_at: this.nextCheckAt === null ? null : new Date(this.nextCheckAt).toISOString(),
      run_id: this.memory()?.run_id ?? null,
      problem: this.problem,
    };
  }

  /** One look at HEARTBEAT.md (the timer calls it; tests too). */
  async check(): Promise<void> {
    if (this.checking) return this.checking;
    this.checking = this.checkOnce().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async checkOnce(): Promise<void> {
    let onBattery = false;
    try {
      onBattery = (await this.options.presence.read()).onBattery === true;
      this.lookOnce();
      this.problem = null;
    } catch (error) {
      this.report('the heartbeat could not look at HEARTBEAT.md', error);
    } finally {
      // Whatever happened, the heartbeat goes on: the next look is armed.
      this.arm(this.intervalMs(onBattery));
    }
  }

  /** Something went wrong: logged with its stack, announced, and shown until a look goes well. */
  private report(what: string, error: unknown): void {
    const message = `${what}: ${error instanceof Error ? error.message : String(error)}`;
    this.problem = message;
    this.options.log.error(what, {
      error: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    });
    let runId: string | undefined;
    try {
      runId = this.memory()?.run_id;
    } catch {
      runId = undefined;
    }
    this.options.events.append('heartbeat.problem', { problem: message, ...(runId ? { run_id: runId } : {}) });
  }

  private lookOnce(): void {
    const config = this.options.config();
    if (!config.enabled) return;
    this.lastCheckedAt = this.options.clock.now();
    this.settleRun();
    const memory = this.memory();
    const text = this.readFile();
    const open = text === undefined ? [] : openItems(text).map((item) => item.text);
    this.lastOpen = open;
    if (open.length === 0) {
      // Nothing to do: no model call at all.
      this.options.events.append('heartbeat.checked', { open_items: 0 });
      return;
    }
    if (this.options.emergency().active) {
      this.options.events.append('heartbeat.checked', { open_items: open.length, reason: 'the emergency stop is on' });
      return;
    }
    if (memory && !memory.processed) {
      this.options.events.append('heartbeat.checked', {
        open_items: open.length,
        run_id: memory.run_id,
        reason: 'the previous heartbeat run is still going',
      });
      return;
    }
    let run: RunView;
    try {
      run = this.options.runs.start(
        {
          goal: instructionFor(open),
          ...(config.project ? { project: config.project } : {}),
          limits: {
            max_steps: DEFAULT_SCHEDULE_LIMITS.max_steps,
            max_tokens: DEFAULT_SCHEDULE_LIMITS.max_tokens,
            max_cost_usd: DEFAULT_SCHEDULE_LIMITS.max_cost_usd,
          },
          source: 'heartbeat',
        },
        'heartbeat',
      );
    } catch (error) {
      const reason = `the run could not start: ${(error as Error).message}`;
      this.options.events.append('heartbeat.checked', { open_items: open.length, reason });
      this.options.log.warn('the heartbeat could not start a run', { error: (error as Error).message });
      return;
    }
    this.options.memory.set(
      JSON.stringify({ run_id: run.id, items: open, processed: false } satisfies HeartbeatMemory),
    );
    this.options.events.append('heartbeat.checked', { open_items: open.length, run_id: run.id });
    this.options.log.info('the heartbeat started a run', { run: run.id, open_items: open.length });
  }

  /** Once the heartbeat's run has ended: check off what it reports done, and say how it went. */
  private settleRun(): void {
    const memory = this.memory();
    if (!memory || memory.processed) return;
    let run: RunView;
    try {
      run = this.options.runs.view(memory.run_id);
    } catch (error) {
      this.options.log.warn('the heartbeat run is gone', { run: memory.run_id, error: (error as Error).message });
      this.options.memory.set(JSON.stringify({ ...memory, processed: true }));
      return;
    }
    if (!ENDED.has(run.state)) return;
    let checked = 0;
    // Only an answer checks items off: a refusal's words are not a report of work done.
    if (run.state === 'finished' && run.result && (run.result_kind ?? 'answer') === 'answer') {
      const done = reportedDone(run.result, memory.items.length).map((number) => memory.items[number - 1]!);
      // If the file cannot be read or written this throws, and the run stays unsettled: no new run
      // starts (it would redo what this one did), and the next look tries the check-off again
      // (checking off is idempotent).
      const text = done.length > 0 ? this.readFile() : undefined;
      if (text !== undefined) {
        const edited = checkOff(text, done);
        if (edited.checked > 0) writeFileAtomic(this.options.file, edited.text);
        checked = edited.checked;
      }
    }
    this.options.memory.set(JSON.stringify({ ...memory, processed: true }));
    const how = run.state === 'finished' ? 'finished' : run.state;
    this.options
      .notify(
        `NextAI heartbeat ${how}`,
        `${checked} of ${memory.items.length} open item${memory.items.length === 1 ? '' : 's'} done.${run.error ? ` ${run.error.message}` : ''}`,
      )
      .catch((error: unknown) =>
        this.options.log.warn('could not send the heartbeat notification', { error: (error as Error).message }),
      );
  }

  private readFile(): string | undefined {
    try {
      return fs.readFileSync(this.options.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private memory(): HeartbeatMemory | undefined {
    const raw = this.options.memory.get();
    return raw === undefined ? undefined : (JSON.parse(raw) as HeartbeatMemory);
  }

  private intervalMs(onBattery: boolean): number {
    return this.options.config().interval_minutes * 60_000 * (onBattery ? 3 : 1);
  }

  private arm(ms: number): void {
    this.cancelTimer?.();
    if (this.stopped) return;
    this.nextCheckAt = this.options.clock.now() + ms;
    this.cancelTimer = this.options.clock.setTimer(ms, () => void this.check());
  }
}

/** The run's instruction: the open items, numbered, and how to report which are done. */
export function instructionFor(items: readonly string[]): string {
  return [
    'Heartbeat: these items are open on the checklist in HEARTBEAT.md. Work through them.',
    '',
    ...items.map((item, index) => `${index + 1}. ${item}`),
    '',
    'When you are done, end your answer with one line "DONE: " followed by the numbers of the items',
    'you completed (for example "DONE: 1, 3"), or "DONE: none". Items not listed stay open for the next heartbeat.',
  ].join('\n');
}
