import type { ScreenAdapter } from '../desktop.js';
import { unavailableAdapter } from '../unavailable.js';

// TODO(#4): capture through libnut (in-process XGetImage).
export function createLinuxScreen(_env: NodeJS.ProcessEnv = process.env): ScreenAdapter {
  return unavailableAdapter<ScreenAdapter>('Screen capture is not implemented yet on Linux (issue #4).');
}
