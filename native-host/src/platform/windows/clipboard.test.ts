import fs from 'node:fs';

import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

import { WINDOWS_CLIPBOARD_SCRIPT, createWindowsClipboard, isPng, toClipboardContent } from './clipboard.js';
import { HOSTILE_STRINGS, fakePowerShell } from './test-support.js';

const PNG = sharp({ create: { width: 2, height: 2, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } })
  .png()
  .toBuffer();

describe('Windows clipboard', () => {
  it('reads formats and text', async () => {
    const host = fakePowerShell(() => ({ formats: ['UnicodeText', 'Text'], text: 'héllo\r\n', image: false }));
    await expect(createWindowsClipboard({ powershell: host }).read()).resolves.toEqual({
      formats: ['UnicodeText', 'Text'],
      text: 'héllo\r\n',
    });
    expect(host.calls[0]!.request.op).toBe('read');
  });

  it('reads an image the script saved to the file it was given', async () => {
    const png = await PNG;
    const host = fakePowerShell(async (request) => {
      await fs.promises.writeFile(request.file as string, png);
      return { formats: ['PNG', 'Bitmap'], text: null, image: true };
    });
    const content = await createWindowsClipboard({ powershell: host }).read();
    expect(content.png?.equals(png)).toBe(true);
    expect(content.text).toBeUndefined();
    expect(fs.existsSync(host.calls[0]!.request.file as string)).toBe(false);
  });

  it('treats an empty clipboard as no formats', () => {
    expect(toClipboardContent({ formats: null, text: null, image: false }, null)).toEqual({ formats: [] });
    expect(() => toClipboardContent({ formats: [], text: null, image: true }, Buffer.from('nope'))).toThrow(/PNG/);
  });

  it('writes hostile text as data', async () => {
    const host = fakePowerShell(() => ({ done: true }));
    const clipboard = createWindowsClipboard({ powershell: host });
    for (const text of [...HOSTILE_STRINGS, '']) {
      await clipboard.writeText(text);
      expect(host.calls.at(-1)!.request).toEqual({ op: 'text', text });
      expect(host.calls.at(-1)!.script).toBe(WINDOWS_CLIPBOARD_SCRIPT);
    }
  });

  it('writes an image through a file holding exactly the PNG, and refuses other bytes', async () => {
    const png = await PNG;
    let written: Buffer | null = null;
    const host = fakePowerShell(async (request) => {
      written = await fs.promises.readFile(request.file as string);
      return { done: true };
    });
    const clipboard = createWindowsClipboard({ powershell: host });
    await clipboard.writeImage(png);
    expect(written!.equals(png)).toBe(true);
    await expect(clipboard.writeImage(Buffer.from('GIF89a'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(isPng(png)).toBe(true);
  });

  it('has a script using the Forms clipboard with retries, in STA', () => {
    expect(WINDOWS_CLIPBOARD_SCRIPT).toContain('GetApartmentState()');
    expect(WINDOWS_CLIPBOARD_SCRIPT).toContain('$C::SetDataObject($object, $true, 10, 50)');
    expect(WINDOWS_CLIPBOARD_SCRIPT).toContain("$data.GetDataPresent('PNG')");
    expect(WINDOWS_CLIPBOARD_SCRIPT).toContain('[System.Windows.Forms.TextDataFormat]::UnicodeText');
  });
});
