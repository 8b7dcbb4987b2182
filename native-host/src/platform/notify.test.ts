import { describe, expect, it } from 'vitest';

import { notificationCommand } from './notify.js';

describe('notificationCommand', () => {
  it('uses notify-send on Linux, with text as arguments after --', () => {
    expect(notificationCommand('linux', '-t "x"', 'body; rm -rf ~', 'critical')).toEqual({
      command: 'notify-send',
      args: ['--app-name=NextAI Agent', '--urgency=critical', '--', '-t "x"', 'body; rm -rf ~'],
      installHint: 'On Debian/Ubuntu: sudo apt install libnotify-bin',
    });
  });

  it('passes text to AppleScript as run arguments, never inside the script (macOS; not run here)', () => {
    const { command, args } = notificationCommand('macos', 'Title "quoted"', 'Body', 'normal');
    expect(command).toBe('osascript');
    expect(args.slice(-2)).toEqual(['Title "quoted"', 'Body']);
    expect(args.filter((arg) => arg.includes('quoted'))).toEqual(['Title "quoted"']);
  });

  it('passes text to PowerShell through the environment (Windows; not run here)', () => {
    const { command, args } = notificationCommand('windows', 'T', "B'); Remove-Item C:\\", 'low');
    expect(command).toBe('powershell.exe');
    expect(args.join(' ')).not.toContain('Remove-Item');
    expect(args.join(' ')).toContain('$env:NEXTAI_BODY');
  });
});
