import { useCallback, useEffect, useState } from 'react';

import type { DAEMON_METHODS, MethodResult } from '@nextai/shared';

import type { PanelClient } from '../../lib/panel-client.js';

export type SettingsView = MethodResult<typeof DAEMON_METHODS, 'settings.get'>;
export type PolicyView = MethodResult<typeof DAEMON_METHODS, 'policy.show'>;
export type ProjectView = PolicyView['projects'][number];

export interface SettingsData {
  settings: SettingsView;
  policy: PolicyView;
}

/**
 * The settings as the daemon has them: loaded on connecting (and after the daemon restarted),
 * and again whenever the policy changes — from this panel, the CLI or an edit of config.json.
 */
export function useSettings(client: PanelClient, connected: boolean, daemonPid: number | undefined) {
  const [data, setData] = useState<SettingsData | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  const load = useCallback(
    () => Promise.all([client.call('settings.get', {}), client.call('policy.show', {})]),
    [client],
  );
  const reload = useCallback(
    () =>
      load().then(
        ([settings, policy]) => {
          setData({ settings, policy });
          setError(undefined);
        },
        (caught: unknown) => setError(messageOf(caught)),
      ),
    [load],
  );

  useEffect(() => {
    if (!connected) return;
    let current = true;
    load().then(
      ([settings, policy]) => {
        if (!current) return;
        setData({ settings, policy });
        setError(undefined);
      },
      (caught: unknown) => {
        if (current) setError(messageOf(caught));
      },
    );
    return () => {
      current = false;
    };
  }, [connected, daemonPid, load]);

  useEffect(
    () =>
      client.onEvent((event) => {
        if (event.type === 'policy.changed' || event.type === 'policy.rejected') void reload();
      }),
    [client, reload],
  );

  return { data, error, reload, setData };
}

/** The message of a failed daemon call, for showing as is (the daemon's messages say what to do). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One button's call to the daemon: busy while it runs, then the notice it earned or the daemon's
 * error in its words. `perform` resolves to the notice to show.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const perform = useCallback(async (work: () => Promise<string>) => {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      setNotice(await work());
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, notice, perform };
}
