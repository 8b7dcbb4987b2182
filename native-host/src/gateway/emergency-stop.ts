import { AppError } from '@nextai/shared';

import type { AuditEntry, AuditRecord } from './audit/index.js';
import type { Db } from '../storage/database.js';

export interface EmergencyState {
  active: boolean;
  since?: string;
  reason?: string;
  by?: string;
}

export interface StopReport {
  already_active: boolean;
  aborted_calls: number;
  /** Apps the agent started (app_launch) that were running and were ended, with all they started. */
  apps_ended: number;
  /** Apps the agent started that could not be ended (named in the daemon's log). */
  apps_still_running: number;
  ended_ms: number;
  inputs_released: string;
  notification: string;
}

export interface EmergencyStopActions {
  /** Aborts every running tool call and resolves once all of them have ended. */
  abortRunningCalls(reason: string): Promise<number>;
  /** Closes every pending approval unanswered. */
  cancelPendingApprovals(reason: string): void;
  releaseInputs(): Promise<string>;
  /** Ends every app the agent launched and everything they started (SIGTERM, then SIGKILL). */
  endLaunchedApps(): Promise<{ ended: number; still_running: number }>;
  /**
   * Ends every shell session of bash_execute: each shell and everything it started, background
   * jobs included. Resolves with how many sessions there were.
   */
  endShellSessions(): Promise<number>;
  /**
   * Last, once sessions and apps are dealt with: ends every process that still carries the
   * agent's mark — what left its session or group (setsid, a double fork), and what the agent
   * started before the daemon restarted (platform/agent-processes.ts).
   */
  endMarkedProcesses(): Promise<{ ended: number; still_running: number }>;
  notify(title: string, body: string): Promise<string>;
  /** Tells the clients (events); the audit row is the stop's own. */
  record(change: { engaged: boolean; reason: string; by: string; aborted: number; appsEnded?: number }): void;
}

/** The audit chain, where each engage and reset of the stop is a row. */
export interface StopChain {
  append(entry: AuditEntry): unknown;
  latest(kind: 'emergency_stop'): AuditRecord | undefined;
}

const KEY = 'emergency_stop';

/**
 * The latched emergency stop. Setting it stops everything now — no new call starts, running
 * calls are aborted (their process groups killed), held keys and buttons are released, pending
 * approvals are closed — and it stays set, across restarts, until a person resets it.
 *
 * The stop lives in two places: a row of the state table, and the hash-chained audit log, where
 * every engage and reset is a row. It holds while either says so, so deleting the table row
 * (outside the daemon) lifts nothing, and the two disagreeing is what `nextai audit verify`
 * reports. A reset is recorded in the chain first: one that cannot be recorded does not happen.
 */
export class EmergencyStop {
  private current: EmergencyState;

  constructor(
    private readonly db: Db,
    private readonly actions: EmergencyStopActions,
    private readonly chain: StopChain,
  ) {
    const table = this.tableState();
    const chained = this.chainState();
    this.current = table.active ? table : chained;
  }

  state(): EmergencyState {
    return this.current;
  }

  /** Where the state table and the audit chain disagree: a sentence for the person, or undefined. */
  disagreement(): string | undefined {
    const table = this.tableState();
    const chained = this.chainState();
    if (chained.active && !table.active) {
      return `The emergency stop engaged at ${chained.since ?? 'an unknown time'} by ${chained.by ?? 'someone'} was lifted outside NextAI: its row in the database is gone, but no reset is recorded. It still holds; reset it with "nextai stop --reset" if you meant to.`;
    }
    if (table.active && !chained.active) {
      return `The database says the emergency stop is on (since ${table.since ?? 'an unknown time'}), but the audit log does not record it being engaged: the state was written outside NextAI.`;
    }
    return undefined;
  }

