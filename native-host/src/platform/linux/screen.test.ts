import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { checkRegion, ximageToRaw } from './screen.js';
import type { PixelFormat } from './x-connection.js';

const DEPTH_24: PixelFormat = { depth: 24, bitsPerPixel: 32, scanlinePad: 32, imageByteOrder: 0 };

describe('ximageToRaw', () => {
  it('packs padded rows (bytesPerRow > width × 4)', () => {
    // 2×2 pixels, rows padded to 12 bytes; padding bytes are 0xee.
    const image = Buffer.from([
      1, 2, 3, 0, 4, 5, 6, 0, 0xee, 0xee, 0xee, 0xee, 7, 8, 9, 0, 10, 11, 12, 0, 0xee, 0xee, 0xee, 0xee,
    ]);
    const raw = ximageToRaw({ width: 2, height: 2, data: image, bytesPerRow: 12, format: DEPTH_24 });
    expect(raw).toMatchObject({ width: 2, height: 2, channels: 4, order: 'bgr' });
    expect([...raw.data]).toEqual([1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 0]);
  });

  it('keeps tight rows as they are, and refuses depths it cannot read', () => {
    const image = Buffer.alloc(16);
    const raw = ximageToRaw({ width: 2, height: 2, data: image, bytesPerRow: 8, format: DEPTH_24 });
    expect(raw.data).toBe(image);
    const depth16 = { ...DEPTH_24, depth: 16, bitsPerPixel: 16 };
    expect(() => ximageToRaw({ width: 2, height: 2, data: image, bytesPerRow: 4, format: depth16 })).toThrow(
      /depth 16 at 16 bits per pixel/u,
    );
    const msbFirst = { ...DEPTH_24, imageByteOrder: 1 };
    expect(() => ximageToRaw({ width: 2, height: 2, data: image, bytesPerRow: 8, format: msbFirst })).toThrow(
      /most significant byte first/u,
    );
    expect(() => ximageToRaw({ width: 4, height: 2, data: image, bytesPerRow: 16, format: DEPTH_24 })).toThrow(
      /malformed/u,
    );
  });
});

describe('checkRegion', () => {
  const screen = { width: 1920, height: 1080 };

  it('accepts regions wholly on screen', () => {
    expect(() => checkRegion({ x: 0, y: 0, width: 1920, height: 1080 }, screen)).not.toThrow();
    expect(() => checkRegion({ x: 1919, y: 1079, width: 1, height: 1 }, screen)).not.toThrow();
  });

  it('refuses empty, partly or wholly off-screen regions, naming the screen size', () => {
    for (const region of [
      { x: 0, y: 0, width: 0, height: 10 },
      { x: 10, y: 10, width: 10, height: -5 },
      { x: 1900, y: 0, width: 100, height: 100 },
      { x: -1, y: 0, width: 10, height: 10 },
      { x: 5000, y: 5000, width: 10, height: 10 },
    ]) {
      let error: unknown;
      try {
        checkRegion(region, screen);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('INVALID_INPUT');
      expect((error as AppError).message).toContain('1920×1080');
    }
  });
});
