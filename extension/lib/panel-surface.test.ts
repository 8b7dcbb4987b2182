import { describe, expect, it } from 'vitest';

import { watchPanelSurface, type PanelSurface } from './panel-surface.js';

/** Just enough of a page's window for the watcher: events, size, focus and visibility. */
function fakePage() {
  const state = { visibilityState: 'visible', focused: false };
  const doc = Object.assign(new EventTarget(), state, { hasFocus: (): boolean => doc.focused });
  const intervals: (() => void)[] = [];
  const view = Object.assign(new EventTarget(), {
    document: doc,
    innerWidth: 360,
    innerHeight: 700,
    devicePixelRatio: 2,
    setInterval: (callback: () => void) => intervals.push(callback),
    clearInterval: () => undefined,
  });
  return { view, doc, tick: () => intervals.forEach((callback) => callback()) };
}

function pointer(type: string, screen: { x: number; y: number }, client: { x: number; y: number }): Event {
  return Object.assign(new Event(type), { screenX: screen.x, screenY: screen.y, clientX: client.x, clientY: client.y });
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('a NextAI page reports where it is and whether it has the focus', () => {
  it('reports on start, on focus, from a pointer event, and when hidden', async () => {
    const page = fakePage();
    const reports: (PanelSurface | undefined)[] = [];
    const stop = watchPanelSurface({
      kind: 'panel',
      currentWindow: async () => ({ id: 9 }),
      report: (surface) => reports.push(surface),
      target: page.view as unknown as Window,
    });
    await settle();
    expect(reports).toEqual([{ kind: 'panel', focused: false, window_id: 9, width: 360, height: 700, scale: 2 }]);

    page.doc.focused = true;
    page.view.dispatchEvent(new Event('focus'));
    await settle();
    expect(reports.at(-1)).toMatchObject({ focused: true });

    // Screen (1010, 300) at page (10, 200): the page's corner is at (1000, 100) on the screen.
    page.doc.dispatchEvent(pointer('pointermove', { x: 1010, y: 300 }, { x: 10, y: 200 }));
    expect(reports.at(-1)).toMatchObject({ origin: { x: 1000, y: 100 } });

    // A resize may have moved the corner: it is forgotten until the next pointer event.
    page.view.innerWidth = 420;
    page.view.dispatchEvent(new Event('resize'));
    await settle();
    expect(reports.at(-1)).toEqual({ kind: 'panel', focused: true, window_id: 9, width: 420, height: 700, scale: 2 });

    page.doc.visibilityState = 'hidden';
    page.doc.dispatchEvent(new Event('visibilitychange'));
    expect(reports.at(-1)).toBeUndefined();
    stop();
  });

  it('notices focus that moved without an event, and sends nothing when nothing changed', async () => {
    const page = fakePage();
    const reports: (PanelSurface | undefined)[] = [];
    watchPanelSurface({
      kind: 'extension_page',
      currentWindow: async () => ({ id: 1 }),
      report: (surface) => reports.push(surface),
      target: page.view as unknown as Window,
    });
    await settle();
    page.tick();
    page.tick();
    expect(reports).toHaveLength(1);
    page.doc.focused = true;
    page.tick();
    expect(reports).toHaveLength(2);
    expect(reports[1]).toMatchObject({ kind: 'extension_page', focused: true });
  });
});
