import { describe, expect, it } from 'vitest';

import { AppError } from '@nextai/shared';

import { missingProgramIsUnavailable, xEnvironment } from './windows.js';

/*
 * The adapter itself runs X programs and is exercised against a real display by the desktop
 * tests. What it reads from their output is tested in window-parsers.test.ts, how it turns an
 * app name into a command in launch-resolution.test.ts.
 */

describe('xEnvironment', () => {
  it('passes the display, its authority and PATH, with a UTF-8 locale', () => {
    expect(
      xEnvironment({ DISPLAY: ':1', XAUTHORITY: '/run/user/1000/xauth', PATH: '/usr/bin', HOME: '/home/me' }),
    ).toEqual({ LC_ALL: 'C.UTF-8', DISPLAY: ':1', XAUTHORITY: '/run/user/1000/xauth', PATH: '/usr/bin' });
  });

  it('leaves out what is not set, and always sets the locale', () => {
    expect(xEnvironment({ LC_ALL: 'de_DE.UTF-8', SECRET_TOKEN: 'x' })).toEqual({ LC_ALL: 'C.UTF-8' });
  });
});

describe('missingProgramIsUnavailable', () => {
  it('turns a missing program (NOT_FOUND) into UNAVAILABLE, keeping the message and the cause', () => {
    const missing = new AppError('NOT_FOUND', 'xprop is not installed. On Debian/Ubuntu: sudo apt install x11-utils');
    const error = missingProgramIsUnavailable(missing);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', message: missing.message, cause: missing });
  });

  it('passes every other error through as it is', () => {
    const failed = new AppError('TOOL_FAILED', 'BadWindow');
    const other = new Error('boom');
    expect(missingProgramIsUnavailable(failed)).toBe(failed);
    expect(missingProgramIsUnavailable(other)).toBe(other);
    expect(missingProgramIsUnavailable('text')).toBe('text');
  });
});
