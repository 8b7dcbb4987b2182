import {
  getTool,
  type BrowserCallContext,
  type NavigationRules,
  type ToolOutcome,
  type UploadFile,
} from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import type { BrowserBackend, InspectResult } from '../browser/backend.js';
import { createLogger } from '../core/logger.js';
import { BrowserRouting, type BrowserRoutingOptions } from './browser-routing.js';

/**
 * Where browser tools go and what they carry there, with a recording stand-in for the daemon's
 * headless browser (no extension connected).
 */
const log = createLogger({ component: 'test', level: 'error' });
const interact = getTool('browser_interact');

function recordingBackend(inspected: InspectResult = {}) {
  const calls: { name: string; context: BrowserCallContext }[] = [];
  const inspections: { tool: string | undefined; context: BrowserCallContext }[] = [];
  const backend: BrowserBackend = {
    kind: 'headless',
    call: async (name, _input, _callId, context): Promise<ToolOutcome> => {
      calls.push({ name, context });
      return { ok: true, output: { success: true } };
    },
    inspect: async (_input, _callId, context, tool) => {
      inspections.push({ tool, context });
      return inspected;
    },
  };
  return { backend, calls, inspections };
}

function routing(backend: BrowserBackend | undefined, options: Partial<BrowserRoutingOptions> = {}) {
  return new BrowserRouting({ log, browserClients: () => [], headless: () => backend, ...options });
}

const file: UploadFile = { name: 'cv.pdf', mime_type: 'application/pdf', data_base64: 'JVBERg==' };
const signal = new AbortController().signal;

describe('browser routing', () => {
  it('sends the file an upload declares, read once the call is allowed, and nothing else', async () => {
    const { backend, calls } = recordingBackend();
    const read: string[] = [];
    const browser = routing(backend, { readUpload: (path) => (read.push(path), file) });
    const upload = { action: 'upload', selector: '#cv', value: '~/Documents/cv.pdf' };
    expect(await browser.run(interact, upload, 'c1', { runId: 'r1' }, undefined, signal)).toMatchObject({ ok: true });
    expect(read).toEqual(['~/Documents/cv.pdf']);
    expect(calls[0]?.context).toEqual({ run_id: 'r1', allow_sensitive: [], file });

    await browser.run(interact, { action: 'click', selector: '#go' }, 'c2', {}, undefined, signal);
    expect(read).toHaveLength(1);
    expect(calls[1]?.context).toEqual({ allow_sensitive: [] });
  });

  it('lets through only the sensitive kind the person approved, with the navigation rules', async () => {
    const { backend, calls } = recordingBackend();
    const rules: NavigationRules = { version: '1', block: ['^https?://([^/]*\\.)?bank\\.com/'] };
    const browser = routing(backend, { navigationRules: () => rules });
    const sensitive = { kind: 'payment_submit' as const, reason: 'submits a payment form' };
    await browser.run(interact, { action: 'click', selector: '#pay' }, 'c1', {}, sensitive, signal);
    expect(calls[0]?.context).toEqual({ allow_sensitive: ['payment_submit'], navigation: rules });
  });

  it('refuses an upload it cannot read, and any call when there is no browser', async () => {
    const { backend } = recordingBackend();
    const upload = { action: 'upload', selector: '#cv', value: '~/cv.pdf' };
    expect(await routing(backend).run(interact, upload, 'c1', {}, undefined, signal)).toMatchObject({
      ok: false,
      error: { code: 'UNAVAILABLE', message: 'Uploading files is not available here.' },
    });
    expect(await routing(undefined).run(interact, { action: 'click' }, 'c2', {}, undefined, signal)).toMatchObject({
      ok: false,
      error: { code: 'UNAVAILABLE' },
    });
    expect(routing(undefined).availability(interact)).toMatchObject({ available: false });
    expect(routing(backend).availability(interact)).toEqual({ available: true });
  });

  it('asks the page about an element, and the browser which tab an attach takes', async () => {
    const { backend, inspections } = recordingBackend({ tab_id: 7, target: 'Inbox — Mail' });
    const browser = routing(backend);
    await browser.inspectElement({ action: 'click', selector: '#send' }, 'c1', {});
    expect(await browser.pinTab({ action: 'attach' }, 'c2', {})).toEqual({
      ok: true,
      input: { action: 'attach', tab_id: 7 },
      target: 'Inbox — Mail',
    });
    expect(inspections.map((inspection) => inspection.tool)).toEqual(['browser_interact', 'browser_tabs']);
  });

  it('refuses to pin an attach the browser cannot name a tab for, or names another tab than asked', async () => {
    expect(await routing(recordingBackend({}).backend).pinTab({ action: 'attach' }, 'c1', {})).toMatchObject({
      ok: false,
    });
    expect(
      await routing(recordingBackend({ tab_id: 8 }).backend).pinTab({ action: 'attach', tab_id: 7 }, 'c2', {}),
    ).toMatchObject({ ok: false });
  });
});
