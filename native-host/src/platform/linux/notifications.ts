import { AppError } from '@nextai/shared';

import { runCommand } from '../../core/subprocess.js';
import type { NotificationAdapter, Urgency } from '../desktop.js';
import { notificationCommand } from '../notify.js';

/**
 * Desktop notifications through `notify-send` (libnotify), which asks the notification daemon on
 * the D-Bus session bus (org.freedesktop.Notifications) to show one. This needs the session bus,
 * not the X display, so it works on Wayland too and does not call `requireDisplay`.
 *
 * Without a daemon notify-send fails fast ("ServiceUnknown"); without a bus it tries to start one
 * with dbus-launch and fails. A bus that does not answer could leave it waiting, hence the time-out.
 */
const TIMEOUT_MS = 5000;

export function createLinuxNotifications(env: NodeJS.ProcessEnv = process.env): NotificationAdapter {
  return {
    async notify(title: string, body: string, urgency: Urgency): Promise<void> {
      const { command, args, installHint } = notificationCommand('linux', title, body, urgency);
      const extra: Record<string, string> = {};
      for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'DISPLAY', 'PATH'] as const) {
        const value = env[name];
        if (value !== undefined) extra[name] = value;
      }
      try {
        await runCommand(command, args, { env: extra, timeoutMs: TIMEOUT_MS, ...(installHint ? { installHint } : {}) });
      } catch (error) {
        throw explainFailure(error);
      }
    },
  };
}

/** notify-send's failures, in words that say what to fix. */
export function explainFailure(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  if (error.code === 'NOT_FOUND') {
    return new AppError(
      'UNAVAILABLE',
      `Couldn't find the \`notify-send\` program. On Debian/Ubuntu: sudo apt install libnotify-bin`,
      {
        cause: error,
      },
    );
  }
  if (error.code === 'TIMEOUT') {
    return new AppError(
      'UNAVAILABLE',
      `No notification was shown: the notification service did not answer within ${TIMEOUT_MS} ms.`,
      { cause: error },
    );
  }
  const stderr = error.message;
  if (/org\.freedesktop\.Notifications|ServiceUnknown/u.test(stderr)) {
    return new AppError(
      'UNAVAILABLE',
      'No notification was shown: no notification daemon is running in this desktop session (nothing provides org.freedesktop.Notifications on the session bus). Desktop environments start one; on a bare window manager run one such as dunst or notification-daemon.',
      { cause: error },
    );
  }
  if (/dbus-launch|Could not connect|Cannot autolaunch|DBUS_SESSION_BUS_ADDRESS|Failed to connect/iu.test(stderr)) {
    return new AppError(
      'UNAVAILABLE',
      'No notification was shown: the NextAI daemon cannot reach the D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset or stale). Start the daemon from your desktop session.',
      { cause: error },
    );
  }
  return error;
}
