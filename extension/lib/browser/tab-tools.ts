import { browser, type Browser } from 'wxt/browser';

import {
  AppError,
  type ActValue,
  type BrowserCallContext,
  type ExtractValue,
  type InspectValue,
  type PageReply,
  type PageRequest,
  type SettleValue,
  type SnapshotValue,
  type ToolInput,
  type ToolOutput,
} from '@nextai/shared';

import { groupAgentTab } from './tab-group.js';
import { agentTabs, DIRECT_CALLS, type AgentTabs } from './agent-tabs.js';
import { NavigationGuard } from './navigation-guard.js';
import { callPage, restrictedReason } from './page-channel.js';
import { TabActivity, type NavigationEvent } from './tab-activity.js';
import { screenshotTab } from './tab-screenshot.js';

/** What a browser tool handler gets besides its input. */
export interface BrowserToolContext {
  callId: string;
  call?: BrowserCallContext | undefined;
  /**
   * Aborted when the daemon withdraws the call (the emergency stop, the run stopped or gone):
   * from then on nothing more is done in the tab — no action, no navigation — and waits end.
   */
  signal?: AbortSignal | undefined;
}

/** The error a withdrawn call ends with: the daemon's reason. */
function stoppedError(signal: AbortSignal): AppError {
  const reason: unknown = signal.reason;
  if (reason instanceof AppError) return reason;
  return new AppError('CANCELLED', 'The call was withdrawn; nothing more was done in the tab.');
}

/** Goes no further when the call has been withdrawn. */
function throwIfStopped(context: BrowserToolContext): void {
  if (context.signal?.aborted) throw stoppedError(context.signal);
}

