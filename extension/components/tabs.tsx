import type { KeyboardEvent } from 'react';

import type { MessageKey, Translate } from '../lib/i18n.js';

export const TABS = ['chat', 'approvals', 'activity', 'schedules', 'settings'] as const;
export type TabId = (typeof TABS)[number];

const LABELS: Record<TabId, MessageKey> = {
  chat: 'tabChat',
  approvals: 'tabApprovals',
  activity: 'tabActivity',
  schedules: 'tabSchedules',
  settings: 'tabSettings',
};

/** The panel's tab bar (WAI-ARIA tabs: arrow keys move between tabs). `counts` badges a tab. */
export function TabBar({
  current,
  onSelect,
  counts,
  t,
}: {
  current: TabId;
  onSelect: (tab: TabId) => void;
  counts: Partial<Record<TabId, number>>;
  t: Translate;
}) {
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = TABS[(TABS.indexOf(current) + step + TABS.length) % TABS.length] ?? current;
    onSelect(next);
    document.getElementById(`tab-${next}`)?.focus();
  };
  return (
    <div className="tab-bar" role="tablist" aria-label={t('tabsLabel')} onKeyDown={onKeyDown}>
      {TABS.map((tab) => {
        const count = counts[tab] ?? 0;
        return (
          <button
            key={tab}
            id={`tab-${tab}`}
            type="button"
            role="tab"
            aria-selected={tab === current}
            aria-controls={`panel-${tab}`}
            tabIndex={tab === current ? 0 : -1}
            className="tab"
            data-testid={`tab-${tab}`}
            onClick={() => onSelect(tab)}
          >
            {t(LABELS[tab])}
            {count > 0 && (
              <span className="tab-count" data-testid={`tab-${tab}-count`} aria-label={t('pendingCount', { count })}>
                {count}
              </span>
            )}
          </button>
        );
      })}
    </div>
  );
}
