import fs from 'node:fs';

import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

import { HOSTILE_STRINGS } from '../windows/test-support.js';
import { MACOS_CLIPBOARD_SCRIPT, createMacosClipboard, pbcopyCommand, toMacosClipboardContent } from './clipboard.js';
import type { JxaHost } from './jxa.js';
import type { CommandSpec, Exec } from '../command-exec.js';
import { fakeObjC, loadJxa } from './jxa-sandbox.js';

const nil = { isNil: () => true };

describe('macOS clipboard', () => {
  it('copies text with pbcopy on stdin, in a UTF-8 locale', async () => {
    const ran: CommandSpec[] = [];
    const exec: Exec = async (spec) => {
      ran.push(spec);
      return { stdout: '', stderr: '', exitCode: 0 };
    };
    const clipboard = createMacosClipboard({ exec, jxa: { run: async () => null } });
    for (const text of HOSTILE_STRINGS) await clipboard.writeText(text);
    expect(ran.map((spec) => spec.input)).toEqual(HOSTILE_STRINGS);
    expect(ran[0]).toEqual(pbcopyCommand(HOSTILE_STRINGS[0]!));
    expect(ran[0]!.args).toEqual([]);
    expect(ran[0]!.env).toEqual({ LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' });
  });

  it('reads text and an image the script saved', async () => {
    const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: 'red' } })
      .png()
      .toBuffer();
    const jxa: JxaHost = {
      run: async (script, request) => {
        expect(script).toBe(MACOS_CLIPBOARD_SCRIPT);
        await fs.promises.writeFile((request as { file: string }).file, png);
        return { formats: ['public.png', 'public.utf8-plain-text'], text: '中', image: true };
      },
    };
    const content = await createMacosClipboard({ jxa }).read();
    expect(content.text).toBe('中');
    expect(content.png?.equals(png)).toBe(true);
    expect(toMacosClipboardContent({ formats: [], text: null, image: false }, null)).toEqual({ formats: [] });
  });

  it('script: converts a TIFF-only clipboard to PNG and writes it to the requested file', () => {
    const writes: unknown[] = [];
    const board = {
      types: ['public.tiff'],
      stringForType: () => nil,
      dataForType: (type: string) => (type === 'public.tiff' ? { isNil: () => false, tiff: true } : nil),
    };
    const $ = {
      NSPasteboard: { generalPasteboard: board },
      NSBitmapImageRep: {
        imageRepWithData: () => ({
          isNil: () => false,
          representationUsingTypeProperties: (type: number) => ({
            isNil: () => false,
            writeToFileAtomically: (file: string) => writes.push([type, file]) > 0,
          }),
        }),
      },
      NSDictionary: { dictionary: {} },
    };
    const { main } = loadJxa(MACOS_CLIPBOARD_SCRIPT, { $, ObjC: fakeObjC() }, ['main']);
    expect(main({ op: 'read', file: '/tmp/x/clipboard.png' })).toEqual({
      formats: ['public.tiff'],
      text: null,
      image: true,
    });
    expect(writes).toEqual([[4, '/tmp/x/clipboard.png']]);
  });

  it('refuses non-PNG images', async () => {
    await expect(
      createMacosClipboard({ jxa: { run: async () => true } }).writeImage(Buffer.from('no')),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });
});
