import type { DaemonEvent, DaemonInfo } from '@nextai/shared';

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
}

export const INITIAL_STATE: ConnectionState = { status: 'connecting', daemonRestarting: false, lastEventSeq: 0 };

export type { DaemonEvent };
