import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BROWSER_TASKS, cliTools, writeBlockingConfig, type CallTool } from '../support/browser-tasks.js';
import { runCli } from '../support/cli.js';
import { startFixtureSite, type FixtureSite } from '../support/fixture-site.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

// No browser is connected: the same tasks as tests/e2e/browser-tools.spec.ts run in the daemon's
// headless Chromium (playwright-core with the system browser, the page agent in an isolated
// world, the domain policy in a proxy), through the same chokepoint.
describe('browser tools without a connected browser (headless Chromium from the daemon)', () => {
  let home: TestHome;
  let site: FixtureSite;
  let call: CallTool;

  beforeAll(async () => {
    requireBuilt(CLI_BUNDLE);
    site = await startFixtureSite();
    home = makeHome();
    writeBlockingConfig(home.dir);
    call = cliTools(home.env);
  });

  afterAll(async () => {
    await home?.cleanup();
    await site?.close();
  });

  it('lists the browser tools as available with no extension connected', async () => {
    const listed = JSON.parse((await runCli(['tool', '--list', '--json'], home.env)).stdout) as {
      name: string;
      available: boolean;
    }[];
    for (const name of [
      'browser_navigate',
      'browser_interact',
      'browser_extract',
      'browser_snapshot',
      'browser_tabs',
    ]) {
      expect(listed.find((tool) => tool.name === name)?.available, name).toBe(true);
    }
  });

  it('a React form', () => BROWSER_TASKS.reactForm(call, site));
  it('a form with validation', () => BROWSER_TASKS.validatedForm(call, site));
  it('shadow DOM, frames, a sortable table and a modal dialog', () => BROWSER_TASKS.widgets(call, site));
  it('a slow page and an infinite list', () => BROWSER_TASKS.loadingPages(call, site));
  it('a blocked domain: typed, redirected to, clicked', () => BROWSER_TASKS.blockedDomains(call, site));
  it('stale refs, ambiguous and missing targets', () => BROWSER_TASKS.badInput(call, site));
  it('a credential form waits for the person', () => BROWSER_TASKS.credentialFormNeedsApproval(call, site, home.env));

  it('takes a screenshot and fetches a page without a browser, redirects checked', async () => {
    const shot = await call('browser_extract', { type: 'screenshot', full_page: true });
    expect(shot.ok).toBe(true);
    expect(Buffer.from(String(shot.output?.image), 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    const fetched = await call('web_fetch', { url: site.url('table.html') });
    expect(fetched.output?.content).toContain('| Mina | Design | 2021 |');
    const redirected = await call('web_fetch', { url: site.url('redirect?to=blocked') });
    expect(redirected.error?.code).toBe('POLICY_BLOCKED');
    expect(site.blockedHits()).toEqual([]);
  });

  it('the emergency stop closes the headless browser; the next call starts a fresh one', async () => {
    expect((await runCli(['stop', '--reason', 'test'], home.env)).code).toBe(0);
    expect((await call('browser_snapshot', {})).error?.code).toBe('EMERGENCY_STOPPED');
    expect((await runCli(['stop', '--reset'], home.env)).code).toBe(0);
    // The tab the agent had is gone with the browser.
    expect((await call('browser_snapshot', {})).error?.code).toBe('NOT_FOUND');
    expect((await call('browser_navigate', { url: site.url('index.html') })).ok).toBe(true);
  });
});
