import { useEffect, useId, useState, type FormEvent } from 'react';

import {
  DOMAIN_CATEGORIES,
  PERMISSION_LEVELS,
  PERMISSION_LEVEL_TITLES,
  UI_LANGUAGES,
  type DomainCategory,
  type PermissionLevel,
} from '@nextai/shared';

import type { Locale, MessageKey } from '../../lib/i18n.js';
import type { PanelProps } from '../panel-props.js';
import { LanguageSwitch, localeFor } from './language.js';
import { ListEditor } from './list-editor.js';
import { ModelForm, sourceLabel } from './model-form.js';
import { ProjectPolicy } from './project-policy.js';
import { ActionOutcome } from './action-outcome.js';
import { messageOf, useAction, useSettings, type ProjectView, type SettingsData } from './use-settings.js';
import { Wizard } from './wizard.js';
import './settings.css';

type Props = PanelProps & { setLocale: (locale: Locale) => void };

const PAGES = ['model', 'projects', 'safety', 'general'] as const;
type Page = (typeof PAGES)[number];
const CATEGORY_LABELS: Record<DomainCategory, MessageKey> = {
  banking: 'settingsCategoryBanking',
  password_managers: 'settingsCategoryPasswordManagers',
  identity_providers: 'settingsCategoryIdentityProviders',
};
const PAGE_LABELS: Record<Page, MessageKey> = {
  model: 'settingsPageModel',
  projects: 'settingsPageProjects',
  safety: 'settingsPageSafety',
  general: 'settingsPageGeneral',
};
const MODEL_KEY_LABELS: Partial<Record<string, MessageKey>> = {
  'model.provider': 'settingsProvider',
  'model.name': 'settingsModelName',
  'model.base_url': 'settingsBaseUrl',
  'model.api_key': 'settingsApiKey',
};
const LEVEL_TEXT: Record<PermissionLevel, MessageKey> = {
  L1: 'settingsLevelL1',
  L2: 'settingsLevelL2',
  L3: 'settingsLevelL3',
  L4: 'settingsLevelL4',
};

/**
 * On panel open: the stored language is applied, and on a first run the panel opens on the
 * settings tab, where the wizard waits. Renders nothing; the panel's App mounts it once.
 */
