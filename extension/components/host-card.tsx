import type { DaemonInfo } from '@nextai/shared';

import type { Translate } from '../lib/i18n.js';

export function HostCard({ daemon, t, locale }: { daemon: DaemonInfo; t: Translate; locale?: string }) {
  return (
    <section className="card" data-testid="host-card">
      <h2>{t('hostTitle')}</h2>
      <dl className="facts">
        <dt>{t('hostVersion')}</dt>
        <dd data-testid="host-version">{daemon.version}</dd>
        <dt>{t('hostPlatform')}</dt>
        <dd data-testid="host-platform">
          {daemon.platform} · {daemon.arch}
        </dd>
        <dt>{t('hostDataDir')}</dt>
        <dd className="mono">{daemon.data_dir}</dd>
        <dt>{t('hostPid')}</dt>
        <dd className="mono">{daemon.pid}</dd>
        <dt>{t('hostSince')}</dt>
        <dd>{new Date(daemon.started_at).toLocaleString(locale, { hour12: false })}</dd>
      </dl>
    </section>
  );
}
