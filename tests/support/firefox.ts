import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import puppeteer, { type Browser, type Page } from 'puppeteer-core';

import { FIREFOX_EXTENSION_ID } from '@nextai/shared';

import { FIREFOX_EXTENSION_DIR, requireBuilt } from './paths.js';

export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

/**
 * Firefox gives each add-on a random moz-extension:// UUID per profile; fixing it through this
 * preference lets the test open the extension's pages by URL.
 */
const EXTENSION_UUID = '6c0f8a3e-1f2b-4c3d-9e4f-5a6b7c8d9e0f';

export interface FirefoxWithExtension {
  browser: Browser;
  /** The HOME Firefox runs with: its ~/.mozilla/native-messaging-hosts is where install writes. */
  home: string;
  openSidebarPage(): Promise<Page>;
  close(): Promise<void>;
}

/** A throwaway HOME, so the host manifest never lands in the real ~/.mozilla. */
export function makeFirefoxHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'nx-ffhome-'));
}

/**
 * Waits for the panel's first render. While the tab swaps about:blank for the extension's page,
 * an evaluation can land in the realm being torn down and fail with a protocol error ("right-hand
 * side of 'in' should be an object, got null") instead of returning false; such a failure means
 * "not yet", so the wait starts again. When every evaluation keeps failing so for STUCK_MS, the
 * page object is left on a realm that is gone (seen about once in four CI runs): it resolves
 * 'stuck', and the caller opens the page again. A timeout is still a failure.
 */
const STUCK_MS = 8_000;

async function waitThroughNavigation(
  page: Page,
  navigationError: () => Error | undefined,
  deadline: number,
): Promise<'ready' | 'stuck'> {
  let failingSince: number | undefined;
  for (;;) {
    try {
      const until = failingSince === undefined ? deadline : Math.min(deadline, failingSince + STUCK_MS);
      await page.waitForFunction(() => document.querySelector('[data-testid="connection-status"]') !== null, {
        timeout: Math.max(1, until - Date.now()),
      });
      break;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      // Failing since STUCK_MS (the last wait, cut short at that point, included): a dead realm.
      if (failingSince !== undefined && Date.now() - failingSince >= STUCK_MS) return 'stuck';
      const transient = error instanceof Error && /protocol error/i.test(`${error.message} ${String(error.cause)}`);
      if (!transient) throw error;
      failingSince ??= Date.now();
    }
  }
  const failure = navigationError();
  if (failure) throw failure;
  return 'ready';
}

export interface FirefoxOptions {
  /** The language pages see in navigator.language (the add-on's pages follow it), e.g. 'zh-CN'. */
  language?: string;
}

/** Launches firefox-esr over WebDriver BiDi and installs the built add-on temporarily. */
export async function launchFirefoxWithExtension(
  home: string,
  env: NodeJS.ProcessEnv,
  options: FirefoxOptions = {},
): Promise<FirefoxWithExtension> {
  requireBuilt(path.join(FIREFOX_EXTENSION_DIR, 'manifest.json'));
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    args: ['--remote-allow-system-access'],
    env: { ...env, HOME: home },
    extraPrefsFirefox: {
      'extensions.webextensions.uuids': JSON.stringify({ [FIREFOX_EXTENSION_ID]: EXTENSION_UUID }),
      ...(options.language ? { 'intl.accept_languages': options.language } : {}),
    },
  });
  const installedId = await browser.installExtension(FIREFOX_EXTENSION_DIR);
  if (installedId !== FIREFOX_EXTENSION_ID) throw new Error(`The add-on installed as ${installedId}.`);
  return {
    browser,
    home,
    openSidebarPage: async () => {
      const url = `moz-extension://${EXTENSION_UUID}/sidepanel.html`;
      const deadline = Date.now() + 45_000;
      for (;;) {
        const page = await browser.newPage();
        // Navigating into the extension's process detaches puppeteer's frame, so the goto promise
        // rejects although the page loads; wait for the page itself, and fail on any other error.
        let navigationError: Error | undefined;
        void page.goto(url).catch((error: Error) => {
          if (!/detached/i.test(error.message)) navigationError = error;
        });
        if ((await waitThroughNavigation(page, () => navigationError, deadline)) === 'ready') return page;
        await page.close().catch(() => undefined);
      }
    },
    close: async () => {
      await browser.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
