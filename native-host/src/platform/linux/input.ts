import type { InputAdapter } from '../desktop.js';
import { unavailableAdapter } from '../unavailable.js';

// TODO(#4): mouse through libnut, typing and keys through xdotool.
export function createLinuxInput(_env: NodeJS.ProcessEnv = process.env): InputAdapter {
  return unavailableAdapter<InputAdapter>('Mouse and keyboard are not implemented yet on Linux (issue #4).');
}
