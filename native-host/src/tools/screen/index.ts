import path from 'node:path';

import { AppError } from '@nextai/shared';

import type { Rect } from '../../platform/desktop.js';
import { findWindow, describeWindow } from '../apps/window-match.js';
import { scaleFor, scaledSize, type ImageFrame } from '../screen-space.js';
import type { HandlerGroup, HostServices } from '../types.js';
import { ChangeDetector } from './change-detection.js';
import { OcrElementLocator, type ElementLocator } from './element-locator.js';
import { decodeImage, scaleAndEncode } from './encode.js';
import { clipRect, describeRect, fullScreen, imageRegionToScreen, screenRectToImage } from './geometry.js';
import { OcrEngine, parseLanguage, readText } from './ocr.js';
import { preparePixels, type RgbPixels } from './pixels.js';

type ScreenTool = 'screenshot' | 'screen_ocr' | 'element_locate';

export interface ScreenHandlerOptions {
  /** The OCR engine (default: one of its own, its language links under the data directory). */
  ocr?: OcrEngine;
  /** How element_locate finds elements (default: by OCR text). */
  locator?: ElementLocator;
}

/**
 * `screenshot`, `screen_ocr` and `element_locate`.
 *
 * Coordinates: every screenshot becomes the coordinate space of the mouse tools (ScreenSpace
 * `remember`): its captured screen area, and its image size after scaling (long edge ≤ 1568 px,
 * ≤ 1.15 MP). A `region` given to any of these tools is in pixels of the latest screenshot, and
 * the bounds and centres that screen_ocr and element_locate return are too (ready for
 * left_click) — unless an `image` is given, whose own pixels they are in then.
 *
 * screen_ocr and element_locate without an image capture the latest screenshot's screen area
 * anew at full resolution (small text reads far better unscaled) and map what they find into
 * that screenshot's pixels; they do not change the coordinate space.
 */
