import fc from 'fast-check';
import { expect, it } from 'vitest';

import { ScreenSpace, scaleFor, scaledSize } from './screen-space.js';

it('scales 1920×1080 under both limits: long edge ≤ 1568 px and area ≤ 1.15 megapixels', () => {
  const scale = scaleFor({ width: 1920, height: 1080 });
  const image = scaledSize({ width: 1920, height: 1080 }, scale);
  expect(image.width).toBeLessThanOrEqual(1568);
  expect(image.width * image.height).toBeLessThanOrEqual(1_150_000);
  expect(image).toEqual({ width: 1430, height: 804 });
  // Small screens are never enlarged.
  expect(scaleFor({ width: 800, height: 600 })).toBe(1);
});

it('maps every image pixel to a screen pixel inside the captured area and back to itself', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.record({
        x: fc.integer({ min: -3000, max: 3000 }),
        y: fc.integer({ min: -3000, max: 3000 }),
        width: fc.integer({ min: 1, max: 7680 }),
        height: fc.integer({ min: 1, max: 4320 }),
      }),
      // Where in the image, in millionths of its size (fast-check's doubles cluster at 0 and 1).
      fc.integer({ min: 0, max: 999_999 }),
      fc.integer({ min: 0, max: 999_999 }),
      async (area, millionthX, millionthY) => {
        const scale = scaleFor(area);
        const image = scaledSize(area, scale);
        const space = new ScreenSpace(async () => area);
        space.remember({ area, scale, image });
        const point = {
          x: Math.floor((millionthX / 1e6) * image.width),
          y: Math.floor((millionthY / 1e6) * image.height),
        };
        const screen = await space.toScreen(point);
        expect(screen.x).toBeGreaterThanOrEqual(area.x);
        expect(screen.x).toBeLessThan(area.x + area.width);
        expect(screen.y).toBeGreaterThanOrEqual(area.y);
        expect(screen.y).toBeLessThan(area.y + area.height);
        expect(await space.toImage(screen)).toEqual(point);
      },
    ),
    { numRuns: 500 },
  );
});

it('refuses coordinates outside the latest screenshot, naming its size', async () => {
  const space = new ScreenSpace(async () => ({ width: 1920, height: 1080 }));
  await expect(space.toScreen({ x: 1430, y: 0 })).rejects.toThrow(/1430×804/u);
});
