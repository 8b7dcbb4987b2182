import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type {
  ExtractValue,
  InspectValue,
  InteractAction,
  PageReply,
  PageRequest,
  SnapshotValue,
  TargetSpec,
} from '@nextai/shared';

import { pageAgentBundle } from '../../native-host/src/browser/headless/page-bundle.js';
import { PageWorld } from '../../native-host/src/browser/headless/page-world.js';
import { CHROMIUM_PATH, QUIET_FLAGS } from '../support/chromium.js';

/**
 * The page agent itself (page/src), in a real Chromium page and an isolated world as the daemon
 * runs it: the details of the snapshot format, paging, stale refs and the sensitive-target refusal.
 */
let browser: Browser;
let page: Page;
let world: PageWorld;

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: QUIET_FLAGS });
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  page = await browser.newPage();
  world = new PageWorld(page.context().newCDPSession(page), pageAgentBundle());
});

async function ask<T>(request: PageRequest): Promise<PageReply<T>> {
  return world.call<T>(request);
}

async function snapshot(request: Partial<Extract<PageRequest, { op: 'snapshot' }>> = {}): Promise<SnapshotValue> {
  const reply = await ask<SnapshotValue>({ op: 'snapshot', ...request });
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.value;
}

describe('the page agent', () => {
  it('flags every kind of hidden text, and leaves out what is not rendered at all', async () => {
    await page.setContent(`
      <p>Visible words.</p>
      <p style="color:#fff">white on white</p>
      <p style="position:absolute;left:-5000px">far left</p>
      <p style="text-indent:-9999px">indented away</p>
      <p style="position:absolute;clip:rect(0 0 0 0);width:1px;height:1px;overflow:hidden">screen reader only</p>
      <p style="opacity:0">transparent</p>
      <p aria-hidden="true">hidden from assistive technology</p>
      <p style="display:none">not rendered</p>
      <p style="visibility:hidden">invisible</p>`);
    const text = (await snapshot()).snapshot;
    expect(text).toContain('Visible words.');
    expect(text).toContain('⚠hidden (same colour as background): "white on white"');
    expect(text).toContain('⚠hidden (off-screen): "far left"');
    expect(text).toContain('⚠hidden (off-screen): "indented away"');
    expect(text).toMatch(/⚠hidden \((clipped to nothing|zero-size)\): "screen reader only"/);
    expect(text).toContain('⚠hidden (transparent): "transparent"');
    expect(text).toContain('⚠hidden (aria-hidden): "hidden from assistive technology"');
    expect(text).not.toContain('not rendered');
    expect(text).not.toContain('invisible');
  });

  it('marks new lines with + and lists what is gone since the previous snapshot', async () => {
    await page.setContent(`<button id="a">Alpha</button><button id="b">Beta</button><p id="t">one</p>`);
    const first = await snapshot();
    expect(first.snapshot).not.toContain('+');
    await page.evaluate(() => {
      document.getElementById('b')!.remove();
      document.getElementById('t')!.textContent = 'two';
    });
    const second = (await snapshot()).snapshot;
    expect(second).toContain('gone: [e2] button "Beta"');
    expect(second).toContain('+two');
    expect((await snapshot()).snapshot).toMatch(/^No change since your last snapshot\./);
  });

  it('pages a long snapshot with a cursor, and refuses a cursor from an older snapshot', async () => {
    await page.setContent(
      Array.from({ length: 200 }, (_, i) => `<p>Paragraph number ${i} with some words in it.</p>`).join(''),
    );
    const first = await snapshot({ max_chars: 2000 });
    expect(first.snapshot.length).toBeLessThan(2200);
    expect(first.next_cursor).toBeDefined();
    const second = await snapshot({ max_chars: 2000, cursor: first.next_cursor });
    expect(second.snapshot).toContain('Paragraph number');
    expect(second.snapshot).not.toContain('Paragraph number 0 ');
    await snapshot();
    const stale = await ask({ op: 'snapshot', cursor: first.next_cursor });
    expect(stale).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('outlines the element it acts on for a moment, without taking clicks', async () => {
    await page.setContent(
      `<p>Before</p><button onclick="this.textContent = 'Clicked ' + (++window.n || (window.n = 1))">Go</button>`,
    );
    await snapshot();
    const reply = await ask({ op: 'act', action: 'click', ref: 'e1', allow_sensitive: [] });
    expect(reply.ok).toBe(true);
    const box = await page.evaluate(() => {
      const host = document.querySelector('nextai-outline') as HTMLElement | null;
      const button = document.querySelector('button')!.getBoundingClientRect();
      return host
        ? {
            inert: getComputedStyle(host).pointerEvents === 'none' && host.getAttribute('aria-hidden') === 'true',
            // What a person's click at the button's centre reaches: the button, not the outline.
            hit: document.elementFromPoint(button.x + button.width / 2, button.y + button.height / 2)?.tagName,
          }
        : undefined;
    });
    expect(box).toEqual({ inert: true, hit: 'BUTTON' });
    // A real click goes through it.
    await page.click('button');
    expect(await page.textContent('button')).toBe('Clicked 2');
    // The outline is not part of what the page says it is, and it goes away by itself.
    expect((await snapshot()).snapshot).not.toMatch(/outline/i);
    await expect.poll(() => page.evaluate(() => document.querySelector('nextai-outline') === null)).toBe(true);
  });

  it('says a ref is from an earlier page after a reload', async () => {
    await page.setContent(`<button>Go</button>`);
    const { doc } = (await ask<SnapshotValue>({ op: 'snapshot' })) as PageReply & { ok: true };
    await page.setContent(`<button>Go</button>`);
    const reply = await ask({ op: 'act', action: 'click', ref: 'e1', allow_sensitive: [], expect_doc: doc });
    expect(reply).toMatchObject({ ok: false, error: { code: 'STALE_REF' } });
  });

  it('refuses a sensitive target the policy did not approve, and acts once it did', async () => {
    await page.setContent(`
      <form onsubmit="event.preventDefault(); document.title = 'sent'">
        <input name="user"><input type="password" name="pw"><button>Sign in</button>
      </form>`);
    await snapshot();
    const refused = await ask({ op: 'act', action: 'click', selector: 'Sign in', allow_sensitive: [] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'TARGET_CHANGED' } });
    expect(await page.title()).toBe('');
    const done = await ask({ op: 'act', action: 'click', selector: 'Sign in', allow_sensitive: ['credential_submit'] });
    expect(done.ok).toBe(true);
    expect(await page.title()).toBe('sent');
  });

  describe('judges what an action will do, not the words it was asked with', () => {
    // A sign-in form a page wants submitted without the person: every way of getting there that
    // does not name the submit button is still a credential submission.
    beforeEach(async () => {
      await page.setContent(`
        <form onsubmit="event.preventDefault(); document.title = 'sent'">
          <input name="user" aria-label="Username">
          <input type="password" name="pw" aria-label="Password">
          <button id="go" type="submit"><span id="go-text">Continue</span></button>
          <input id="go-input" type="submit" value="Sign in">
          <button id="remember" role="switch" aria-checked="false" onclick="this.setAttribute('aria-checked', 'true')">
            Remember me
          </button>
        </form>
        <div role="button" onclick="document.title = 'paid'"><span id="pay-text">Pay now</span></div>
        <label for="go" id="go-label">Finish signing in</label>
        <div id="plain">Next step</div>
        <input id="decoy" aria-label="Search" onfocus="document.querySelector('[name=pw]').focus()">`);
      await snapshot();
    });

    const bypasses: [string, TargetSpec & { action: InteractAction; value?: string }][] = [
      ['"Return" (Enter) in a field of the form', { action: 'press', selector: 'Username', value: 'Return' }],
      ['"Space" on the submit button', { action: 'press', selector: '#go', value: 'Space' }],
      ['Shift+Return on the submit button', { action: 'press', selector: '#go', value: 'Shift+Return' }],
      [
        'Enter on an element that takes no focus, while the password field has it',
        { action: 'press', selector: '#plain', value: 'Enter' },
      ],
      ['a click on the text inside the submit button', { action: 'click', selector: '#go-text' }],
      ['a click on a label of the submit button', { action: 'click', selector: '#go-label' }],
      ['"check" on a submit button drawn as a switch', { action: 'check', selector: '#remember' }],
    ];
    for (const [name, request] of bypasses) {
      it(`${name} is a credential submission`, async () => {
        await page.focus('[name=pw]');
        const inspected = await ask<InspectValue>({ op: 'inspect', ...request });
        expect(inspected).toMatchObject({ ok: true, value: { sensitive: { kind: 'credential_submit' } } });
        const refused = await ask({ op: 'act', allow_sensitive: [], ...request });
        expect(refused).toMatchObject({ ok: false, error: { code: 'TARGET_CHANGED' } });
        expect(await page.title()).toBe('');
        const approved = await ask({ op: 'act', allow_sensitive: ['credential_submit'], ...request });
        expect(approved.ok, JSON.stringify(approved)).toBe(true);
        expect(await page.title()).toBe('sent');
      });
    }

    it('a click on the text inside a custom "Pay now" button is a payment', async () => {
      const inspected = await ask<InspectValue>({ op: 'inspect', action: 'click', selector: '#pay-text' });
      expect(inspected).toMatchObject({ ok: true, value: { sensitive: { kind: 'payment_submit' } } });
      const refused = await ask({ op: 'act', action: 'click', selector: '#pay-text', allow_sensitive: [] });
      expect(refused).toMatchObject({ ok: false, error: { code: 'TARGET_CHANGED' } });
      expect(await page.title()).toBe('');
    });

    it('Enter in the password field submits it: that is what is asked for, not just typing', async () => {
      const request = { action: 'press', selector: 'Password', value: 'Enter' } as const;
      const inspected = await ask<InspectValue>({ op: 'inspect', ...request });
      expect(inspected).toMatchObject({ ok: true, value: { sensitive: { kind: 'credential_submit' } } });
      const typing = await ask({ op: 'act', allow_sensitive: ['credential_entry'], ...request });
      expect(typing).toMatchObject({ ok: false, error: { code: 'TARGET_CHANGED' } });
      expect(await page.title()).toBe('');
    });

    it('a key the page moves elsewhere is refused, not sent to the element that took the focus', async () => {
      const request = { action: 'press', selector: 'Search', value: 'Enter' } as const;
      const refused = await ask({ op: 'act', allow_sensitive: [], ...request });
      expect(refused).toMatchObject({ ok: false, error: { code: 'NOT_ACTIONABLE' } });
      expect((refused as { error: { message: string } }).error.message).toContain('textbox "Password"');
      expect(await page.title()).toBe('');
    });

    it('fill does not click a submit input (to focus it) and so submit the form', async () => {
      const refused = await ask({ op: 'act', action: 'fill', selector: '#go-input', value: 'x', allow_sensitive: [] });
      expect(refused).toMatchObject({ ok: false, error: { code: 'NOT_ACTIONABLE' } });
      expect(await page.title()).toBe('');
    });
  });

  it('fills a contenteditable editor with the editing command a person’s typing uses', async () => {
    await page.setContent(`<div contenteditable="true" aria-label="Note">old</div><p id="log"></p>
      <script>
        document.querySelector('[contenteditable]').addEventListener('input', (event) => {
          document.getElementById('log').textContent = event.inputType;
        });
      </script>`);
    await snapshot();
    expect(
      await ask({ op: 'act', action: 'fill', selector: 'Note', value: 'new text', allow_sensitive: [] }),
    ).toMatchObject({
      ok: true,
    });
    expect(await page.locator('[contenteditable]').textContent()).toBe('new text');
    expect(await page.locator('#log').textContent()).toBe('insertText');
  });

  it('extracts links and tables, paging long text', async () => {
    await page.setContent(`
      <a href="https://example.org/a">First</a><a href="/b">Second</a>
      <table><tr><th>k</th><th>v</th></tr><tr><td>x</td><td>1</td></tr></table>
      ${'<p>filler text line</p>'.repeat(300)}`);
    const links = (await ask<ExtractValue>({ op: 'extract', type: 'links' })) as PageReply<ExtractValue> & { ok: true };
    expect(links.value.links?.map((link) => link.text)).toEqual(['First', 'Second']);
    const tables = (await ask<ExtractValue>({ op: 'extract', type: 'tables' })) as PageReply<ExtractValue> & {
      ok: true;
    };
    expect(tables.value.tables).toEqual([
      [
        ['k', 'v'],
        ['x', '1'],
      ],
    ]);
    const text = (await ask<ExtractValue>({
      op: 'extract',
      type: 'text',
      max_chars: 1000,
    })) as PageReply<ExtractValue> & {
      ok: true;
    };
    expect(text.value.next_cursor).toBeDefined();
    const next = (await ask<ExtractValue>({
      op: 'extract',
      type: 'text',
      max_chars: 1000,
      cursor: text.value.next_cursor,
    })) as PageReply<ExtractValue> & { ok: true };
    expect(next.value.content).toContain('filler text line');
  });
});
