import type { Platform } from '@nextai/shared';

import { runCommand } from '../subprocess.js';

const MODIFIERS = [
  'shift',
  'ctrl',
  'alt',
  'super',
  'Shift_L',
  'Shift_R',
  'Control_L',
  'Control_R',
  'Alt_L',
  'Alt_R',
  'Super_L',
  'Super_R',
];

/**
 * Releases keys and mouse buttons the agent may be holding (an emergency stop during a drag or
 * a shortcut must not leave them down). Returns what it did, or why it could not.
 */
export async function releaseHeldInputs(platform: Platform, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (platform !== 'linux') {
    // TODO(#4): the macOS and Windows input adapters release through their own APIs.
    return `not supported on ${platform} yet`;
  }
  if (!env.DISPLAY) return 'nothing to release: no X display';
  try {
    await runCommand('xdotool', ['keyup', ...MODIFIERS], { timeoutMs: 1000 });
    for (const button of ['1', '2', '3']) await runCommand('xdotool', ['mouseup', button], { timeoutMs: 1000 });
    return 'released modifier keys and mouse buttons';
  } catch (error) {
    return `could not release inputs: ${(error as Error).message}`;
  }
}
