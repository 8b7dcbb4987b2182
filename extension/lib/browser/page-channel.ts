import { browser } from 'wxt/browser';

import { AppError, PAGE_AGENT_GLOBAL, PAGE_AGENT_VERSION, type PageReply, type PageRequest } from '@nextai/shared';

/** The page agent bundle WXT builds from page/src (entrypoints/page-agent.ts). */
const PAGE_AGENT_FILE = '/page-agent.js';

const RESTRICTED_SCHEMES =
  /^(chrome|chrome-extension|edge|brave|opera|vivaldi|about|devtools|view-source|chrome-search|chrome-untrusted|moz-extension|resource):/i;
const WEB_STORES = [
  /^https:\/\/chromewebstore\.google\.com\//i,
  /^https:\/\/chrome\.google\.com\/webstore/i,
  /^https:\/\/microsoftedge\.microsoft\.com\/addons/i,
  /^https:\/\/addons\.mozilla\.org\//i,
];

/** Why the extension cannot work in a page at this URL, or undefined when it can. */
export function restrictedReason(url: string | undefined): string | undefined {
  if (!url) return undefined;
  if (url === 'about:blank') return undefined;
  if (RESTRICTED_SCHEMES.test(url)) {
    return `${url.split('?')[0]} is a browser page; extensions cannot read or act in it. Open a web page instead (browser_navigate).`;
  }
  if (WEB_STORES.some((pattern) => pattern.test(url))) {
    return 'The extension store is protected by the browser: no extension may read or act in it.';
  }
  return undefined;
}

/** Turns what executeScript throws into an error the model can act on. */
export function scriptingError(error: unknown, tabId: number, url: string | undefined): AppError {
  const message = error instanceof Error ? error.message : String(error);
  if (/No tab with id/i.test(message)) {
    return new AppError(
      'TAB_CLOSED',
      `Tab ${tabId} was closed (maybe by the person). List the tabs with browser_tabs or open a new one.`,
    );
  }
  if (
    /frame.*(removed|was removed|detached)|document.*(unloaded|gone)|back\/forward cache|message port closed/i.test(
      message,
    )
  ) {
    return new AppError(
      'PAGE_NAVIGATED',
      'The page navigated away while the action ran. Take a browser_snapshot to see where the tab is now.',
    );
  }
  if (/file:\/\//.test(url ?? '') || /Cannot access contents of url "file:/i.test(message)) {
    return new AppError(
      'RESTRICTED_PAGE',
      'This is a local file (file://) and the person has not allowed the extension to read files ("Allow access to file URLs" on its details page).',
    );
  }
  if (/Cannot access|cannot be scripted|chrome:\/\/|Missing host permission|extensions gallery/i.test(message)) {
    return new AppError(
      'RESTRICTED_PAGE',
      restrictedReason(url) ?? `The browser does not let extensions work in this page (${message}).`,
    );
  }
  return new AppError('TOOL_FAILED', `The page could not be reached: ${message}`);
}

type Injected = Record<string, { version: number; handle(request: PageRequest): Promise<PageReply> } | undefined>;

/**
 * Sends one request to the page agent in the tab's top frame (the extension's isolated world:
 * the page's own scripts cannot see or change it), injecting it first when the document is new.
 */
export async function callPage<T>(tabId: number, request: PageRequest, url?: string): Promise<PageReply<T>> {
  const restricted = restrictedReason(url);
  if (restricted) throw new AppError('RESTRICTED_PAGE', restricted);
  const send = async () => {
    const [result] = await browser.scripting.executeScript({
      target: { tabId, frameIds: [0] },
      func: (name: string, version: number, message: PageRequest) => {
        const agent = (globalThis as unknown as Injected)[name];
        if (!agent || agent.version !== version) return { missing: true } as const;
        return agent.handle(message);
      },
      args: [PAGE_AGENT_GLOBAL, PAGE_AGENT_VERSION, request],
    });
    return result?.result as PageReply<T> | { missing: true } | undefined;
  };
  try {
    let reply = await send();
    if (reply && 'missing' in reply) {
      await browser.scripting.executeScript({ target: { tabId, frameIds: [0] }, files: [PAGE_AGENT_FILE] });
      reply = await send();
    }
    if (!reply || 'missing' in reply) {
      throw new AppError(
        'PAGE_NAVIGATED',
        'The page changed while the extension was reaching it. Take a browser_snapshot.',
      );
    }
    return reply;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw scriptingError(error, tabId, url);
  }
}
