import type { Platform } from '@nextai/shared';

import { runCommand } from '../subprocess.js';

export type Urgency = 'low' | 'normal' | 'critical';

export interface NotificationCommand {
  command: string;
  args: string[];
  installHint?: string;
}

/** The command that shows a desktop notification on each OS (argument arrays, no shell). */
export function notificationCommand(
  platform: Platform,
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
    case 'macos':
      // Text goes in as arguments to the script, never spliced into AppleScript source.
      return {
        command: 'osascript',
        args: [
          '-e',
          'on run argv',
          '-e',
          'display notification (item 2 of argv) with title (item 1 of argv)',
          '-e',
          'end run',
          title,
          body,
        ],
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
            '[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier("NextAI Agent").Show([Windows.UI.Notifications.ToastNotification]::new($template));',
          ].join(' '),
        ],
      };
  }
}

/** Shows a notification; never throws — says why it could not instead. */
export async function sendNotification(
  platform: Platform,
  title: string,
  body: string,
  urgency: Urgency = 'normal',
): Promise<{ delivered: boolean; reason?: string }> {
  const { command, args, installHint } = notificationCommand(platform, title, body, urgency);
  try {
    await runCommand(command, args, {
      timeoutMs: 5000,
      ...(installHint ? { installHint } : {}),
      ...(platform === 'windows' ? { env: { NEXTAI_TITLE: title, NEXTAI_BODY: body } } : {}),
    });
    return { delivered: true };
  } catch (error) {
    return { delivered: false, reason: (error as Error).message };
  }
}
