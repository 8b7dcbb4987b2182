import { useMemo } from 'react';

import { pickLocale, translator } from '../lib/i18n.js';
import type { PanelClient } from '../lib/panel-client.js';
import { ActivityCard } from './activity-card.js';
import { ConnectCard } from './connect-card.js';
import { HostCard } from './host-card.js';
import { StatusPill } from './status-pill.js';
import { SystemInfoCard } from './system-info-card.js';
import { useConnectionState, useEvents } from './use-panel.js';

export function App({ client }: { client: PanelClient }) {
  const t = useMemo(() => translator(pickLocale(navigator.language)), []);
  const state = useConnectionState(client);
  const events = useEvents(client);
  const connected = state.status === 'connected';

  return (
    <div className="panel">
      <header className="panel-header">
        <img className="logo" src="/icon/icon-32.png" alt="" width={24} height={24} />
        <h1>{t('appName')}</h1>
        <StatusPill state={state} t={t} />
      </header>
      <main className="panel-body">
        {!connected && <ConnectCard state={state} t={t} onRetry={() => client.reconnect()} />}
        {connected && state.daemon && <HostCard daemon={state.daemon} t={t} />}
        {connected && <SystemInfoCard client={client} t={t} />}
        <ActivityCard events={events} t={t} />
      </main>
    </div>
  );
}
