import type { Desktop } from '../desktop.js';
import { unavailableAdapter } from '../unavailable.js';
import { createMacosInput } from './input.js';
import { createMacosScreen } from './screen.js';

const NOT_YET = 'This part of the macOS adapter is not implemented yet (issue #4).';

/** The macOS desktop. Built from its own mechanisms (screencapture, JXA/CoreGraphics, pbcopy); not run on a Mac in CI. */
export function createMacosDesktop(): Desktop {
  return {
    platform: 'macos',
    screen: createMacosScreen(),
    input: createMacosInput(),
    windows: unavailableAdapter(NOT_YET),
    clipboard: unavailableAdapter(NOT_YET),
    notifications: unavailableAdapter(NOT_YET),
    trash: unavailableAdapter(NOT_YET),
  };
}
