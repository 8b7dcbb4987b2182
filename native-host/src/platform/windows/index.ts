// The Windows desktop, built from PowerShell, a small C# Win32 helper and a few system programs.
//
// NOT RUN ON A REAL WINDOWS MACHINE: what each part has and has not been checked by is stated at
// the top of its file. CI runs on Linux, where only command construction, parsing and the C#
// compile are exercised.
import type { Desktop } from '../desktop.js';
import { createWindowsClipboard } from './clipboard.js';
import { createWindowsInput } from './input.js';
import { createWindowsNotifications } from './notifications.js';
import { persistentPowerShellHost, type WindowsAdapterOptions } from './powershell.js';
import { createWindowsScreen } from './screen.js';
import { createWindowsTrash } from './trash.js';
import { createWindowsWindows } from './windows.js';

/**
 * One persistent powershell.exe serves every script of this desktop (the C# helper compiles once
 * in it); it starts on first use and ends after a minute idle.
 */
export function createWindowsDesktop(options: WindowsAdapterOptions = {}): Desktop {
  const shared = { ...options, powershell: options.powershell ?? persistentPowerShellHost() };
  return {
    platform: 'windows',
    screen: createWindowsScreen(shared),
    input: createWindowsInput(shared),
    windows: createWindowsWindows(shared),
    clipboard: createWindowsClipboard(shared),
    notifications: createWindowsNotifications(options.exec ? { exec: options.exec } : {}),
    trash: createWindowsTrash(),
  };
}
