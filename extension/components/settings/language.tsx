import { useState } from 'react';

import { UI_LANGUAGES } from '@nextai/shared';

import { pickLocale, type Locale, type MessageKey, type Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';
import { messageOf } from './use-settings.js';

export type UiLanguage = (typeof UI_LANGUAGES)[number];

/** The panel's language for a stored choice: `auto` follows the browser. */
export function localeFor(language: UiLanguage): Locale {
  return language === 'auto' ? pickLocale(navigator.language) : language;
}

const LABELS: Record<UiLanguage, MessageKey> = {
  auto: 'settingsLanguageAuto',
  en: 'settingsLanguageEn',
  'zh-CN': 'settingsLanguageZh',
};

/**
 * English / 中文 / the browser's language. Stored in the daemon (config.json `ui.language`), so
 * every browser profile and the next panel open use it; applied at once.
 */
export function LanguageSwitch({
  client,
  value,
  t,
  setLocale,
  onSaved,
}: {
  client: PanelClient;
  value: UiLanguage;
  t: Translate;
  setLocale: (locale: Locale) => void;
  onSaved: (language: UiLanguage) => void;
}) {
  const [error, setError] = useState<string | undefined>(undefined);
  const choose = async (language: UiLanguage) => {
    setError(undefined);
    try {
      const { ui } = await client.call('settings.set_ui', { language });
      setLocale(localeFor(ui.language));
      onSaved(ui.language);
    } catch (caught) {
      setError(messageOf(caught));
    }
  };
  return (
    <>
      <fieldset className="segmented" data-testid="language-switch">
        <legend>{t('settingsLanguage')}</legend>
        {UI_LANGUAGES.map((language) => (
          <label key={language} className={`segment${value === language ? ' segment-on' : ''}`}>
            <input
              type="radio"
              name="ui-language"
              value={language}
              checked={value === language}
              onChange={() => void choose(language)}
            />
            {/* Each language names itself, so a person who cannot read the current one finds theirs. */}
            <span lang={language === 'auto' ? undefined : language}>{t(LABELS[language])}</span>
          </label>
        ))}
      </fieldset>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
