import os from 'node:os';

import { AppError } from '@nextai/shared';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../core/logger.js';
import { createFakeDesktop } from '../../platform/fake-desktop.js';
import type { Rect, WindowInfo } from '../../platform/desktop.js';
import { callTool, MemoryBlobStore, testServices } from '../test-support.js';
import type { GrayImage } from './encode.js';
import { createScreenHandlers } from './index.js';
import { OcrEngine, type OcrLanguageRequest, type OcrPage } from './ocr.js';

const RED = { x: 600, y: 300, width: 200, height: 100 };
const inside = (rect: Rect, x: number, y: number) =>
  x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;

function windowInfo(id: string, title: string, bounds: Rect, extra: Partial<WindowInfo> = {}): WindowInfo {
  return { id, title, pid: 100, app: 'xterm', bounds, focused: false, minimized: false, ...extra };
}

/** OCR that "reads" fixed words at fixed places of the captured picture, and records what it saw. */
class ScriptedOcr extends OcrEngine {
  readonly seen: Array<{ width: number; height: number }> = [];

  constructor(private readonly words: Array<{ text: string; bounds: Rect }>) {
    super({ languageDir: os.tmpdir(), log: createLogger({ component: 'test', level: 'error' }) });
  }

  override async recognize(image: GrayImage, _request: OcrLanguageRequest): Promise<OcrPage> {
    this.seen.push({ width: image.width, height: image.height });
    return {
      languages: 'eng',
      lines: this.words.map((word) => ({
        text: word.text,
        bounds: word.bounds,
        confidence: 0.9,
        words: [{ text: word.text, bounds: word.bounds, confidence: 0.9 }],
      })),
    };
  }
}

function setup(
  options: { windows?: WindowInfo[]; paint?: (x: number, y: number) => [number, number, number]; ocr?: OcrEngine } = {},
) {
  const fake = createFakeDesktop({
    size: { width: 1920, height: 1080 },
    windows: options.windows ?? [],
    paint: options.paint ?? ((x, y) => (inside(RED, x, y) ? [255, 0, 0] : [0, 0, 255])),
  });
  const blobs = new MemoryBlobStore(64 * 1024 * 1024);
  const services = testServices(fake.desktop, blobs);
  const group = createScreenHandlers(services, options.ocr ? { ocr: options.ocr } : {});
  return { fake, services, blobs, handlers: group.handlers, group };
}

interface Shot {
  image: string;
  format: 'png' | 'jpeg';
  width: number;
  height: number;
  scale: number;
  timestamp: number;
  changed?: boolean;
  changed_region?: Rect;
}

async function decode(blobs: MemoryBlobStore, image: string) {
  const bytes = image.startsWith('blob:') ? blobs.get(image).data : Buffer.from(image, 'base64');
  return sharp(bytes).raw().toBuffer({ resolveWithObject: true });
}

