import { useId, useState, type FormEvent } from 'react';

import { ActionOutcome } from './action-outcome.js';
import type { SettingsProps } from './settings-props.js';
import { useAction, type ProjectView } from './use-settings.js';

/** A project's name, editable, and its removal (never the default project's). */
export function ProjectIdentity({
  client,
  project,
  isDefault,
  t,
  onRenamed,
  onRemoved,
}: {
  client: SettingsProps['client'];
  project: { id: string; name: string };
  isDefault: boolean;
  t: SettingsProps['t'];
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
