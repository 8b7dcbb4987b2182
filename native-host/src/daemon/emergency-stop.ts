import type { Db } from './database.js';

export interface EmergencyState {
  active: boolean;
  since?: string;
  reason?: string;
  by?: string;
}

export interface StopReport {
  already_active: boolean;
  aborted_calls: number;
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
  notify(title: string, body: string): Promise<string>;
  /** Records the change (events, audit). */
  record(change: { engaged: boolean; reason: string; by: string; aborted: number }): void;
}

const KEY = 'emergency_stop';

/**
 * The latched emergency stop. Setting it stops everything now — no new call starts, running
 * calls are aborted (their process groups killed), held keys and buttons are released, pending
 * approvals are closed — and it stays set, across restarts, until a person resets it.
 */
export class EmergencyStop {
  constructor(
    private readonly db: Db,
    private readonly actions: EmergencyStopActions,
  ) {}

  state(): EmergencyState {
    const value = this.db.prepare('SELECT value FROM safety_state WHERE key = ?').pluck().get(KEY) as
      string | undefined;
    if (!value) return { active: false };
    return { active: true, ...(JSON.parse(value) as Omit<EmergencyState, 'active'>) };
  }

  async engage(reason: string, by: string): Promise<StopReport> {
    const started = performance.now();
    const already = this.state().active;
    if (!already) {
      // Latch first: from this line on, no new tool call can start.
      this.db
        .prepare(
          'INSERT INTO safety_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        )
        .run(KEY, JSON.stringify({ since: new Date().toISOString(), reason, by }));
    }
    this.actions.cancelPendingApprovals(`emergency stop: ${reason}`);
    const [aborted, released] = await Promise.all([
      this.actions.abortRunningCalls(`emergency stop: ${reason}`),
      this.actions.releaseInputs(),
    ]);
    const endedMs = Math.round((performance.now() - started) * 100) / 100;
    this.actions.record({ engaged: true, reason, by, aborted });
    const notification = await this.actions.notify(
      'NextAI Agent stopped',
      `Emergency stop (${reason}). Nothing will run until you reset it: nextai stop --reset`,
    );
    return {
      already_active: already,
      aborted_calls: aborted,
      ended_ms: endedMs,
      inputs_released: released,
      notification,
    };
  }

  reset(by: string): { was_active: boolean } {
    const was = this.state().active;
    this.db.prepare('DELETE FROM safety_state WHERE key = ?').run(KEY);
    if (was) this.actions.record({ engaged: false, reason: 'reset', by, aborted: 0 });
    return { was_active: was };
  }
}