describe('screenshot', () => {
  it('scales 1920×1080 to 1430×804, and a click on the red box in the image lands on the red box', async () => {
    const { services, blobs, handlers } = setup();
    const before = Date.now();
    const shot = (await callTool('screenshot', handlers.screenshot, { format: 'png' })) as Shot;
    expect(shot).toMatchObject({ format: 'png', width: 1430, height: 804 });
    expect(shot.scale).toBeCloseTo(0.7447, 3);
    expect(shot.timestamp).toBeGreaterThanOrEqual(before);
    expect(shot.changed).toBeUndefined();

    const { data, info } = await decode(blobs, shot.image);
    expect(info).toMatchObject({ width: 1430, height: 804 });
    // The red box's centre, in image pixels, is red in the image…
    const ix = Math.floor((700 * 1430) / 1920);
    const iy = Math.floor((350 * 804) / 1080);
    const offset = (iy * info.width + ix) * info.channels;
    expect([data[offset], data[offset + 1], data[offset + 2]]).toEqual([255, 0, 0]);
    // …and maps back onto the red box on screen.
    const target = await services.screenSpace.toScreen({ x: ix, y: iy });
    expect(inside(RED, target.x, target.y)).toBe(true);
    expect(await services.screenSpace.current()).toEqual({
      area: { x: 0, y: 0, width: 1920, height: 1080 },
      scale: shot.scale,
      image: { width: 1430, height: 804 },
    });
  });

  it('captures a region given in pixels of the latest screenshot, at full resolution, and makes it the coordinate space', async () => {
    const { fake, services, blobs, handlers } = setup();
    await callTool('screenshot', handlers.screenshot, {});
    const shot = (await callTool('screenshot', handlers.screenshot, {
      mode: 'region',
      region: { x: 447, y: 223, width: 149, height: 75 },
      format: 'png',
    })) as Shot;
    // Image pixels 447..596 × 223..298 show screen pixels 600..801 × 299..401.
    expect(shot).toMatchObject({ width: 201, height: 102, scale: 1 });
    expect((await services.screenSpace.current()).area).toEqual({ x: 600, y: 299, width: 201, height: 102 });
    expect(await services.screenSpace.toScreen({ x: 0, y: 1 })).toEqual({ x: 600, y: 300 });
    const { data } = await decode(blobs, shot.image);
    expect([data[0], data[1], data[2]]).toEqual([0, 0, 255]); // row 299 is above the box
    expect([data[201 * 3], data[201 * 3 + 1], data[201 * 3 + 2]]).toEqual([255, 0, 0]);
    expect(fake.actions).toEqual([]);
  });

  it('clips a region reaching past the screenshot; refuses one outside it, naming its size', async () => {
    const { handlers } = setup();
    await callTool('screenshot', handlers.screenshot, {});
    const clipped = (await callTool('screenshot', handlers.screenshot, {
      region: { x: 1400, y: 780, width: 500, height: 500 },
    })) as Shot;
    expect(clipped).toMatchObject({ width: 41, height: 33 });
    await callTool('screenshot', handlers.screenshot, {});
    await expect(
      callTool('screenshot', handlers.screenshot, { region: { x: 2000, y: 0, width: 10, height: 10 } }),
    ).rejects.toThrow(/outside the latest screenshot, which is 1430×804/u);
  });

  it('refuses a zero-size region (schema), and a region mode without a region', async () => {
    const { handlers } = setup();
    await expect(
      callTool('screenshot', handlers.screenshot, { mode: 'region', region: { x: 0, y: 0, width: 0, height: 5 } }),
    ).rejects.toThrow();
    await expect(callTool('screenshot', handlers.screenshot, { mode: 'region' })).rejects.toThrow(/needs a region/u);
  });

  it('captures a window by title or id, clipped to the screen', async () => {
    const windows = [
      windowInfo('0x1a00007', 'Invoice — Editor', { x: 1700, y: 900, width: 400, height: 300 }),
      windowInfo('0x1c00002', 'Terminal', { x: 590, y: 290, width: 220, height: 120 }),
    ];
    const { services, handlers } = setup({ windows });
    const editor = (await callTool('screenshot', handlers.screenshot, { window_title: 'invoice' })) as Shot;
    expect(editor).toMatchObject({ width: 220, height: 180, scale: 1 });
    expect((await services.screenSpace.current()).area).toEqual({ x: 1700, y: 900, width: 220, height: 180 });
    await callTool('screenshot', handlers.screenshot, { mode: 'window', window_title: '0x1c00002' });
    expect((await services.screenSpace.current()).area).toEqual({ x: 590, y: 290, width: 220, height: 120 });
  });

  it('names the open windows when none matches, and refuses minimized or off-screen ones', async () => {
    const windows = [
      windowInfo('0x1', 'Mail', { x: 0, y: 0, width: 100, height: 100 }, { minimized: true }),
      windowInfo('0x2', 'Far away', { x: 5000, y: 0, width: 100, height: 100 }),
    ];
    const { handlers } = setup({ windows });
    const unknown = callTool('screenshot', handlers.screenshot, { mode: 'window', window_title: 'Calculator' });
    await expect(unknown).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(unknown).rejects.toThrow(/"Mail".*"Far away"/u);
    await expect(callTool('screenshot', handlers.screenshot, { window_title: 'Mail' })).rejects.toThrow(/minimized/u);
    await expect(callTool('screenshot', handlers.screenshot, { window_title: 'Far' })).rejects.toThrow(
      /off the screen .*1920×1080/u,
    );
    await expect(
      callTool('screenshot', handlers.screenshot, {
        window_title: 'Mail',
        region: { x: 0, y: 0, width: 5, height: 5 },
      }),
    ).rejects.toBeInstanceOf(AppError);
  });

  it('says whether the screen changed since the previous screenshot of the same area, and where', async () => {
    let dialog = false;
    const box = { x: 960, y: 540, width: 100, height: 50 };
    const { handlers } = setup({ paint: (x, y) => (dialog && inside(box, x, y) ? [255, 255, 255] : [0, 0, 0]) });
    await callTool('screenshot', handlers.screenshot, {});
    const same = (await callTool('screenshot', handlers.screenshot, {})) as Shot;
    expect(same.changed).toBe(false);
    expect(same.changed_region).toBeUndefined();
    dialog = true;
    const changed = (await callTool('screenshot', handlers.screenshot, {})) as Shot;
    expect(changed.changed).toBe(true);
    // Cells 960..1071 × 528..591 on screen → image pixels.
    expect(changed.changed_region).toEqual({ x: 715, y: 393, width: 84, height: 48 });
    const region = (await callTool('screenshot', handlers.screenshot, {
      region: { x: 0, y: 0, width: 10, height: 10 },
    })) as Shot;
    expect(region.changed).toBeUndefined();
  });

  it('sends large images by reference and small ones inline', async () => {
    const small = setup();
    const inline = (await callTool('screenshot', small.handlers.screenshot, { quality: 50 })) as Shot;
    expect(inline.image.startsWith('blob:')).toBe(false);
    expect((await sharp(Buffer.from(inline.image, 'base64')).metadata()).format).toBe('jpeg');

    const fake = createFakeDesktop({
      size: { width: 800, height: 600 },
      paint: (x, y) => [x % 256, y % 256, (x * y) % 256],
    });
    const blobs = new MemoryBlobStore(1024);
    const { handlers } = createScreenHandlers(testServices(fake.desktop, blobs));
    const shot = (await callTool('screenshot', handlers.screenshot, { format: 'png' })) as Shot;
    expect(shot.image).toMatch(/^blob:/u);
    expect((await sharp(blobs.get(shot.image).data).metadata()).format).toBe('png');
  });
});

