import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { HOSTILE_STRINGS } from '../windows/test-support.js';
import { AUTOMATION_MESSAGE, jxaCommand, type JxaHost } from './jxa.js';
import { fakeObjC, loadJxa } from './jxa-sandbox.js';
import { MACOS_NOTIFICATION_SCRIPT, createMacosNotifications } from './notifications.js';

describe('macOS notifications', () => {
  it('send title and body as request data, never as osascript arguments', async () => {
    const requests: unknown[] = [];
    const jxa: JxaHost = {
      run: async (script, request) => {
        expect(script).toBe(MACOS_NOTIFICATION_SCRIPT);
        requests.push(request);
        return true;
      },
    };
    for (const text of ['-e', ...HOSTILE_STRINGS])
      await createMacosNotifications({ jxa }).notify(text, text, 'critical');
    expect(requests[0]).toEqual({ title: '-e', body: '-e' });
    // The text never reaches osascript's argument list, where "-e" would be read as an option.
    expect(jxaCommand(MACOS_NOTIFICATION_SCRIPT, requests[0]).args).toEqual([
      '-l',
      'JavaScript',
      '-e',
      expect.any(String),
    ]);
  });

  it('script: displays the notification with the title', () => {
    const shown: unknown[] = [];
    const app = {
      includeStandardAdditions: false,
      displayNotification: (body: string, options: unknown) => shown.push([body, options]),
    };
    const Application = Object.assign(() => app, { currentApplication: () => app });
    const { main } = loadJxa(MACOS_NOTIFICATION_SCRIPT, { Application, ObjC: fakeObjC() }, ['main']);
    main({ title: 'T', body: 'B' });
    expect(shown).toEqual([['B', { withTitle: 'T' }]]);
    expect(app.includeStandardAdditions).toBe(true);
  });

  it('keeps permission errors and turns others into UNAVAILABLE', async () => {
    const denied: JxaHost = {
      run: async () => {
        throw new AppError('UNAVAILABLE', AUTOMATION_MESSAGE);
      },
    };
    await expect(createMacosNotifications({ jxa: denied }).notify('t', 'b', 'low')).rejects.toMatchObject({
      message: AUTOMATION_MESSAGE,
    });
    const broken: JxaHost = {
      run: async () => {
        throw new AppError('TOOL_FAILED', 'boom');
      },
    };
    await expect(createMacosNotifications({ jxa: broken }).notify('t', 'b', 'low')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('Notifications'),
    });
  });
});