/** `promise`, or the withdrawal of the call, whichever comes first: a wait ends with the call. */
function untilStopped<T>(promise: Promise<T>, context: BrowserToolContext): Promise<T> {
  const signal = context.signal;
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(stoppedError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stoppedError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

const SETTLE_TIMEOUT_MS = 5000;
const NAVIGATION_TIMEOUT_MS = 15_000;
/** How long a new tab's about:blank may take before the navigation starts anyway. */
const BLANK_TAB_WAIT_MS = 3000;
/** How long a withdrawn navigation's loading is stopped again while the tab still loads. */
const STOP_LOADING_MS = 2000;

interface Services {
  tabs: AgentTabs;
  activity: TabActivity;
  guard: NavigationGuard;
  /** The document id of each tab's latest snapshot: refs from an older document are stale. */
  snapshotDoc: Map<number, string>;
}

let services: Services | undefined;

/** Built on first use, in the background only (the listeners must live in the service worker). */
function tools(): Services {
  if (!services) {
    const tabs = agentTabs();
    services = { tabs, activity: new TabActivity(), guard: new NavigationGuard(tabs), snapshotDoc: new Map() };
    followSpawnedTabs(services);
  }
  return services;
}

const NEW_TAB_PAGE = /^(chrome|edge|brave|opera|vivaldi):\/\/(newtab|new-tab-page)|^about:(newtab|home)/i;

/**
 * A tab that a page in an agent tab opens — a link with target=_blank, window.open() — belongs to
 * the same run, so the run's domain rules follow it; one whose first address the rules refuse is
 * closed (its rules may come a moment after its first request). Without this a blocked site
 * is one target=_blank away.
 */
function followSpawnedTabs({ tabs, guard }: Services): void {
  /** Spawned tabs that have not shown an allowed page yet (afterwards a refused address is a tool error). */
  const fresh = new Set<number>();
  /**
   * Closes a fresh tab whose navigation to `url` ended — blocked or shown. Not sooner: a tab
   * closed while its opener's window.open() is still setting it up leaves the opener's page stuck.
   */
  const ended = async (tabId: number, url: string | undefined) => {
    if (!fresh.has(tabId) || !url || url === 'about:blank') return;
    const entry = await tabs.entry(tabId);
    if (!entry) return;
    fresh.delete(tabId);
    if (guard.blocks(url, entry.owner)) await closeQuietly(tabId);
  };
  const adopt = async (sourceTabId: number, tabId: number) => {
    const source = await tabs.entry(sourceTabId);
    if (!source || (await tabs.entry(tabId))) return;
    fresh.add(tabId);
    await tabs.give(tabId, 'spawned', source.owner);
    // A tab the agent's page opened is the agent's too; one from the person's own tab is not moved.
    if (source.how !== 'attached' && source.how !== 'context_menu') await groupAgentTab(tabId);
    // Its first page may have ended before it was the run's.
    const now = await browser.tabs.get(tabId).catch(() => undefined);
    if (now?.status === 'complete') await ended(tabId, now.url);
  };
  const warn = (error: unknown) => console.warn('NextAI: could not follow a tab an agent tab opened.', error);
  browser.webNavigation.onCreatedNavigationTarget.addListener((details) => {
    adopt(details.sourceTabId, details.tabId).catch(warn);
  });
  browser.tabs.onCreated.addListener((tab) => {
    const url = tab.pendingUrl ?? tab.url;
    // Not a new tab page the person opened while an agent tab was in front.
    if (tab.id === undefined || tab.openerTabId === undefined || NEW_TAB_PAGE.test(url ?? '')) return;
    adopt(tab.openerTabId, tab.id).catch(warn);
  });
  // The first navigation fails (the rules were in time) or commits (they were not, or it is allowed).
  const follow = (details: { tabId: number; frameId: number; url: string }) => {
    if (details.frameId === 0) ended(details.tabId, details.url).catch(warn);
  };
  browser.webNavigation.onErrorOccurred.addListener(follow);
  browser.webNavigation.onCommitted.addListener(follow);
  browser.tabs.onRemoved.addListener((tabId) => fresh.delete(tabId));
}

async function closeQuietly(tabId: number): Promise<void> {
  await browser.tabs.remove(tabId).catch(() => undefined);
}

/** Registers the background's listeners at start-up, as MV3 wants for events to wake it. */
export function startBrowserTools(): void {
  tools();
}

function runKey(context: BrowserToolContext): string {
  return context.call?.run_id ?? DIRECT_CALLS;
}

/**
 * Before any browser tool: the run's domain rules in place for its tabs; none at all (the
 * browser refused them) refuses the call.
 */
async function prepare(context: BrowserToolContext): Promise<Services> {
  const { guard } = tools();
  await guard.update(runKey(context), context.call?.navigation);
  guard.ready();
  return tools();
}

/**
 * A page the rules refuse, although the agent's tab shows it: the browser's rules see requests,
 * not a page restored from the back/forward cache or one a tab showed before it was given.
 */
function refuseBlocked(url: string | undefined, context: BrowserToolContext): void {
  if (!url || !tools().guard.blocks(url, runKey(context))) return;
  throw new AppError(
    'POLICY_BLOCKED',
    `The tab shows ${url}, a site NextAI's domain policy blocks, so the agent may not read or act in it.${privateHint(url, runKey(context))} Go elsewhere (browser_navigate) or close the tab.`,
  );
}

/** For an address refused as loopback or private: what it is and how the person can allow it. */
function privateHint(url: string, owner: string | undefined): string {
  if (!tools().guard.refusedAsPrivate(url, owner)) return '';
  let host = url;
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    // The whole address names it.
  }
  return ` ${host} is a loopback, link-local or private-network address (this computer or the local network), which the agent opens only when security.allowed_domains names the host exactly: add "${host}" there (and "*" beside it if every other site should stay allowed).`;
}

async function getTab(tabId: number): Promise<Browser.tabs.Tab> {
  try {
    return await browser.tabs.get(tabId);
  } catch {
    throw new AppError(
      'TAB_CLOSED',
      `Tab ${tabId} does not exist any more (it was closed, maybe by the person). List the tabs with browser_tabs.`,
    );
  }
}

/** The tab a call works in: the one named (if the agent may use it), else the run's working tab. */
async function workingTab(
  tabId: number | undefined,
  context: BrowserToolContext,
): Promise<Browser.tabs.Tab | undefined> {
  const { tabs } = tools();
  if (tabId !== undefined) {
    const tab = await getTab(tabId);
    if (!(await tabs.allowed(tabId, runKey(context)))) {
      const whose =
        (await tabs.entry(tabId)) === undefined
          ? 'is one the person opened themselves'
          : 'belongs to another task of the agent';
      throw new AppError(
        'TAB_NOT_GIVEN',
        `Tab ${tabId} ("${tab.title ?? ''}") ${whose}; the agent works only in tabs it opened or was given for this task. If the person asked you to work on it, call browser_tabs with action "attach" and tab_id ${tabId} — they will be asked.`,
      );
    }
    await tabs.setWorking(runKey(context), tabId);
    return tab;
  }
  const working = await tabs.working(runKey(context));
  if (working === undefined) return undefined;
  try {
    return await browser.tabs.get(working);
  } catch {
    throw new AppError(
      'TAB_CLOSED',
      `The agent's tab ${working} was closed (maybe by the person). Open a page with browser_navigate.`,
    );
  }
}

async function requireTab(
  tabId: number | undefined,
  context: BrowserToolContext,
): Promise<Browser.tabs.Tab & { id: number }> {
  const tab = await workingTab(tabId, context);
  if (!tab) {
    const closed = await tools().tabs.closedWorking(runKey(context));
    if (closed !== undefined) {
      throw new AppError(
        'TAB_CLOSED',
        `The agent's tab ${closed} was closed (maybe by the person). Open a page with browser_navigate, or list the tabs with browser_tabs.`,
      );
    }
  }
  if (!tab || tab.id === undefined) {
    throw new AppError(
      'NOT_FOUND',
      'The agent has no tab to work in yet. Open a page with browser_navigate (or browser_tabs "open").',
    );
  }
  return tab as Browser.tabs.Tab & { id: number };
}

async function page<T>(
  tab: Browser.tabs.Tab & { id: number },
  request: PageRequest,
  context: BrowserToolContext,
): Promise<PageReply<T> & { ok: true }> {
  refuseBlocked(tab.url, context);
  // The last moment a withdrawn call can be kept from acting in the page.
  throwIfStopped(context);
  const reply = await untilStopped(callPage<T>(tab.id, request, tab.url), context);
  // The document that answered may not be the one checked (the tab moved meanwhile).
  refuseBlocked(reply.url, context);
  if (!reply.ok) throw new AppError(reply.error.code, reply.error.message);
  return reply;
}

/**
 * A navigation the domain rules stopped: Chromium says ERR_BLOCKED_BY_CLIENT; other browsers use
 * other words, so a failed or redirected document request to an address the rules refuse counts too.
 */
function blockedNavigation(events: NavigationEvent[], owner: string): NavigationEvent | undefined {
  const failed = events.some((event) => event.kind === 'error' || event.kind === 'request_error');
  return events.find(
    (event) =>
      (event.kind === 'error' && /ERR_BLOCKED_BY_CLIENT/.test(event.error ?? '')) ||
      (failed && ['redirect', 'error', 'request_error'].includes(event.kind) && tools().guard.blocks(event.url, owner)),
  );
}

function navigationError(event: NavigationEvent, owner: string): AppError {
  if (/ERR_BLOCKED_BY_CLIENT/.test(event.error ?? '') || tools().guard.blocks(event.url, owner)) {
    return new AppError(
      'POLICY_BLOCKED',
      `The tab was stopped from opening ${event.url}: NextAI's domain policy blocks that site (the policy holds for redirects and clicked links too).${privateHint(event.url, owner)} Go back (browser_navigate "back") or choose another site.`,
    );
  }
  if (/ERR_ABORTED/.test(event.error ?? '')) {
    return new AppError('PAGE_NAVIGATED', `Loading ${event.url} was interrupted by another navigation.`);
  }
  return new AppError('TOOL_FAILED', `${event.url} could not be loaded (${event.error ?? 'unknown error'}).`);
}

/**
 * Opens the agent's new tab on about:blank and waits for that blank page to be done: the domain
 * rules need the tab's id before it goes anywhere, and a navigation started while the blank page
 * is still loading is lost, or its load is taken for the blank page's.
 */
async function openBlankTab(context: BrowserToolContext): Promise<Browser.tabs.Tab & { id: number }> {
  const created = await browser.tabs.create({ url: 'about:blank', active: true });
  if (created.id === undefined) throw new AppError('TOOL_FAILED', 'The browser did not open a tab.');
  const tabId = created.id;
  await tools().tabs.give(tabId, 'opened', runKey(context));
  await groupAgentTab(tabId);
  const deadline = performance.now() + BLANK_TAB_WAIT_MS;
  let tab: Browser.tabs.Tab = created;
  while (tab.status !== 'complete' && performance.now() < deadline) {
    throwIfStopped(context);
    await new Promise((resolve) => setTimeout(resolve, 20));
    tab = await getTab(tabId);
  }
  return { ...tab, id: tabId };
}

async function navigateTab(
  tab: Browser.tabs.Tab & { id: number },
  start: () => Promise<unknown>,
  waitUntil: 'load' | 'domcontentloaded' | 'networkidle',
  timeoutMs: number,
  context: BrowserToolContext,
  toAddress: boolean,
): Promise<ToolOutput<'browser_navigate'>> {
  const { activity } = tools();
  const since = activity.now();
  throwIfStopped(context);
  // Withdrawn while the page loads: the loading stops too (as the browser's Stop button does).
  const stopLoading = () => void stopTabLoading(tab.id);
  context.signal?.addEventListener('abort', stopLoading, { once: true });
  let event;
  try {
    try {
      await start();
    } catch (error) {
      throw new AppError('TOOL_FAILED', `The browser could not navigate: ${(error as Error).message}`);
    }
    event = await untilStopped(activity.loaded(tab.id, since, waitUntil, timeoutMs, toAddress), context);
  } finally {
    context.signal?.removeEventListener('abort', stopLoading);
  }
  // A tab closed meanwhile (by the person) says so, whatever its load last reported.
  const now = await getTab(tab.id);
  const blocked = blockedNavigation(activity.since(tab.id, since), runKey(context));
  if (blocked) throw navigationError(blocked, runKey(context));
  if (event?.kind === 'error') throw navigationError(event, runKey(context));
  // Back and forward may restore a blocked page from the back/forward cache, with no request.
  refuseBlocked(now.url, context);
  if (!event) {
    throw new AppError(
      'TIMEOUT',
      `${now.url ?? 'The page'} did not finish loading within ${timeoutMs} ms; what has loaded is in the tab (take a browser_snapshot).`,
    );
  }
  return { url: now.url ?? event.url, title: now.title ?? '', tab_id: tab.id };
}

/**
 * Stops a tab's loading as the browser's Stop button does. A stop that lands before the new page
 * has replaced the old one stops only the old, so it is sent again until the tab is no longer
 * loading (for a moment at most).
 */
async function stopTabLoading(tabId: number): Promise<void> {
  const deadline = performance.now() + STOP_LOADING_MS;
  do {
    // At once: by default a script waits until the page is idle, which a page still loading is not.
    await browser.scripting
      .executeScript({ target: { tabId }, func: () => window.stop(), injectImmediately: true })
      .catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const now = await browser.tabs.get(tabId).catch(() => undefined);
    if (now?.status !== 'loading') return;
  } while (performance.now() < deadline);
}

export async function navigate(
  input: ToolInput<'browser_navigate'>,
  context: BrowserToolContext,
): Promise<ToolOutput<'browser_navigate'>> {
  const { guard } = await prepare(context);
  let tab = await workingTab(input.tab_id, context);
  const special = input.url === 'back' || input.url === 'forward' || input.url === 'reload';
  if (!tab) {
    if (special)
      throw new AppError('NOT_FOUND', 'The agent has no tab yet, so there is nothing to go back, forward or reload.');
    tab = await openBlankTab(context);
  }
  // The rules for this tab are in place before it goes anywhere.
  await guard.update(runKey(context), context.call?.navigation);
  guard.ready();
  const target = tab as Browser.tabs.Tab & { id: number };
  const restricted = special ? undefined : restrictedReason(input.url);
  if (restricted) throw new AppError('RESTRICTED_PAGE', restricted);
  // The document id of the last snapshot stays: a ref from it used on the new page is STALE_REF,
  // where refs restarting at e1 would otherwise name some other element.
  const start =
    input.url === 'back'
      ? () => browser.tabs.goBack(target.id)
      : input.url === 'forward'
        ? () => browser.tabs.goForward(target.id)
        : input.url === 'reload'
          ? () => browser.tabs.reload(target.id)
          : () => browser.tabs.update(target.id, { url: withScheme(input.url) });
  return navigateTab(target, start, input.wait_until, input.timeout, context, !special && input.url !== 'about:blank');
}

function withScheme(url: string): string {
  return /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(url) ? url : `https://${url}`;
}

export async function manageTabs(
  input: ToolInput<'browser_tabs'>,
  context: BrowserToolContext,
): Promise<ToolOutput<'browser_tabs'>> {
  const { tabs, guard } = await prepare(context);
  const list = async () => {
    // `agent`: the tabs this run (or these direct calls) may act in, not every agent tab.
    const owners = await tabs.owners();
    const allowed = new Set([...owners].filter(([, owner]) => owner === runKey(context)).map(([tabId]) => tabId));
    const all = await browser.tabs.query({});
    return all
      .filter((tab) => tab.id !== undefined)
      .map((tab) => ({
        tab_id: tab.id as number,
        url: tab.url ?? '',
        title: tab.title ?? '',
        active: tab.active,
        agent: allowed.has(tab.id as number),
      }));
  };
  switch (input.action) {
    case 'list':
      return { tabs: await list() };
    case 'open': {
      const created = await openBlankTab(context);
      await guard.update(runKey(context), context.call?.navigation);
      guard.ready();
      if (input.url) {
        const restricted = restrictedReason(input.url);
        if (restricted) throw new AppError('RESTRICTED_PAGE', restricted);
        const url = withScheme(input.url);
        await navigateTab(
          created,
          () => browser.tabs.update(created.id, { url }),
          'load',
          30_000,
          context,
          url !== 'about:blank',
        );
      }
      return { tabs: await list(), tab_id: created.id };
    }
    case 'switch': {
      if (input.tab_id === undefined) throw new AppError('INVALID_INPUT', 'switch needs tab_id.');
      const tab = await requireTab(input.tab_id, context);
      await browser.tabs.update(tab.id, { active: true });
      return { tabs: await list(), tab_id: tab.id };
    }
    case 'close': {
      const tab = await requireTab(input.tab_id, context);
      await browser.tabs.remove(tab.id);
      return { tabs: await list(), tab_id: tab.id };
    }
    case 'attach': {
      // The policy asked the person before this call got here (layer "tab_access"), naming the tab
      // inspectTab found; the daemon pinned its id into the input. Only an older daemon sends none.
      const tab = await attachedTab(input.tab_id);
      if (!tab?.id) throw new AppError('NOT_FOUND', 'There is no active tab to attach to.');
      await tabs.give(tab.id, 'attached', runKey(context));
      await guard.update(runKey(context), context.call?.navigation);
      guard.ready();
      return { tabs: await list(), tab_id: tab.id };
    }
  }
}

/** The tab an `attach` takes: the one named, else the active tab of the window the person last used. */
async function attachedTab(tabId: number | undefined): Promise<Browser.tabs.Tab | undefined> {
  if (tabId !== undefined) return getTab(tabId);
  return (await browser.tabs.query({ active: true, lastFocusedWindow: true }))[0];
}

/**
 * Which tab a browser_tabs `attach` would take, asked before the person is: its id (the daemon
 * pins it into the call, so the tab approved is the tab attached, whatever is in front by then)
 * and words that name it on the approval card. The title comes from the page.
 */
export async function inspectTab(
  input: ToolInput<'browser_tabs'>,
): Promise<{ tab_id?: number; target?: string; error?: { code: string; message: string } }> {
  if (input.action !== 'attach') {
    return { error: { code: 'INVALID_INPUT', message: `Only attach is inspected, not ${input.action}.` } };
  }
  try {
    const tab = await attachedTab(input.tab_id);
    if (tab?.id === undefined) return { error: { code: 'NOT_FOUND', message: 'There is no active tab to attach to.' } };
    const title = (tab.title ?? '').replace(/\s+/g, ' ').trim().slice(0, 80);
    return { tab_id: tab.id, target: `tab ${tab.id} "${title}" at ${tab.url ?? 'an unknown address'}` };
  } catch (error) {
    const appError = error instanceof AppError ? error : new AppError('TOOL_FAILED', String(error));
    return { error: { code: appError.code, message: appError.message } };
  }
}

export async function snapshot(
  input: ToolInput<'browser_snapshot'>,
  context: BrowserToolContext,
): Promise<ToolOutput<'browser_snapshot'>> {
  await prepare(context);
  const tab = await requireTab(input.tab_id, context);
  const reply = await page<SnapshotValue>(tab, { op: 'snapshot', cursor: input.cursor }, context);
  tools().snapshotDoc.set(tab.id, reply.doc);
  return {
    snapshot: reply.value.snapshot,
    url: reply.url,
    title: reply.title,
    tab_id: tab.id,
    ...(reply.value.next_cursor ? { next_cursor: reply.value.next_cursor } : {}),
  };
}

export async function extractPage(
  input: ToolInput<'browser_extract'>,
  context: BrowserToolContext,
): Promise<ToolOutput<'browser_extract'>> {
  await prepare(context);
  const tab = await requireTab(input.tab_id, context);
  if (input.type === 'screenshot') {
    refuseBlocked(tab.url, context);
    const shot = await screenshotTab(tab.id, tab.windowId, tab.url ?? '', input.full_page);
    return {
      type: 'screenshot',
      url: tab.url ?? '',
      tab_id: tab.id,
      image: shot.image,
      content: `${shot.width}×${shot.height} JPEG of the ${shot.note}`,
    };
  }
  const reply = await page<ExtractValue>(
    tab,
    { op: 'extract', type: input.type, selector: input.selector, cursor: input.cursor },
    context,
  );
  return { type: input.type, url: reply.url, tab_id: tab.id, ...reply.value };
}

export async function interact(
  input: ToolInput<'browser_interact'>,
  context: BrowserToolContext,
): Promise<ToolOutput<'browser_interact'>> {
  const { activity } = await prepare(context);
  const tab = await requireTab(input.tab_id, context);
  const since = activity.now();
  const reply = await page<ActValue>(
    tab,
    {
      op: 'act',
      action: input.action,
      ref: input.ref,
      selector: input.selector,
      value: input.value,
      file: context.call?.file,
      allow_sensitive: context.call?.allow_sensitive ?? [],
      expect_doc: tools().snapshotDoc.get(tab.id),
    },
    context,
  );
  const started = performance.now();
  const navigated = await settleAfter(tab, since, context);
  const now = await getTab(tab.id);
  // A click may go back to a page from the back/forward cache that the rules refuse.
  refuseBlocked(now.url, context);
  return {
    success: true,
    message: navigated ? `${reply.value.message} The tab went to ${now.url ?? 'another page'}.` : reply.value.message,
    url: now.url ?? reply.url,
    title: now.title ?? reply.title,
    tab_id: tab.id,
    navigated,
    settled_ms: Math.round(performance.now() - started),
  };
}

/**
 * Waits until the tab settles after an action — no request in flight for a moment and the DOM
 * quiet, checked again after each quiet window (webRequest reports a request a little after the
 * action started it); true when the tab loaded another page meanwhile.
 */
async function settleAfter(
  tab: Browser.tabs.Tab & { id: number },
  since: number,
  context: BrowserToolContext,
): Promise<boolean> {
  const { activity } = tools();
  const navigating = () => activity.since(tab.id, since).some((event) => event.kind === 'before');
  const deadline = performance.now() + SETTLE_TIMEOUT_MS;
  for (let round = 0; performance.now() < deadline; round += 1) {
    throwIfStopped(context);
    if (navigating()) {
      await untilStopped(activity.loaded(tab.id, since, 'load', NAVIGATION_TIMEOUT_MS), context);
      const blocked = blockedNavigation(activity.since(tab.id, since), runKey(context));
      if (blocked) throw navigationError(blocked, runKey(context));
      await quiet(tab).catch((error: unknown) => {
        if (!(error instanceof AppError && error.code === 'PAGE_NAVIGATED')) throw error;
      });
      return true;
    }
    const networkSince = activity.lastNetworkAt(tab.id);
    await untilStopped(activity.networkIdle(tab.id, 50, Math.max(0, deadline - performance.now())), context);
    try {
      await untilStopped(quiet(tab), context);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'PAGE_NAVIGATED')) throw error;
    }
    const quietNetwork = activity.pending(tab.id) === 0 && activity.lastNetworkAt(tab.id) === networkSince;
    if (!navigating() && quietNetwork) return false;
  }
  return navigating();
}

