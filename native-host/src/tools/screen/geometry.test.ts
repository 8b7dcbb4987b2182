import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { ScreenSpace, scaleFor, scaledSize, type ImageFrame } from '../screen-space.js';
import { clipRect, imageRegionToScreen, screenRectToImage } from './geometry.js';

function frameOf(width: number, height: number, x = 0, y = 0): ImageFrame {
  const area = { x, y, width, height };
  const scale = scaleFor(area);
  return { area, scale, image: scaledSize(area, scale) };
}

describe('screenshot scaling', () => {
  it('scales 1920×1080 by area (1.15 MP) to 1430×804, and small areas not at all', () => {
    const full = frameOf(1920, 1080);
    expect(full.image).toEqual({ width: 1430, height: 804 });
    expect(full.image.width).toBeLessThanOrEqual(1568);
    expect(full.image.width * full.image.height).toBeLessThanOrEqual(1_150_000);
    expect(frameOf(800, 600).image).toEqual({ width: 800, height: 600 });
    expect(frameOf(800, 600).scale).toBe(1);
  });

  it('limits a wide screen by its long edge', () => {
    const wide = frameOf(3840, 1080);
    expect(wide.image.width).toBe(1568);
    expect(wide.image.width * wide.image.height).toBeLessThanOrEqual(1_150_000);
  });
});

describe('regions between image and screen pixels', () => {
  it('maps an image region to the screen pixels it shows, and back to at least the same region', () => {
    const frame = frameOf(1920, 1080);
    const region = { x: 100, y: 50, width: 300, height: 200 };
    const onScreen = imageRegionToScreen(region, frame);
    // 1430/1920 image px per screen px: 100 image px start at screen px 134.27 → 134.
    expect(onScreen).toEqual({ x: 134, y: 67, width: 404, height: 269 });
    const back = screenRectToImage(onScreen, frame);
    expect(back.x).toBeLessThanOrEqual(region.x);
    expect(back.y).toBeLessThanOrEqual(region.y);
    expect(back.x + back.width).toBeGreaterThanOrEqual(region.x + region.width);
    expect(back.y + back.height).toBeGreaterThanOrEqual(region.y + region.height);
    expect(back.width - region.width).toBeLessThanOrEqual(2);
  });

  it("round-trips image pixels through the screen: ScreenSpace.toScreen lands inside the pixel's footprint", async () => {
    const frame = frameOf(1920, 1080, 0, 0);
    const space = new ScreenSpace(async () => frame.area);
    space.remember(frame);
    for (let x = 0; x < frame.image.width; x++) {
      const y = Math.floor((x * frame.image.height) / frame.image.width);
      const screen = await space.toScreen({ x, y });
      const covered = screenRectToImage({ ...screen, width: 1, height: 1 }, frame);
      expect(x).toBeGreaterThanOrEqual(covered.x);
      expect(x).toBeLessThan(covered.x + covered.width);
      expect(y).toBeGreaterThanOrEqual(covered.y);
      expect(y).toBeLessThan(covered.y + covered.height);
      const pixel = imageRegionToScreen({ x, y, width: 1, height: 1 }, frame);
      expect(screen.x).toBeGreaterThanOrEqual(pixel.x);
      expect(screen.x).toBeLessThan(pixel.x + pixel.width);
      expect(screen.y).toBeGreaterThanOrEqual(pixel.y);
      expect(screen.y).toBeLessThan(pixel.y + pixel.height);
    }
  });

  it('offsets by the frame area (a window or region capture)', () => {
    const frame: ImageFrame = {
      area: { x: 500, y: 300, width: 400, height: 200 },
      scale: 1,
      image: { width: 400, height: 200 },
    };
    expect(imageRegionToScreen({ x: 10, y: 20, width: 30, height: 40 }, frame)).toEqual({
      x: 510,
      y: 320,
      width: 30,
      height: 40,
    });
    expect(screenRectToImage({ x: 510, y: 320, width: 30, height: 40 }, frame)).toEqual({
      x: 10,
      y: 20,
      width: 30,
      height: 40,
    });
  });

  it('clips a region reaching past the image, and refuses one outside it or of zero size', () => {
    const frame = frameOf(1920, 1080);
    expect(imageRegionToScreen({ x: 1400, y: 800, width: 500, height: 500 }, frame)).toEqual({
      x: 1879,
      y: 1074,
      width: 41,
      height: 6,
    });
    const outside = () => imageRegionToScreen({ x: 1430, y: 0, width: 10, height: 10 }, frame);
    expect(outside).toThrow(AppError);
    expect(outside).toThrow(/outside the latest screenshot, which is 1430×804/u);
    expect(() => imageRegionToScreen({ x: 0, y: 0, width: 0, height: 10 }, frame)).toThrow(/empty/u);
  });

  it('clips rectangles', () => {
    const screen = { x: 0, y: 0, width: 1920, height: 1080 };
    expect(clipRect({ x: -100, y: 1000, width: 300, height: 200 }, screen)).toEqual({
      x: 0,
      y: 1000,
      width: 200,
      height: 80,
    });
    expect(clipRect({ x: 1920, y: 0, width: 10, height: 10 }, screen)).toBeUndefined();
  });
});
