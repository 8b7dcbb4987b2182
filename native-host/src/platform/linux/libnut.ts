import { createRequire } from 'node:module';

import { AppError } from '@nextai/shared';

import type * as Libnut from '@nut-tree-fork/libnut-linux';

import { requireDisplay } from './display.js';

export type LibnutModule = typeof Libnut;

const require = createRequire(import.meta.url);
let module: LibnutModule | undefined;
let boundDisplay: string | undefined;

/**
 * libnut (nut.js's native core: XGetImage, XTest) for in-process screen grabs and mouse events —
 * a subprocess per click would cost milliseconds each. Loaded on first use and only after
 * `requireDisplay` has seen a live X server: libnut segfaults without one, which would take the
 * daemon down. Note that Xlib ends the process when the X server it is connected to goes away
 * ("XIO: fatal IO error"): the bridge restarts the daemon, and runs resume. It keeps one X connection; `setXDisplayName` points it at the display asked for.
 */
export async function loadLibnut(env: NodeJS.ProcessEnv = process.env): Promise<LibnutModule> {
  const display = await requireDisplay(env);
  if (!module) {
    try {
      module = require('@nut-tree-fork/libnut-linux') as LibnutModule;
    } catch (error) {
      throw new AppError(
        'UNAVAILABLE',
        `The screen and mouse tools need libnut (@nut-tree-fork/libnut-linux), which could not be loaded: ${(error as Error).message}. Reinstall NextAI (npm ci), or run \`nextai doctor\`.`,
        { cause: error },
      );
    }
  }
  if (boundDisplay !== display) {
    // Both are needed: some calls use the name set here, the screen grab opens DISPLAY itself
    // (and segfaults when it is unset).
    process.env.DISPLAY = display;
    (module as unknown as { setXDisplayName(name: string): void }).setXDisplayName(display);
    boundDisplay = display;
  }
  return module;
}
