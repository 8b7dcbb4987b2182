import { AppError } from '@nextai/shared';

import type { RawImage, Rect, ScreenAdapter, Size } from '../desktop.js';
import { loadLibnut } from './libnut.js';

/** What libnut's `screen.capture` returns: the XImage's bytes as one Buffer. */
export interface XBitmap {
  width: number;
  height: number;
  image: Buffer;
  /** Bytes per row; may be more than width × bytesPerPixel (row padding). */
  byteWidth: number;
  bitsPerPixel: number;
  bytesPerPixel: number;
}

/**
 * Screen capture on X11 through libnut (in-process XGetImage on the root window): no subprocess,
 * no file, the pixels arrive as one Buffer in a few milliseconds.
 *
 * A region must lie wholly on the screen: XGetImage fails (BadMatch, which Xlib may turn into a
 * process exit) for any part outside the root window, so off-screen parts are refused here with
 * the screen size in the message. Clipping to the screen is the caller's decision (the screenshot
 * tool clips window bounds and regions, and records the clipped area for coordinate mapping).
 */
export function createLinuxScreen(env: NodeJS.ProcessEnv = process.env): ScreenAdapter {
  return {
    async screenSize(): Promise<Size> {
      const libnut = await loadLibnut(env);
      const { width, height } = libnut.getScreenSize();
      return { width, height };
    },

    async capture(region?: Rect): Promise<RawImage> {
      const libnut = await loadLibnut(env);
      const size = libnut.getScreenSize();
      const area = region ?? { x: 0, y: 0, width: size.width, height: size.height };
      checkRegion(area, size);
      let bitmap: XBitmap;
      try {
        bitmap = libnut.screen.capture(area.x, area.y, area.width, area.height) as XBitmap;
      } catch (error) {
        throw new AppError(
          'TOOL_FAILED',
          `Capturing the screen area ${describeRect(area)} failed: ${(error as Error).message}. Try again; if it keeps failing, run \`nextai doctor\`.`,
          { cause: error },
        );
      }
      return bitmapToRaw(bitmap);
    },
  };
}

/** INVALID_INPUT unless `region` has a positive size and lies wholly within the screen. */
export function checkRegion(region: Rect, screen: Size): void {
  const values = [region.x, region.y, region.width, region.height];
  if (!values.every(Number.isInteger)) {
    throw new AppError('INVALID_INPUT', `The capture region ${describeRect(region)} must be whole pixels.`);
  }
  if (region.width <= 0 || region.height <= 0) {
    throw new AppError(
      'INVALID_INPUT',
      `The capture region ${describeRect(region)} is empty: width and height must be at least 1 pixel (the screen is ${screen.width}×${screen.height}).`,
    );
  }
  if (
    region.x < 0 ||
    region.y < 0 ||
    region.x + region.width > screen.width ||
    region.y + region.height > screen.height
  ) {
    throw new AppError(
      'INVALID_INPUT',
      `The capture region ${describeRect(region)} is not wholly on the screen, which is ${screen.width}×${screen.height} (x 0–${screen.width - 1}, y 0–${screen.height - 1}).`,
    );
  }
}

/**
 * The XImage as a RawImage with tightly packed rows. A 24-bit-depth X server on a little-endian
 * machine delivers 32 bits per pixel as B, G, R, X (X unused, often 0); rows may be padded
 * (`byteWidth`), in which case they are copied into a packed buffer.
 */
export function bitmapToRaw(bitmap: XBitmap): RawImage {
  const { width, height, byteWidth, bytesPerPixel } = bitmap;
  if (bytesPerPixel !== 4 && bytesPerPixel !== 3) {
    throw new AppError(
      'UNAVAILABLE',
      `The X display uses ${bitmap.bitsPerPixel} bits per pixel, which screen capture does not support (it needs 24-bit colour). Run the X server at depth 24.`,
    );
  }
  const rowBytes = width * bytesPerPixel;
  if (byteWidth < rowBytes || bitmap.image.length < byteWidth * (height - 1) + rowBytes) {
    throw new AppError(
      'TOOL_FAILED',
      `The X server returned a malformed image (${width}×${height}, ${byteWidth} bytes per row, ${bitmap.image.length} bytes).`,
    );
  }
  let data = bitmap.image;
  if (byteWidth !== rowBytes) {
    data = Buffer.allocUnsafe(rowBytes * height);
    for (let row = 0; row < height; row++) {
      bitmap.image.copy(data, row * rowBytes, row * byteWidth, row * byteWidth + rowBytes);
    }
  } else if (data.length !== rowBytes * height) {
    data = data.subarray(0, rowBytes * height);
  }
  return { width, height, channels: bytesPerPixel, order: 'bgr', data };
}

function describeRect(rect: Rect): string {
  return `x ${rect.x}, y ${rect.y}, ${rect.width}×${rect.height}`;
}
