// The macOS desktop, built from its own mechanisms: screencapture, JXA (Quartz events, System
// Events, NSWorkspace, NSPasteboard) and pbcopy.
//
// NOT RUN ON A REAL macOS MACHINE: what each part has and has not been checked by is stated at the
// top of its file. CI runs on Linux, where command construction, parsing and the scripts' logic
// against stand-ins are exercised.
import type { Desktop } from '../desktop.js';
import { createMacosClipboard } from './clipboard.js';
import { createMacosInput } from './input.js';
import type { MacosAdapterOptions } from './jxa.js';
import { createMacosNotifications } from './notifications.js';
import { createMacosScreen } from './screen.js';
import { createMacosTrash } from './trash.js';
import { createMacosWindows } from './windows.js';

export function createMacosDesktop(options: MacosAdapterOptions = {}): Desktop {
  return {
    platform: 'macos',
    screen: createMacosScreen(options),
    input: createMacosInput(options),
    windows: createMacosWindows(options),
    clipboard: createMacosClipboard(options),
    notifications: createMacosNotifications(options),
    trash: createMacosTrash(options),
  };
}
