import { useState } from 'react';

import { ErrorAlert } from './error-alert.js';
import { LanguageSwitch } from './language.js';
import type { SettingsPageProps } from './settings-props.js';
import { messageOf } from './use-settings.js';

/** The panel's language, where the settings are stored, and the wizard to run again. */
export function GeneralPage({
  props,
  data,
  update,
  onRestartSetup,
}: SettingsPageProps & { onRestartSetup: () => Promise<void> }) {
  const { t, client, setLocale } = props;
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <section className="card" aria-labelledby="general-title" data-testid="settings-general">
      <h2 id="general-title">{t('settingsPageGeneral')}</h2>
      <LanguageSwitch
        client={client}
        value={data.settings.ui.language}
        t={t}
        setLocale={setLocale}
        onSaved={(language) =>
          update((current) => ({
            ...current,
            settings: { ...current.settings, ui: { ...current.settings.ui, language } },
          }))
        }
      />
      <dl className="facts settings-facts">
        <dt>{t('settingsConfigFile')}</dt>
        <dd className="mono">{data.settings.file}</dd>
      </dl>
      <p className="hint">{t('settingsConfigFileHint')}</p>
      <div className="card-actions">
        <button
          type="button"
          onClick={() => onRestartSetup().catch((caught: unknown) => setError(messageOf(caught)))}
          data-testid="restart-setup"
        >
          {t('settingsRestartSetup')}
        </button>
      </div>
      <ErrorAlert message={error} />
    </section>
  );
}
