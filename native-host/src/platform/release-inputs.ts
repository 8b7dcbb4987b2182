import type { Desktop } from './desktop.js';

/**
 * Releases keys and mouse buttons the agent may be holding (an emergency stop during a drag or
 * a shortcut must not leave them down), through the desktop's own input adapter. Returns what it
 * did, or why it could not — it never throws: the emergency stop goes on regardless.
 */
export async function releaseHeldInputs(desktop: Desktop): Promise<string> {
  try {
    return await desktop.input.releaseAll();
  } catch (error) {
    return `could not release inputs: ${(error as Error).message}`;
  }
}
