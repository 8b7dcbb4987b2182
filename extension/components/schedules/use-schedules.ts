import { useCallback, useEffect, useRef, useState } from 'react';

import type { MethodResult, DAEMON_METHODS } from '@nextai/shared';

import type { PanelClient } from '../../lib/panel-client.js';

export type ScheduleList = MethodResult<typeof DAEMON_METHODS, 'schedules.list'>;

export interface SchedulesState {
  data: ScheduleList | undefined;
  error: Error | undefined;
  /** The time relative times are shown from: when the list was read, moved on every half minute. */
  now: number;
  reload: () => void;
}

/** Events after which the list is read again (a run started or ended, a task changed, power changed). */
const REFRESHING = new Set([
  'schedule.changed',
  'schedule.run',
  'schedule.deferred',
  'heartbeat.checked',
  'heartbeat.problem',
  'power.changed',
]);

/**
 * The scheduled tasks, with the heartbeat and power state: read on connect and again (at most
 * every 200 ms) when the daemon announces a change, so next and last runs stay current.
 */
export function useSchedules(client: PanelClient, connected: boolean): SchedulesState {
  const [data, setData] = useState<ScheduleList | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [now, setNow] = useState(() => Date.now());
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const reload = useCallback(() => {
    client
      .call('schedules.list', {})
      .then((list) => {
        setData(list);
        setError(undefined);
        setNow(Date.now());
      })
      .catch((failure: unknown) => setError(failure as Error));
  }, [client]);

  useEffect(() => {
    if (!connected) return undefined;
    // Read once connected (deferred a tick: the state is set when the answer comes, never in the effect itself).
    const timer = setTimeout(reload, 0);
    return () => clearTimeout(timer);
  }, [connected, reload]);

  useEffect(
    () =>
      client.onEvent((event) => {
        if (!REFRESHING.has(event.type)) return;
        clearTimeout(pending.current);
        pending.current = setTimeout(reload, 200);
      }),
    [client, reload],
  );
  useEffect(() => () => clearTimeout(pending.current), []);

  // Relative times ("in 5 min") go stale: move on every half minute.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);

  return { data, error, now, reload };
}
