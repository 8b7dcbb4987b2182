import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import sharp, { type OutputInfo } from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { Desktop, Rect } from '../../native-host/src/platform/desktop.js';
import { createLinuxDesktop } from '../../native-host/src/platform/linux/index.js';
import { runCommand } from '../../native-host/src/core/subprocess.js';
import { createScreenHandlers } from '../../native-host/src/tools/screen/index.js';
import { callTool, MemoryBlobStore, testServices } from '../../native-host/src/tools/test-support.js';
import type { HandlerGroup, HostServices } from '../../native-host/src/tools/types.js';
import { openXterm, startXServer, waitForWindow, type XServer } from '../support/x-server.js';

/**
 * screenshot, screen_ocr and element_locate against a real X server (Xvfb 1920×1080 + openbox):
 * ImageMagick `display` shows a picture drawn with known coloured boxes and known text (English,
 * and Chinese in a CJK font), at a position read back with xwininfo.
 */

type ScreenGroup = HandlerGroup<'screenshot' | 'screen_ocr' | 'element_locate'>;

interface Shot {
  image: string;
  width: number;
  height: number;
  scale: number;
  changed?: boolean;
  changed_region?: Rect;
}

let server: XServer;
let desktop: Desktop;
let services: HostServices;
let blobs: MemoryBlobStore;
let group: ScreenGroup;
let workDir: string;
let picture: ChildProcess;
/** Where the picture's top-left pixel is on screen. */
let origin: { x: number; y: number };
const children: ChildProcess[] = [];

// In the picture's own pixels.
const RED: Rect = { x: 100, y: 60, width: 200, height: 100 };
const BUTTON: Rect = { x: 480, y: 360, width: 180, height: 60 };
const HELLO_BASELINE = { x: 40, y: 280 };
const CHINESE_BASELINE = { x: 40, y: 460 };

beforeAll(async () => {
  server = await startXServer({ width: 1920, height: 1080 });
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-screen-'));
  const cjkFont = await findCjkFont();
  const file = path.join(workDir, 'picture.png');
  await runCommand(
    'convert',
    [
      '-size',
      '800x520',
      'xc:white',
      '-fill',
      'rgb(255,0,0)',
      '-draw',
      rectangle(RED),
      '-fill',
      'rgb(225,225,225)',
      '-stroke',
      'black',
      '-draw',
      rectangle(BUTTON),
      '-stroke',
      'none',
      '-fill',
      'black',
      '-font',
      'DejaVu-Sans',
      '-pointsize',
      '28',
      '-draw',
      `text ${BUTTON.x + 45},${BUTTON.y + 40} 'Submit'`,
      '-pointsize',
      '48',
      '-draw',
      `text ${HELLO_BASELINE.x},${HELLO_BASELINE.y} 'Hello 123'`,
      '-font',
      cjkFont,
      '-pointsize',
      '40',
      '-draw',
      `text ${CHINESE_BASELINE.x},${CHINESE_BASELINE.y} '你好世界'`,
      file,
    ],
    { timeoutMs: 20_000 },
  );
  picture = spawn('display', ['-title', 'nx-screen-picture', '-geometry', '+300+200', file], {
    env: server.env,
    stdio: 'ignore',
  });
  children.push(picture);
  const id = await waitForWindow(server, 'nx-screen-picture');
  origin = await absolutePosition(id);
  desktop = createLinuxDesktop(server.env, workDir);
  // The window is mapped before `display` has drawn into it (slowly, on a busy machine): wait
  // until the red box shows on screen before any test looks at it.
  const red = onScreen(RED);
  await until('the picture to be drawn', async () => {
    const pixel = await desktop.screen.capture({
      x: red.x + red.width / 2,
      y: red.y + red.height / 2,
      width: 1,
      height: 1,
    });
    const [first, , third] = pixel.data;
    const [r, b] = pixel.order === 'rgb' ? [first, third] : [third, first];
    return r === 255 && pixel.data[1] === 0 && b === 0 ? true : undefined;
  });
  blobs = new MemoryBlobStore(64 * 1024 * 1024);
  services = testServices(desktop, blobs);
  group = createScreenHandlers(services);
}, 60_000);

afterAll(async () => {
  await group?.dispose?.();
  for (const child of children) child.kill('SIGKILL');
  await server?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

function rectangle(rect: Rect): string {
  return `rectangle ${rect.x},${rect.y} ${rect.x + rect.width - 1},${rect.y + rect.height - 1}`;
}

async function findCjkFont(): Promise<string> {
  const { stdout } = await runCommand('fc-list', [':lang=zh', 'file'], {});
  const font = stdout
    .split('\n')
    .map((line) => line.replace(/:\s*$/u, '').trim())
    .find(Boolean);
  if (!font) throw new Error('No font with Chinese glyphs: run scripts/install-system-deps.sh (fonts-droid-fallback).');
  return font;
}

/** Polls `probe` every 50 ms, for at most 10 s, until it gives a value (not undefined); returns it. */
const until = <T>(what: string, probe: () => Promise<T | undefined>) =>
  vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error(`waiting for ${what}`);
      return value;
    },
    { timeout: 10_000, interval: 50 },
  );

