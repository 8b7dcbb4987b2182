import { describe, expect, it } from 'vitest';

import type { PanelSurface } from '../panel-surface.js';
import { isHeadless, screenSurfaces, type WindowLike } from './own-surfaces.js';

const WINDOW: WindowLike = { id: 3, left: 100, top: 50, width: 1200, height: 800, focused: true, state: 'normal' };
const PANEL: PanelSurface = { kind: 'panel', focused: true, window_id: 3, width: 360, height: 760, scale: 1.5 };

describe('where NextAI pages are on screen', () => {
  it('places a panel exactly once a pointer event told its corner, and follows its window', () => {
    const panel = { ...PANEL, offset: { x: 840, y: 40 } };
    expect(screenSurfaces([panel], [WINDOW])).toEqual([
      { kind: 'panel', focused: true, rects: [{ x: 940, y: 90, width: 360, height: 760 }], scale: 1.5 },
    ]);
    const moved = screenSurfaces([panel], [{ ...WINDOW, left: 0, top: 0 }]);
    expect(moved[0]?.rects).toEqual([{ x: 840, y: 40, width: 360, height: 760 }]);
  });

  it('counts both sides of the window for a panel whose side is not known yet', () => {
    const [surface] = screenSurfaces([PANEL], [WINDOW]);
    expect(surface?.rects).toEqual([
      { x: 100, y: 50, width: 424, height: 800 },
      { x: 876, y: 50, width: 424, height: 800 },
    ]);
  });

  it('an extension page in a tab covers its window until its corner is known', () => {
    const [surface] = screenSurfaces([{ ...PANEL, kind: 'extension_page' }], [WINDOW]);
    expect(surface).toMatchObject({ kind: 'extension_page', rects: [{ x: 100, y: 50, width: 1200, height: 800 }] });
  });

  it('has no keyboard focus when its window is not the focused one, and is not on screen when minimised', () => {
    expect(screenSurfaces([PANEL], [{ ...WINDOW, focused: false }])[0]?.focused).toBe(false);
    expect(screenSurfaces([{ ...PANEL, focused: false }], [WINDOW])[0]?.focused).toBe(false);
    expect(screenSurfaces([PANEL], [{ ...WINDOW, state: 'minimized' }])).toEqual([]);
  });

  it('keeps the focus of a page whose window is not listed, with no place to point at', () => {
    expect(screenSurfaces([PANEL], [])).toEqual([{ kind: 'panel', focused: true, rects: [], scale: 1.5 }]);
  });

  it('counts every window of developer tools: its console runs code as the page it inspects', () => {
    expect(screenSurfaces([], [{ ...WINDOW, type: 'devtools', focused: false, tabs: [] }])).toEqual([
      { kind: 'browser_page', focused: false, rects: [{ x: 100, y: 50, width: 1200, height: 800 }], scale: 1 },
    ]);
  });

  it("adds the browser's pages that reach NextAI or its settings, in front of their window", () => {
    const manager = (url: string) => ({
      ...WINDOW,
      tabs: [
        { active: false, url: 'https://a.example' },
        { active: true, url },
      ],
    });
    for (const url of [
      'chrome://extensions/',
      'edge://extensions/?id=abc',
      'brave://extensions',
      'about:addons',
      'chrome://inspect/#extensions',
      'chrome://serviceworker-internals/',
      'chrome://extensions-internals',
      'chrome://settings/appearance',
      'chrome://flags',
      'devtools://devtools/bundled/inspector.html',
      'about:debugging#/runtime/this-firefox',
      'about:devtools-toolbox?id=x',
      'about:preferences',
      'about:config',
    ]) {
      expect(screenSurfaces([], [manager(url)])).toEqual([
        { kind: 'browser_page', focused: true, rects: [{ x: 100, y: 50, width: 1200, height: 800 }], scale: 1 },
      ]);
    }
    for (const url of [
      'chrome://extensions-internals-not',
      'https://extensions.example/',
      'chrome://newtab/',
      'about:blank',
    ]) {
      expect(screenSurfaces([], [manager(url)])).toEqual([]);
    }
    const background = { ...WINDOW, tabs: [{ active: false, url: 'chrome://extensions/' }] };
    expect(screenSurfaces([], [background])).toEqual([]);
  });

  it('a headless browser has nothing on any screen', () => {
    expect(
      isHeadless('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/131.0.0.0 Safari/537.36'),
    ).toBe(true);
    expect(isHeadless('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36')).toBe(false);
  });
});
