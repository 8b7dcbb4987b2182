import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import type { CommandSpec, Exec } from '../command-exec.js';
import { MAX_BODY_CHARACTERS, clip, createWindowsNotifications, toastCommand } from './notifications.js';
import { POWERSHELL_MISSING_MESSAGE } from './powershell.js';
import { HOSTILE_STRINGS } from './test-support.js';
import { WINDOWS_TOAST_APP_ID } from '../notify.js';

describe('Windows notifications', () => {
  it('passes title and body in the environment, never in the command', () => {
    for (const text of HOSTILE_STRINGS) {
      const spec = toastCommand(text, text, 'critical');
      expect(spec.command).toBe('powershell.exe');
      expect(spec.args.join(' ')).not.toContain(text.slice(0, 12));
      expect(spec.env).toEqual({
        NEXTAI_TITLE: clip(text, 200),
        NEXTAI_BODY: clip(text, MAX_BODY_CHARACTERS),
        NEXTAI_TOAST_APP_ID: WINDOWS_TOAST_APP_ID,
      });
    }
  });

  it('cuts long text on a character boundary', () => {
    expect(clip('😀😀😀', 2)).toBe('😀…');
    expect(clip('short', 10)).toBe('short');
  });

  it('runs the command and maps a missing PowerShell to UNAVAILABLE', async () => {
    const ran: CommandSpec[] = [];
    const ok: Exec = async (spec) => {
      ran.push(spec);
      return { stdout: '', stderr: '', exitCode: 0 };
    };
    await createWindowsNotifications({ exec: ok }).notify('T', 'B', 'normal');
    expect(ran[0]!.env).toEqual({ NEXTAI_TITLE: 'T', NEXTAI_BODY: 'B', NEXTAI_TOAST_APP_ID: WINDOWS_TOAST_APP_ID });
    const missing: Exec = async () => {
      throw new AppError('NOT_FOUND', 'no powershell');
    };
    await expect(createWindowsNotifications({ exec: missing }).notify('T', 'B', 'low')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: POWERSHELL_MISSING_MESSAGE,
    });
    const broken: Exec = async () => {
      throw new AppError('TOOL_FAILED', 'x', { details: { stderr: 'Class not registered' } });
    };
    await expect(createWindowsNotifications({ exec: broken }).notify('T', 'B', 'low')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('Class not registered'),
    });
  });
});
