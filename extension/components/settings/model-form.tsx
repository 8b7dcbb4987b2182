import { useId, useState, type FormEvent } from 'react';

import { inLocale, toAppError, type DAEMON_METHODS, type MethodResult, type ProviderPresetView } from '@nextai/shared';

import type { Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';
import { ModelCombobox } from './model-combobox.js';
import { messageOf, type SettingsView } from './use-settings.js';

type ModelView = SettingsView['model'];
type TestResult = MethodResult<typeof DAEMON_METHODS, 'settings.test_model'>;
type Provider = 'anthropic' | 'openai';

/** A server that is none of the presets, in either format. */
const CUSTOM = { 'custom-openai': 'openai', 'custom-anthropic': 'anthropic' } as const satisfies Record<
  string,
  Provider
>;
type CustomChoice = keyof typeof CUSTOM;
const GROUPS = [
  ['international', 'settingsGroupInternational'],
  ['china', 'settingsGroupChina'],
  ['local', 'settingsGroupLocal'],
] as const;

/** One empty list, so that the picker sees the same list from one render to the next. */
const NO_MODELS: readonly string[] = [];

type ModelList =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'listed'; models: string[]; server: string }
  | { state: 'failed'; message: string };

function setting(model: ModelView, key: string) {
  return model.settings.find((entry) => entry.key === key);
}

/** The value kept in config.json (what the form edits); settings from elsewhere show as placeholders. */
function fromFile(model: ModelView, key: string): string {
  const entry = setting(model, key);
  return entry?.source === 'config.json' ? (entry.value ?? '') : '';
}

function isCustom(choice: string): choice is CustomChoice {
  return choice in CUSTOM;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url.trim()).origin;
  } catch {
    return undefined;
  }
}

/** Trailing slashes and localhost aside, the same URL. */
function sameUrl(a: string, b: string): boolean {
  const normal = (text: string) => text.trim().replace(/\/+$/, '').replace('//localhost', '//127.0.0.1');
  return normal(a) === normal(b);
}

/**
 * What the form starts from: the preset saved in config.json, or the one whose server the saved
 * settings point at (configurations from before presets), or a server of neither kind; with
 * nothing configured, the first preset.
 */
function initialChoice(model: ModelView): string {
  const provider = setting(model, 'model.provider')?.value;
  const baseUrl = setting(model, 'model.base_url')?.value ?? '';
  const saved = model.presets.find((preset) => preset.id === model.preset);
  if (saved && (provider === null || provider === undefined || provider === saved.provider)) return saved.id;
  if (provider === 'anthropic' || provider === 'openai') {
    const matching = model.presets.find((preset) => preset.provider === provider && sameUrl(preset.base_url, baseUrl));
    return matching?.id ?? (provider === 'anthropic' ? 'custom-anthropic' : 'custom-openai');
  }
  return model.presets[0]?.id ?? 'custom-openai';
}

/**
 * The model provider: a preset (or another server of either format), the key, the model — typed,
 * or picked from the list the server gives — and, under "Advanced", the base URL the preset filled
 * in. The key is typed here, sent to the daemon once and forgotten: the form never holds it after
 * saving and the daemon only ever answers with it masked. "Test connection" makes one tiny real
 * call with what is saved.
 */
