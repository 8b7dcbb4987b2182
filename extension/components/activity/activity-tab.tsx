import { useEvents } from '../use-panel.js';
import { ActivityCard } from '../activity-card.js';
import { HostCard } from '../host-card.js';
import { SystemInfoCard } from '../system-info-card.js';
import type { PanelProps } from '../panel-props.js';

/** The operation log and the live view of the agent's screen (issue #6 point 3). */
export function ActivityTab({ client, state, t }: PanelProps) {
  const events = useEvents(client);
  const connected = state.status === 'connected';
  return (
    <>
      {connected && state.daemon && <HostCard daemon={state.daemon} t={t} />}
      {connected && <SystemInfoCard client={client} t={t} />}
      <ActivityCard events={events} t={t} />
    </>
  );
}
