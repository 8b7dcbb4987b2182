import { AppError } from '@nextai/shared';

import type { HandlerGroup, HostServices } from '../types.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * `clipboard_read`, `clipboard_write` and `notification_send` on top of the desktop adapter.
 * Images travel as base64 PNG; a large one comes back as a `blob:<id>` reference
 * (services.blobs), and a reference is accepted when writing, so a screenshot can be copied
 * without passing its bytes through the model.
 */
export function createSystemHandlers(
  services: HostServices,
): HandlerGroup<'clipboard_read' | 'clipboard_write' | 'notification_send'> {
  const { clipboard, notifications } = services.desktop;
  return {
    handlers: {
      clipboard_read: async (input) => {
        const content = await clipboard.read();
        const { formats } = content;
        const offers = formats.length > 0 ? formats.join(', ') : 'nothing';
        const image = () => {
          if (!content.png) {
            throw new AppError('NOT_FOUND', `The clipboard holds no image (it offers: ${offers}).`, {
              details: { formats },
            });
          }
          return {
            content: services.blobs.inlineOrReference(content.png, 'image/png'),
            format: 'image' as const,
            formats,
          };
        };
        switch (input.format) {
          case 'image':
            return image();
          case 'text':
            if (content.text === undefined && formats.length > 0) {
              throw new AppError(
                'NOT_FOUND',
                `The clipboard holds no text (it offers: ${offers}).${content.png ? ' Read the image with format "image".' : ''}`,
                { details: { formats } },
              );
            }
            return { content: content.text ?? '', format: 'text', formats };
          case 'auto':
            // Text first: apps that copy text often add a rendered image of it (spreadsheets), rarely the reverse.
            if (content.text !== undefined || !content.png)
              return { content: content.text ?? '', format: 'text', formats };
            return image();
        }
      },

      clipboard_write: async (input) => {
        if (input.format === 'text') {
          await clipboard.writeText(input.content);
          return { success: true, message: `Copied ${[...input.content].length} characters of text to the clipboard.` };
        }
        const png = decodeImage(input.content, services);
        await clipboard.writeImage(png);
        return {
          success: true,
          message: `Copied a ${png.readUInt32BE(16)}×${png.readUInt32BE(20)} PNG image (${png.length} bytes) to the clipboard.`,
        };
      },

      notification_send: async (input) => {
        await notifications.notify(input.title, input.body, input.urgency);
        return { success: true, message: `Showed the notification "${input.title}" (${input.urgency} urgency).` };
      },
    },
  };
}

/** base64 (optionally a data: URL) or a `blob:` reference → PNG bytes, checked to be a PNG. */
function decodeImage(content: string, services: HostServices): Buffer {
  const text = content.trim();
  let bytes: Buffer;
  if (text.startsWith('blob:')) {
    const blob = services.blobs.get(text);
    if (blob.mimeType !== 'image/png') {
      throw new AppError('INVALID_INPUT', `${text} is a ${blob.mimeType} payload; the clipboard takes PNG images.`);
    }
    bytes = blob.data;
  } else {
    const base64 = text.replace(/^data:image\/png;base64,/u, '').replace(/\s+/gu, '');
    if (base64 === '' || !/^[A-Za-z0-9+/]+={0,2}$/u.test(base64)) {
      throw new AppError(
        'INVALID_INPUT',
        'An image for the clipboard must be a base64-encoded PNG (or a blob: reference).',
      );
    }
    bytes = Buffer.from(base64, 'base64');
  }
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
    throw new AppError('INVALID_INPUT', 'The image is not a PNG: the clipboard takes PNG images (base64-encoded).');
  }
  return bytes;
}
