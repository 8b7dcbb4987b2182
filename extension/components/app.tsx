import { useCallback, useEffect, useMemo, useRef, useState } from 'react';

import { pickLocale, translator, type Locale } from '../lib/i18n.js';
import type { PanelClient } from '../lib/panel-client.js';
import { ActivityTab } from './activity/activity-tab.js';
import { ApprovalsTab, usePendingApprovalCount } from './approvals/approvals-tab.js';
import { ChatTab } from './chat/chat-tab.js';
import { ConnectCard } from './connect-card.js';
import type { PanelProps } from './panel-props.js';
import { EmergencyStop } from './safety/emergency-stop.js';
import { SchedulesTab } from './schedules/schedules-tab.js';
import { SettingsBoot, SettingsTab } from './settings/settings-tab.js';
import { StatusPill } from './status-pill.js';
import { StorageBanner } from './storage-banner.js';
import { TabBar, type TabId } from './tabs.js';
import { useConnectionState } from './use-panel.js';

export function App({ client, initialLocale }: { client: PanelClient; initialLocale?: Locale }) {
  const [locale, setLocale] = useState<Locale>(initialLocale ?? pickLocale(navigator.language));
  const t = useMemo(() => translator(locale), [locale]);
  const state = useConnectionState(client);
  const [tab, setTab] = useState<TabId>('chat');
  // Once the person has picked a tab, nothing switches it for them (the wizard waits in Settings).
  const chosen = useRef(false);
  const choose = useCallback((next: TabId) => {
    chosen.current = true;
    setTab(next);
  }, []);
  const suggest = useCallback((next: TabId) => {
    if (!chosen.current) setTab(next);
  }, []);
  const props: PanelProps & { setLocale: (locale: Locale) => void } = {
    client,
    state,
    t,
    locale,
    show: setTab,
    setLocale,
  };
  const pending = usePendingApprovalCount(props);
  // A run prepared from a page (right-click) waits in the chat's composer: show it, as if the
  // person had picked the tab — they just asked for it.
  const shownDraft = useRef<string | undefined>(undefined);
  useEffect(
    () =>
      client.subscribe(() => {
        const draft = client.draft;
        if (draft && draft.id !== shownDraft.current) {
          shownDraft.current = draft.id;
          choose('chat');
        }
      }),
    [client, choose],
  );
  const connected = state.status === 'connected';

  return (
    <div className="panel" lang={locale}>
      <header className="panel-header">
        <img className="logo" src="/icon/icon-32.png" alt="" width={24} height={24} />
        <h1>{t('appName')}</h1>
        <StatusPill state={state} t={t} />
        <EmergencyStop {...props} />
        <StorageBanner state={state} t={t} locale={locale} />
      </header>
      {/* Applies the saved language and opens the first-run wizard until setup is done. */}
      <SettingsBoot {...props} show={suggest} />
      <TabBar current={tab} onSelect={choose} counts={{ approvals: pending }} t={t} />
      <main className="panel-body" id={`panel-${tab}`} role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {!connected && <ConnectCard state={state} t={t} onRetry={() => client.reconnect()} />}
        {tab === 'chat' && <ChatTab {...props} />}
        {tab === 'approvals' && <ApprovalsTab {...props} />}
        {tab === 'activity' && <ActivityTab {...props} />}
        {tab === 'schedules' && <SchedulesTab {...props} />}
        {tab === 'settings' && <SettingsTab {...props} />}
      </main>
    </div>
  );
}
