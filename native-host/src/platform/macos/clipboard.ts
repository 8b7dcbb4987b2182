// The macOS clipboard (the general pasteboard): `pbcopy` writes text, a JXA script reads every
// type, the text and an image (PNG, or TIFF converted to PNG by NSBitmapImageRep), and writes
// images.
//
// NOT RUN ON A REAL macOS MACHINE. Commands, requests and reply parsing are unit-tested, and the
// script's logic runs in the tests against a stand-in NSPasteboard; the real AppKit has not
// answered it.
//
// pbcopy decodes its input by the locale, so it runs with a UTF-8 locale whatever the daemon's.
// Images travel through a file the daemon made, both ways: a PNG can be megabytes.
import fs from 'node:fs';

import { AppError } from '@nextai/shared';
import { z } from 'zod';

import type { ClipboardAdapter, ClipboardContent } from '../desktop.js';
import { resolveOptions, type MacosAdapterOptions } from './jxa.js';
import { type CommandSpec } from '../command-exec.js';
import { withTemporaryFile } from '../temporary-file.js';

export const MACOS_CLIPBOARD_SCRIPT = String.raw`
ObjC.import('AppKit');
var PNG_FILE_TYPE = 4; // NSBitmapImageFileTypePNG
function main(request) {
  var board = $.NSPasteboard.generalPasteboard;
  switch (request.op) {
    case 'read': {
      var result = { formats: ObjC.deepUnwrap(board.types) || [], text: null, image: false };
      var text = board.stringForType('public.utf8-plain-text');
      if (!text.isNil()) result.text = ObjC.unwrap(text);
      var png = board.dataForType('public.png');
      if (png.isNil()) {
        var tiff = board.dataForType('public.tiff');
        if (!tiff.isNil()) {
          var rep = $.NSBitmapImageRep.imageRepWithData(tiff);
          if (!rep.isNil()) png = rep.representationUsingTypeProperties(PNG_FILE_TYPE, $.NSDictionary.dictionary);
        }
      }
      if (!png.isNil()) {
        if (!png.writeToFileAtomically(request.file, true)) nextaiFail('TOOL_FAILED', 'Could not save the clipboard image.');
        result.image = true;
      }
      return result;
    }
    case 'image': {
      var data = $.NSData.dataWithContentsOfFile(request.file);
      if (data.isNil()) nextaiFail('TOOL_FAILED', 'Could not read the image to copy.');
      board.clearContents;
      var written = board.setDataForType(data, 'public.png');
      // TIFF too: older apps paste only that.
      var image = $.NSBitmapImageRep.imageRepWithData(data);
      if (!image.isNil()) board.setDataForType(image.TIFFRepresentation, 'public.tiff');
      if (!written) nextaiFail('TOOL_FAILED', 'The clipboard did not take the image.');
      return true;
    }
  }
  nextaiFail('INVALID_INPUT', 'Unknown clipboard operation: ' + request.op);
}
`;

export function pbcopyCommand(text: string): CommandSpec {
  return { command: 'pbcopy', args: [], input: text, env: { LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' } };
}

const readSchema = z.object({ formats: z.array(z.string()), text: z.string().nullable(), image: z.boolean() });

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function isPng(bytes: Buffer): boolean {
  return bytes.length > PNG_SIGNATURE.length && bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE);
}

export function toMacosClipboardContent(value: unknown, png: Buffer | null): ClipboardContent {
  const reply = readSchema.parse(value);
  const content: ClipboardContent = { formats: reply.formats };
  if (reply.text !== null) content.text = reply.text;
  if (reply.image) {
    if (!png || !isPng(png)) throw new AppError('TOOL_FAILED', 'The clipboard image could not be read as PNG.');
    content.png = png;
  }
  return content;
}

export function createMacosClipboard(options: MacosAdapterOptions = {}): ClipboardAdapter {
  const { exec, jxa } = resolveOptions(options);
  return {
    read: () =>
      withTemporaryFile('nextai-clipboard-', 'clipboard.png', async (file) => {
        const value = await jxa.run(MACOS_CLIPBOARD_SCRIPT, { op: 'read', file });
        const png = await fs.promises.readFile(file).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return null;
          throw error;
        });
        return toMacosClipboardContent(value, png);
      }),
    async writeText(text) {
      await exec(pbcopyCommand(text), { timeoutMs: 5000 });
    },
    writeImage: (png) =>
      withTemporaryFile('nextai-clipboard-', 'clipboard.png', async (file) => {
        if (!isPng(png)) throw new AppError('INVALID_INPUT', 'The image for the clipboard must be PNG bytes.');
        await fs.promises.writeFile(file, png);
        await jxa.run(MACOS_CLIPBOARD_SCRIPT, { op: 'image', file });
      }),
  };
}
