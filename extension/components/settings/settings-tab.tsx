import type { PanelProps } from '../panel-props.js';
import { ErrorAlert } from './error-alert.js';
import { SettingsPages } from './settings-pages.js';
import type { SettingsProps } from './settings-props.js';
import { useSettings, type SettingsData } from './use-settings.js';
import { Wizard } from './wizard.js';
import './settings.css';

export { SettingsBoot } from './settings-boot.js';

/**
 * The settings tab: the first-run wizard until setup is done (finished or skipped), the settings
 * pages after it.
 */
export function SettingsTab(props: PanelProps) {
  const full = props as SettingsProps;
  const { client, state, t } = full;
  const connected = state.status === 'connected';
  const { data, error, reload, setData } = useSettings(client, connected, state.daemon?.pid);
  const update = (change: (data: SettingsData) => SettingsData) =>
    setData((current) => (current ? change(current) : current));

  if (!connected) {
    return (
      <section className="card card-muted" data-testid="settings-tab" data-phase="offline">
        <p>{t('settingsNeedHost')}</p>
      </section>
    );
  }
  if (!data) {
    return (
      <section className="card" data-testid="settings-tab" data-phase={error ? 'error' : 'loading'}>
        {error ? (
          <>
            <ErrorAlert message={t('settingsLoadFailed', { message: error })} />
            <div className="card-actions">
              <button type="button" className="button-primary" onClick={() => void reload()}>
                {t('settingsRetry')}
              </button>
            </div>
          </>
        ) : (
          <p className="hint">{t('loading')}</p>
        )}
      </section>
    );
  }

  const setSetupDone = async (setup_done: boolean) => {
    const { ui } = await client.call('settings.set_ui', { setup_done });
    update((current) => ({ ...current, settings: { ...current.settings, ui } }));
  };

  return (
    <div className="settings" data-testid="settings-tab" data-phase="ready">
      {data.settings.config_problem && (
        <section className="card card-warning" role="alert" data-testid="config-problem">
          <h2>{t('settingsConfigProblemTitle')}</h2>
          <p className="error-text">{data.settings.config_problem}</p>
          <p className="hint">{t('settingsConfigProblemHint', { file: data.settings.file })}</p>
        </section>
      )}
      {data.settings.ui.setup_done ? (
        <SettingsPages props={full} data={data} update={update} onRestartSetup={() => setSetupDone(false)} />
      ) : (
        <Wizard props={full} data={data} update={update} onFinish={() => setSetupDone(true)} />
      )}
    </div>
  );
}
