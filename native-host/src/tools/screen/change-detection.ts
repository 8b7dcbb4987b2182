import type { Rect } from '../../platform/desktop.js';
import type { ImageFrame } from '../screen-space.js';
import { screenRectToImage } from './geometry.js';
import type { GridSignature } from './pixels.js';

/** What changed between two captures of the same screen area. */
export interface ScreenChange {
  changed: boolean;
  /** Bounding box of every changed cell, in pixels of the newer screenshot image; absent when unchanged. */
  region?: Rect;
  /** Grid cells that differ, and all cells (their ratio says how much of the area changed). */
  changedCells: number;
  cells: number;
}

/**
 * The bounding box, in pixels of the hashed image, of the cells whose hashes differ; `null` when
 * none differ. Both signatures must come from images of the same size and cell size.
 */
export function changedBox(previous: GridSignature, next: GridSignature): { box: Rect; cells: number } | null {
  if (!sameGrid(previous, next)) throw new Error('Signatures of different grids cannot be compared.');
  let left = Infinity;
  let top = Infinity;
  let right = -1;
  let bottom = -1;
  let cells = 0;
  for (let row = 0; row < next.rows; row++) {
    for (let column = 0; column < next.columns; column++) {
      const index = row * next.columns + column;
      if (previous.hashes[index] === next.hashes[index]) continue;
      cells++;
      if (column < left) left = column;
      if (column > right) right = column;
      if (row < top) top = row;
      if (row > bottom) bottom = row;
    }
  }
  if (cells === 0) return null;
  const x = left * next.cell;
  const y = top * next.cell;
  return {
    box: {
      x,
      y,
      width: Math.min(next.width, (right + 1) * next.cell) - x,
      height: Math.min(next.height, (bottom + 1) * next.cell) - y,
    },
    cells,
  };
}

export function sameGrid(a: GridSignature, b: GridSignature): boolean {
  return a.width === b.width && a.height === b.height && a.cell === b.cell;
}

/**
 * Did the screen change since the last capture, and where? For the agent's control loop: after
 * an action, a new screenshot says whether anything happened and which part to look at, without
 * comparing images. Each capture is hashed per 16×16-pixel cell while it is prepared
 * (pixels.ts), so `observe` only compares two small arrays. Comparison is exact: any changed
 * pixel (a blinking caret too) marks its cell; `changedCells / cells` tells a caret from a new page.
 *
 * Only captures of the same screen area at full resolution are compared (a window capture after
 * a full-screen one is a different picture); `observe` returns undefined then, and remembers the
 * new capture for next time.
 */
export class ChangeDetector {
  private last: { area: Rect; signature: GridSignature } | undefined;

  /** Compares `signature` (of a capture of `frame.area`) with the previous one and remembers it. */
  observe(signature: GridSignature, frame: ImageFrame): ScreenChange | undefined {
    const previous = this.last;
    this.last = { area: { ...frame.area }, signature };
    if (!previous || !sameRect(previous.area, frame.area) || !sameGrid(previous.signature, signature)) {
      return undefined;
    }
    const cells = signature.columns * signature.rows;
    const change = changedBox(previous.signature, signature);
    if (!change) return { changed: false, changedCells: 0, cells };
    // The box is in captured (screen) pixels relative to the area; the model sees image pixels.
    const onScreen = { ...change.box, x: change.box.x + frame.area.x, y: change.box.y + frame.area.y };
    return { changed: true, region: screenRectToImage(onScreen, frame), changedCells: change.cells, cells };
  }

  /** Forgets the last capture (the next one is compared with nothing). */
  reset(): void {
    this.last = undefined;
  }
}

function sameRect(a: Rect, b: Rect): boolean {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}
