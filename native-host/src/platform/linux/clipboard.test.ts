import { describe, expect, it } from 'vitest';

import { chooseTargets } from './clipboard.js';

/*
 * `xclip -selection clipboard -o -t TARGETS` as captured under Xvfb from: a Tk app
 * (clipboard_append), `xclip -i` with text, `xclip -t image/png -i`, and Chromium after Ctrl+C on
 * a page of bold text and after "Copy image".
 */
const TK_TEXT = 'MULTIPLE\nTARGETS\nTIMESTAMP\nTK_APPLICATION\nTK_WINDOW\nUTF8_STRING\nSTRING\n';
const XCLIP_TEXT = 'TARGETS\nUTF8_STRING\n';
const XCLIP_PNG = 'TARGETS\nimage/png\n';
const CHROMIUM_RICH_TEXT = `TIMESTAMP
TARGETS
SAVE_TARGETS
MULTIPLE
UTF8_STRING
STRING
TEXT
text/plain
text/plain;charset=utf-8
chromium/x-internal-source-rfh-token
chromium/x-source-url
text/html
`;
const CHROMIUM_IMAGE = `TIMESTAMP
TARGETS
SAVE_TARGETS
MULTIPLE
text/x-moz-url
image/png
chromium/x-internal-source-rfh-token
chromium/x-source-url
text/html
`;

describe('chooseTargets', () => {
  it('drops the meta targets and reads text as UTF8_STRING', () => {
    expect(chooseTargets(TK_TEXT)).toEqual({
      formats: ['TK_APPLICATION', 'TK_WINDOW', 'UTF8_STRING', 'STRING'],
      textTarget: 'UTF8_STRING',
      imageTarget: undefined,
    });
    expect(chooseTargets(XCLIP_TEXT)).toEqual({
      formats: ['UTF8_STRING'],
      textTarget: 'UTF8_STRING',
      imageTarget: undefined,
    });
  });

  it('reads a PNG as it is', () => {
    expect(chooseTargets(XCLIP_PNG)).toEqual({
      formats: ['image/png'],
      textTarget: undefined,
      imageTarget: 'image/png',
    });
    expect(chooseTargets(CHROMIUM_IMAGE)).toEqual({
      formats: [
        'text/x-moz-url',
        'image/png',
        'chromium/x-internal-source-rfh-token',
        'chromium/x-source-url',
        'text/html',
      ],
      textTarget: undefined,
      imageTarget: 'image/png',
    });
  });

  it('prefers PNG, then a format sharp can convert, never one it cannot (BMP, ICO)', () => {
    // Made-up lists: an app offering one image in several formats, PNG or not.
    expect(chooseTargets('TARGETS\nimage/bmp\nimage/jpeg\nimage/png\n').imageTarget).toBe('image/png');
    expect(chooseTargets('TARGETS\nimage/bmp\nimage/x-ico\nimage/tiff\nimage/jpeg\n').imageTarget).toBe('image/jpeg');
    expect(chooseTargets('TARGETS\nimage/bmp\nimage/x-ico\n')).toEqual({
      formats: ['image/bmp', 'image/x-ico'],
      textTarget: undefined,
      imageTarget: undefined,
    });
  });

  it('prefers UTF-8 text targets to the legacy ones', () => {
    expect(chooseTargets(CHROMIUM_RICH_TEXT).textTarget).toBe('UTF8_STRING');
    expect(chooseTargets(CHROMIUM_RICH_TEXT.replace('UTF8_STRING\n', '')).textTarget).toBe('text/plain;charset=utf-8');
    expect(chooseTargets('TARGETS\nCOMPOUND_TEXT\nSTRING\nTEXT\n').textTarget).toBe('STRING');
  });

  it('reads an empty answer and repeated targets', () => {
    expect(chooseTargets('')).toEqual({ formats: [], textTarget: undefined, imageTarget: undefined });
    expect(chooseTargets('UTF8_STRING\r\nUTF8_STRING\n').formats).toEqual(['UTF8_STRING']);
  });
});
