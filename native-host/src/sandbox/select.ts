import type { Platform } from '@nextai/shared';

import { Bubblewrap } from './bubblewrap.js';
import { NoSandbox } from './no-sandbox.js';
import { Seatbelt } from './seatbelt.js';
import type { Sandbox } from './types.js';

/** The one place that picks the sandbox for the running OS (the platform comes from core/current-platform.ts). */
export function createSandbox(platform: Platform, options: { stateDir?: string } = {}): Sandbox {
  switch (platform) {
    case 'linux':
      return new Bubblewrap(options.stateDir ? { stateDir: options.stateDir } : {});
    case 'macos':
      return new Seatbelt();
    case 'windows':
      return new NoSandbox();
  }
}
