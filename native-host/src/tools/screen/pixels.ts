import os from 'node:os';

import type { RawImage } from '../../platform/desktop.js';

/** Pixels in the order sharp reads raw input: R, G, B (a fourth byte, when there is one, is alpha). */
export interface RgbPixels {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Buffer;
}

/** One hash per cell of a grid laid over an image: equal hashes, (almost certainly) equal pixels. */
export interface GridSignature {
  /** Size of the image hashed, in its own pixels. */
  width: number;
  height: number;
  /** Cell edge in pixels; the last column and row may be narrower. */
  cell: number;
  columns: number;
  rows: number;
  hashes: Int32Array;
}

/**
 * Cell edge for change detection: 16 screen pixels (12 image pixels in a 1920×1080 screenshot)
 * places a change well enough for the control loop to look there, and keeps the grid small
 * (8160 cells at 1920×1080).
 */
export const DEFAULT_CELL = 16;

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 16777619;
const LITTLE_ENDIAN = os.endianness() === 'LE';

/**
 * One pass over a capture: puts the pixels in RGB order, three bytes each, and hashes each grid
 * cell for change detection. X delivers B, G, R, X (X unused, often 0); sharp reads raw input as
 * RGB, and its handling of a fourth band is costly (as alpha it is premultiplied around the
 * resize: 4-band input took 20 ms to scale and encode at 1920×1080, 3-band 8 ms). The common case
 * (32-bit pixels, width a multiple of 4, little-endian) packs four pixels into three 32-bit
 * words at a time, a few milliseconds for 1920×1080; hashing in the same pass makes change
 * detection almost free. Other layouts take a per-byte path.
 */
export function preparePixels(raw: RawImage, cell = DEFAULT_CELL): { pixels: RgbPixels; signature: GridSignature } {
  const { width, height, channels } = raw;
  const columns = Math.ceil(width / cell);
  const rows = Math.ceil(height / cell);
  const hashes = new Int32Array(columns * rows).fill(FNV_OFFSET);
  const signature: GridSignature = { width, height, cell, columns, rows, hashes };
  const swap = raw.order === 'bgr';
  const output = Buffer.allocUnsafeSlow(width * height * 3);
  if (channels === 4 && LITTLE_ENDIAN && width % 4 === 0 && cell % 4 === 0) {
    const source = raw.data.byteOffset % 4 === 0 ? raw.data : copyAligned(raw.data);
    const words = new Uint32Array(source.buffer, source.byteOffset, width * height);
    const packed = new Uint32Array(output.buffer, output.byteOffset, (width * height * 3) / 4);
    for (let y = 0; y < height; y++) {
      const rowCells = ((y / cell) | 0) * columns;
      const rowStart = y * width;
      for (let column = 0; column < columns; column++) {
        const start = rowStart + column * cell;
        const end = rowStart + Math.min(width, (column + 1) * cell);
        let hash = hashes[rowCells + column]!;
        for (let index = start; index < end; index += 4) {
          // A little-endian word of bytes b0 b1 b2 b3 is b3<<24 | b2<<16 | b1<<8 | b0.
          let p0 = words[index]! & 0xffffff;
          let p1 = words[index + 1]! & 0xffffff;
          let p2 = words[index + 2]! & 0xffffff;
          let p3 = words[index + 3]! & 0xffffff;
          hash = Math.imul(hash ^ p0, FNV_PRIME);
          hash = Math.imul(hash ^ p1, FNV_PRIME);
          hash = Math.imul(hash ^ p2, FNV_PRIME);
          hash = Math.imul(hash ^ p3, FNV_PRIME);
          if (swap) {
            p0 = reverse(p0);
            p1 = reverse(p1);
            p2 = reverse(p2);
            p3 = reverse(p3);
          }
          // Now each p is R | G<<8 | B<<16; four of them fill three output words.
          const out = (index / 4) * 3;
          packed[out] = (p0 | (p1 << 24)) >>> 0;
          packed[out + 1] = ((p1 >>> 8) | (p2 << 16)) >>> 0;
          packed[out + 2] = ((p2 >>> 16) | (p3 << 8)) >>> 0;
        }
        hashes[rowCells + column] = hash;
      }
    }
    return { pixels: { width, height, channels: 3, data: output }, signature };
  }
  const data = raw.data;
  for (let y = 0; y < height; y++) {
    const rowCells = ((y / cell) | 0) * columns;
    for (let x = 0; x < width; x++) {
      const offset = (y * width + x) * channels;
      const first = data[offset]!;
      const second = data[offset + 1]!;
      const third = data[offset + 2]!;
      const index = rowCells + ((x / cell) | 0);
      hashes[index] = Math.imul(hashes[index]! ^ (first | (second << 8) | (third << 16)), FNV_PRIME);
      const target = (y * width + x) * 3;
      output[target] = swap ? third : first;
      output[target + 1] = second;
      output[target + 2] = swap ? first : third;
    }
  }
  return { pixels: { width, height, channels: 3, data: output }, signature };
}

/** B | G<<8 | R<<16 → R | G<<8 | B<<16 */
function reverse(pixel: number): number {
  return ((pixel & 0xff) << 16) | (pixel & 0xff00) | (pixel >>> 16);
}

function copyAligned(source: Buffer): Buffer {
  const copy = Buffer.from(new ArrayBuffer(source.length));
  source.copy(copy);
  return copy;
}
