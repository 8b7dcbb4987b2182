import { describe, expect, it } from 'vitest';

import type { RawImage } from '../../platform/desktop.js';
import type { ImageFrame } from '../screen-space.js';
import { ChangeDetector, changedBox } from './change-detection.js';
import { preparePixels } from './pixels.js';

/** A BGRX capture (as X delivers it) of `width`×`height`, grey, with `paint` applied. */
function capture(
  width: number,
  height: number,
  paint: (x: number, y: number) => number | undefined = () => undefined,
): RawImage {
  const data = Buffer.alloc(width * height * 4, 0x80);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const value = paint(x, y);
      if (value !== undefined) data.fill(value, (y * width + x) * 4, (y * width + x) * 4 + 3);
    }
  }
  for (let index = 3; index < data.length; index += 4) data[index] = 0;
  return { width, height, channels: 4, order: 'bgr', data };
}

const frame: ImageFrame = {
  area: { x: 0, y: 0, width: 320, height: 200 },
  scale: 0.5,
  image: { width: 160, height: 100 },
};

describe('grid signatures', () => {
  it('find the cells that differ, down to one pixel', () => {
    const before = preparePixels(capture(320, 200)).signature;
    const after = preparePixels(capture(320, 200, (x, y) => (x === 100 && y === 40 ? 0 : undefined))).signature;
    expect(changedBox(before, before)).toBeNull();
    // Pixel (100, 40) is in the 16-px cell starting at (96, 32).
    expect(changedBox(before, after)).toEqual({ box: { x: 96, y: 32, width: 16, height: 16 }, cells: 1 });
  });

  it('span every changed cell, and stop at the image edge for partial cells', () => {
    const before = preparePixels(capture(330, 200)).signature;
    const after = preparePixels(
      capture(330, 200, (x, y) => ((x === 5 && y === 5) || (x === 329 && y === 150) ? 255 : undefined)),
    ).signature;
    expect(changedBox(before, after)).toEqual({ box: { x: 0, y: 0, width: 330, height: 160 }, cells: 2 });
  });

  it('ignore the unused fourth byte of X pixels', () => {
    const plain = capture(64, 64);
    const noisy = capture(64, 64);
    for (let index = 3; index < noisy.data.length; index += 4) noisy.data[index] = index & 0xff;
    expect(changedBox(preparePixels(plain).signature, preparePixels(noisy).signature)).toBeNull();
  });
});

describe('ChangeDetector', () => {
  it('says nothing the first time, then whether and where the screen changed, in image pixels', () => {
    const detector = new ChangeDetector();
    expect(detector.observe(preparePixels(capture(320, 200)).signature, frame)).toBeUndefined();
    expect(detector.observe(preparePixels(capture(320, 200)).signature, frame)).toEqual({
      changed: false,
      changedCells: 0,
      cells: 20 * 13,
    });
    const dialog = (x: number, y: number) => (x >= 100 && x < 180 && y >= 60 && y < 100 ? 0 : undefined);
    const change = detector.observe(preparePixels(capture(320, 200, dialog)).signature, frame);
    // Cells 96..191 × 48..111 in screen pixels, halved for the image.
    expect(change).toEqual({
      changed: true,
      region: { x: 48, y: 24, width: 48, height: 32 },
      changedCells: 6 * 4,
      cells: 260,
    });
  });

  it('does not compare captures of different areas', () => {
    const detector = new ChangeDetector();
    detector.observe(preparePixels(capture(320, 200)).signature, frame);
    const moved = { ...frame, area: { ...frame.area, x: 10 } };
    expect(detector.observe(preparePixels(capture(320, 200)).signature, moved)).toBeUndefined();
    expect(detector.observe(preparePixels(capture(320, 200)).signature, moved)).toMatchObject({ changed: false });
  });
});

describe('preparePixels', () => {
  /** The expected RGB bytes of a BGRX or RGBX capture, pixel by pixel. */
  function expectedRgb(raw: RawImage): number[] {
    const bytes: number[] = [];
    for (let offset = 0; offset < raw.data.length; offset += raw.channels) {
      const [a, b, c] = [raw.data[offset]!, raw.data[offset + 1]!, raw.data[offset + 2]!];
      bytes.push(...(raw.order === 'bgr' ? [c, b, a] : [a, b, c]));
    }
    return bytes;
  }

  function randomCapture(width: number, height: number, order: 'rgb' | 'bgr'): RawImage {
    const data = Buffer.alloc(width * height * 4);
    for (let index = 0; index < data.length; index++) data[index] = (index * 7919 + 13) % 251;
    return { width, height, channels: 4, order, data };
  }

  it('packs BGRX into RGB, 4 pixels at a time (width a multiple of 4), and leaves the capture alone', () => {
    for (const order of ['bgr', 'rgb'] as const) {
      const raw = randomCapture(32, 5, order);
      const copy = Buffer.from(raw.data);
      const { pixels } = preparePixels(raw);
      expect(pixels).toMatchObject({ width: 32, height: 5, channels: 3 });
      expect([...pixels.data]).toEqual(expectedRgb(raw));
      expect(raw.data.equals(copy)).toBe(true);
    }
  });

  it('takes the per-byte path for other widths and 3-byte pixels, hashing the same colours', () => {
    const odd = randomCapture(13, 3, 'bgr');
    expect([...preparePixels(odd).pixels.data]).toEqual(expectedRgb(odd));
    const bgr: RawImage = { width: 2, height: 1, channels: 3, order: 'bgr', data: Buffer.from([1, 2, 3, 4, 5, 6]) };
    expect([...preparePixels(bgr).pixels.data]).toEqual([3, 2, 1, 6, 5, 4]);
    const words = randomCapture(16, 2, 'bgr');
    const threeBytes = Buffer.alloc(16 * 2 * 3);
    for (let pixel = 0; pixel < 32; pixel++) words.data.copy(threeBytes, pixel * 3, pixel * 4, pixel * 4 + 3);
    const bytePath = preparePixels({ ...words, channels: 3, data: threeBytes });
    const wordPath = preparePixels(words);
    expect([...bytePath.signature.hashes]).toEqual([...wordPath.signature.hashes]);
    expect(bytePath.pixels.data.equals(wordPath.pixels.data)).toBe(true);
  });

  it('copies an unaligned capture before reading it as 32-bit words', () => {
    const aligned = randomCapture(16, 2, 'bgr');
    const backing = Buffer.alloc(aligned.data.length + 4);
    const shift = backing.byteOffset % 4 === 3 ? 2 : 1;
    aligned.data.copy(backing, shift);
    const unaligned: RawImage = { ...aligned, data: backing.subarray(shift, shift + aligned.data.length) };
    expect(unaligned.data.byteOffset % 4).not.toBe(0);
    expect([...preparePixels(unaligned).pixels.data]).toEqual(expectedRgb(aligned));
  });
});
