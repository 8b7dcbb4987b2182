import { inLocale } from '@nextai/shared';

import type { PanelProps } from './panel-props.js';
import './storage-banner.css';

/**
 * Shown at the top of the panel while the daemon cannot save (a full disk, a read-only or locked
 * database): what is wrong, since when and how to fix it, in the panel's language. It follows the
 * daemon's word (its status on connecting, then its `storage.health` events, kept by the
 * background in the connection state) and goes away by itself once saving works again.
 */
export function StorageBanner({ state, t, locale }: Pick<PanelProps, 'state' | 't' | 'locale'>) {
  const storage = state.status === 'connected' ? state.storage : undefined;
  if (!storage || storage.ok) return null;
  const title = storage.problem
    ? t('storageTitleWhy', { problem: t(`storageProblem_${storage.problem}` as const) })
    : t('storageTitle');
  const since = storage.since ? new Date(storage.since).toLocaleTimeString(locale, { hour12: false }) : undefined;
  return (
    <div
      className="storage-banner"
      data-testid="storage-banner"
      role="alert"
      title={inLocale(storage.message ?? '', storage.message_translations, locale)}
    >
      <span className="storage-banner-icon" aria-hidden="true">
        !
      </span>
      <div className="storage-banner-text">
        <strong>{title}</strong>
        {storage.fix && <span>{inLocale(storage.fix, storage.fix_translations, locale)}</span>}
        <span className="storage-banner-meta">{t('storageMeanwhile')}</span>
        {since && (
          <span className="storage-banner-meta">{t('storageSince', { time: since, code: storage.code ?? '?' })}</span>
        )}
      </div>
    </div>
  );
}
