import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { chromium, type BrowserContext, type Page, type Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { securityConfigSchema, type SecurityConfig } from '@nextai/shared';

import { NavigationGuard, type DnrApi } from '../../extension/lib/browser/navigation-guard.js';
import { navigationRules } from '../../native-host/src/browser/navigation-rules.js';
import { CHROMIUM_PATH } from '../support/chromium.js';

// The guard imports the extension's browser API, which a test process does not have (vi.mock is hoisted).
vi.mock('wxt/browser', () => ({ browser: {} }));

// The extension's navigation guard installs the daemon's rules in a real Chromium's
// declarativeNetRequest (through a bare extension that lends its API): loopback addresses are
// refused in every spelling the address bar accepts, a host the configuration names opens, and
// blocked_domains still beats the name.
describe("the agent's tabs in Chromium refuse loopback addresses the configuration does not name", () => {
  let server: http.Server;
  let port: number;
  let extensionDir: string;
  let profile: string;
  let context: BrowserContext;
  let worker: Worker;
  let page: Page;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${request.headers.host ?? ''}</title>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    extensionDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-dnr-extension-'));
    fs.writeFileSync(
      path.join(extensionDir, 'manifest.json'),
      JSON.stringify({
        manifest_version: 3,
        name: 'declarativeNetRequest for a test',
        version: '1',
        permissions: ['declarativeNetRequest', 'tabs'],
        background: { service_worker: 'worker.js' },
      }),
    );
    fs.writeFileSync(path.join(extensionDir, 'worker.js'), '');
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-dnr-profile-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [`--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`],
    });
    worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
    page = await context.newPage();
    await page.goto('about:blank');
  });
  afterAll(async () => {
    await context?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    for (const dir of [extensionDir, profile]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** declarativeNetRequest's session rules, the real ones, called in the extension's worker. */
  const dnr: DnrApi = {
    getSessionRules: () =>
      worker.evaluate(() =>
        (
          globalThis as unknown as { chrome: { declarativeNetRequest: DnrApi } }
        ).chrome.declarativeNetRequest.getSessionRules(),
      ),
    updateSessionRules: (options) =>
      worker.evaluate(
        (change) =>
          (
            globalThis as unknown as { chrome: { declarativeNetRequest: DnrApi } }
          ).chrome.declarativeNetRequest.updateSessionRules(change),
        options,
      ),
  };

  const outcome = async (url: string) => {
    try {
      const response = await page.goto(url, { timeout: 10_000 });
      return `opened ${response?.status()}`;
    } catch (error) {
      return /ERR_BLOCKED_BY_CLIENT/.test((error as Error).message) ? 'refused' : (error as Error).message;
    }
  };

  /** The extension's guard over every tab of this browser (all the agent's), with `security`'s rules. */
  const guardWith = async (security: SecurityConfig) => {
    const tabIds = await worker.evaluate(async () => {
      const api = (globalThis as unknown as { chrome: { tabs: { query(q: object): Promise<{ id?: number }[]> } } })
        .chrome;
      return (await api.tabs.query({})).flatMap((tab) => (tab.id === undefined ? [] : [tab.id]));
    });
    expect(tabIds.length).toBeGreaterThan(0);
    const guard = new NavigationGuard(
      { owners: () => Promise.resolve(new Map(tabIds.map((id) => [id, 'run']))), onChange: () => undefined },
      { dnr: () => dnr, load: () => Promise.resolve(undefined), save: () => Promise.resolve() },
    );
    await guard.update('run', navigationRules(security));
    guard.ready();
  };

  it('refuses them with the default configuration, in every spelling', async () => {
    await guardWith(securityConfigSchema.parse({}));
    for (const host of [
      'localhost',
      '127.0.0.1',
      '0x7f.1',
      '2130706433',
      '127.1',
      '[::ffff:127.0.0.1]',
      'app.localhost',
      '169.254.169.254',
    ]) {
      expect(await outcome(`http://${host}:${port}/`), host).toBe('refused');
    }
  });

  it('opens a host the configuration names, and keeps blocked_domains above the name', async () => {
    await guardWith(
      securityConfigSchema.parse({ allowed_domains: ['*', 'localhost', '127.0.0.2'], blocked_domains: ['127.0.0.2'] }),
    );
    expect(await outcome(`http://localhost:${port}/`)).toBe('opened 200');
    expect(await outcome(`http://127.0.0.1:${port}/`)).toBe('refused');
    expect(await outcome(`http://127.0.0.2:${port}/`)).toBe('refused');
  });
});
