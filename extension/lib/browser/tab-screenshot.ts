import { browser } from 'wxt/browser';

import { AppError, type MetricsValue } from '@nextai/shared';

import { callPage } from './page-channel.js';

/**
 * Long edge ≤ 1568 px and ≤ ~1.15 megapixels (the most a vision model takes without scaling the
 * image down itself), JPEG quality 80.
 */
const MAX_EDGE = 1568;
const MAX_PIXELS = 1_150_000;
/** A full-page capture stops after this many screens (very long pages are cut, and it says so). */
const MAX_SCREENS = 12;
/** Chromium allows two captureVisibleTab calls per second (MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND). */
const CAPTURE_INTERVAL_MS = 520;

/** When the last capture was taken, across calls: the quota is the browser's, not per call. */
let lastCapture = 0;

export interface TabShot {
  image: string;
  width: number;
  height: number;
  note: string;
}

/**
 * A screenshot of a tab: the visible area with captureVisibleTab, or the whole page stitched from
 * scrolled captures. Not CDP: the `debugger` permission would put a "being debugged" bar on the
 * person's own browser and give the extension full control of every tab — too much for this.
 * Stitching repeats nothing fixed: fixed and sticky elements are hidden after the first screen.
 */
export async function screenshotTab(tabId: number, windowId: number, url: string, fullPage: boolean): Promise<TabShot> {
  const tab = await browser.tabs.get(tabId);
  if (!tab.active) {
    // captureVisibleTab shows what a window displays: the agent's tab comes to the front first.
    await browser.tabs.update(tabId, { active: true });
  }
  if (!fullPage) {
    const dataUrl = await capture(tabId, windowId);
    const bitmap = await bitmapOf(dataUrl);
    const shot = await encode([{ bitmap, y: 0 }], bitmap.width, bitmap.height);
    return { ...shot, note: 'visible area' };
  }
  const metrics = await pageValue<MetricsValue>(tabId, { op: 'metrics' }, url);
  const screens = Math.min(MAX_SCREENS, Math.ceil(metrics.scroll_height / metrics.viewport_height));
  const captured: { dataUrl: string; scrollY: number }[] = [];
  try {
    for (let screen = 0; screen < screens; screen += 1) {
      const target = screen * metrics.viewport_height;
      const moved = await pageValue<{ scroll_y: number }>(tabId, { op: 'scroll_to', y: target }, url);
      if (screen === 1) await pageValue(tabId, { op: 'hide_fixed', hide: true }, url);
      captured.push({ dataUrl: await capture(tabId, windowId), scrollY: moved.scroll_y });
    }
  } finally {
    await pageValue(tabId, { op: 'hide_fixed', hide: false }, url);
    await pageValue(tabId, { op: 'scroll_to', y: metrics.scroll_y }, url);
  }
  const pieces: { bitmap: ImageBitmap; y: number }[] = [];
  for (const { dataUrl, scrollY } of captured) {
    const bitmap = await bitmapOf(dataUrl);
    pieces.push({ bitmap, y: Math.round(scrollY * (bitmap.width / metrics.viewport_width)) });
  }
  const last = pieces[pieces.length - 1];
  const height = last ? last.y + last.bitmap.height : 0;
  const width = pieces[0]?.bitmap.width ?? 0;
  const shot = await encode(pieces, width, height);
  const cut = screens * metrics.viewport_height < metrics.scroll_height;
  return { ...shot, note: cut ? `the first ${screens} screens of a longer page` : 'whole page' };
}

async function pageValue<T>(tabId: number, request: Parameters<typeof callPage>[1], url: string): Promise<T> {
  const reply = await callPage<T>(tabId, request, url);
  if (!reply.ok) throw new AppError('TOOL_FAILED', reply.error.message);
  return reply.value;
}

/**
 * captureVisibleTab shows whatever tab is in front of the window. The person may switch tabs
 * while a (full-page) capture goes on: a picture of their own tab would go to the model. So the
 * agent's tab must be the window's active tab right before and right after each capture.
 */
async function requireInFront(tabId: number, windowId: number): Promise<void> {
  const [active] = await browser.tabs.query({ active: true, windowId });
  if (active?.id === tabId) return;
  throw new AppError(
    'TOOL_FAILED',
    `The screenshot was stopped: another tab came to the front of the window (the person may have switched tabs), and the screenshot would have shown it instead of the agent's tab ${tabId}. Try again when the person is not using that window.`,
  );
}

/** One captureVisibleTab of the agent's tab, spaced from the previous one to stay within the browser's quota. */
async function capture(tabId: number, windowId: number): Promise<string> {
  for (let attempt = 0; ; attempt += 1) {
    const wait = lastCapture + CAPTURE_INTERVAL_MS - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastCapture = performance.now();
    await requireInFront(tabId, windowId);
    let image: string;
    try {
      image = await browser.tabs.captureVisibleTab(windowId, { format: 'png' });
    } catch (error) {
      const message = (error as Error).message;
      // Another caller (or a restarted worker) may have used the quota: wait a full second once.
      if (attempt === 0 && /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(message)) {
        lastCapture = performance.now() + 1000 - CAPTURE_INTERVAL_MS;
        continue;
      }
      throw new AppError('TOOL_FAILED', `The browser refused the screenshot: ${message}`);
    }
    await requireInFront(tabId, windowId);
    return image;
  }
}

async function bitmapOf(dataUrl: string): Promise<ImageBitmap> {
  const blob = await (await fetch(dataUrl)).blob();
  return createImageBitmap(blob);
}

async function encode(
  pieces: { bitmap: ImageBitmap; y: number }[],
  width: number,
  height: number,
): Promise<Omit<TabShot, 'note'>> {
  const factor = Math.min(1, MAX_EDGE / Math.max(width, height), Math.sqrt(MAX_PIXELS / (width * height)));
  const outWidth = Math.max(1, Math.round(width * factor));
  const outHeight = Math.max(1, Math.round(height * factor));
  const canvas = new OffscreenCanvas(outWidth, outHeight);
  const context = canvas.getContext('2d');
  if (!context) throw new AppError('TOOL_FAILED', 'The browser has no 2D canvas for the screenshot.');
  for (const { bitmap, y } of pieces) {
    context.drawImage(
      bitmap,
      0,
      Math.round(y * factor),
      Math.round(bitmap.width * factor),
      Math.round(bitmap.height * factor),
    );
    bitmap.close();
  }
  const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.8 });
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { image: btoa(binary), width: outWidth, height: outHeight };
}
