// macOS screen capture: `screencapture -x -t png [-m | -R x,y,w,h] <file>`, decoded with sharp.
//
// Not run on a real macOS machine; command construction and parsing are unit-tested, and the
// PNG decoding and scaling run for real in the tests.
//
// Screen pixels on macOS are points: the global display coordinates CGEvent and the Accessibility
// API use (0,0 is the top-left of the main display). screencapture writes backing pixels (twice the
// points on a Retina display), so a capture is scaled to its size in points: then a screenshot
// pixel is exactly the point the mouse adapter moves to. The full screen is the main display (the
// one with the menu bar, always at 0,0): other displays are reached with region captures, whose
// x/y may be negative. ScreenCaptureKit would need a compiled helper: out of scope here.
//
// Without the Screen Recording permission, screencapture either fails ("could not create image
// from display") or — on older systems — silently returns only the wallpaper, so every capture
// also asks CGPreflightScreenCaptureAccess() (macOS 11+) and refuses with the setting to change.
import fs from 'node:fs';

import { AppError } from '@nextai/shared';
import { z } from 'zod';

import type { RawImage, Rect, ScreenAdapter, Size } from '../desktop.js';
import { checkRegion } from '../region.js';
import { SCREEN_RECORDING_MESSAGE, resolveOptions, type MacosAdapterOptions } from './jxa.js';
import { failureStderr, type CommandSpec } from '../command-exec.js';
import { withTemporaryFile } from '../temporary-file.js';

export const MACOS_SCREEN_INFO_SCRIPT = String.raw`
ObjC.import('AppKit');
ObjC.import('CoreGraphics');
function screenRecordingAllowed() {
  try {
    ObjC.bindFunction('CGPreflightScreenCaptureAccess', ['bool', []]);
    return $.CGPreflightScreenCaptureAccess();
  } catch (error) {
    return null; // before macOS 11: cannot tell
  }
}
function main(request) {
  var screens = $.NSScreen.screens;
  if (screens.count === 0) nextaiFail('UNAVAILABLE', 'macOS reports no display (a closed laptop lid without an external screen?).');
  var primary = screens.objectAtIndex(0);
  var frame = primary.frame;
  return {
    width: frame.size.width,
    height: frame.size.height,
    backingScale: primary.backingScaleFactor,
    screenRecording: request.checkPermission ? screenRecordingAllowed() : null,
  };
}
`;

export const screenInfoSchema = z.object({
  width: z.number().positive(),
  height: z.number().positive(),
  backingScale: z.number().positive(),
  screenRecording: z.boolean().nullable(),
});

/** `-x` no shutter sound; `-m` the main display only; `-R` a rectangle in points. */
export function screencaptureCommand(file: string, region?: Rect): CommandSpec {
  const area = region ? checkRegion(region) : undefined;
  return {
    command: 'screencapture',
    args: ['-x', '-t', 'png', area ? `-R${area.x},${area.y},${area.width},${area.height}` : '-m', file],
  };
}

/** A failed screencapture: a refused permission becomes the message that names the setting. */
export function screencaptureFailure(error: unknown): unknown {
  if (!(error instanceof AppError) || error.code !== 'TOOL_FAILED') return error;
  const stderr = failureStderr(error);
  if (/could not create image|not permitted|screen ?recording|not authori[sz]ed/i.test(stderr)) {
    return new AppError('UNAVAILABLE', SCREEN_RECORDING_MESSAGE, { cause: error });
  }
  return new AppError('TOOL_FAILED', `screencapture failed: ${stderr || error.message}`, { cause: error });
}

/** PNG from screencapture → raw RGB at `size` points (scaled down from backing pixels). */
export async function decodeCapture(png: Buffer, size: Size): Promise<RawImage> {
  const { default: sharp } = await import('sharp');
  let pipeline = sharp(png).removeAlpha();
  const metadata = await sharp(png).metadata();
  if (metadata.width !== size.width || metadata.height !== size.height) {
    pipeline = pipeline.resize(size.width, size.height, { fit: 'fill' });
  }
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: 3, order: 'rgb', data };
}

const CAPTURE_TIMEOUT_MS = 15_000;

export function createMacosScreen(options: MacosAdapterOptions = {}): ScreenAdapter {
  const { exec, jxa } = resolveOptions(options);
  const screenInfo = async (checkPermission: boolean) =>
    screenInfoSchema.parse(await jxa.run(MACOS_SCREEN_INFO_SCRIPT, { checkPermission }));

  return {
    async screenSize() {
      const info = await screenInfo(false);
      return { width: Math.round(info.width), height: Math.round(info.height) };
    },

    async capture(region) {
      const area = region ? checkRegion(region) : undefined;
      return withTemporaryFile('nextai-capture-', 'screen.png', async (file) => {
        // Both at once: the permission check costs no extra wall time. Both settle before the
        // temporary directory goes.
        const [infoResult, captureResult] = await Promise.allSettled([
          screenInfo(true),
          exec(screencaptureCommand(file, area), { timeoutMs: CAPTURE_TIMEOUT_MS }),
        ]);
        if (infoResult.status === 'rejected') throw infoResult.reason;
        const info = infoResult.value;
        if (info.screenRecording === false) throw new AppError('UNAVAILABLE', SCREEN_RECORDING_MESSAGE);
        if (captureResult.status === 'rejected') throw screencaptureFailure(captureResult.reason);
        const size = area ?? { width: Math.round(info.width), height: Math.round(info.height) };
        return decodeCapture(await fs.promises.readFile(file), size);
      });
    },
  };
}
