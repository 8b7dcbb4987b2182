import { browser } from 'wxt/browser';

import { UI_LANGUAGES } from '@nextai/shared';

import { pickLocale, translator, type Locale, type MessageKey, type Translate } from '../i18n.js';
import type { RunDraft } from '../panel-messages.js';
import type { DraftBox } from './drafts.js';
import { agentTabs } from '../browser/agent-tabs.js';
import type { BackgroundContext } from './features.js';

/**
 * The right-click menu "Let the agent handle this": one item each on a selection, a link, an image
 * and a page. A click prepares a run — a short instruction the person can edit, and what they
 * pointed at — hands it to the side panel through the DraftBox, and opens the panel (Chromium's
 * side panel, Firefox's sidebar).
 */

export type DraftKind = RunDraft['context']['kind'];
export const DRAFT_KINDS: readonly DraftKind[] = ['selection', 'link', 'image', 'page'];

const MENU_ID_PREFIX = 'nextai-handle-';
/** The pages the menu shows on: web pages and local files, not the browser's or extensions' own. */
const DOCUMENT_URL_PATTERNS = ['http://*/*', 'https://*/*', 'file:///*'];
/** A selection longer than this is cut (the run's goal holds at most 100 000 characters). */
export const MAX_SELECTION_CHARS = 20_000;
/** URLs longer than this (a data: image, mostly) are left out: useless to the agent, heavy in the goal. */
export const MAX_URL_CHARS = 4_096;

const MENU_TITLES: Record<DraftKind, MessageKey> = {
  selection: 'contextMenuSelection',
  link: 'contextMenuLink',
  image: 'contextMenuImage',
  page: 'contextMenuPage',
};
const INSTRUCTIONS: Record<DraftKind, MessageKey> = {
  selection: 'contextInstructionSelection',
  link: 'contextInstructionLink',
  image: 'contextInstructionImage',
  page: 'contextInstructionPage',
};

/** What the browser tells about a click on a menu item (the fields both Chromium and Firefox send). */
export interface MenuClick {
  menuItemId: string | number;
  selectionText?: string;
  linkUrl?: string;
  srcUrl?: string;
  mediaType?: string;
  pageUrl?: string;
  frameUrl?: string;
}

/** The tab the click happened in (absent for clicks outside a tab). */
export interface MenuTab {
  id?: number;
  windowId?: number;
  url?: string;
  title?: string;
}

export function menuItemId(kind: DraftKind): string {
  return `${MENU_ID_PREFIX}${kind}`;
}

export function kindOfMenuItem(id: string | number): DraftKind | undefined {
  const text = String(id);
  if (!text.startsWith(MENU_ID_PREFIX)) return undefined;
  const kind = text.slice(MENU_ID_PREFIX.length);
  return DRAFT_KINDS.find((known) => known === kind);
}

function usableUrl(url: string | undefined): string | undefined {
  const trimmed = url?.trim();
  return trimmed && trimmed.length <= MAX_URL_CHARS ? trimmed : undefined;
}

function cutSelection(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  if (!trimmed) return undefined;
  return trimmed.length > MAX_SELECTION_CHARS ? `${trimmed.slice(0, MAX_SELECTION_CHARS)}…` : trimmed;
}

/**
 * The run a click prepares: the instruction in the person's language and everything the browser
 * said about what was clicked. Undefined for a click on another extension's item.
 */
export function draftFromClick(
  info: MenuClick,
  tab: MenuTab | undefined,
  t: Translate,
  newId: () => string = () => crypto.randomUUID(),
): RunDraft | undefined {
  const kind = kindOfMenuItem(info.menuItemId);
  if (!kind) return undefined;
  const context: RunDraft['context'] = { kind };
  const selection = cutSelection(info.selectionText);
  if (selection) context.selection = selection;
  const link = usableUrl(info.linkUrl);
  if (link) context.link_url = link;
  // Firefox also reports srcUrl for audio and video; only images are offered as images.
  const image = info.mediaType === undefined || info.mediaType === 'image' ? usableUrl(info.srcUrl) : undefined;
  if (image) context.image_url = image;
  const page = usableUrl(info.pageUrl) ?? usableUrl(tab?.url);
  if (page) context.page_url = page;
  const title = tab?.title?.trim();
  if (title) context.page_title = title;
  // Chromium gives -1 (TAB_ID_NONE) for a click that is not in a tab.
  if (tab?.id !== undefined && tab.id >= 0) context.tab_id = tab.id;
  return { id: newId(), instruction: t(INSTRUCTIONS[kind]), context };
}

interface MenusApi {
  create(
    properties: { id: string; title: string; contexts: DraftKind[]; documentUrlPatterns?: string[] },
    callback?: () => void,
  ): unknown;
  removeAll(): Promise<void>;
  onClicked: { addListener(listener: (info: MenuClick, tab?: MenuTab) => void): void };
}

