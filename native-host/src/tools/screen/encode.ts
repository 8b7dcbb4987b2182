import { AppError } from '@nextai/shared';

import type sharpModule from 'sharp';

import type { Size } from '../../platform/desktop.js';
import type { RgbPixels } from './pixels.js';

type Sharp = typeof sharpModule;

let sharpInstance: Sharp | undefined;

/**
 * sharp (libvips), loaded on first use so a daemon without it still starts; its cache is off:
 * screenshots are never decoded twice, and the cache would only hold memory.
 */
export async function loadSharp(): Promise<Sharp> {
  if (!sharpInstance) {
    try {
      sharpInstance = (await import('sharp')).default;
    } catch (error) {
      throw new AppError(
        'UNAVAILABLE',
        `Screenshots need the image library sharp, which could not be loaded: ${(error as Error).message}. Reinstall NextAI (npm ci), or run \`nextai doctor\`.`,
        { cause: error },
      );
    }
    sharpInstance.cache(false);
  }
  return sharpInstance;
}

export type ImageFormat = 'png' | 'jpeg';

/**
 * Scales `pixels` to exactly `size` and encodes them. Choices, measured on 1920×1080 → 1430×804
 * (tests/bench/desktop-screen.ts):
 *  - three-band input (preparePixels packs RGB): a fourth band makes libvips treat it as alpha
 *    and premultiply around the resize, more than doubling the time;
 *  - the resize kernel is `linear` (bilinear): at these ratios (≥ 0.7) it keeps 1-px strokes of
 *    text legible and costs less than lanczos3 (the default);
 *  - JPEG without Huffman-table optimisation (one pass; ~2 % larger), 4:2:0 chroma as libjpeg
 *    does by default below quality 90; PNG at zlib level 3 without adaptive filtering.
 * The output has exactly `size`, so the frame recorded for coordinate mapping is exact.
 */
export async function scaleAndEncode(
  pixels: RgbPixels,
  size: Size,
  format: ImageFormat,
  quality: number,
): Promise<Buffer> {
  const sharp = await loadSharp();
  let pipeline = sharp(pixels.data, {
    raw: { width: pixels.width, height: pixels.height, channels: pixels.channels },
  });
  if (pixels.channels === 4) pipeline = pipeline.removeAlpha();
  if (size.width !== pixels.width || size.height !== pixels.height) {
    pipeline = pipeline.resize(size.width, size.height, { fit: 'fill', kernel: 'linear' });
  }
  pipeline =
    format === 'jpeg'
      ? pipeline.jpeg({ quality, optimiseCoding: false })
      : pipeline.png({ compressionLevel: 3, adaptiveFiltering: false });
  try {
    return await pipeline.toBuffer();
  } catch (error) {
    throw new AppError('TOOL_FAILED', `Encoding the screenshot failed: ${(error as Error).message}.`, {
      cause: error,
    });
  }
}

/** 8-bit grey pixels, one byte each (what OCR reads). */
export interface GrayImage {
  width: number;
  height: number;
  data: Buffer;
}

/** Grey pixels of `pixels`, optionally scaled to `size` (OCR input). */
export async function toGray(pixels: RgbPixels, size?: Size): Promise<GrayImage> {
  const sharp = await loadSharp();
  let pipeline = sharp(pixels.data, {
    raw: { width: pixels.width, height: pixels.height, channels: pixels.channels },
  });
  if (pixels.channels === 4) pipeline = pipeline.removeAlpha();
  if (size && (size.width !== pixels.width || size.height !== pixels.height)) {
    pipeline = pipeline.resize(size.width, size.height, { fit: 'fill' });
  }
  const { data, info } = await pipeline.greyscale().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** Decodes an encoded image (PNG, JPEG, WebP…) to RGB pixels; transparent parts on white. */
export async function decodeImage(bytes: Buffer): Promise<RgbPixels> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(bytes)
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, channels: info.channels === 4 ? 4 : 3, data };
  } catch (error) {
    throw new AppError(
      'INVALID_INPUT',
      `The image could not be read (${(error as Error).message}). Send a PNG or JPEG as base64, or a blob: reference from a screenshot.`,
      { cause: error },
    );
  }
}
