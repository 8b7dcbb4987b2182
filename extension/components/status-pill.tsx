import type { ConnectionState } from '../lib/connection-state.js';
import type { Translate } from '../lib/i18n.js';

export function StatusPill({ state, t }: { state: ConnectionState; t: Translate }) {
  const label =
    state.status === 'connected'
      ? t('statusConnected')
      : state.status === 'connecting'
        ? state.daemonRestarting
          ? t('statusRestarting')
          : t('statusConnecting')
        : t('statusDisconnected');
  return (
    <span className={`status-pill status-${state.status}`} data-testid="connection-status" data-status={state.status}>
      <span className="status-dot" aria-hidden="true" />
      {label}
    </span>
  );
}
