import { useId, useState, type FormEvent } from 'react';

import type { DAEMON_METHODS, MethodResult } from '@nextai/shared';

import type { Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';
import { messageOf, type SettingsView } from './use-settings.js';

type ModelView = SettingsView['model'];
type TestResult = MethodResult<typeof DAEMON_METHODS, 'settings.test_model'>;
type Provider = 'anthropic' | 'openai';

function setting(model: ModelView, key: string) {
  return model.settings.find((entry) => entry.key === key);
}

/** The value kept in config.json (what the form edits); settings from elsewhere show as placeholders. */
function fromFile(model: ModelView, key: string): string {
  const entry = setting(model, key);
  return entry?.source === 'config.json' ? (entry.value ?? '') : '';
}

/**
 * The model provider: which API, which model, where, and the key. The key is typed here, sent to
 * the daemon once and forgotten: the form never holds it after saving and the daemon only ever
 * answers with it masked. "Test connection" makes one tiny real call with what is saved.
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
  const configured = setting(model, 'model.provider')?.value;
  const [provider, setProvider] = useState<Provider>(configured === 'openai' ? 'openai' : 'anthropic');
  const [name, setName] = useState(() => fromFile(model, 'model.name'));
  const [baseUrl, setBaseUrl] = useState(() => fromFile(model, 'model.base_url'));
  const [apiKey, setApiKey] = useState('');
  const [phase, setPhase] = useState<'idle' | 'saving' | 'testing'>('idle');
  const [error, setError] = useState<string | undefined>(undefined);
  const [test, setTest] = useState<TestResult | undefined>(undefined);
  const ids = { name: useId(), url: useId(), key: useId(), keyHint: useId() };

  const defaults = model.providers.find((entry) => entry.id === provider);
  const savedKey = setting(model, 'model.api_key');
  const keyShown = savedKey?.value ? savedKey : undefined;

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
    try {
      const { model: saved } = await client.call('settings.set_model', {
        provider,
        name: name.trim() || null,
        base_url: baseUrl.trim() || null,
        ...(apiKey.trim() ? { api_key: apiKey.trim() } : {}),
      });
      setApiKey('');
      onSaved(saved);
    } catch (caught) {
      setError(messageOf(caught));
      setPhase('idle');
      return;
    }
    await runTest();
  };

  const busy = phase !== 'idle';
  return (
    <form className="settings-form" data-testid="model-form" onSubmit={(event) => void saveAndTest(event)}>
      <fieldset className="segmented" disabled={busy}>
        <legend>{t('settingsProvider')}</legend>
        {(['anthropic', 'openai'] as const).map((id) => (
          <label key={id} className={`segment${provider === id ? ' segment-on' : ''}`}>
            <input type="radio" name="provider" value={id} checked={provider === id} onChange={() => setProvider(id)} />
            {id === 'anthropic' ? t('settingsProviderAnthropic') : t('settingsProviderOpenai')}
          </label>
        ))}
      </fieldset>
      {provider === 'openai' && <p className="hint">{t('settingsProviderOpenaiHint')}</p>}

      <div className="field">
        <label htmlFor={ids.name}>{t('settingsModelName')}</label>
        <input
          id={ids.name}
          type="text"
          value={name}
          placeholder={defaults?.model}
          onChange={(event) => setName(event.target.value)}
          disabled={busy}
          spellCheck={false}
          autoComplete="off"
        />
      </div>
      <div className="field">
        <label htmlFor={ids.url}>{t('settingsBaseUrl')}</label>
        <input
          id={ids.url}
          type="url"
          value={baseUrl}
          placeholder={defaults?.base_url}
          onChange={(event) => setBaseUrl(event.target.value)}
          disabled={busy}
          spellCheck={false}
          autoComplete="off"
        />
      </div>
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
            ? t('settingsApiKeySaved', { key: keyShown.value ?? '', source: sourceLabel(keyShown.source, t) })
            : t('settingsApiKeyNone')}{' '}
          {t('settingsApiKeyPrivacy')}
        </p>
      </div>

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

/** `config.json`, `environment (X)`, `default`, `not set` in the panel's language. */
export function sourceLabel(source: string, t: Translate): string {
  if (source === 'config.json') return t('settingsSourceFile');
  if (source === 'default') return t('settingsSourceDefault');
  if (source === 'not set') return t('settingsSourceNotSet');
  const variable = /\(([A-Z_]+)/.exec(source)?.[1];
  return variable ? t('settingsSourceEnvironment', { variable }) : source;
}