  async engage(reason: string, by: string): Promise<StopReport> {
    const started = performance.now();
    const already = this.current.active;
    if (!already) {
      // Latch first: from this line on, no new tool call can start.
      this.current = { active: true, since: new Date().toISOString(), reason, by };
      // A stop that cannot be written (a full disk, a locked or read-only database) still stops
      // everything now and holds in memory; only its surviving a restart is at stake.
      try {
        this.db
          .prepare(
            'INSERT INTO safety_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          )
          .run(KEY, JSON.stringify({ since: this.current.since, reason, by }));
      } catch {
        // It holds in memory, and the audit row below may still be written.
      }
      try {
        this.chain.append({ kind: 'emergency_stop', result: 'stop', actor: by, reason });
      } catch {
        // The stop holds (memory and the state table) even when the log cannot be written.
      }
    }
    this.actions.cancelPendingApprovals(`emergency stop: ${reason}`);
    const [aborted, released, apps, shells] = await Promise.all([
      this.actions.abortRunningCalls(`emergency stop: ${reason}`),
      this.actions.releaseInputs(),
      // Apps the agent launched keep running on their own: they are ended too.
      this.actions.endLaunchedApps().catch(() => ({ ended: 0, still_running: -1 })),
      // So do the background jobs of its shells: every session ends, with all it started.
      this.actions.endShellSessions().catch(() => -1),
    ]);
    // Then whatever got away from both (a job that left its session or group): by the mark every
    // agent process carries.
    const strays = await this.actions.endMarkedProcesses().catch(() => ({ ended: 0, still_running: -1 }));
    const endedMs = Math.round((performance.now() - started) * 100) / 100;
    this.actions.record({ engaged: true, reason, by, aborted, appsEnded: apps.ended });
    const notification = await this.actions.notify(
      'NextAI Agent stopped',
      `Emergency stop (${reason}). ${appsSentence(apps)}${processesSentence(shells, strays)}` +
        'Nothing will run until you reset it: nextai stop --reset',
    );
    return {
      already_active: already,
      aborted_calls: aborted,
      apps_ended: apps.ended,
      apps_still_running: Math.max(0, apps.still_running),
      ended_ms: endedMs,
      inputs_released: released,
      notification,
    };
  }

  reset(by: string): { was_active: boolean } {
    const was = this.current.active || this.tableState().active || this.chainState().active;
    if (was) {
      try {
        this.chain.append({ kind: 'emergency_stop', result: 'reset', actor: by, reason: 'reset' });
      } catch (error) {
        throw new AppError(
          'STORAGE_ERROR',
          `The emergency stop stays on: its reset could not be written to the audit log (${(error as Error).message}).`,
          { cause: error },
        );
      }
    }
    this.db.prepare('DELETE FROM safety_state WHERE key = ?').run(KEY);
    this.current = { active: false };
    if (was) this.actions.record({ engaged: false, reason: 'reset', by, aborted: 0 });
    return { was_active: was };
  }

  private tableState(): EmergencyState {
    const value = this.db.prepare('SELECT value FROM safety_state WHERE key = ?').pluck().get(KEY) as
      string | undefined;
    if (!value) return { active: false };
    return { active: true, ...(JSON.parse(value) as Omit<EmergencyState, 'active'>) };
  }

  private chainState(): EmergencyState {
    const last = this.chain.latest('emergency_stop');
    if (last?.entry.result !== 'stop') return { active: false };
    return {
      active: true,
      since: last.time,
      ...(last.entry.reason !== undefined ? { reason: last.entry.reason } : {}),
      ...(last.entry.actor !== undefined ? { by: last.entry.actor } : {}),
    };
  }
}

/** What the notification says about the apps the agent had started. */
function appsSentence(apps: { ended: number; still_running: number }): string {
  const plural = (count: number) => `${count} app${count === 1 ? '' : 's'}`;
  if (apps.still_running < 0) return 'The apps the agent started could not be checked; close them yourself. ';
  const ended = apps.ended > 0 ? `Ended ${plural(apps.ended)} the agent had started. ` : '';
  const left =
    apps.still_running > 0
      ? `${plural(apps.still_running)} the agent started could not be ended; close them yourself. `
      : '';
  return ended + left;
}

/** What the notification says about the agent's shells and the processes found by its mark. */
function processesSentence(shells: number, strays: { ended: number; still_running: number }): string {
  const processes = (count: number) => `${count} process${count === 1 ? '' : 'es'}`;
  const ended =
    shells === 1
      ? "Ended the agent's shell session and everything it had started. "
      : shells > 1
        ? `Ended the agent's ${shells} shell sessions and everything they had started. `
        : '';
  const failed =
    shells < 0 ? "The agent's shell sessions could not all be ended; check for its commands yourself. " : '';
  if (strays.still_running < 0) {
    return `${ended}${failed}Processes the agent started could not be looked for; check for them yourself. `;
  }
  const more = strays.ended > 0 ? `Ended ${processes(strays.ended)} the agent had started that ran on their own. ` : '';
  const left =
    strays.still_running > 0
      ? `${processes(strays.still_running)} the agent started could not be ended; ` +
        `end ${strays.still_running === 1 ? 'it' : 'them'} yourself. `
      : '';
  return ended + failed + more + left;
}
