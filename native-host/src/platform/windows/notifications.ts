// Windows notifications: a toast through the WinRT ToastNotificationManager, with the command
// from ../notify.ts (the one the daemon's own notifications use), text in environment variables.
//
// NOT RUN ON A REAL WINDOWS MACHINE; the command and the error mapping are unit-tested.
//
// Toasts show a few lines at most and environment variables hold at most 32,767 characters, so
// the text is cut to what a toast can show. Urgency has no toast equivalent and is not passed.
import { AppError } from '@nextai/shared';

import type { NotificationAdapter, Urgency } from '../desktop.js';
import { execCommand, type CommandSpec, type Exec } from '../command-exec.js';
import { notificationCommand, WINDOWS_TOAST_APP_ID } from '../notify.js';
import { powershellProcessFailure } from './powershell.js';

export const MAX_TITLE_CHARACTERS = 200;
export const MAX_BODY_CHARACTERS = 2000;

/** Cuts text to `max` characters (code points, so no surrogate pair is split), marking the cut. */
export function clip(text: string, max: number): string {
  const characters = [...text];
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('')}…`;
}

export function toastCommand(title: string, body: string, urgency: Urgency): CommandSpec {
  const shortTitle = clip(title, MAX_TITLE_CHARACTERS);
  const shortBody = clip(body, MAX_BODY_CHARACTERS);
  const { command, args } = notificationCommand('windows', shortTitle, shortBody, urgency);
  return {
    command,
    args,
    env: { NEXTAI_TITLE: shortTitle, NEXTAI_BODY: shortBody, NEXTAI_TOAST_APP_ID: WINDOWS_TOAST_APP_ID },
  };
}

export function createWindowsNotifications(options: { exec?: Exec } = {}): NotificationAdapter {
  const exec = options.exec ?? execCommand;
  return {
    async notify(title, body, urgency) {
      try {
        await exec(toastCommand(title, body, urgency), { timeoutMs: 10_000 });
      } catch (error) {
        const mapped = powershellProcessFailure(error);
        if (mapped instanceof AppError && mapped.code === 'UNAVAILABLE') throw mapped;
        throw new AppError(
          'UNAVAILABLE',
          `No notification was shown: ${(mapped as Error).message}. Check that notifications are on in Settings › System › Notifications.`,
          { cause: error },
        );
      }
    },
  };
}
