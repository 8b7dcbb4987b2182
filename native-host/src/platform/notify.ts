import type { Platform } from '@nextai/shared';

import type { NotificationAdapter, Urgency } from './desktop.js';

export interface NotificationCommand {
  command: string;
  args: string[];
  installHint?: string;
}

/**
 * The command that shows a desktop notification on Linux and Windows (argument arrays, no shell).
 * macOS has its own in macos/notifications.ts: osascript reads an argument that starts with "-"
 * as one of its options, so a title like "-e" there must travel as data on stdin instead.
 */
export function notificationCommand(
  platform: Exclude<Platform, 'macos'>,
  title: string,
  body: string,
  urgency: Urgency,
): NotificationCommand {
  switch (platform) {
    case 'linux':
      return {
        command: 'notify-send',
        args: ['--app-name=NextAI Agent', `--urgency=${urgency}`, '--', title, body],
        installHint: 'On Debian/Ubuntu: sudo apt install libnotify-bin',
      };
    case 'windows':
      // Not run on a real Windows machine yet: a toast through the WinRT API, text passed via
      // environment variables so no quoting can break the script.
      return {
        command: 'powershell.exe',
        args: [
          '-NoProfile',
          '-NonInteractive',
          '-Command',
          [
            '[Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime] | Out-Null;',
            '$template = [Windows.UI.Notifications.ToastNotificationManager]::GetTemplateContent([Windows.UI.Notifications.ToastTemplateType]::ToastText02);',
            '$texts = $template.GetElementsByTagName("text");',
            '$texts.Item(0).AppendChild($template.CreateTextNode($env:NEXTAI_TITLE)) | Out-Null;',
            '$texts.Item(1).AppendChild($template.CreateTextNode($env:NEXTAI_BODY)) | Out-Null;',
            // A toast needs a registered AppUserModelID or Windows drops it silently; PowerShell's
            // own is registered on every Windows (NextAI has no installer that registers one yet).
            '[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier($env:NEXTAI_TOAST_APP_ID).Show([Windows.UI.Notifications.ToastNotification]::new($template));',
          ].join(' '),
        ],
      };
  }
}

/** The AppUserModelID of Windows PowerShell, registered on every Windows installation. */
export const WINDOWS_TOAST_APP_ID = '{1AC14E77-02E7-4E5D-B744-2EB1AE5198B7}\\WindowsPowerShell\\v1.0\\powershell.exe';

/** Shows a notification through the desktop adapter; never throws — says why it could not instead. */
export async function deliverNotification(
  notifications: NotificationAdapter,
  title: string,
  body: string,
  urgency: Urgency = 'normal',
): Promise<{ delivered: boolean; reason?: string }> {
  try {
    await notifications.notify(title, body, urgency);
    return { delivered: true };
  } catch (error) {
    return { delivered: false, reason: (error as Error).message };
  }
}
