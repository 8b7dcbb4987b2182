import { z } from 'zod';

/**
 * Where one of NextAI's pages (the side panel, or a page of the extension in a tab) is on the
 * screen and whether it has the keyboard focus, as the page itself can tell. The background turns
 * it into screen rectangles with the window's current bounds and tells the daemon, which keeps the
 * agent's clicks and keys away from it (a click there could answer an approval).
 */
export const panelSurfaceSchema = z.object({
  /** A side panel (or Firefox sidebar), or a page of the extension open in a tab. */
  kind: z.enum(['panel', 'extension_page']),
  focused: z.boolean(),
  /** The browser window the page is in. */
  window_id: z.number().int(),
  /** The page's top-left corner on the screen, in DIPs, as the last pointer event told it. */
  origin: z.object({ x: z.number().finite(), y: z.number().finite() }).optional(),
  /** The same relative to its window's corner (set by the background, which knows where the window is). */
  offset: z.object({ x: z.number().finite(), y: z.number().finite() }).optional(),
  width: z.number().finite().nonnegative(),
  height: z.number().finite().nonnegative(),
  /** Screen pixels per DIP. */
  scale: z.number().positive().max(16),
});
export type PanelSurface = z.infer<typeof panelSurfaceSchema>;

export interface SurfaceWatchOptions {
  kind: PanelSurface['kind'];
  /** The page's window (browser.windows.getCurrent). */
  currentWindow(): Promise<{ id: number } | undefined>;
  /** Called with the page's surface whenever it may have changed; undefined when it is not on screen. */
  report(surface: PanelSurface | undefined): void;
  target?: Window;
}

/**
 * Watches the page's focus, visibility, size and (from pointer events) exact position, and
 * reports each change. Returns a function that stops watching.
 */
export function watchPanelSurface(options: SurfaceWatchOptions): () => void {
  const view = options.target ?? window;
  const doc = view.document;
  let windowId: number | undefined;
  let origin: PanelSurface['origin'];
  let last = '';

  const send = () => {
    if (windowId === undefined) return;
    const surface: PanelSurface | undefined =
      doc.visibilityState === 'hidden'
        ? undefined
        : {
            kind: options.kind,
            focused: doc.hasFocus(),
            window_id: windowId,
            ...(origin ? { origin } : {}),
            width: view.innerWidth,
            height: view.innerHeight,
            scale: view.devicePixelRatio || 1,
          };
    const key = JSON.stringify(surface ?? null);
    if (key === last) return;
    last = key;
    options.report(surface);
  };

  const refreshWindow = async () => {
    const current = await options.currentWindow().catch(() => undefined);
    if (current) windowId = current.id;
  };

  // A pointer event knows both its screen and its page position: their difference is where the
  // page's corner is on the screen (the background keeps it relative to the window, which it
  // follows when the window moves).
  const onPointer = (event: MouseEvent) => {
    if (!Number.isFinite(event.screenX)) return;
    origin = { x: event.screenX - event.clientX, y: event.screenY - event.clientY };
    send();
  };
  // After a resize the corner may have moved (the panel's edge was dragged): until the next
  // pointer event the background assumes the widest place the page may be.
  const onResize = () => {
    origin = undefined;
    send();
  };
  const onFocusChange = () => {
    void refreshWindow().then(send);
    send();
  };

  view.addEventListener('focus', onFocusChange);
  view.addEventListener('blur', send);
  doc.addEventListener('focusin', send);
  view.addEventListener('resize', onResize);
  doc.addEventListener('visibilitychange', send);
  doc.addEventListener('pointermove', onPointer, { passive: true, capture: true });
  doc.addEventListener('pointerdown', onPointer, { passive: true, capture: true });
  void refreshWindow().then(send);
  // Focus can move inside the browser without a window event reaching the page (F6 into the
  // panel): checked twice a second as well.
  const timer = view.setInterval(send, 500);
  return () => {
    view.clearInterval(timer);
    view.removeEventListener('focus', onFocusChange);
    view.removeEventListener('blur', send);
    doc.removeEventListener('focusin', send);
    view.removeEventListener('resize', onResize);
    doc.removeEventListener('visibilitychange', send);
    doc.removeEventListener('pointermove', onPointer, { capture: true });
    doc.removeEventListener('pointerdown', onPointer, { capture: true });
  };
}