export function createScreenHandlers(
  services: HostServices,
  options: ScreenHandlerOptions = {},
): HandlerGroup<ScreenTool> {
  const { screen, windows } = services.desktop;
  const space = services.screenSpace;
  const changes = new ChangeDetector();
  const ocr =
    options.ocr ??
    new OcrEngine({
      languageDir: path.join(services.paths.dataDir, 'ocr', 'tessdata'),
      log: services.log.child('ocr'),
    });
  const locator = options.locator ?? new OcrElementLocator(ocr);

  /** What `screenshot` should capture, in screen pixels. */
  async function screenshotArea(input: {
    mode: 'fullscreen' | 'window' | 'region';
    window_title?: string | undefined;
    region?: Rect | undefined;
  }): Promise<Rect> {
    if (input.window_title !== undefined && input.region !== undefined) {
      throw new AppError(
        'INVALID_INPUT',
        'Give either window_title (mode "window") or region (mode "region"), not both.',
      );
    }
    // The mode may be left at its default when a window or region says what is meant.
    const mode =
      input.mode === 'fullscreen' && input.window_title !== undefined
        ? 'window'
        : input.mode === 'fullscreen' && input.region !== undefined
          ? 'region'
          : input.mode;
    const size = await screen.screenSize();
    if (mode === 'fullscreen') return fullScreen(size);
    if (mode === 'region') {
      if (!input.region) {
        throw new AppError(
          'INVALID_INPUT',
          'Mode "region" needs a region {x, y, width, height} in pixels of the latest screenshot.',
        );
      }
      return imageRegionToScreen(input.region, await space.current());
    }
    if (!input.window_title) {
      throw new AppError(
        'INVALID_INPUT',
        'Mode "window" needs window_title: part of the window\'s title, or its id from app_list.',
      );
    }
    const window = findWindow(await windows.listWindows(), input.window_title);
    if (window.minimized) {
      throw new AppError(
        'INVALID_INPUT',
        `The window ${describeWindow(window)} is minimized, so there is nothing of it on screen. Restore it first (window_manage with action "restore", or app_switch).`,
      );
    }
    const visible = clipRect(window.bounds, fullScreen(size));
    if (!visible) {
      throw new AppError(
        'INVALID_INPUT',
        `The window ${describeWindow(window)} is off the screen (at ${describeRect(window.bounds)}; the screen is ${size.width}×${size.height}). Move it onto the screen with window_manage.`,
      );
    }
    return visible;
  }

  /** The picture OCR-based tools read: a given image, or the screen (area of the latest screenshot). */
  async function picture(
    image: string | undefined,
    region: Rect | undefined,
  ): Promise<{ pixels: RgbPixels; toOutput: (rect: Rect) => Rect }> {
    if (image !== undefined) {
      let pixels = await decodeImage(imageBytes(image));
      let offset = { x: 0, y: 0 };
      if (region) {
        const inside = clipRect(region, { x: 0, y: 0, width: pixels.width, height: pixels.height });
        if (!inside) {
          throw new AppError(
            'INVALID_INPUT',
            `The region ${describeRect(region)} is outside the image, which is ${pixels.width}×${pixels.height}.`,
          );
        }
        pixels = cropPixels(pixels, inside);
        offset = inside;
      }
      return { pixels, toOutput: (rect) => ({ ...rect, x: rect.x + offset.x, y: rect.y + offset.y }) };
    }
    const frame = await space.current();
    const area = region ? imageRegionToScreen(region, frame) : frame.area;
    const { pixels } = preparePixels(await screen.capture(area));
    return {
      pixels,
      toOutput: (rect) => screenRectToImage({ ...rect, x: rect.x + area.x, y: rect.y + area.y }, frame),
    };
  }

  function imageBytes(image: string): Buffer {
    if (image.startsWith('blob:')) return services.blobs.get(image).data;
    const base64 = image.replace(/^data:[^;,]*;base64,/u, '').replace(/\s+/gu, '');
    if (!base64 || !/^[A-Za-z0-9+/_-]+={0,2}$/u.test(base64)) {
      throw new AppError(
        'INVALID_INPUT',
        'image must be a base64-encoded PNG or JPEG (optionally as a data: URL), or a blob: reference returned by screenshot.',
      );
    }
    return Buffer.from(base64, 'base64');
  }

  return {
    handlers: {
      screenshot: async (input, context) => {
        const area = await screenshotArea(input);
        context.signal.throwIfAborted();
        const timestamp = Date.now();
        const { pixels, signature } = preparePixels(await screen.capture(area));
        const exactScale = scaleFor(area);
        const image = scaledSize(area, exactScale);
        // Reported to 6 decimals; mapping uses the image and area sizes, which are exact.
        const scale = Math.round(exactScale * 1e6) / 1e6;
        const encoded = await scaleAndEncode(pixels, image, input.format, input.quality);
        const frame: ImageFrame = { area, scale, image };
        space.remember(frame);
        const change = changes.observe(signature, frame);
        return {
          image: services.blobs.inlineOrReference(encoded, input.format === 'png' ? 'image/png' : 'image/jpeg'),
          format: input.format,
          width: image.width,
          height: image.height,
          scale,
          timestamp,
          ...(change ? { changed: change.changed } : {}),
          ...(change?.region ? { changed_region: change.region } : {}),
        };
      },

      screen_ocr: async (input, context) => {
        const { pixels, toOutput } = await picture(input.image, input.region);
        const lines = await readText(ocr, pixels, parseLanguage(input.language), context.signal);
        return {
          text: lines.map((line) => line.text).join('\n'),
          blocks: lines.map((line) => ({
            text: line.text,
            bounds: toOutput(line.bounds),
            confidence: Math.round(line.confidence * 1000) / 1000,
          })),
        };
      },

      element_locate: async (input, context) => {
        const { pixels, toOutput } = await picture(input.image, undefined);
        const result = await locator.locate(input.description, pixels, context.signal);
        const elements = result.elements.map((element) => {
          const bounds = toOutput(element.bounds);
          return {
            description: element.description,
            bounds,
            center: centreOf(bounds),
            confidence: element.confidence,
          };
        });
        if (elements.length > 0) return { found: true, elements };
        const seen =
          result.closest.length > 0
            ? `The closest text on screen: ${result.closest.join(', ')}.`
            : 'No text close to it was read on screen.';
        return {
          found: false,
          elements: [],
          message: `Nothing matching "${input.description}" was found by reading the text on screen. ${seen} Describe it by its visible text, or take a screenshot and look.`,
        };
      },
    },
    dispose: () => ocr.dispose(),
  };
}

/** The pixel at the middle of `rect` (whole pixels, inside it): what a click should aim at. */
function centreOf(rect: Rect): { x: number; y: number } {
  return { x: rect.x + Math.floor((rect.width - 1) / 2), y: rect.y + Math.floor((rect.height - 1) / 2) };
}

function cropPixels(pixels: RgbPixels, rect: Rect): RgbPixels {
  const { channels } = pixels;
  const data = Buffer.allocUnsafe(rect.width * rect.height * channels);
  for (let row = 0; row < rect.height; row++) {
    const start = ((rect.y + row) * pixels.width + rect.x) * channels;
    pixels.data.copy(data, row * rect.width * channels, start, start + rect.width * channels);
  }
  return { width: rect.width, height: rect.height, channels, data };
}
