import { useRef, useState, useEffect } from 'react';

import type { Locale } from '../../lib/i18n.js';
import type { PanelProps } from '../panel-props.js';
import { LanguageSwitch } from './language.js';
import { ListEditor } from './list-editor.js';
import { ModelForm } from './model-form.js';
import { TemplatePicker } from './template-picker.js';
import { messageOf, type SettingsData } from './use-settings.js';

const STEPS = ['connect', 'model', 'folders', 'approvals'] as const;
type Step = (typeof STEPS)[number];
const STEP_LABELS = {
  connect: 'wizardStepConnect',
  model: 'wizardStepModel',
  folders: 'wizardStepFolders',
  approvals: 'wizardStepApprovals',
} as const;

/**
 * The first-run wizard, in the side panel: the host is connected (the panel's connect card handles
 * a missing host), then a model with a real test call, the folders the agent may work in, and an
 * approval template. Everything is saved in the daemon as the person goes; finishing (or skipping)
 * records that setup is done, so it is shown only once.
 */
export function Wizard({
  props,
  data,
  update,
  onFinish,
}: {
  props: PanelProps & { setLocale: (locale: Locale) => void };
  data: SettingsData;
  update: (change: (data: SettingsData) => SettingsData) => void;
  onFinish: () => Promise<void>;
}) {
  const { client, t, state } = props;
  const [step, setStep] = useState<Step>('connect');
  const [error, setError] = useState<string | undefined>(undefined);
  const [finishing, setFinishing] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const index = STEPS.indexOf(step);
  const project = data.policy.project;

  // Each step's heading takes the focus, so keyboard and screen-reader users start at its top.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    heading.current?.focus();
  }, [step]);

  const finish = async () => {
    setFinishing(true);
    setError(undefined);
    try {
      await onFinish();
    } catch (caught) {
      setError(messageOf(caught));
      setFinishing(false);
    }
  };

  const chooseTemplate = async (template: string) => {
    setError(undefined);
    try {
      const { project: updated } = await client.call('policy.set_template', { template, project: project.id });
      update((current) => ({ ...current, policy: { ...current.policy, project: updated } }));
    } catch (caught) {
      setError(messageOf(caught));
    }
  };

  const directories = data.settings.directories;
  const missingNotes = Object.fromEntries(
    directories.filter((entry) => !entry.exists).map((entry) => [entry.path, t('settingsFolderMissing')]),
  );

  return (
    <section className="card wizard" data-testid="wizard" data-step={step} aria-labelledby="wizard-title">
      <div className="wizard-top">
        <h2 id="wizard-title" className="wizard-title">
          {t('wizardTitle')}
        </h2>
        <button type="button" className="button-link" onClick={() => void finish()} data-testid="wizard-skip">
          {t('wizardSkip')}
        </button>
      </div>
      <ol className="stepper" aria-label={t('wizardStepsLabel')}>
        {STEPS.map((name, position) => (
          <li
            key={name}
            className={position < index ? 'step-done' : position === index ? 'step-current' : undefined}
            aria-current={position === index ? 'step' : undefined}
          >
            <span className="step-number" aria-hidden="true">
              {position < index ? '✓' : position + 1}
            </span>
            <span className="step-label">{t(STEP_LABELS[name])}</span>
          </li>
        ))}
      </ol>

      <div className="wizard-body">
        <h3 ref={heading} tabIndex={-1} className="wizard-step-title">
          {t(STEP_LABELS[step])}
        </h3>
        {step === 'connect' && (
          <>
            <p className="wizard-ok" data-testid="wizard-connected">
              <span aria-hidden="true">✓</span>{' '}
              {t('wizardConnected', {
                version: state.daemon?.version ?? '',
                platform: state.daemon?.platform ?? '',
              })}
            </p>
            <p className="hint">{t('wizardConnectedHint', { dir: state.daemon?.data_dir ?? '' })}</p>
            <LanguageSwitch
              client={client}
              value={data.settings.ui.language}
              t={t}
              setLocale={props.setLocale}
              onSaved={(language) =>
                update((current) => ({
                  ...current,
                  settings: { ...current.settings, ui: { ...current.settings.ui, language } },
                }))
              }
            />
          </>
        )}
        {step === 'model' && (
          <>
            <p className="hint">{t('wizardModelIntro')}</p>
            <ModelForm
              client={client}
              model={data.settings.model}
              t={t}
              onSaved={(model) => update((current) => ({ ...current, settings: { ...current.settings, model } }))}
            />
          </>
        )}
        {step === 'folders' && (
          <ListEditor
            label={t('settingsAllowedDirectories')}
            hint={t('wizardFoldersIntro')}
            items={directories.map((entry) => entry.path)}
            placeholder={t('settingsFolderPlaceholder')}
            notes={missingNotes}
            t={t}
            testId="wizard-folders"
            save={async (allowed_directories) => {
              const result = await client.call('settings.set_security', { allowed_directories });
              update((current) => ({
                ...current,
                settings: { ...current.settings, directories: result.directories },
                policy: { ...current.policy, security: result.security },
              }));
            }}
          />
        )}
        {step === 'approvals' && (
          <>
            <p className="hint">{t('wizardApprovalsIntro')}</p>
            <TemplatePicker
              value={project.template}
              onChoose={(template) => void chooseTemplate(template)}
              t={t}
              name="wizard-template"
            />
          </>
        )}
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
      </div>

      <div className="wizard-actions">
        {index > 0 && (
          <button type="button" onClick={() => setStep(STEPS[index - 1] ?? 'connect')}>
            {t('wizardBack')}
          </button>
        )}
        <span className="wizard-progress">{t('wizardProgress', { step: index + 1, total: STEPS.length })}</span>
        {index < STEPS.length - 1 ? (
          <button
            type="button"
            className="button-primary"
            onClick={() => setStep(STEPS[index + 1] ?? 'approvals')}
            data-testid="wizard-next"
          >
            {t('wizardNext')}
          </button>
        ) : (
          <button
            type="button"
            className="button-primary"
            disabled={finishing}
            onClick={() => void finish()}
            data-testid="wizard-finish"
          >
            {t('wizardFinish')}
          </button>
        )}
      </div>
    </section>
  );
}
