import { CLIENT_METHODS, CLIENT_NOTIFICATIONS, DAEMON_METHODS, DAEMON_NOTIFICATIONS } from './methods.js';
import { JsonRpcPeer, type PeerOptions } from './peer.js';

type Tables = 'outgoing' | 'incoming' | 'outgoingNotifications' | 'incomingNotifications';

/** A client's end of a daemon connection (the extension, the CLI, tests, an MCP server). */
export type DaemonClientPeer = JsonRpcPeer<
  typeof DAEMON_METHODS,
  typeof CLIENT_METHODS,
  typeof DAEMON_NOTIFICATIONS,
  typeof CLIENT_NOTIFICATIONS
>;

/** The daemon's end of one client connection. */
export type DaemonSidePeer = JsonRpcPeer<
  typeof CLIENT_METHODS,
  typeof DAEMON_METHODS,
  typeof CLIENT_NOTIFICATIONS,
  typeof DAEMON_NOTIFICATIONS
>;

export function createDaemonClientPeer(
  options: Omit<
    PeerOptions<typeof DAEMON_METHODS, typeof CLIENT_METHODS, typeof DAEMON_NOTIFICATIONS, typeof CLIENT_NOTIFICATIONS>,
    Tables
  >,
): DaemonClientPeer {
  return new JsonRpcPeer({
    ...options,
    outgoing: DAEMON_METHODS,
    incoming: CLIENT_METHODS,
    outgoingNotifications: DAEMON_NOTIFICATIONS,
    incomingNotifications: CLIENT_NOTIFICATIONS,
  });
}

export function createDaemonSidePeer(
  options: Omit<
    PeerOptions<typeof CLIENT_METHODS, typeof DAEMON_METHODS, typeof CLIENT_NOTIFICATIONS, typeof DAEMON_NOTIFICATIONS>,
    Tables
  >,
): DaemonSidePeer {
  return new JsonRpcPeer({
    ...options,
    outgoing: CLIENT_METHODS,
    incoming: DAEMON_METHODS,
    outgoingNotifications: CLIENT_NOTIFICATIONS,
    incomingNotifications: DAEMON_NOTIFICATIONS,
  });
}
