import { HostCard } from '../host-card.js';
import type { PanelProps } from '../panel-props.js';
import { SystemInfoCard } from '../system-info-card.js';
import './activity.css';
import { LiveView } from './live-view.js';
import { OperationLog } from './operation-log.js';

/**
 * What the agent sees and does: the live view of its screen, the operation
 * log, and below them the host and this computer.
 */
export function ActivityTab(props: PanelProps) {
  const { client, state, t, locale } = props;
  const connected = state.status === 'connected';
  return (
    <>
      <LiveView {...props} />
      <OperationLog {...props} />
      {connected && state.daemon && <HostCard daemon={state.daemon} t={t} locale={locale} />}
      {connected && <SystemInfoCard client={client} t={t} />}
    </>
  );
}
