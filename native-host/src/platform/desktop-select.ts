import os from 'node:os';

import type { Platform } from '@nextai/shared';

import type { Desktop } from './desktop.js';
import { createLinuxDesktop } from './linux/index.js';
import type { LinuxWindowOptions } from './linux/windows.js';
import { createMacosDesktop } from './macos/index.js';
import { createWindowsDesktop } from './windows/index.js';

/** The one place that picks the OS adapter (the platform itself comes from current.ts). */
export function createDesktop(
  platform: Platform,
  env: NodeJS.ProcessEnv = process.env,
  homeDir = os.homedir(),
  options: { windowPid?: LinuxWindowOptions['windowPid'] } = {},
): Desktop {
  switch (platform) {
    case 'linux':
      return createLinuxDesktop(env, homeDir, options);
    case 'macos':
      return createMacosDesktop();
    case 'windows':
      return createWindowsDesktop();
  }
}
