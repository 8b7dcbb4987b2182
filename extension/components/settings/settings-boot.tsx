import { useEffect } from 'react';

import { UI_LANGUAGES } from '@nextai/shared';

import { localeFor } from './language.js';
import type { SettingsProps } from './settings-props.js';

/**
 * On panel open: the stored language is applied, and on a first run the panel opens on the
 * settings tab, where the wizard waits. Renders nothing; the panel's App mounts it once.
 */
export function SettingsBoot({ client, state, show, setLocale }: SettingsProps) {
  const connected = state.status === 'connected';
  const daemonPid = state.daemon?.pid;
  useEffect(() => {
    if (!connected) return;
    let current = true;
    client
      .call('settings.get', {})
      .then(({ ui }) => {
        if (!current) return;
        setLocale(localeFor(ui.language));
        if (!ui.setup_done) show('settings');
      })
      // Not fatal: the panel keeps the browser's language, and the settings tab says what failed.
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [client, connected, daemonPid, setLocale, show]);
  // … and a choice made elsewhere (another panel, another browser profile) as it happens.
  useEffect(
    () =>
      client.onEvent((event) => {
        if (event.type !== 'settings.ui_changed') return;
        const language = UI_LANGUAGES.find((known) => known === event.data.language);
        if (language) setLocale(localeFor(language));
      }),
    [client, setLocale],
  );
  return null;
}
