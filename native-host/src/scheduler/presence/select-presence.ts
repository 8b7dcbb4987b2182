import type { Platform } from '@nextai/shared';

import type { Logger } from '../../core/logger.js';
import { LinuxPresence } from './linux-presence.js';
import { UnknownPresence, type PresenceMonitor } from './presence.js';

/** The presence monitor for the running OS: Linux for real; macOS and Windows are documented seams. */
export function createPresence(platform: Platform, log: Logger): PresenceMonitor {
  switch (platform) {
    case 'linux':
      return new LinuxPresence({ log });
    case 'macos':
      return new UnknownPresence(
        'power and presence are not read on macOS yet: tasks run as if on mains power, unlocked',
      );
    case 'windows':
      return new UnknownPresence(
        'power and presence are not read on Windows yet: tasks run as if on mains power, unlocked',
      );
  }
}