interface PanelOpeners {
  sidePanel?: { open(options: { windowId?: number; tabId?: number }): Promise<void> };
  sidebarAction?: { open(): Promise<void> };
}

/** Chromium's contextMenus, or Firefox's (menus, with contextMenus as its alias). */
function menusApi(): MenusApi | undefined {
  const api = browser as unknown as { contextMenus?: MenusApi; menus?: MenusApi };
  return api.contextMenus ?? api.menus;
}

/**
 * Opens the side panel (Chromium) or the sidebar (Firefox). Both browsers only allow it while
 * handling the person's click, so this runs first and synchronously in the click handler.
 */
function openPanel(tab: MenuTab | undefined): void {
  const api = browser as unknown as PanelOpeners;
  let opening: Promise<void> | undefined;
  try {
    if (api.sidebarAction) opening = api.sidebarAction.open();
    else if (api.sidePanel && tab?.windowId !== undefined) opening = api.sidePanel.open({ windowId: tab.windowId });
    else if (api.sidePanel && tab?.id !== undefined && tab.id >= 0) opening = api.sidePanel.open({ tabId: tab.id });
  } catch (error) {
    console.warn('NextAI: could not open the side panel.', error);
  }
  // The draft waits in the DraftBox: whenever the panel opens, it gets it.
  opening?.catch((error: unknown) => console.warn('NextAI: could not open the side panel.', error));
}

/** Creates the four items; resolves to those the browser accepted (id and title). */
async function createMenus(menus: MenusApi, t: Translate): Promise<{ id: string; title: string }[]> {
  // Menus outlive a restart of Chromium's service worker: start from none, so ids never clash.
  await menus.removeAll();
  const created = DRAFT_KINDS.map(
    (kind) =>
      new Promise<{ id: string; title: string } | undefined>((resolve) => {
        const item = { id: menuItemId(kind), title: t(MENU_TITLES[kind]) };
        menus.create({ ...item, contexts: [kind], documentUrlPatterns: DOCUMENT_URL_PATTERNS }, () => {
          const error = browser.runtime.lastError;
          if (error) console.warn(`NextAI: could not create the menu item for a ${kind}.`, error.message);
          resolve(error ? undefined : item);
        });
      }),
  );
  return (await Promise.all(created)).filter((item) => item !== undefined);
}

/** The language the person chose in settings (`ui.language`); `auto` and anything unknown follow the browser. */
export function menuLocale(language: string | undefined, browserLanguage: string): Locale {
  const chosen = UI_LANGUAGES.find((known) => known === language);
  return chosen === undefined || chosen === 'auto' ? pickLocale(browserLanguage) : chosen;
}

export function startContextMenu({ connection }: BackgroundContext, drafts: DraftBox): void {
  const menus = menusApi();
  if (!menus) return;
  // The browser's language until the daemon says what the person chose.
  let t = translator(pickLocale(navigator.language));

  /** A click on one of the items: open the panel, then hand it the prepared run. */
  const onClick = (info: MenuClick, tab?: MenuTab): RunDraft | undefined => {
    const draft = draftFromClick(info, tab, t);
    if (!draft) return undefined;
    openPanel(tab);
    // A right-click on a page gives that tab to the run the person starts from this draft (and
    // to no other run): it may work there without asking again.
    if (draft.context.tab_id !== undefined) {
      agentTabs()
        .offer(draft.context.tab_id, draft.id)
        .catch((error: unknown) => console.warn('NextAI: could not give the tab to the agent.', error));
    }
    drafts.offer(draft);
    return draft;
  };

  menus.onClicked.addListener(onClick);
  const build = () =>
    createMenus(menus, t).catch((error: unknown) => {
      console.warn('NextAI: could not create the right-click menu.', error);
      return [];
    });
  let ready = build();
  /** Rebuilds the items in the chosen language (one rebuild at a time, in order). */
  const follow = (language: string | undefined) => {
    const locale = menuLocale(language, navigator.language);
    if (locale === t.locale) return;
    t = translator(locale);
    ready = ready.then(build);
  };

  // The choice lives in the daemon: read it on every connection, then follow its changes.
  connection.onStateChange((state) => {
    if (state.status !== 'connected') return;
    connection
      .request('settings.get', {})
      .then(({ ui }) => follow(ui.language))
      .catch((error: unknown) => console.warn('NextAI: could not read the language setting.', error));
  });
  connection.onEvent((event) => {
    if (event.type === 'settings.ui_changed') follow(String(event.data.language));
  });

  // For end-to-end tests, which cannot click the browser's own menus: the same handler, the
  // draft waiting for the panel, and the items the browser accepted.
  Object.assign(globalThis, {
    nextaiContextMenu: { click: onClick, current: () => drafts.current(), menuItemId, items: () => ready },
  });
}