export function ModelForm({
  client,
  model,
  t,
  onSaved,
}: {
  client: PanelClient;
  model: ModelView;
  t: Translate;
  onSaved: (model: ModelView) => void;
}) {
  const [choice, setChoice] = useState(() => initialChoice(model));
  const startPreset = model.presets.find((preset) => preset.id === choice);
  const [name, setName] = useState(() => fromFile(model, 'model.name') || (startPreset?.default_model ?? ''));
  const [baseUrl, setBaseUrl] = useState(() => fromFile(model, 'model.base_url') || (startPreset?.base_url ?? ''));
  const [apiKey, setApiKey] = useState('');
  const [advanced, setAdvanced] = useState(() => startPreset !== undefined && !sameUrl(baseUrl, startPreset.base_url));
  const [list, setList] = useState<ModelList>({ state: 'idle' });
  const [listOpen, setListOpen] = useState(false);
  const [phase, setPhase] = useState<'idle' | 'saving' | 'testing'>('idle');
  const [error, setError] = useState<string | undefined>(undefined);
  const [keyRemovedFor, setKeyRemovedFor] = useState<string | undefined>(undefined);
  const [test, setTest] = useState<TestResult | undefined>(undefined);
  const ids = {
    preset: useId(),
    name: useId(),
    nameHint: useId(),
    url: useId(),
    key: useId(),
    keyHint: useId(),
  };

  const preset: ProviderPresetView | undefined = model.presets.find((entry) => entry.id === choice);
  const provider: Provider = preset?.provider ?? (isCustom(choice) ? CUSTOM[choice] : 'openai');
  const defaults = model.providers.find((entry) => entry.id === provider);
  const label = (entry: ProviderPresetView) => (t.locale === 'zh-CN' ? entry.label['zh-CN'] : entry.label.en);
  const needsKey = preset?.needs_key ?? true;
  // The saved key goes only to the server it was saved for: shown as saved only while the form points there.
  const savedKey = setting(model, 'model.api_key');
  const savedServer = setting(model, 'model.base_url')?.value ?? '';
  const keyShown =
    savedKey?.value && originOf(savedServer) !== undefined && originOf(savedServer) === originOf(baseUrl)
      ? savedKey
      : undefined;
  const options = list.state === 'listed' ? list.models : (preset?.models ?? NO_MODELS);

  const choose = (next: string) => {
    setChoice(next);
    const chosen = model.presets.find((entry) => entry.id === next);
    setName(chosen?.default_model ?? '');
    setBaseUrl(chosen?.base_url ?? '');
    setAdvanced(false);
    setApiKey('');
    setList({ state: 'idle' });
    setListOpen(false);
    setTest(undefined);
    setError(undefined);
    setKeyRemovedFor(undefined);
  };

  const listModels = async () => {
    setList({ state: 'loading' });
    setListOpen(false);
    try {
      const listed = await client.call('settings.list_models', {
        ...(preset ? { preset: preset.id } : {}),
        provider,
        ...(baseUrl.trim() ? { base_url: baseUrl.trim() } : {}),
        ...(apiKey.trim() ? { api_key: apiKey.trim() } : {}),
      });
      setList({ state: 'listed', models: listed.models, server: originOf(listed.base_url) ?? listed.base_url });
      setListOpen(listed.models.length > 0);
    } catch (caught) {
      const appError = toAppError(caught);
      setList({ state: 'failed', message: inLocale(appError.message, appError.translations, t.locale) });
    }
  };

  const runTest = async () => {
    setPhase('testing');
    setTest(undefined);
    try {
      setTest(await client.call('settings.test_model', {}));
    } catch (caught) {
      setTest({ ok: false, code: 'UNAVAILABLE', message: messageOf(caught) });
    } finally {
      setPhase('idle');
    }
  };

  const saveAndTest = async (event: FormEvent) => {
    event.preventDefault();
    setPhase('saving');
    setError(undefined);
    setTest(undefined);
    setKeyRemovedFor(undefined);
    try {
      const saved = await client.call('settings.set_model', {
        preset: preset?.id ?? null,
        provider,
        name: name.trim() || null,
        base_url: baseUrl.trim() || null,
        ...(needsKey && apiKey.trim() ? { api_key: apiKey.trim() } : {}),
      });
      setApiKey('');
      setKeyRemovedFor(saved.api_key_removed_for);
      onSaved(saved.model);
    } catch (caught) {
      const appError = toAppError(caught);
      setError(inLocale(appError.message, appError.translations, t.locale));
      setPhase('idle');
      return;
    }
    await runTest();
  };

  const busy = phase !== 'idle';
  const baseUrlField = (
    <div className="field">
      <label htmlFor={ids.url}>{t('settingsBaseUrl')}</label>
      <input
        id={ids.url}
        type="url"
        value={baseUrl}
        placeholder={preset?.base_url ?? defaults?.base_url}
        onChange={(event) => {
          setBaseUrl(event.target.value);
          setList({ state: 'idle' });
        }}
        disabled={busy}
        spellCheck={false}
        autoComplete="off"
      />
      <p className="hint" data-testid="base-url-hint">
        {preset?.base_url_to_fill
          ? t('settingsBaseUrlFill', { part: preset.base_url_to_fill, provider: label(preset) })
          : preset
            ? sameUrl(baseUrl, preset.base_url)
              ? t('settingsBaseUrlPresetHint', { provider: label(preset) })
              : t('settingsBaseUrlPresetOwn', { provider: label(preset), url: preset.base_url })
            : t(provider === 'anthropic' ? 'settingsBaseUrlAnthropicHint' : 'settingsBaseUrlOpenaiHint')}
      </p>
    </div>
  );

  return (
    <form className="settings-form" data-testid="model-form" onSubmit={(event) => void saveAndTest(event)}>
      <div className="field">
        <label htmlFor={ids.preset}>{t('settingsProvider')}</label>
        <select
          id={ids.preset}
          value={choice}
          onChange={(event) => choose(event.target.value)}
          disabled={busy}
          data-testid="model-preset"
        >
          {GROUPS.map(([group, groupLabel]) => (
            <optgroup key={group} label={t(groupLabel)}>
              {model.presets
                .filter((entry) => entry.group === group)
                .map((entry) => (
                  <option key={entry.id} value={entry.id}>
                    {label(entry)}
                  </option>
                ))}
            </optgroup>
          ))}
          <optgroup label={t('settingsGroupOther')}>
            <option value="custom-openai">{t('settingsCustomOpenai')}</option>
            <option value="custom-anthropic">{t('settingsCustomAnthropic')}</option>
          </optgroup>
        </select>
      </div>

      {needsKey ? (
        <div className="field">
          <label htmlFor={ids.key}>{t('settingsApiKey')}</label>
          <input
            id={ids.key}
            type="password"
            value={apiKey}
            placeholder={keyShown ? t('settingsApiKeyKeep') : t('settingsApiKeyPlaceholder')}
            aria-describedby={ids.keyHint}
            onChange={(event) => setApiKey(event.target.value)}
            disabled={busy}
            autoComplete="new-password"
            spellCheck={false}
          />
          <p className="hint" id={ids.keyHint} data-testid="api-key-saved">
            {keyShown
              ? t('settingsApiKeySaved', { key: keyShown.value ?? '', source: sourceLabel(keyShown.source, t, model) })
              : savedKey?.value
                ? t('settingsApiKeyOtherServer')
                : t(preset ? 'settingsApiKeyNoneYet' : 'settingsApiKeyNone')}{' '}
            {t('settingsApiKeyPrivacy')}
          </p>
          {preset?.key_url && (
            <a className="key-link" href={preset.key_url} target="_blank" rel="noreferrer" data-testid="get-key">
              {t('settingsGetKey', { provider: label(preset) })} <span aria-hidden="true">↗</span>
            </a>
          )}
        </div>
      ) : (
        preset && (
          <p className="hint" data-testid="no-key-needed">
            {t('settingsNoKeyNeeded', { provider: label(preset) })}{' '}
            {preset.key_url && (
              <a href={preset.key_url} target="_blank" rel="noreferrer">
                {t('settingsGetServer', { provider: label(preset) })} <span aria-hidden="true">↗</span>
              </a>
            )}
          </p>
        )
      )}

      <div className="field">
        <label htmlFor={ids.name}>{t('settingsModelName')}</label>
        <div className="combo-row">
          <ModelCombobox
            id={ids.name}
            value={name}
            onChange={setName}
            options={options}
            disabled={busy}
            placeholder={preset?.default_model ?? defaults?.model}
            describedBy={ids.nameHint}
            open={listOpen}
            onOpenChange={setListOpen}
            t={t}
          />
          <button
            type="button"
            className="button-small"
            disabled={busy || list.state === 'loading'}
            onClick={() => void listModels()}
            data-testid="list-models"
          >
            {list.state === 'loading' ? t('settingsListingModels') : t('settingsListModels')}
          </button>
        </div>
        <p
          className={list.state === 'failed' ? 'hint hint-bad' : 'hint'}
          id={ids.nameHint}
          role={list.state === 'failed' ? 'alert' : 'status'}
          data-testid="model-list-status"
        >
          {list.state === 'listed'
            ? list.models.length > 0
              ? t('settingsModelsListed', { count: list.models.length, server: list.server })
              : t('settingsModelsNone', { server: list.server })
            : list.state === 'failed'
              ? list.message
              : t('settingsModelNameHint')}
        </p>
      </div>

      {preset && !preset.base_url_to_fill ? (
        <details className="advanced" open={advanced} onToggle={(event) => setAdvanced(event.currentTarget.open)}>
          <summary>{t('settingsAdvanced')}</summary>
          {baseUrlField}
        </details>
      ) : (
        baseUrlField
      )}

      <div className="card-actions">
        <button type="submit" className="button-primary" disabled={busy} data-testid="model-save">
          {phase === 'saving' ? t('settingsSaving') : t('settingsSaveAndTest')}
        </button>
        <button type="button" disabled={busy} onClick={() => void runTest()} data-testid="model-test">
          {phase === 'testing' ? t('settingsTesting') : t('settingsTestOnly')}
        </button>
      </div>

      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {keyRemovedFor && (
        <p className="warning-text" role="status" data-testid="api-key-removed">
          {t(needsKey ? 'settingsApiKeyRemoved' : 'settingsApiKeyRemovedNoKey', { server: keyRemovedFor })}
        </p>
      )}
      {phase === 'testing' && (
        <p className="test-result test-pending" role="status">
          <span className="spinner spinner-small" aria-hidden="true" /> {t('settingsTesting')}
        </p>
      )}
      {test && (
        <div
          className={`test-result ${test.ok ? 'test-ok' : 'test-bad'}`}
          role="status"
          data-testid="model-test-result"
          data-ok={String(test.ok)}
        >
          {test.ok ? (
            <>
              <strong>✓ {t('settingsTestOk')}</strong>
              <span>
                {t('settingsTestOkDetail', {
                  model: test.model,
                  seconds: (test.duration_ms / 1000).toFixed(1),
                })}
              </span>
            </>
          ) : (
            <>
              <strong>✕ {t('settingsTestFailed')}</strong>
              <span>{test.message}</span>
            </>
          )}
        </div>
      )}
    </form>
  );
}

/** `config.json`, `preset (x)`, `environment (X)`, `default`, `not set` in the panel's language. */
export function sourceLabel(source: string, t: Translate, model?: ModelView): string {
  if (source === 'config.json') return t('settingsSourceFile');
  if (source === 'default') return t('settingsSourceDefault');
  if (source === 'not set') return t('settingsSourceNotSet');
  const preset = /^preset \(([^)]+)\)$/.exec(source)?.[1];
  if (preset !== undefined) {
    const found = model?.presets.find((entry) => entry.id === preset);
    const name = found ? (t.locale === 'zh-CN' ? found.label['zh-CN'] : found.label.en) : preset;
    return t('settingsSourcePreset', { preset: name });
  }
  const variable = /\(([A-Z_]+)/.exec(source)?.[1];
  return variable ? t('settingsSourceEnvironment', { variable }) : source;
}