describe('screen_ocr and element_locate on the screen', () => {
  // Words at screen pixels; the OCR sees the full-resolution capture.
  const words = [
    { text: 'Submit', bounds: { x: 1000, y: 500, width: 80, height: 20 } },
    { text: 'Cancel', bounds: { x: 1200, y: 500, width: 80, height: 20 } },
  ];

  it("reads the latest screenshot's area at full resolution and returns bounds in its image pixels", async () => {
    const ocr = new ScriptedOcr(words);
    const { handlers } = setup({ ocr });
    await callTool('screenshot', handlers.screenshot, {});
    const result = (await callTool('screen_ocr', handlers.screen_ocr, {})) as {
      text: string;
      blocks: Array<{ text: string; bounds: Rect; confidence: number }>;
    };
    expect(ocr.seen).toEqual([{ width: 1920, height: 1080 }]);
    expect(result.text).toBe('Submit\nCancel');
    // 1000..1080 × 500..520 on screen, × 1430/1920 and 804/1080.
    expect(result.blocks[0]).toEqual({
      text: 'Submit',
      bounds: { x: 744, y: 372, width: 61, height: 16 },
      confidence: 0.9,
    });
  });

  it('reads only a region (in screenshot pixels) and maps back from it', async () => {
    const ocr = new ScriptedOcr([{ text: 'Submit', bounds: { x: 10, y: 4, width: 80, height: 20 } }]);
    const { handlers } = setup({ ocr });
    await callTool('screenshot', handlers.screenshot, {});
    const result = (await callTool('screen_ocr', handlers.screen_ocr, {
      region: { x: 737, y: 369, width: 100, height: 30 },
    })) as { blocks: Array<{ bounds: Rect }> };
    // The region starts at screen (989, 495); the word at +10,+4 is screen 999..1079 × 499..519.
    expect(ocr.seen).toEqual([{ width: 135, height: 41 }]);
    expect(result.blocks[0]!.bounds).toEqual({ x: 744, y: 371, width: 60, height: 16 });
  });

  it('locates "the Submit button": its centre, clicked, is on the word on screen', async () => {
    const { services, handlers } = setup({ ocr: new ScriptedOcr(words) });
    await callTool('screenshot', handlers.screenshot, {});
    const found = (await callTool('element_locate', handlers.element_locate, {
      description: 'the Submit button',
    })) as { found: boolean; elements: Array<{ center: { x: number; y: number }; bounds: Rect; confidence: number }> };
    expect(found.found).toBe(true);
    expect(found.elements).toHaveLength(1);
    const target = await services.screenSpace.toScreen(found.elements[0]!.center);
    expect(inside(words[0]!.bounds, target.x, target.y)).toBe(true);
    expect(found.elements[0]!.confidence).toBeCloseTo(0.9);
  });

  it('says what it saw instead when nothing matches', async () => {
    const { handlers } = setup({ ocr: new ScriptedOcr(words) });
    const result = (await callTool('element_locate', handlers.element_locate, {
      description: 'the Save button',
    })) as { found: boolean; elements: unknown[]; message: string };
    expect(result).toMatchObject({ found: false, elements: [] });
    expect(result.message).toContain('"Cancel"');
  });

  it('refuses bad images and unknown languages', async () => {
    const { handlers } = setup({ ocr: new ScriptedOcr(words) });
    await expect(callTool('screen_ocr', handlers.screen_ocr, { image: 'not an image!' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(
      callTool('screen_ocr', handlers.screen_ocr, { image: Buffer.from('hello').toString('base64') }),
    ).rejects.toThrow(/could not be read/u);
    await expect(callTool('screen_ocr', handlers.screen_ocr, { language: 'klingon' })).rejects.toThrow(
      /not available/u,
    );
    await expect(callTool('screen_ocr', handlers.screen_ocr, { image: 'blob:nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('screen_ocr and element_locate on a given image (real Tesseract)', () => {
  const { handlers, group } = setup();
  afterAll(async () => group.dispose?.());

  it('reads text from a base64 PNG, bounds in its pixels, and finds a button by its label', async () => {
    const png = await sharp({ text: { text: 'Name: Ada   Save changes', font: 'DejaVu Sans 20', dpi: 96, rgba: true } })
      .flatten({ background: '#ffffff' })
      .extend({ top: 30, bottom: 30, left: 40, right: 40, background: '#ffffff' })
      .png()
      .toBuffer();
    const { width } = await sharp(png).metadata();
    const base64 = png.toString('base64');
    const read = (await callTool('screen_ocr', handlers.screen_ocr, { image: base64, language: 'eng' })) as {
      text: string;
      blocks: Array<{ bounds: Rect; confidence: number }>;
    };
    expect(read.text).toMatch(/Name: Ada\s+Save changes/u);
    expect(read.blocks[0]!.bounds.x).toBeGreaterThanOrEqual(35);
    expect(read.blocks[0]!.bounds.x + read.blocks[0]!.bounds.width).toBeLessThanOrEqual(width!);
    const located = (await callTool('element_locate', handlers.element_locate, {
      description: 'the "Save changes" button',
      image: `data:image/png;base64,${base64}`,
    })) as { found: boolean; elements: Array<{ center: { x: number }; bounds: Rect }> };
    expect(located.found).toBe(true);
    const save = located.elements[0]!;
    expect(save.bounds.x).toBeGreaterThan(read.blocks[0]!.bounds.x + 50);
    expect(save.center.x).toBeGreaterThan(save.bounds.x);
    expect(save.center.x).toBeLessThan(save.bounds.x + save.bounds.width);
  }, 60_000);
});
