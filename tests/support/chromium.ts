import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { chromium, type BrowserContext, type Worker } from '@playwright/test';

import { CHROME_EXTENSION_ID, QUIET_CHROMIUM_FLAGS } from '@nextai/shared';

import { CHROME_EXTENSION_DIR, requireBuilt } from './paths.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags that keep Chromium off the network of a closed test machine (the daemon's own set). */
export const QUIET_FLAGS: string[] = [...QUIET_CHROMIUM_FLAGS];

export interface ExtensionBrowser {
  context: BrowserContext;
  userDataDir: string;
  extensionId: string;
  serviceWorker: Worker;
  close(): Promise<void>;
}

/** A fresh profile directory; install the host manifest into it before launching. */
export function makeProfileDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'nx-profile-'));
}

/**
 * Launches the system Chromium with the built extension and a fresh profile. `env` reaches the
 * native host the browser starts (NEXTAI_HOME comes from the launcher install wrote).
 */
export async function launchWithExtension(
  userDataDir: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { headedOn?: string } = {},
): Promise<ExtensionBrowser> {
  requireBuilt(path.join(CHROME_EXTENSION_DIR, 'manifest.json'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    // Headed on a test X server (`headedOn` is its DISPLAY) when a test presses real keys: browser
    // shortcuts such as the extension's commands only exist in a window.
    headless: options.headedOn === undefined,
    env: (options.headedOn === undefined ? env : { ...env, DISPLAY: options.headedOn }) as Record<string, string>,
    // A headed window is a real window: pages are the size of it, where it is on the screen (an
    // emulated viewport would make page and screen coordinates disagree).
    ...(options.headedOn === undefined ? {} : { viewport: null }),
    args: [
      ...QUIET_FLAGS,
      ...(options.headedOn === undefined ? [] : ['--window-position=0,0', '--window-size=1000,760']),
      `--disable-extensions-except=${CHROME_EXTENSION_DIR}`,
      `--load-extension=${CHROME_EXTENSION_DIR}`,
    ],
  });
  // The service worker may register before or after launch returns.
  const serviceWorker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  const extensionId = new URL(serviceWorker.url()).host;
  if (extensionId !== CHROME_EXTENSION_ID) {
    throw new Error(`The extension loaded with id ${extensionId}, not the fixed ${CHROME_EXTENSION_ID}.`);
  }
  return {
    context,
    userDataDir,
    extensionId,
    serviceWorker,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export function sidePanelUrl(extensionId = CHROME_EXTENSION_ID): string {
  return `chrome-extension://${extensionId}/sidepanel.html`;
}
