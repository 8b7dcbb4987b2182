import os from 'node:os';

import type { Desktop } from '../desktop.js';
import { createLinuxClipboard } from './clipboard.js';
import { createLinuxInput } from './input.js';
import { createLinuxNotifications } from './notifications.js';
import { createLinuxScreen } from './screen.js';
import { createLinuxTrash } from './trash.js';
import { createLinuxWindows, type LinuxWindowOptions } from './windows.js';

/** The Linux (X11 + freedesktop) desktop. Nothing here touches the display until a method is called. */
export function createLinuxDesktop(
  env: NodeJS.ProcessEnv = process.env,
  homeDir: string = os.homedir(),
  windowOptions: LinuxWindowOptions = {},
): Desktop {
  return {
    platform: 'linux',
    screen: createLinuxScreen(env),
    input: createLinuxInput(env),
    windows: createLinuxWindows(env, windowOptions),
    clipboard: createLinuxClipboard(env),
    notifications: createLinuxNotifications(env),
    trash: createLinuxTrash(env, homeDir),
  };
}
