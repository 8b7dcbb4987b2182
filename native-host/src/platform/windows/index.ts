import type { Desktop } from '../desktop.js';
import { unavailableAdapter } from '../unavailable.js';

const NOT_YET = 'This part of the Windows adapter is not implemented yet (issue #4).';

/** The Windows desktop, built from PowerShell and Win32 calls; not run on Windows in CI. */
export function createWindowsDesktop(): Desktop {
  return {
    platform: 'windows',
    screen: unavailableAdapter(NOT_YET),
    input: unavailableAdapter(NOT_YET),
    windows: unavailableAdapter(NOT_YET),
    clipboard: unavailableAdapter(NOT_YET),
    notifications: unavailableAdapter(NOT_YET),
    trash: unavailableAdapter(NOT_YET),
  };
}
