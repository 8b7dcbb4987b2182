import { useState } from 'react';

import type { MessageKey } from '../../lib/i18n.js';
import { GeneralPage } from './general-page.js';
import { ModelPage } from './model-page.js';
import { ProjectsPage } from './projects-page.js';
import { SafetyPage } from './safety-page.js';
import type { SettingsPageProps } from './settings-props.js';

const PAGES = ['model', 'projects', 'safety', 'general'] as const;
type Page = (typeof PAGES)[number];
const PAGE_LABELS: Record<Page, MessageKey> = {
  model: 'settingsPageModel',
  projects: 'settingsPageProjects',
  safety: 'settingsPageSafety',
  general: 'settingsPageGeneral',
};

/** The settings once setup is done: a row of page buttons, and the page chosen. */
export function SettingsPages({
  props,
  data,
  update,
  onRestartSetup,
}: SettingsPageProps & { onRestartSetup: () => Promise<void> }) {
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
