import type { PanelProps } from '../panel-props.js';

/** Settings and the first-run wizard (issue #6 point 5). */
export function SettingsTab({ t }: PanelProps) {
  return (
    <section className="card" data-testid="settings-tab">
      <p className="hint">{t('loading')}</p>
    </section>
  );
}
