import { CHROME_EXTENSION_ID, FIREFOX_EXTENSION_ID } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { checkCaller } from './caller-origin.js';

describe('checkCaller', () => {
  it('accepts the fixed Chromium extension origin, with or without the trailing slash', () => {
    expect(checkCaller([`chrome-extension://${CHROME_EXTENSION_ID}/`])).toMatchObject({
      allowed: true,
      family: 'chromium',
    });
    expect(checkCaller([`chrome-extension://${CHROME_EXTENSION_ID}`])).toMatchObject({ allowed: true });
  });

  it('accepts the Windows form with --parent-window', () => {
    expect(checkCaller([`chrome-extension://${CHROME_EXTENSION_ID}/`, '--parent-window=1234'])).toMatchObject({
      allowed: true,
    });
  });

  it('accepts Firefox: manifest path, then add-on id', () => {
    expect(
      checkCaller(['/home/a/.mozilla/native-messaging-hosts/com.nextai.agent.json', FIREFOX_EXTENSION_ID]),
    ).toMatchObject({
      allowed: true,
      family: 'firefox',
      origin: FIREFOX_EXTENSION_ID,
    });
  });

  it('refuses other extensions, look-alikes and no caller at all', () => {
    expect(checkCaller(['chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/']).allowed).toBe(false);
    expect(checkCaller([`chrome-extension://${CHROME_EXTENSION_ID}.evil/`]).allowed).toBe(false);
    expect(checkCaller(['/path/manifest.json', 'someone-else@example.com']).allowed).toBe(false);
    expect(checkCaller([])).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('started by the browser'),
    });
  });
});
