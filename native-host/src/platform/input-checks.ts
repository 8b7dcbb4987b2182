import { AppError } from '@nextai/shared';

import type { MouseButton, Point } from './desktop.js';

/*
 * Checks shared by the adapters that send input through a script (macOS, Windows): what reaches
 * the script is finite numbers and known names, whatever a caller passed.
 */

const BUTTONS: readonly MouseButton[] = ['left', 'right', 'middle'];

/** A point of finite numbers; `whole` rounds to whole pixels (Windows input takes integers). */
export function checkPoint(value: Point, whole = false): Point {
  if (!Number.isFinite(value.x) || !Number.isFinite(value.y)) {
    throw new AppError('INVALID_INPUT', `Coordinates must be numbers, not (${value.x}, ${value.y}).`);
  }
  return whole ? { x: Math.round(value.x), y: Math.round(value.y) } : { x: value.x, y: value.y };
}

/** Milliseconds as a whole, non-negative number (anything else is 0: at once). */
export function checkDuration(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
}

/** A known button and a click count of 1 to 3. */
export function checkClick(button: MouseButton, count: number): void {
  if (!BUTTONS.includes(button)) throw new AppError('INVALID_INPUT', `Unknown mouse button "${button}".`);
  if (!Number.isInteger(count) || count < 1 || count > 3) {
    throw new AppError('INVALID_INPUT', `Click count must be 1, 2 or 3, not ${count}.`);
  }
}
