import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const AGENT_TAB = 5;
const PERSON_TAB = 9;
const WINDOW = 1;

/**
 * A window with the agent's tab in front, until `switchAt` says the person brings their own tab
 * forward: before a capture ('before') or while one is being taken ('during'). A capture shows
 * whichever tab is in front.
 */
const fake = vi.hoisted(() => {
  const state = {
    active: 0,
    switchAt: undefined as { capture: number; when: 'before' | 'during' } | undefined,
    captures: [] as number[],
  };
  const png = (tabId: number) => `data:image/png;base64,${btoa(`tab-${tabId}`)}`;
  return {
    state,
    browser: {
      tabs: {
        get: (tabId: number) => Promise.resolve({ id: tabId, active: state.active === tabId, windowId: 1 }),
        update: (tabId: number) => {
          state.active = tabId;
          return Promise.resolve({ id: tabId });
        },
        query: () => Promise.resolve([{ id: state.active }]),
        captureVisibleTab: () => {
          const index = state.captures.length;
          if (state.switchAt?.capture === index && state.switchAt.when === 'during') state.active = 9;
          state.captures.push(state.active);
          return Promise.resolve(png(state.active));
        },
      },
    },
    /** The page agent: a page three screens long; scrolling is where the "before" switch happens. */
    callPage: (_tabId: number, request: { op: string; y?: number }) => {
      if (request.op === 'metrics') {
        const value = { scroll_y: 0, scroll_height: 1500, viewport_height: 500, viewport_width: 100 };
        return Promise.resolve({ ok: true, value });
      }
      if (request.op === 'scroll_to') {
        const next = state.captures.length;
        if (state.switchAt?.capture === next && state.switchAt.when === 'before' && (request.y ?? 0) > 0) {
          state.active = 9;
        }
        return Promise.resolve({ ok: true, value: { scroll_y: request.y ?? 0 } });
      }
      return Promise.resolve({ ok: true, value: {} });
    },
  };
});
vi.mock('wxt/browser', () => ({ browser: fake.browser }));
vi.mock('./page-channel.js', () => ({ callPage: fake.callPage }));

import { screenshotTab } from './tab-screenshot.js';

/** Just enough of the browser's image APIs to stitch and encode in Node. */
beforeEach(() => {
  fake.state.active = PERSON_TAB;
  fake.state.switchAt = undefined;
  fake.state.captures = [];
  vi.stubGlobal('createImageBitmap', () => Promise.resolve({ width: 100, height: 500, close: () => undefined }));
  vi.stubGlobal(
    'OffscreenCanvas',
    class {
      getContext() {
        return { drawImage: () => undefined };
      }
      convertToBlob() {
        return Promise.resolve(new Blob([new Uint8Array([0xff, 0xd8, 0xff])]));
      }
    },
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** A screenshot, with the browser's capture quota waited out on a fake clock. */
async function shoot(fullPage: boolean) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
  const taking = screenshotTab(AGENT_TAB, WINDOW, 'https://example.test/', fullPage);
  taking.catch(() => undefined);
  await vi.runAllTimersAsync();
  return taking;
}

describe('extension screenshots', () => {
  it('capture the agent’s tab, brought to the front', async () => {
    const shot = await shoot(true);
    expect(shot.note).toBe('whole page');
    expect(fake.state.captures).toEqual([AGENT_TAB, AGENT_TAB, AGENT_TAB]);
  });

  it('stop when the person brings another tab to the front between two captures', async () => {
    fake.state.switchAt = { capture: 1, when: 'before' };
    await expect(shoot(true)).rejects.toThrow(/another tab came to the front/);
    // Their tab was never captured.
    expect(fake.state.captures).toEqual([AGENT_TAB]);
  });

  it('throw away a capture during which the person switched tabs', async () => {
    fake.state.switchAt = { capture: 1, when: 'during' };
    await expect(shoot(true)).rejects.toThrow(/another tab came to the front/);
    fake.state.switchAt = { capture: 3, when: 'during' };
    fake.state.captures = [];
    await expect(shoot(false)).resolves.toMatchObject({
      note: 'visible area',
    });
    fake.state.switchAt = { capture: 0, when: 'during' };
    fake.state.captures = [];
    await expect(shoot(false)).rejects.toThrow(/another tab came to the front/);
  });
});
