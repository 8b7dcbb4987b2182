import { AppError } from '@nextai/shared';

import type { Rect } from './desktop.js';

/** The region, validated and in whole points. */
export function checkRegion(region: Rect): Rect {
  const values = [region.x, region.y, region.width, region.height];
  if (!values.every(Number.isFinite)) {
    throw new AppError('INVALID_INPUT', `The region must be numbers, not ${JSON.stringify(region)}.`);
  }
  const rounded = {
    x: Math.round(region.x),
    y: Math.round(region.y),
    width: Math.round(region.width),
    height: Math.round(region.height),
  };
  if (rounded.width < 1 || rounded.height < 1) {
    throw new AppError(
      'INVALID_INPUT',
      `The region ${rounded.width}×${rounded.height} is empty: width and height must be at least 1.`,
    );
  }
  return rounded;
}
