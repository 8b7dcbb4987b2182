import { AppError } from '@nextai/shared';

import type { Point, Rect, Size } from '../platform/desktop.js';

/**
 * Screenshots are scaled so the long edge is ≤ 1568 px and the area ≤ ~1.15 megapixels: the most a
 * vision model takes without scaling the image down itself.
 */
export const MAX_LONG_EDGE = 1568;
export const MAX_PIXELS = 1_150_000;

/** The factor (image px per screen px, ≤ 1) a capture of `size` is scaled by. */
export function scaleFor(size: Size): number {
  const byEdge = MAX_LONG_EDGE / Math.max(size.width, size.height);
  const byArea = Math.sqrt(MAX_PIXELS / (size.width * size.height));
  return Math.min(1, byEdge, byArea);
}

/** Image size for a capture of `size` at `scale` (never 0). */
export function scaledSize(size: Size, scale: number): Size {
  return {
    width: Math.max(1, Math.round(size.width * scale)),
    height: Math.max(1, Math.round(size.height * scale)),
  };
}

/** What the model saw last: which part of the screen, at what scale. */
export interface ImageFrame {
  /** The captured area in screen pixels. */
  area: Rect;
  /** Image px per screen px. */
  scale: number;
  /** Image size in pixels. */
  image: Size;
}

/**
 * Coordinates the model sends to mouse tools are pixels of the most recent screenshot (see the
 * catalog). This keeps that screenshot's frame and maps image pixels to screen pixels exactly:
 * image pixel (x, y) covers screen pixels [x/scale, (x+1)/scale); its centre is the point used.
 * Before any screenshot, the frame is the whole screen at the full-screen scale.
 */
export class ScreenSpace {
  private frame: ImageFrame | undefined;

  constructor(private readonly screenSize: () => Promise<Size>) {}

  /** Called by `screenshot` after each capture. */
  remember(frame: ImageFrame): void {
    this.frame = frame;
  }

  async current(): Promise<ImageFrame> {
    if (this.frame) return this.frame;
    const size = await this.screenSize();
    const scale = scaleFor(size);
    return { area: { x: 0, y: 0, ...size }, scale, image: scaledSize(size, scale) };
  }

  /** Image pixel → screen pixel. Off-image coordinates are INVALID_INPUT naming the image size. */
  async toScreen(point: Point): Promise<Point> {
    const frame = await this.current();
    if (point.x < 0 || point.y < 0 || point.x >= frame.image.width || point.y >= frame.image.height) {
      throw new AppError(
        'INVALID_INPUT',
        `(${point.x}, ${point.y}) is outside the latest screenshot, which is ${frame.image.width}×${frame.image.height}. Use coordinates within it, or take a new screenshot.`,
      );
    }
    const sx = frame.image.width / frame.area.width;
    const sy = frame.image.height / frame.area.height;
    return {
      x: Math.min(frame.area.x + frame.area.width - 1, frame.area.x + Math.floor((point.x + 0.5) / sx)),
      y: Math.min(frame.area.y + frame.area.height - 1, frame.area.y + Math.floor((point.y + 0.5) / sy)),
    };
  }

  /** Screen pixel → image pixel of the latest frame (for results that report positions). */
  async toImage(point: Point): Promise<Point> {
    const frame = await this.current();
    const sx = frame.image.width / frame.area.width;
    const sy = frame.image.height / frame.area.height;
    // The image pixel that covers the screen pixel's centre, so toImage(toScreen(p)) is p again.
    return {
      x: Math.floor((point.x - frame.area.x + 0.5) * sx),
      y: Math.floor((point.y - frame.area.y + 0.5) * sy),
    };
  }
}
