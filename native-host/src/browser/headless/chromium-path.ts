import fs from 'node:fs';

import type { Platform } from '@nextai/shared';

/** Where system Chrome and Chromium live on each platform, most likely first. */
const CANDIDATES: Record<Platform, string[]> = {
  linux: [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
    '/usr/bin/microsoft-edge',
  ],
  macos: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
  ],
  windows: [
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
    'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe',
    'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe',
  ],
};

/** The browser the daemon drives headless: configured, from NEXTAI_CHROMIUM, or the first found. */
export function findChromium(
  platform: Platform,
  configured: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const wanted = configured ?? env.NEXTAI_CHROMIUM;
  if (wanted) return fs.existsSync(wanted) ? wanted : undefined;
  return CANDIDATES[platform].find((candidate) => fs.existsSync(candidate));
}
