import { createHash } from 'node:crypto';
import fs from 'node:fs';

import { describe, expect, it } from 'vitest';

import { ALLOWED_CHROME_ORIGINS, CHROME_EXTENSION_ID, CHROME_EXTENSION_PUBLIC_KEY, VERSION } from '@nextai/shared';

/** Chromium's rule: the first 128 bits of SHA-256(DER public key), hex digits mapped 0-f → a-p. */
function extensionIdFromKey(base64Key: string): string {
  const digest = createHash('sha256').update(Buffer.from(base64Key, 'base64')).digest('hex').slice(0, 32);
  return [...digest].map((digit) => String.fromCharCode('a'.charCodeAt(0) + Number.parseInt(digit, 16))).join('');
}

describe('identity constants', () => {
  it('names the extension id that Chromium derives from the committed public key', () => {
    expect(extensionIdFromKey(CHROME_EXTENSION_PUBLIC_KEY)).toBe(CHROME_EXTENSION_ID);
    expect(ALLOWED_CHROME_ORIGINS).toEqual([`chrome-extension://${CHROME_EXTENSION_ID}/`]);
  });

  it('keeps one version number across the packages', () => {
    for (const file of ['package.json', 'shared/package.json', 'native-host/package.json']) {
      const manifest = JSON.parse(fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as {
        version: string;
      };
      expect(manifest.version, file).toBe(VERSION);
    }
  });
});
