import fs from 'node:fs';

/** Delays before each restart in a row, so a daemon that keeps dying does not spin; the last one repeats. */
export const RESTART_DELAYS_MS = [5000, 15_000, 60_000] as const;
/** A daemon that ran this long without dying ends the streak. */
export const STABLE_AFTER_MS = 10 * 60_000;

export interface ServiceState {
  /** The daemon started under the service manager and has not stopped cleanly since. */
  running: boolean;
  /** Starts in a row that followed a daemon dying. */
  failures: number;
  started_at?: string;
}

/**
 * How much longer `nextai daemon --service` waits before starting, on top of what the service
 * manager waited: a daemon that keeps dying comes back after 5 s, then 15 s, then every 60 s.
 * `previous.running` still true means the last daemon died without stopping cleanly.
 */
export function restartDelay(
  previous: ServiceState | undefined,
  managerDelayMs: number,
): { failures: number; waitMs: number } {
  if (!previous?.running) return { failures: 0, waitMs: 0 };
  const failures = previous.failures + 1;
  const total = RESTART_DELAYS_MS[Math.min(failures, RESTART_DELAYS_MS.length) - 1] ?? RESTART_DELAYS_MS[2];
  return { failures, waitMs: Math.max(0, total - managerDelayMs) };
}

export function readServiceState(file: string): ServiceState | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ServiceState>;
    return {
      running: value.running === true,
      failures: Number(value.failures) || 0,
      ...(value.started_at ? { started_at: value.started_at } : {}),
    };
  } catch (error) {
    // No file: the first start under the service. An unreadable one: start as if it were.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      process.stderr.write(`nextai: ignoring ${file}: ${(error as Error).message}\n`);
    }
    return undefined;
  }
}

export function writeServiceState(file: string, state: ServiceState): void {
  fs.writeFileSync(file, `${JSON.stringify(state)}\n`, { mode: 0o600 });
}
