import { useSyncExternalStore } from 'react';

import type { DaemonEvent } from '@nextai/shared';

import type { ConnectionState } from '../lib/connection-state.js';
import type { PanelClient } from '../lib/panel-client.js';

export function useConnectionState(client: PanelClient): ConnectionState {
  return useSyncExternalStore(
    (listener) => client.subscribe(listener),
    () => client.state,
  );
}

export function useEvents(client: PanelClient): DaemonEvent[] {
  return useSyncExternalStore(
    (listener) => client.subscribe(listener),
    () => client.events,
  );
}
