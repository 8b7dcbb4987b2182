import type { BackgroundContext } from './features.js';

/** Browser keyboard commands declared in the manifest: the emergency stop (issue #6 point 4). */
export function startCommands(_context: BackgroundContext): void {}
