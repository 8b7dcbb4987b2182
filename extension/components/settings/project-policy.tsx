import { useId, useState, type FormEvent } from 'react';

import {
  APPROVAL_ACTIONS,
  APPROVAL_MODES,
  CATEGORY_TITLES,
  RISK_LEVELS,
  TOOL_CATEGORIES,
  categoryFromKey,
  type ApprovalAction,
  type ProjectApprovalPolicy,
} from '@nextai/shared';

import type { Locale, MessageKey, Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';
import { TemplatePicker } from './template-picker.js';
import { ActionOutcome } from './action-outcome.js';
import { useAction, type ProjectView } from './use-settings.js';

const ACTION_LABELS: Record<ApprovalAction, MessageKey> = {
  auto_approve: 'settingsActionAuto',
  notify_only: 'settingsActionNotify',
  require_approval: 'settingsActionAsk',
  always_block: 'settingsActionBlock',
};
const MODE_LABELS = {
  auto: 'settingsModeAuto',
  supervised: 'settingsModeSupervised',
  locked: 'settingsModeLocked',
} as const;
const RISK_LABELS = {
  low: 'settingsRiskLow',
  medium: 'settingsRiskMedium',
  high: 'settingsRiskHigh',
  critical: 'settingsRiskCritical',
} as const;

function ActionSelect({
  value,
  onChange,
  label,
  t,
}: {
  value: ApprovalAction;
  onChange: (action: ApprovalAction) => void;
  label: string;
  t: Translate;
}) {
  return (
    <select
      className={`action-select action-${value}`}
      aria-label={label}
      value={value}
      onChange={(event) => onChange(event.target.value as ApprovalAction)}
    >
      {APPROVAL_ACTIONS.map((action) => (
        <option key={action} value={action}>
          {t(ACTION_LABELS[action])}
        </option>
      ))}
    </select>
  );
}

/**
 * One project's approval policy: a template in one click, or the details — mode,
 * an action per risk level, category and tool overrides — saved together. The daemon validates
 * the whole policy; what it refuses is shown in its words.
 */
export function ProjectPolicy({
  client,
  project,
  tools,
  t,
  locale,
}: {
  client: PanelClient;
  project: ProjectView;
  tools: readonly string[];
  t: Translate;
  locale: Locale;
}) {
  const saved = JSON.stringify(project.approval);
  const [draft, setDraft] = useState<ProjectApprovalPolicy>(project.approval);
  const { busy, error, notice, perform } = useAction();
  const [newCategory, setNewCategory] = useState<string>(TOOL_CATEGORIES[0]);
  const [newTool, setNewTool] = useState('');
  const ids = { mode: useId(), tools: useId(), newTool: useId(), newCategory: useId() };
  const dirty = JSON.stringify(draft) !== saved;

  // What the daemon holds changed (saved here, from the CLI, or config.json edited): start from it.
  const [base, setBase] = useState(`${project.id}:${saved}`);
  if (base !== `${project.id}:${saved}`) {
    setBase(`${project.id}:${saved}`);
    setDraft(JSON.parse(saved) as ProjectApprovalPolicy);
  }

  const run = (action: () => Promise<unknown>, done: string) =>
    perform(async () => {
      await action();
      return done;
    });

  const chooseTemplate = (template: string) =>
    run(() => client.call('policy.set_template', { template, project: project.id }), t('settingsSaved'));
  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(() => client.call('settings.save_project', { id: project.id, approval: draft }), t('settingsSaved'));
  };

  const categoryTitle = (key: string) => {
    const category = categoryFromKey(key);
    return category ? CATEGORY_TITLES[category][locale] : key;
  };
  const setCategory = (key: string, action: ApprovalAction | undefined) => {
    const next = { ...draft.category_overrides };
    if (action) next[key] = action;
    else delete next[key];
    setDraft({ ...draft, category_overrides: next });
  };
  const setTool = (key: string, action: ApprovalAction | undefined) => {
    const next = { ...draft.tool_overrides };
    if (action) next[key] = action;
    else delete next[key];
    setDraft({ ...draft, tool_overrides: next });
  };
  const freeCategories = TOOL_CATEGORIES.filter((category) => !(category in draft.category_overrides));

  return (
    <div className="project-policy" data-testid={`project-${project.id}`}>
      <section className="settings-section">
        <h3>{t('settingsTemplate')}</h3>
        <TemplatePicker
          value={project.template}
          onChoose={(template) => void chooseTemplate(template)}
          disabled={busy}
          t={t}
          name={`template-${project.id}`}
        />
        {project.template === null && <p className="hint">{t('settingsTemplateCustom')}</p>}
      </section>

      <form className="settings-section" onSubmit={save}>
        <h3>{t('settingsDetails')}</h3>
        <fieldset className="policy-grid" disabled={busy}>
          <legend className="visually-hidden">{t('settingsDetails')}</legend>
          <label htmlFor={ids.mode}>{t('settingsMode')}</label>
          <select
            id={ids.mode}
            value={draft.mode}
            onChange={(event) => setDraft({ ...draft, mode: event.target.value as ProjectApprovalPolicy['mode'] })}
          >
            {APPROVAL_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {t(MODE_LABELS[mode])}
              </option>
            ))}
          </select>
          {RISK_LEVELS.map((risk) => (
            <RiskRow
              key={risk}
              label={t(RISK_LABELS[risk])}
              risk={risk}
              value={draft.risk_policies[risk]}
              onChange={(action) => setDraft({ ...draft, risk_policies: { ...draft.risk_policies, [risk]: action } })}
              t={t}
            />
          ))}
        </fieldset>

        <h4>{t('settingsCategoryOverrides')}</h4>
        <fieldset className="override-list" disabled={busy}>
          <legend className="visually-hidden">{t('settingsCategoryOverrides')}</legend>
          {Object.entries(draft.category_overrides).length === 0 && (
            <p className="list-empty">{t('settingsNoOverrides')}</p>
          )}
          {Object.entries(draft.category_overrides).map(([key, action]) => (
            <div className="override-row" key={key}>
              <span>{categoryTitle(key)}</span>
              <ActionSelect
                value={action}
                onChange={(next) => setCategory(key, next)}
                label={t('settingsOverrideFor', { name: categoryTitle(key) })}
                t={t}
              />
              <button
                type="button"
                className="button-icon"
                aria-label={t('settingsRemoveItem', { item: categoryTitle(key) })}
                onClick={() => setCategory(key, undefined)}
              >
                ×
              </button>
            </div>
          ))}
          {freeCategories.length > 0 && (
            <div className="override-add">
              <label className="visually-hidden" htmlFor={ids.newCategory}>
                {t('settingsAddCategory')}
              </label>
              <select
                id={ids.newCategory}
                value={freeCategories.includes(newCategory as never) ? newCategory : freeCategories[0]}
                onChange={(event) => setNewCategory(event.target.value)}
              >
                {freeCategories.map((category) => (
                  <option key={category} value={category}>
                    {CATEGORY_TITLES[category][locale]}
                  </option>
                ))}
              </select>
              <button
                type="button"
                className="button-small"
                onClick={() =>
                  setCategory(
                    freeCategories.includes(newCategory as never) ? newCategory : (freeCategories[0] ?? newCategory),
                    'require_approval',
                  )
                }
              >
                {t('settingsAdd')}
              </button>
            </div>
          )}
        </fieldset>

        <h4>{t('settingsToolOverrides')}</h4>
        <fieldset className="override-list" disabled={busy}>
          <legend className="visually-hidden">{t('settingsToolOverrides')}</legend>
          {Object.entries(draft.tool_overrides).length === 0 && (
            <p className="list-empty">{t('settingsNoOverrides')}</p>
          )}
          {Object.entries(draft.tool_overrides).map(([key, action]) => (
            <div className="override-row" key={key}>
              <span className="mono">{key}</span>
              <ActionSelect
                value={action}
                onChange={(next) => setTool(key, next)}
                label={t('settingsOverrideFor', { name: key })}
                t={t}
              />
              <button
                type="button"
                className="button-icon"
                aria-label={t('settingsRemoveItem', { item: key })}
                onClick={() => setTool(key, undefined)}
              >
                ×
              </button>
            </div>
          ))}
          <div className="override-add">
            <label className="visually-hidden" htmlFor={ids.newTool}>
              {t('settingsAddTool')}
            </label>
            <input
              id={ids.newTool}
              list={ids.tools}
              value={newTool}
              placeholder="bash_execute"
              onChange={(event) => setNewTool(event.target.value)}
              spellCheck={false}
              autoComplete="off"
            />
            <datalist id={ids.tools}>
              {tools.map((tool) => (
                <option key={tool} value={tool} />
              ))}
            </datalist>
            <button
              type="button"
              className="button-small"
              disabled={newTool.trim() === ''}
              onClick={() => {
                setTool(newTool.trim(), 'require_approval');
                setNewTool('');
              }}
            >
              {t('settingsAdd')}
            </button>
          </div>
        </fieldset>

        <div className="card-actions sticky-actions">
          <button type="submit" className="button-primary" disabled={busy || !dirty} data-testid="project-save">
            {t('settingsSave')}
          </button>
          <button
            type="button"
            disabled={busy || !dirty}
            onClick={() => setDraft(JSON.parse(saved) as ProjectApprovalPolicy)}
          >
            {t('settingsDiscard')}
          </button>
          {dirty && <span className="hint">{t('settingsUnsaved')}</span>}
        </div>
      </form>
      <ActionOutcome error={error} notice={notice} />
    </div>
  );
}

function RiskRow({
  label,
  risk,
  value,
  onChange,
  t,
}: {
  label: string;
  risk: string;
  value: ApprovalAction;
  onChange: (action: ApprovalAction) => void;
  t: Translate;
}) {
  return (
    <>
      <span className={`risk-label risk-${risk}`}>{label}</span>
      <ActionSelect value={value} onChange={onChange} label={t('settingsRiskAction', { risk: label })} t={t} />
    </>
  );
}
