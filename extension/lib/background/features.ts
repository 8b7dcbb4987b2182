import type { HostConnection } from '../host-connection.js';
import type { BackgroundToPanel } from '../panel-messages.js';
import { startApprovalBadge } from './approval-badge.js';
import { startCommands } from './commands.js';
import { startContextMenu } from './context-menu.js';
import { DraftBox } from './drafts.js';

export interface BackgroundContext {
  connection: HostConnection;
  /** Sends a message to every open side panel. */
  broadcast: (message: BackgroundToPanel) => void;
}

/** Starts what the background does besides holding the host connection. */
export function startBackgroundFeatures(context: BackgroundContext): { drafts: DraftBox } {
  const drafts = new DraftBox(context.broadcast);
  startApprovalBadge(context);
  startCommands(context);
  startContextMenu(context, drafts);
  return { drafts };
}
