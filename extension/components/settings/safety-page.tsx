import { useState } from 'react';

import {
  DOMAIN_CATEGORIES,
  PERMISSION_LEVELS,
  PERMISSION_LEVEL_TITLES,
  type DomainCategory,
  type PermissionLevel,
} from '@nextai/shared';

import type { MessageKey } from '../../lib/i18n.js';
import { ErrorAlert } from './error-alert.js';
import { ListEditor } from './list-editor.js';
import type { SettingsPageProps } from './settings-props.js';
import { messageOf } from './use-settings.js';

const CATEGORY_LABELS: Record<DomainCategory, MessageKey> = {
  banking: 'settingsCategoryBanking',
  password_managers: 'settingsCategoryPasswordManagers',
  identity_providers: 'settingsCategoryIdentityProviders',
};
const LEVEL_TEXT: Record<PermissionLevel, MessageKey> = {
  L1: 'settingsLevelL1',
  L2: 'settingsLevelL2',
  L3: 'settingsLevelL3',
  L4: 'settingsLevelL4',
};

/** The permission level, the allowed folders and sites, and what is blocked or denied. */
export function SafetyPage({ props, data, update }: SettingsPageProps) {
  const { t, client, locale } = props;
  const { security } = data.policy;
  const [levelError, setLevelError] = useState<string | undefined>(undefined);
  const [categoryError, setCategoryError] = useState<string | undefined>(undefined);

  const save = async (change: Parameters<typeof client.call<'settings.set_security'>>[1]) => {
    const result = await client.call('settings.set_security', change);
    update((current) => ({
      ...current,
      settings: { ...current.settings, directories: result.directories },
      policy: { ...current.policy, security: result.security },
    }));
  };
  const missing = Object.fromEntries(
    data.settings.directories.filter((entry) => !entry.exists).map((entry) => [entry.path, t('settingsFolderMissing')]),
  );

  return (
    <section className="card" aria-labelledby="safety-title" data-testid="settings-safety">
      <h2 id="safety-title">{t('settingsPageSafety')}</h2>
      <fieldset className="level-picker" data-testid="permission-level">
        <legend>{t('settingsPermissionLevel')}</legend>
        {PERMISSION_LEVELS.map((level) => (
          <label key={level} className={`level-option${security.permission_level === level ? ' level-on' : ''}`}>
            <input
              type="radio"
              name="permission-level"
              value={level}
              checked={security.permission_level === level}
              onChange={() => {
                setLevelError(undefined);
                save({ permission_level: level }).catch((caught: unknown) => setLevelError(messageOf(caught)));
              }}
            />
            <span className="level-text">
              <span className="level-name">
                {level} · {PERMISSION_LEVEL_TITLES[level][locale]}
              </span>
              <span className="level-use">{t(LEVEL_TEXT[level])}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <ErrorAlert message={levelError} />
      <ListEditor
        label={t('settingsAllowedDirectories')}
        hint={t('settingsAllowedDirectoriesHint')}
        items={security.allowed_directories}
        placeholder={t('settingsFolderPlaceholder')}
        notes={missing}
        t={t}
        testId="allowed-directories"
        save={(allowed_directories) => save({ allowed_directories })}
      />
      <ListEditor
        label={t('settingsAllowedDomains')}
        hint={t('settingsAllowedDomainsHint')}
        items={security.allowed_domains}
        placeholder="example.com"
        t={t}
        testId="allowed-domains"
        save={(allowed_domains) => save({ allowed_domains })}
      />
      <ListEditor
        label={t('settingsBlockedDomains')}
        items={security.blocked_domains}
        placeholder="*.bank.com"
        t={t}
        testId="blocked-domains"
        save={(blocked_domains) => save({ blocked_domains })}
      />
      <fieldset className="category-picker" data-testid="blocked-categories">
        <legend>{t('settingsBlockedCategories')}</legend>
        <p className="hint">{t('settingsBlockedCategoriesHint')}</p>
        {DOMAIN_CATEGORIES.map((category) => {
          const on = security.blocked_domain_categories.includes(category);
          return (
            <label key={category} className="check-row">
              <input
                type="checkbox"
                checked={on}
                onChange={() => {
                  setCategoryError(undefined);
                  const next = on
                    ? security.blocked_domain_categories.filter((entry) => entry !== category)
                    : [...security.blocked_domain_categories, category];
                  save({ blocked_domain_categories: next }).catch((caught: unknown) =>
                    setCategoryError(messageOf(caught)),
                  );
                }}
              />
              <span>{t(CATEGORY_LABELS[category])}</span>
            </label>
          );
        })}
        <ErrorAlert message={categoryError} />
      </fieldset>
      <ListEditor
        label={t('settingsDeniedPatterns')}
        hint={t('settingsDeniedPatternsHint')}
        items={security.denied_patterns}
        placeholder="~/.ssh/**"
        t={t}
        testId="denied-patterns"
        save={(denied_patterns) => save({ denied_patterns })}
      />
      <ListEditor
        label={t('settingsBlockedApps')}
        hint={t('settingsBlockedAppsHint')}
        items={security.blocked_apps}
        placeholder="KeePassXC"
        t={t}
        testId="blocked-apps"
        save={(blocked_apps) => save({ blocked_apps })}
      />
    </section>
  );
}