async function absolutePosition(windowId: string): Promise<{ x: number; y: number }> {
  const { stdout } = await runCommand('xwininfo', ['-id', windowId], { env: { DISPLAY: server.display } });
  const x = /Absolute upper-left X:\s+(-?\d+)/u.exec(stdout)?.[1];
  const y = /Absolute upper-left Y:\s+(-?\d+)/u.exec(stdout)?.[1];
  return { x: Number(x), y: Number(y) };
}

/** A rectangle of the picture, on screen. */
const onScreen = (rect: Rect): Rect => ({ ...rect, x: rect.x + origin.x, y: rect.y + origin.y });
const inside = (rect: Rect, point: { x: number; y: number }) =>
  point.x >= rect.x && point.x < rect.x + rect.width && point.y >= rect.y && point.y < rect.y + rect.height;

async function pixels(shot: Shot) {
  const bytes = shot.image.startsWith('blob:') ? blobs.get(shot.image).data : Buffer.from(shot.image, 'base64');
  return sharp(bytes).raw().toBuffer({ resolveWithObject: true });
}

function colourAt(image: { data: Buffer; info: OutputInfo }, x: number, y: number): number[] {
  const offset = (y * image.info.width + x) * image.info.channels;
  return [image.data[offset]!, image.data[offset + 1]!, image.data[offset + 2]!];
}

describe('screenshot of a real screen', () => {
  it('scales 1920×1080 to 1430×804; the red box is red where the scale puts it, and maps back onto it', async () => {
    const shot = (await callTool('screenshot', group.handlers.screenshot, { format: 'png' })) as Shot;
    expect(shot).toMatchObject({ width: 1430, height: 804 });
    expect(shot.scale).toBeCloseTo(1430 / 1920, 3);
    const image = await pixels(shot);
    expect(image.info).toMatchObject({ width: 1430, height: 804 });
    const red = onScreen(RED);
    const centre = { x: red.x + red.width / 2, y: red.y + red.height / 2 };
    const imagePoint = { x: Math.floor((centre.x * 1430) / 1920), y: Math.floor((centre.y * 804) / 1080) };
    expect(colourAt(image, imagePoint.x, imagePoint.y)).toEqual([255, 0, 0]);
    // Just outside the box (6 image px left of it) the picture is white.
    expect(colourAt(image, Math.floor((red.x * 1430) / 1920) - 6, imagePoint.y)).toEqual([255, 255, 255]);
    expect(inside(red, await services.screenSpace.toScreen(imagePoint))).toBe(true);
  });

  it("captures the picture's window at full scale, its frame included", async () => {
    const window = (await desktop.windows.listWindows()).find((candidate) => candidate.title === 'nx-screen-picture')!;
    const shot = (await callTool('screenshot', group.handlers.screenshot, {
      mode: 'window',
      window_title: 'nx-screen-pic',
      format: 'png',
    })) as Shot;
    expect(shot).toMatchObject({ width: window.bounds.width, height: window.bounds.height, scale: 1 });
    const image = await pixels(shot);
    const red = onScreen(RED);
    // The red box's first pixel, relative to the window's frame.
    expect(colourAt(image, red.x - window.bounds.x, red.y - window.bounds.y)).toEqual([255, 0, 0]);
    expect(colourAt(image, red.x - window.bounds.x - 1, red.y - window.bounds.y)).toEqual([255, 255, 255]);
    // The window capture is now the coordinate space: its pixel (x, y) is screen pixel frame + (x, y).
    expect(await services.screenSpace.toScreen({ x: red.x - window.bounds.x, y: red.y - window.bounds.y })).toEqual({
      x: red.x,
      y: red.y,
    });
  });

  it('refuses a window that does not exist, naming the open ones', async () => {
    await expect(
      callTool('screenshot', group.handlers.screenshot, { mode: 'window', window_title: 'No such window 42' }),
    ).rejects.toThrow(/No window has the id or a title containing "No such window 42".*nx-screen-picture/u);
  });

  it('refuses off-screen capture regions in the adapter, naming the screen size', async () => {
    await expect(desktop.screen.capture({ x: 1900, y: 0, width: 100, height: 10 })).rejects.toThrow(/1920×1080/u);
    await expect(desktop.screen.capture({ x: 0, y: 0, width: 0, height: 10 })).rejects.toThrow(/empty/u);
  });

  it('reports no change for a still screen, then where a window grew', async () => {
    const { child, windowId } = await openXterm(server, 'nx-screen-change', ['-geometry', '40x10+1300+650']);
    children.push(child);
    const shot = async () => (await callTool('screenshot', group.handlers.screenshot, {})) as Shot;
    // Once the new window is drawn and focus has settled, two screenshots in a row are the same.
    await until('a still screen', async () => ((await shot()).changed === false ? true : undefined));
    await runCommand('xdotool', ['windowsize', windowId, '520', '330'], { env: { DISPLAY: server.display } });
    const changed = await until('the change to be seen', async () => {
      const next = await shot();
      return next.changed ? next : undefined;
    });
    const window = (await desktop.windows.listWindows()).find((candidate) => candidate.title === 'nx-screen-change')!;
    const toImage = (x: number, y: number) => ({
      x: Math.floor((x * 1430) / 1920),
      y: Math.floor((y * 804) / 1080),
    });
    const region = changed.changed_region!;
    const far = window.bounds;
    // The grown part (near the new bottom-right corner) changed…
    expect(inside(region, toImage(far.x + far.width - 8, far.y + far.height - 8))).toBe(true);
    // …and nothing outside the window (give or take one 16-px cell): not the picture, not the desktop.
    const topLeft = toImage(far.x - 16, far.y - 16);
    const bottomRight = toImage(far.x + far.width + 16, far.y + far.height + 16);
    expect(region.x).toBeGreaterThanOrEqual(topLeft.x);
    expect(region.y).toBeGreaterThanOrEqual(topLeft.y);
    expect(region.x + region.width).toBeLessThanOrEqual(bottomRight.x);
    expect(region.y + region.height).toBeLessThanOrEqual(bottomRight.y);
    child.kill('SIGKILL');
  });
});

