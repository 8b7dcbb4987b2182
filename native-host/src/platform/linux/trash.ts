import type { TrashAdapter } from '../desktop.js';
import { unavailableAdapter } from '../unavailable.js';

// TODO(#4): the freedesktop.org trash specification.
export function createLinuxTrash(_env: NodeJS.ProcessEnv = process.env, _homeDir?: string): TrashAdapter {
  return unavailableAdapter<TrashAdapter>('The trash is not implemented yet on Linux (issue #4).');
}
