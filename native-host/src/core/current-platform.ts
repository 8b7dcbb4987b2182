import type { Platform } from '@nextai/shared';

/**
 * The one place that reads `process.platform` (a lint rule keeps it so). Everything else asks
 * here, which also lets tests and `--dry-run` reason about other operating systems.
 */
export function currentPlatform(): Platform {
  switch (process.platform) {
    case 'darwin':
      return 'macos';
    case 'win32':
      return 'windows';
    default:
      // Linux and the BSDs share the X11/freedesktop world this project targets.
      return 'linux';
  }
}
