import { toolTitleIn } from '@nextai/shared';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';

import type { MessageKey, Translate } from '../../lib/i18n.js';
import type { PanelProps } from '../panel-props.js';
import { ApprovalCard } from './approval-card.js';
import { approvalsStoreOf, type ApprovalsStore, type InboxNotice } from './approvals-store.js';
import './approvals.css';

/** Cards rendered at first; more as the list scrolls into view (50+ pending stay responsive). */
const WINDOW = 15;

function useApprovalsStore(props: PanelProps): ApprovalsStore {
  const store = approvalsStoreOf(props.client);
  useSyncExternalStore(
    (listener) => store.subscribe(listener),
    () => store.snapshot,
  );
  return store;
}

/** The approval inbox: the tool calls waiting for the person's answer. */
export function ApprovalsTab(props: PanelProps) {
  const { t, locale, state } = props;
  const store = useApprovalsStore(props);
  const { pending } = store;
  const items = pending.items;
  const connected = state.status === 'connected';
  const [shownCount, setShownCount] = useState(WINDOW);
  const sentinel = useRef<HTMLDivElement>(null);
  const visible = items.slice(0, shownCount);
  const hidden = items.length - visible.length;

  // Grow the window when its end scrolls into view; the button below does the same by keyboard.
  useEffect(() => {
    const element = sentinel.current;
    if (!element || hidden <= 0) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) setShownCount((count) => count + WINDOW);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [hidden]);

  return (
    <section className="approvals" data-testid="approvals-tab" data-count={items.length}>
      <Notices store={store} t={t} />
      {!connected && items.length > 0 && (
        <p className="approvals-offline" role="status">
          {t('approvalsOffline')}
        </p>
      )}
      {pending.error && (
        <div className="card approvals-error" role="alert">
          <p className="error-text">{t('approvalsLoadFailed', { message: pending.error.message })}</p>
          <button type="button" className="button-small" onClick={() => store.retry()} disabled={!connected}>
            {t('approvalsRetry')}
          </button>
        </div>
      )}
      {items.length === 0 ? (
        !pending.loaded && !pending.error && connected ? (
          <div className="card card-muted" role="status">
            <div className="spinner" aria-hidden="true" />
            <p>{t('approvalsLoading')}</p>
          </div>
        ) : (
          pending.loaded && (
            <div className="card approvals-empty" data-testid="approvals-empty">
              <div className="approvals-empty-mark" aria-hidden="true">
                ✓
              </div>
              <h2>{t('approvalsEmptyTitle')}</h2>
              <p className="hint">{t('approvalsEmptyBody')}</p>
              <p className="hint">
                {t('approvalsEmptyTerminal')} <code className="approvals-code">nextai approvals list</code>
              </p>
            </div>
          )
        )
      ) : (
        <>
          <div className="approvals-heading">
            <h2>
              {t('approvalsTitle')} <span className="approvals-count">{items.length}</span>
            </h2>
            <p className="hint">{t('approvalsIntro')}</p>
          </div>
          <ul className="approvals-list" aria-label={t('approvalsListLabel')}>
            {visible.map((approval) => (
              <li key={approval.id}>
                <ApprovalCard
                  approval={approval}
                  title={toolTitleIn(locale, approval.tool, store.titleOf(approval.tool))}
                  category={store.categoryOf(approval.tool)}
                  t={t}
                  locale={locale}
                  connected={connected}
                  onAnswer={(choice) => store.answer(approval, choice)}
                />
              </li>
            ))}
          </ul>
          {hidden > 0 && (
            <div ref={sentinel} className="approvals-more">
              <button
                type="button"
                className="button-small"
                onClick={() => setShownCount((count) => count + WINDOW)}
                data-testid="approvals-show-more"
              >
                {t('approvalsShowMore', { count: Math.min(hidden, WINDOW) })}
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}

const STATUS_KEYS: Record<string, MessageKey> = {
  approved: 'approvalsStatusApproved',
  denied: 'approvalsStatusDenied',
  cancelled: 'approvalsStatusCancelled',
};

/**
 * "person (CLI, process 12)" → "from the command line": who answered, in words. (Answers recorded
 * before the daemon named the person say "cli:nextai-cli".)
 */
function answeredBy(by: string, t: Translate): string {
  const kind = by.split(':')[0];
  if (kind === 'cli' || by.startsWith('person (CLI')) return t('approvalsByCli');
  if (kind === 'extension' || by.startsWith('person (side panel')) return t('approvalsByExtension');
  if (kind === 'mcp') return t('approvalsByMcp');
  if (kind === 'nextai') return t('approvalsByNextai');
  return t('approvalsByOther', { by });
}

function noticeText(notice: InboxNotice, store: ApprovalsStore, t: Translate): string {
  const title = store.titleOf(notice.tool);
  switch (notice.kind) {
    case 'answered_elsewhere':
      return t('approvalsAnsweredElsewhere', {
        title,
        status: t(STATUS_KEYS[notice.status] ?? 'approvalsStatusApproved'),
        by: answeredBy(notice.by, t),
      });
    case 'already_answered':
      return t('approvalsAlreadyAnswered', { title, message: notice.message });
    case 'gone':
      return t('approvalsGone', { title });
  }
}

function Notices({ store, t }: { store: ApprovalsStore; t: Translate }) {
  if (store.notices.length === 0) return null;
  return (
    <ul className="approvals-notices" aria-live="polite" data-testid="approvals-notices">
      {store.notices.map((notice) => (
        <li key={notice.id} className={`approvals-notice approvals-notice-${notice.kind}`} data-kind={notice.kind}>
          <span>{noticeText(notice, store, t)}</span>
          <button
            type="button"
            className="approvals-dismiss"
            aria-label={t('approvalsDismissLabel')}
            title={t('approvalsDismiss')}
            onClick={() => store.dismiss(notice.id)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Pending approvals, for the tab's counter. */
export function usePendingApprovalCount(props: PanelProps): number {
  return useApprovalsStore(props).pending.count;
}
