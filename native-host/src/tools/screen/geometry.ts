import { AppError } from '@nextai/shared';

import type { Rect, Size } from '../../platform/desktop.js';
import type { ImageFrame } from '../screen-space.js';

/**
 * Rectangles between screen pixels and the pixels of a screenshot image (an ImageFrame). The
 * mapping agrees with ScreenSpace: image pixel x of a frame covers screen pixels
 * [area.x + x·A/W, area.x + (x+1)·A/W) where A is the area's width and W the image's.
 */

/** The part of `rect` inside `bounds`, or undefined when they do not overlap. */
export function clipRect(rect: Rect, bounds: Rect): Rect | undefined {
  const left = Math.max(rect.x, bounds.x);
  const top = Math.max(rect.y, bounds.y);
  const right = Math.min(rect.x + rect.width, bounds.x + bounds.width);
  const bottom = Math.min(rect.y + rect.height, bounds.y + bounds.height);
  if (right <= left || bottom <= top) return undefined;
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/**
 * A region given in pixels of the frame's image → the screen rectangle those image pixels show.
 * A region reaching past the image's right or bottom edge is clipped to the image (the result's
 * size says what was taken); one that starts outside the image, or is empty, is INVALID_INPUT
 * naming the image size.
 */
export function imageRegionToScreen(region: Rect, frame: ImageFrame): Rect {
  const { image, area } = frame;
  if (region.width <= 0 || region.height <= 0) {
    throw new AppError(
      'INVALID_INPUT',
      `The region ${describeRect(region)} is empty: width and height must be at least 1 pixel.`,
    );
  }
  const inside = clipRect(region, { x: 0, y: 0, ...image });
  if (!inside) {
    throw new AppError(
      'INVALID_INPUT',
      `The region ${describeRect(region)} is outside the latest screenshot, which is ${image.width}×${image.height}. Regions are in pixels of the latest screenshot; take a new screenshot if the screen has changed.`,
    );
  }
  // Integer arithmetic first, one division last: no float drift at the edges.
  const left = Math.floor((inside.x * area.width) / image.width);
  const top = Math.floor((inside.y * area.height) / image.height);
  const right = Math.ceil(((inside.x + inside.width) * area.width) / image.width);
  const bottom = Math.ceil(((inside.y + inside.height) * area.height) / image.height);
  return {
    x: area.x + left,
    y: area.y + top,
    width: Math.max(1, Math.min(area.width, right) - left),
    height: Math.max(1, Math.min(area.height, bottom) - top),
  };
}

/** A screen rectangle → the image pixels of the frame it covers (clipped to the image). */
export function screenRectToImage(rect: Rect, frame: ImageFrame): Rect {
  const { image, area } = frame;
  const left = clamp(Math.floor(((rect.x - area.x) * image.width) / area.width), 0, image.width - 1);
  const top = clamp(Math.floor(((rect.y - area.y) * image.height) / area.height), 0, image.height - 1);
  const right = clamp(Math.ceil(((rect.x + rect.width - area.x) * image.width) / area.width), left + 1, image.width);
  const bottom = clamp(
    Math.ceil(((rect.y + rect.height - area.y) * image.height) / area.height),
    top + 1,
    image.height,
  );
  return { x: left, y: top, width: right - left, height: bottom - top };
}

export function fullScreen(size: Size): Rect {
  return { x: 0, y: 0, width: size.width, height: size.height };
}

export function describeRect(rect: Rect): string {
  return `x ${rect.x}, y ${rect.y}, ${rect.width}×${rect.height}`;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
