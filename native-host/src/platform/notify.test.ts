import { describe, expect, it } from 'vitest';

import { deliverNotification, notificationCommand } from './notify.js';

describe('notificationCommand', () => {
  it('uses notify-send on Linux, with text as arguments after --', () => {
    expect(notificationCommand('linux', '-t "x"', 'body; rm -rf ~', 'critical')).toEqual({
      command: 'notify-send',
      args: ['--app-name=NextAI Agent', '--urgency=critical', '--', '-t "x"', 'body; rm -rf ~'],
      installHint: 'On Debian/Ubuntu: sudo apt install libnotify-bin',
    });
  });

  it('passes text to PowerShell through the environment (Windows; not run here)', () => {
    const { command, args } = notificationCommand('windows', 'T', "B'); Remove-Item C:\\", 'low');
    expect(command).toBe('powershell.exe');
    expect(args.join(' ')).not.toContain('Remove-Item');
    expect(args.join(' ')).toContain('$env:NEXTAI_BODY');
    expect(args.join(' ')).toContain('CreateToastNotifier($env:NEXTAI_TOAST_APP_ID)');
  });
});

describe('deliverNotification', () => {
  it('says why a notification was not shown instead of throwing', async () => {
    const failing = {
      notify: () => Promise.reject(new Error('no notification daemon on the session bus')),
    };
    expect(await deliverNotification(failing, 't', 'b')).toEqual({
      delivered: false,
      reason: 'no notification daemon on the session bus',
    });
    const shown: string[] = [];
    expect(await deliverNotification({ notify: async (title) => void shown.push(title) }, 'hello', 'b')).toEqual({
      delivered: true,
    });
    expect(shown).toEqual(['hello']);
  });
});