export function SettingsBoot({ client, state, show, setLocale }: Props) {
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

/** Settings and the first-run wizard (issue #6 points 5 and 7). */
export function SettingsTab(props: PanelProps) {
  const full = props as Props;
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
            <p className="error-text" role="alert">
              {t('settingsLoadFailed', { message: error })}
            </p>
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

function SettingsPages({
  props,
  data,
  update,
  onRestartSetup,
}: {
  props: Props;
  data: SettingsData;
  update: (change: (data: SettingsData) => SettingsData) => void;
  onRestartSetup: () => Promise<void>;
}) {
  const { t } = props;
  const [page, setPage] = useState<Page>('model');
  return (
    <>
      <nav className="settings-nav" aria-label={t('settingsPagesLabel')}>
        {PAGES.map((id) => (
          <button
            key={id}
            type="button"
            className={`settings-nav-item${page === id ? ' settings-nav-on' : ''}`}
            aria-current={page === id ? 'page' : undefined}
            onClick={() => setPage(id)}
            data-testid={`settings-page-${id}`}
          >
            {t(PAGE_LABELS[id])}
          </button>
        ))}
      </nav>
      {page === 'model' && <ModelPage props={props} data={data} update={update} />}
      {page === 'projects' && <ProjectsPage props={props} data={data} update={update} />}
      {page === 'safety' && <SafetyPage props={props} data={data} update={update} />}
      {page === 'general' && <GeneralPage props={props} data={data} update={update} onRestartSetup={onRestartSetup} />}
    </>
  );
}

function ModelPage({
  props,
  data,
  update,
}: {
  props: Props;
  data: SettingsData;
  update: (change: (data: SettingsData) => SettingsData) => void;
}) {
  const { t, client } = props;
  const { model } = data.settings;
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
              <span className="mono">{entry.value ?? '—'}</span>{' '}
              <span className="source-tag">{sourceLabel(entry.source, t)}</span>
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

function ProjectsPage({
  props,
  data,
  update,
}: {
  props: Props;
  data: SettingsData;
  update: (change: (data: SettingsData) => SettingsData) => void;
}) {
  const { t, client, locale } = props;
  const projects = data.policy.projects;
  const [selected, setSelected] = useState(data.policy.project.id);
  const [tools, setTools] = useState<string[]>([]);
  const [creating, setCreating] = useState(false);
  const [newId, setNewId] = useState('');
  const [newName, setNewName] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const ids = { select: useId(), id: useId(), name: useId() };
  const project = projects.find((entry) => entry.id === selected) ?? projects[0];
  /** Shows what the daemon answered at once, before the policy.changed event reloads everything. */
  const showProjects = (change: (list: ProjectView[]) => ProjectView[]) =>
    update((current) => ({ ...current, policy: { ...current.policy, projects: change(current.policy.projects) } }));
  const replaced = (saved: ProjectView) => (list: ProjectView[]) =>
    list.some((entry) => entry.id === saved.id)
      ? list.map((entry) => (entry.id === saved.id ? saved : entry))
      : [...list, saved];

  useEffect(() => {
    let current = true;
    client
      .call('tools.list', {})
      .then(({ tools: list }) => {
        if (current) setTools(list.map((tool) => tool.name).sort());
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [client]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const { project: created } = await client.call('settings.save_project', {
        id: newId.trim(),
        ...(newName.trim() ? { name: newName.trim() } : {}),
      });
      showProjects(replaced(created));
      setSelected(created.id);
      setCreating(false);
      setNewId('');
      setNewName('');
    } catch (caught) {
      setError(messageOf(caught));
    }
  };

  return (
    <section className="card" aria-labelledby="projects-title" data-testid="settings-projects">
      <h2 id="projects-title">{t('settingsPageProjects')}</h2>
      <div className="project-bar">
        <label htmlFor={ids.select}>{t('settingsProject')}</label>
        <select id={ids.select} value={project?.id} onChange={(event) => setSelected(event.target.value)}>
          {projects.map((entry) => (
            <option key={entry.id} value={entry.id}>
              {entry.name === entry.id ? entry.id : `${entry.name} (${entry.id})`}
            </option>
          ))}
        </select>
        <button type="button" className="button-small" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          {t('settingsNewProject')}
        </button>
      </div>
      {creating && (
        <form className="new-project" onSubmit={(event) => void create(event)}>
          <div className="field">
            <label htmlFor={ids.id}>{t('settingsProjectId')}</label>
            <input
              id={ids.id}
              value={newId}
              onChange={(event) => setNewId(event.target.value)}
              placeholder="website"
              spellCheck={false}
              autoComplete="off"
            />
          </div>
          <div className="field">
            <label htmlFor={ids.name}>{t('settingsProjectName')}</label>
            <input id={ids.name} value={newName} onChange={(event) => setNewName(event.target.value)} />
          </div>
          <div className="card-actions">
            <button type="submit" className="button-primary" disabled={newId.trim() === ''}>
              {t('settingsCreate')}
            </button>
          </div>
          {error && (
            <p className="error-text" role="alert">
              {error}
            </p>
          )}
        </form>
      )}
      {project && (
        <ProjectIdentity
          key={project.id}
          client={client}
          project={project}
          isDefault={project.id === data.policy.project.id}
          t={t}
          onRenamed={(saved) => showProjects(replaced(saved))}
          onRemoved={(id) => {
            showProjects((list) => list.filter((entry) => entry.id !== id));
            setSelected(data.policy.project.id);
          }}
        />
      )}
      {project && <ProjectPolicy client={client} project={project} tools={tools} t={t} locale={locale} />}
    </section>
  );
}

/** A project's name, editable, and its removal (never the default project's). */
function ProjectIdentity({
  client,
  project,
  isDefault,
  t,
  onRenamed,
  onRemoved,
}: {
  client: Props['client'];
  project: { id: string; name: string };
  isDefault: boolean;
  t: Props['t'];
  onRenamed: (project: ProjectView) => void;
  onRemoved: (id: string) => void;
}) {
  const [name, setName] = useState(project.name);
  const [confirming, setConfirming] = useState(false);
  const { busy, error, notice, perform: act } = useAction();
  const nameId = useId();
  const rename = (event: FormEvent) => {
    event.preventDefault();
    void act(async () => {
      const saved = await client.call('settings.save_project', { id: project.id, name: name.trim() });
      onRenamed(saved.project);
      return t('settingsSaved');
    });
  };
  const remove = () =>
    act(async () => {
      await client.call('settings.delete_project', { id: project.id });
      onRemoved(project.id);
      return t('settingsProjectRemoved', { name: project.name });
    });

  return (
    <div className="settings-section project-identity" data-testid="project-identity">
      <form className="project-rename" onSubmit={rename}>
        <label htmlFor={nameId}>{t('settingsProjectName')}</label>
        <input id={nameId} value={name} onChange={(event) => setName(event.target.value)} disabled={busy} />
        <button
          type="submit"
          className="button-small"
          disabled={busy || name.trim() === '' || name.trim() === project.name}
        >
          {t('settingsRenameProject')}
        </button>
      </form>
      {isDefault ? (
        <p className="hint">{t('settingsRemoveProjectDefault')}</p>
      ) : confirming ? (
        <div className="confirm-row" role="group" aria-label={t('settingsRemoveProject')}>
          <span>{t('settingsRemoveProjectConfirm', { name: project.name })}</span>
          <button
            type="button"
            className="button-danger button-small"
            disabled={busy}
            onClick={() => void remove()}
            data-testid="project-remove-confirm"
          >
            {t('settingsRemoveProjectYes')}
          </button>
          <button type="button" className="button-small" disabled={busy} onClick={() => setConfirming(false)}>
            {t('settingsCancel')}
          </button>
        </div>
      ) : (
        <button
          type="button"
          className="link-button link-danger"
          onClick={() => setConfirming(true)}
          data-testid="project-remove"
        >
          {t('settingsRemoveProject')}
        </button>
      )}
      <ActionOutcome error={error} notice={notice} />
    </div>
  );
}

function SafetyPage({
  props,
  data,
  update,
}: {
  props: Props;
  data: SettingsData;
  update: (change: (data: SettingsData) => SettingsData) => void;
}) {
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
      {levelError && (
        <p className="error-text" role="alert">
          {levelError}
        </p>
      )}
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
        {categoryError && (
          <p className="error-text" role="alert">
            {categoryError}
          </p>
        )}
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

function GeneralPage({
  props,
  data,
  update,
  onRestartSetup,
}: {
  props: Props;
  data: SettingsData;
  update: (change: (data: SettingsData) => SettingsData) => void;
  onRestartSetup: () => Promise<void>;
}) {
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
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
