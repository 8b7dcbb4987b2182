import { browser } from 'wxt/browser';

import type { OwnSurface } from '@nextai/shared';

import type { HostConnection } from '../host-connection.js';
import type { PanelSurface } from '../panel-surface.js';

/**
 * The browser's own pages that reach NextAI or its settings: the extensions manager (turn NextAI
 * off), the inspectors (open developer tools on the panel or the background, whose console can
 * speak as the panel), the settings (the zoom that places the panel) and the flags. The agent's
 * input may not act on them.
 */
const PROTECTED_BROWSER_PAGES =
  /^(?:chrome|edge|brave|opera|vivaldi):\/\/(?:extensions|extensions-internals|inspect|serviceworker-internals|settings|flags)(?:[/?#]|$)|^devtools:|^about:(?:addons|debugging|devtools-toolbox|preferences|config)(?:[/?#]|$)/i;

/**
 * Extra width on each side strip when the panel's exact place is not known yet: its border, the
 * resize handle, Firefox's sidebar launcher.
 */
const STRIP_SLACK = 64;

export interface WindowLike {
  id?: number | undefined;
  left?: number | undefined;
  top?: number | undefined;
  width?: number | undefined;
  height?: number | undefined;
  focused: boolean;
  state?: string | undefined;
  /** 'devtools' for a window of developer tools. */
  type?: string | undefined;
  tabs?: { active: boolean; url?: string | undefined }[] | undefined;
}

/**
 * NextAI's pages on screen, in the browser's screen coordinates: each open panel or extension page
 * where its window is now (a minimised window shows nothing), and the extension manager pages in
 * front of their window. A panel whose exact place no pointer event has told yet may be on either
 * side of its window: both strips count until one does.
 */
export function screenSurfaces(panels: readonly PanelSurface[], windows: readonly WindowLike[]): OwnSurface[] {
  const byId = new Map(windows.map((window) => [window.id, window]));
  const scale = panels[0]?.scale ?? 1;
  const surfaces: OwnSurface[] = [];
  for (const panel of panels) {
    const window = byId.get(panel.window_id);
    if (window?.state === 'minimized') continue;
    const frame = window ? frameOf(window) : undefined;
    let rects: OwnSurface['rects'];
    if (!frame) rects = [];
    else if (panel.offset) {
      rects = [{ x: frame.x + panel.offset.x, y: frame.y + panel.offset.y, width: panel.width, height: panel.height }];
    } else if (panel.kind === 'panel') {
      const width = Math.min(frame.width, panel.width + STRIP_SLACK);
      rects = [
        { x: frame.x, y: frame.y, width, height: frame.height },
        { x: frame.x + frame.width - width, y: frame.y, width, height: frame.height },
      ];
    } else rects = [frame];
    // Keys go to the page only while its window is the focused one, whatever the page thinks.
    surfaces.push({ kind: panel.kind, focused: panel.focused && window?.focused !== false, rects, scale: panel.scale });
  }
  for (const window of windows) {
    if (window.state === 'minimized') continue;
    const active = window.tabs?.find((tab) => tab.active);
    const frame = frameOf(window);
    // A window of developer tools, whatever it inspects: its console runs code as the page.
    const protectedPage =
      window.type === 'devtools' || (active?.url !== undefined && PROTECTED_BROWSER_PAGES.test(active.url));
    if (!protectedPage) continue;
    surfaces.push({ kind: 'browser_page', focused: window.focused, rects: frame ? [frame] : [], scale });
  }
  return surfaces;
}

function frameOf(window: WindowLike): OwnSurface['rects'][number] | undefined {
  const { left, top, width, height } = window;
  if (left === undefined || top === undefined || width === undefined || height === undefined) return undefined;
  return { x: left, y: top, width, height };
}

/** Whether this browser runs without windows on any screen (an automated headless browser). */
export function isHeadless(userAgent: string): boolean {
  return /\bHeadlessChrome\//.test(userAgent);
}

export interface OwnSurfaceReports {
  /** A page's surface, or undefined when it closed or is hidden. `key` identifies the page. */
  set(key: object, surface: PanelSurface | undefined): void;
  /** NextAI's pages on screen now, with the windows' focus and places as the browser has them now. */
  current(): Promise<OwnSurface[]>;
}

/**
 * Tells the daemon where NextAI's pages are on screen whenever that may have changed (a page
 * reported, a window moved or gained focus, a tab changed), and everything again on connecting;
 * the daemon also asks (`current`) right before the agent clicks or types, as the browser's
 * events do not come for every change (no focus event when another app takes the focus on some
 * window managers). A headless browser shows nothing on any screen, so it reports nothing.
 */
export function startOwnSurfaceReports(connection: HostConnection): OwnSurfaceReports {
  if (isHeadless(globalThis.navigator?.userAgent ?? '')) return { set: () => undefined, current: async () => [] };
  const panels = new Map<object, PanelSurface>();
  let lastSent = '';
  let running: Promise<void> | undefined;
  let again = false;

  const current = async (): Promise<OwnSurface[]> => {
    const windows = await browser.windows
      .getAll({ populate: true, windowTypes: ['normal', 'popup', 'devtools'] })
      .catch(() => browser.windows.getAll({ populate: true }))
      .catch(() => []);
    return screenSurfaces([...panels.values()], windows as WindowLike[]);
  };

  const refresh = (force = false): void => {
    if (force) lastSent = '';
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        const surfaces = await current();
        const key = JSON.stringify(surfaces);
        if (key !== lastSent && connection.notify('ui.surfaces', { surfaces })) lastSent = key;
      } while (again);
    })().finally(() => {
      running = undefined;
    });
  };

  let connected = false;
  connection.onStateChange((state) => {
    const now = state.status === 'connected';
    if (now && !connected) refresh(true);
    connected = now;
  });
  browser.tabs.onActivated.addListener(() => refresh());
  browser.tabs.onUpdated.addListener((_id, change) => {
    if (change.url !== undefined || change.status !== undefined) refresh();
  });
  browser.tabs.onRemoved.addListener(() => refresh());
  browser.windows.onFocusChanged.addListener(() => refresh());
  browser.windows.onRemoved.addListener(() => refresh());
  // Chromium only: Firefox has no bounds event (its pages report again when focused or resized).
  (browser.windows as { onBoundsChanged?: { addListener(listener: () => void): void } }).onBoundsChanged?.addListener(
    () => refresh(),
  );
  return {
    set(key, surface) {
      if (!surface) {
        panels.delete(key);
        refresh();
        return;
      }
      const { origin, ...rest } = surface;
      if (!origin) {
        panels.set(key, rest);
        refresh();
        return;
      }
      // The page's corner on the screen, kept relative to its window as it is now: the window's
      // place when the page last looked could be from before it was moved.
      void browser.windows
        .get(surface.window_id)
        .then((window) => {
          panels.set(key, { ...rest, offset: { x: origin.x - (window.left ?? 0), y: origin.y - (window.top ?? 0) } });
        })
        .catch(() => panels.set(key, rest))
        .finally(() => refresh());
    },
    current,
  };
}
