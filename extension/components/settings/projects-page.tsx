import { useEffect, useId, useState, type FormEvent } from 'react';

import { ErrorAlert } from './error-alert.js';
import { ProjectIdentity } from './project-identity.js';
import { ProjectPolicy } from './project-policy.js';
import type { SettingsPageProps } from './settings-props.js';
import { messageOf, type ProjectView } from './use-settings.js';

/** The projects: one chosen from the list (or a new one made), its name and its policy. */
export function ProjectsPage({ props, data, update }: SettingsPageProps) {
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
          <ErrorAlert message={error} />
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
