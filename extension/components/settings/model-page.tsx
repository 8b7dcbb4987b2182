import type { MessageKey } from '../../lib/i18n.js';
import { ModelForm, sourceLabel } from './model-form.js';
import type { SettingsPageProps } from './settings-props.js';

const MODEL_KEY_LABELS: Partial<Record<string, MessageKey>> = {
  'model.preset': 'settingsProvider',
  'model.provider': 'settingsApiFormat',
  'model.name': 'settingsModelName',
  'model.base_url': 'settingsBaseUrl',
  'model.api_key': 'settingsApiKey',
  'model.stream_idle_seconds': 'settingsStreamIdle',
  'model.call_timeout_seconds': 'settingsCallTimeout',
  'model.prompt_cache': 'settingsPromptCache',
};

/** The model in force, each setting with where it comes from, and the form to change it. */
export function ModelPage({ props, data, update }: SettingsPageProps) {
  const { t, client } = props;
  const { model } = data.settings;
  // The preset by its name, the rest as config.json has them.
  const shownValue = (entry: (typeof model.settings)[number]) => {
    const preset = entry.key === 'model.preset' ? model.presets.find((item) => item.id === entry.value) : undefined;
    if (preset) return t.locale === 'zh-CN' ? preset.label['zh-CN'] : preset.label.en;
    return entry.value ?? '—';
  };
  return (
    <section className="card" aria-labelledby="model-title" data-testid="settings-model">
      <h2 id="model-title">{t('settingsPageModel')}</h2>
      {model.problem && (
        <p className="warning-text" role="status">
          {model.problem}
        </p>
      )}
      <dl className="facts settings-facts" data-testid="model-in-force">
        {model.settings.map((entry) => (
          <div key={entry.key} className="fact-row">
            <dt>{t(MODEL_KEY_LABELS[entry.key] ?? 'settingsModelName')}</dt>
            <dd>
              <span className="mono">{shownValue(entry)}</span>{' '}
              <span className="source-tag">{sourceLabel(entry.source, t, model)}</span>
            </dd>
          </div>
        ))}
      </dl>
      <ModelForm
        client={client}
        model={model}
        t={t}
        onSaved={(saved) => update((current) => ({ ...current, settings: { ...current.settings, model: saved } }))}
      />
    </section>
  );
}