async function quiet(tab: Browser.tabs.Tab & { id: number }): Promise<SettleValue> {
  const current = await getTab(tab.id);
  const reply = await callPage<SettleValue>(tab.id, { op: 'settle', timeout_ms: SETTLE_TIMEOUT_MS }, current.url);
  if (!reply.ok) throw new AppError(reply.error.code, reply.error.message);
  return reply.value;
}

/** What a browser_interact call would act on, for the daemon's policy (asked before it decides). */
export async function inspectTarget(
  input: ToolInput<'browser_interact'>,
  context: BrowserToolContext,
): Promise<{ target?: string; sensitive?: InspectValue['sensitive']; error?: { code: string; message: string } }> {
  try {
    await prepare(context);
    const tab = await requireTab(input.tab_id, context);
    refuseBlocked(tab.url, context);
    const reply = await callPage<InspectValue>(
      tab.id,
      {
        op: 'inspect',
        action: input.action,
        ref: input.ref,
        selector: input.selector,
        value: input.value,
        expect_doc: tools().snapshotDoc.get(tab.id),
      },
      tab.url,
    );
    refuseBlocked(reply.url, context);
    if (!reply.ok) return { error: reply.error };
    return {
      target: `${reply.value.target} on ${reply.url}`,
      ...(reply.value.sensitive ? { sensitive: reply.value.sensitive } : {}),
    };
  } catch (error) {
    const appError = error instanceof AppError ? error : new AppError('TOOL_FAILED', String(error));
    return { error: { code: appError.code, message: appError.message } };
  }
}