describe('OCR of a real screen', () => {
  it('reads "Hello 123" where it was drawn, in screenshot pixels', async () => {
    await callTool('screenshot', group.handlers.screenshot, {});
    const result = (await callTool('screen_ocr', group.handlers.screen_ocr, { language: 'eng' })) as {
      text: string;
      blocks: Array<{ text: string; bounds: Rect; confidence: number }>;
    };
    expect(result.text).toContain('Hello 123');
    const hello = result.blocks.find((block) => block.text.includes('Hello 123'))!;
    expect(hello.confidence).toBeGreaterThan(0.8);
    // The middle of the block, clicked, is on the drawn text (48 px high, starting at the baseline's x).
    const middle = await services.screenSpace.toScreen({
      x: hello.bounds.x + Math.floor(hello.bounds.width / 2),
      y: hello.bounds.y + Math.floor(hello.bounds.height / 2),
    });
    const textBox = onScreen({ x: HELLO_BASELINE.x, y: HELLO_BASELINE.y - 40, width: 240, height: 52 });
    expect(inside(textBox, middle)).toBe(true);
  }, 60_000);

  it('reads Chinese text in auto mode (and with chi_sim), within a region', async () => {
    await callTool('screenshot', group.handlers.screenshot, {});
    const top = onScreen({ x: 0, y: CHINESE_BASELINE.y - 60, width: 400, height: 90 });
    const region = {
      x: Math.floor((top.x * 1430) / 1920),
      y: Math.floor((top.y * 804) / 1080),
      width: Math.ceil((top.width * 1430) / 1920),
      height: Math.ceil((top.height * 804) / 1080),
    };
    for (const language of ['auto', 'chi_sim']) {
      const result = (await callTool('screen_ocr', group.handlers.screen_ocr, { language, region })) as {
        text: string;
      };
      expect(result.text.replace(/\s+/gu, '')).toContain('你好世界');
    }
  }, 90_000);

  it('locates the Submit button; its centre maps onto the button on screen', async () => {
    await callTool('screenshot', group.handlers.screenshot, {});
    const result = (await callTool('element_locate', group.handlers.element_locate, {
      description: 'the Submit button',
    })) as { found: boolean; elements: Array<{ center: { x: number; y: number }; confidence: number }> };
    expect(result.found).toBe(true);
    const target = await services.screenSpace.toScreen(result.elements[0]!.center);
    expect(inside(onScreen(BUTTON), target)).toBe(true);
    expect(result.elements[0]!.confidence).toBeGreaterThan(0.6);

    const missing = (await callTool('element_locate', group.handlers.element_locate, {
      description: 'the Delete button',
    })) as { found: boolean; message: string };
    expect(missing.found).toBe(false);
    expect(missing.message).toContain('Nothing matching "the Delete button"');
  }, 60_000);
});
