import type { DaemonEvent, DaemonInfo, StorageHealthReport } from '@nextai/shared';

/** What the background knows about its link to the native host, as the side panel shows it. */
export interface ConnectionState {
  status: 'connecting' | 'connected' | 'disconnected';
  /** The bridge lost its daemon and is starting it again. */
  daemonRestarting: boolean;
  daemon?: DaemonInfo;
  error?: {
    code: string;
    message: string;
    /** The browser could not find the host: it is not installed (or not for this browser). */
    hostMissing: boolean;
  };
  /** When the next reconnection attempt happens (epoch ms), while disconnected. */
  nextRetryAt?: number;
  /** The last event sequence number received from the daemon. */
  lastEventSeq: number;
  /** Whether the daemon can save (its status on connecting, then its `storage.health` events); unknown while not connected. */
  storage?: StorageHealthReport;
}

export const INITIAL_STATE: ConnectionState = { status: 'connecting', daemonRestarting: false, lastEventSeq: 0 };

export type { DaemonEvent };
