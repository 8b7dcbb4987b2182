import { browser, type Browser } from 'wxt/browser';
import { defineBackground } from 'wxt/utils/define-background';

import { VERSION, type DaemonEvent, type MessageTranslations } from '@nextai/shared';

import { showBadge } from '../lib/badge.js';
import { detectBrowser } from '../lib/browser-family.js';
import { implementedBrowserTools, runBrowserTool } from '../lib/browser-tools.js';
import { callPage } from '../lib/browser/page-channel.js';
import { agentTabs } from '../lib/browser/agent-tabs.js';
import { startBrowserTools } from '../lib/browser/tab-tools.js';
import { HostConnection, type EventCursor, type NativePort } from '../lib/host-connection.js';
import { startBackgroundFeatures } from '../lib/background/features.js';
import { startOwnSurfaceReports } from '../lib/background/own-surfaces.js';
import {
  GESTURE_METHODS,
  PANEL_PORT_NAME,
  panelToBackgroundSchema,
  type BackgroundToPanel,
} from '../lib/panel-messages.js';

const CURSOR_KEY = 'eventCursor';
const RECENT_EVENTS = 50;

export default defineBackground({
  // Firefox MV2: keep the background page (and with it the host port) alive.
  persistent: { firefox: true },
  main() {
    const browserName = detectBrowser(navigator);
    // Navigation and request listeners are registered at start-up, as MV3 needs them to be.
    startBrowserTools();
    const connection = new HostConnection({
      connectNative: (name) => browser.runtime.connectNative(name) as unknown as NativePort,
      disconnectReason: (port) =>
        browser.runtime.lastError?.message ?? (port as unknown as { error?: { message?: string } }).error?.message,
      client: { kind: 'extension', name: browserName, version: VERSION },
      browserTools: implementedBrowserTools,
      // Set just below, before the connection starts.
      ownSurfaces: () => surfaces.current(),
      loadCursor: async () => {
        const stored = await browser.storage.local.get(CURSOR_KEY);
        const cursor = stored[CURSOR_KEY] as EventCursor | undefined;
        return cursor && typeof cursor.seq === 'number' ? cursor : { seq: 0 };
      },
      saveCursor: (cursor) => browser.storage.local.set({ [CURSOR_KEY]: cursor }),
    });

    const recentEvents: DaemonEvent[] = [];
    const panels = new Set<Browser.runtime.Port>();
    const post = (port: Browser.runtime.Port, message: BackgroundToPanel) => port.postMessage(message);
    // The background's features beyond the connection: the approval badge, keyboard commands,
    // the right-click menu and the drafts it prepares. Each lives in lib/background/.
    // Where NextAI's pages are on screen, for the daemon to keep the agent's input away from them.
    const surfaces = startOwnSurfaceReports(connection);
    const features = startBackgroundFeatures({
      connection,
      broadcast: (message) => {
        for (const panel of panels) post(panel, message);
      },
    });

    connection.onStateChange((state) => {
      showBadge(state).catch((error: unknown) => console.warn('NextAI: could not update the toolbar badge.', error));
      for (const panel of panels) post(panel, { type: 'state', state: { ...state } });
    });
    connection.onEvent((event) => {
      recentEvents.push(event);
      if (recentEvents.length > RECENT_EVENTS) recentEvents.shift();
      for (const panel of panels) post(panel, { type: 'events', events: [event] });
    });

    browser.runtime.onConnect.addListener((port) => {
      if (port.name !== PANEL_PORT_NAME) return;
      // Only the extension's own pages are panels; a content script in a web page may not speak
      // for the person (it could otherwise answer approvals).
      if (!isOwnPage(port.sender?.url)) {
        port.disconnect();
        return;
      }
      panels.add(port);
      port.onDisconnect.addListener(() => {
        panels.delete(port);
        surfaces.set(port, undefined);
      });
      post(port, { type: 'state', state: { ...connection.current } });
      post(port, { type: 'events', events: [...recentEvents] });
      const draft = features.drafts.current();
      if (draft) post(port, { type: 'draft', draft });
      port.onMessage.addListener((raw) => {
        const parsed = panelToBackgroundSchema.safeParse(raw);
        if (!parsed.success) return;
        const message = parsed.data;
        if (message.type === 'reconnect') {
          connection.reconnectNow();
          return;
        }
        if (message.type === 'draft_taken') {
          features.drafts.taken(message.id);
          return;
        }
        if (message.type === 'surface') {
          surfaces.set(port, message.surface ?? undefined);
          return;
        }
        const fail = (error: { code?: string; message?: string; translations?: MessageTranslations }) =>
          post(port, {
            type: 'response',
            id: message.id,
            outcome: {
              ok: false,
              error: {
                code: error.code ?? 'INTERNAL',
                message: error.message ?? String(error),
                ...(error.translations ? { translations: error.translations } : {}),
              },
            },
          });
        if (GESTURE_METHODS.has(message.method) && message.gesture !== true) {
          fail({
            code: 'NOT_THE_PERSON',
            message: 'Only a click or key press of yours in the panel can do this; nothing was changed.',
          });
          return;
        }
        connection
          .request(message.method, message.params as never, { timeoutMs: 120_000 })
          .then(async (result) => {
            // The run started from a right-click draft takes the tab the draft was made on before
            // anyone hears of the run (its first browser call comes after this answer).
            if (message.method === 'runs.start' && message.draft_id) {
              const runId = (result as { run?: { id?: unknown } }).run?.id;
              if (typeof runId === 'string') {
                await agentTabs()
                  .claim(message.draft_id, runId)
                  .catch((error: unknown) => console.warn('NextAI: could not give the tab to the run.', error));
              }
            }
            post(port, { type: 'response', id: message.id, outcome: { ok: true, result } });
          })
          .catch(fail);
      });
    });

    // Chromium: the toolbar button opens the side panel. (Firefox opens its sidebar by itself.)
    void browser.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true });

    // For end-to-end tests and `npm run bench`, which drive the real connection from this context.
    Object.assign(globalThis, { nextaiBackground: { connection, runBrowserTool, callPage } });

    void connection.start();
  },
});

/** Whether `url` is a page of this extension (its side panel, sidebar or a page of its own). */
function isOwnPage(url: string | undefined): boolean {
  return url !== undefined && url.startsWith(browser.runtime.getURL('/'));
}
