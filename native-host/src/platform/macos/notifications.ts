// macOS notifications: `display notification` (Standard Additions) from JXA.
//
// NOT RUN ON A REAL macOS MACHINE; the request and error mapping are unit-tested.
//
// Not notificationCommand() from ../notify.ts: it passes the title as an osascript argument, and
// osascript reads an argument that starts with "-" as one of its own options (a title "-e" would
// turn the body into a statement). Here the text travels as JSON on stdin, like every JXA request.
// Notifications from osascript appear under "Script Editor" in System Settings › Notifications; if
// those are off, macOS drops them without telling the sender. Urgency has no equivalent.
import { AppError } from '@nextai/shared';

import type { NotificationAdapter } from '../desktop.js';
import { resolveOptions, type MacosAdapterOptions } from './jxa.js';

export const MACOS_NOTIFICATION_SCRIPT = String.raw`
function main(request) {
  var app = Application.currentApplication();
  app.includeStandardAdditions = true;
  app.displayNotification(request.body, { withTitle: request.title });
  return true;
}
`;

export function createMacosNotifications(options: MacosAdapterOptions = {}): NotificationAdapter {
  const { jxa } = resolveOptions(options);
  return {
    async notify(title, body) {
      try {
        await jxa.run(MACOS_NOTIFICATION_SCRIPT, { title, body }, { timeoutMs: 10_000 });
      } catch (error) {
        if (error instanceof AppError && error.code === 'UNAVAILABLE') throw error;
        throw new AppError(
          'UNAVAILABLE',
          `No notification was shown: ${(error as Error).message}. Check System Settings › Notifications › Script Editor.`,
          { cause: error },
        );
      }
    },
  };
}
