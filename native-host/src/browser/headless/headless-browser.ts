import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import type { BrowserContext, Page } from 'playwright-core';

import {
  AppError,
  QUIET_CHROMIUM_FLAGS,
  getTool,
  type ActValue,
  type BrowserCallContext,
  type ExtensionToolName,
  type ExtractValue,
  type InspectValue,
  type NavigationRules,
  type PageReply,
  type PageRequest,
  type SettleValue,
  type SnapshotValue,
  type ToolInput,
  type ToolOutcome,
  type ToolOutput,
} from '@nextai/shared';

import type { Logger } from '../../core/logger.js';
import type { HostResolver } from '../../policy/guards/destination.js';
import type { BrowserBackend, InspectedTool, InspectResult } from '../backend.js';
import { pageAgentBundle } from './page-bundle.js';
import { PageWorld } from './page-world.js';
import { PolicyProxy, type HostCheck, type HostVerdict } from './policy-proxy.js';
import { scaleScreenshot } from './screenshot.js';

const SETTLE_TIMEOUT_MS = 5000;
const IDLE_CLOSE_MS = 5 * 60_000;
const DIRECT_CALLS = 'direct';

export interface HeadlessOptions {
  executablePath: string;
  /** An isolated profile of the agent's own, or the one the person configured. */
  userDataDir: string;
  /**
   * The configured domain policy, for every request of the browser; its `explicitlyAllowed` lets
   * a host the person named exactly be (or resolve to) a loopback or private address.
   */
  checkHost: HostCheck;
  /** How the proxy resolves host names before judging their addresses (tests map names here). */
  resolveHost?: HostResolver;
  log: Logger;
  /** Arms the idle close (tests pass one they fire themselves); a real timer when absent. */
  idleTimer?: (onIdle: () => void, ms: number) => { cancel(): void };
}

interface CompiledRules {
  block: RegExp[];
  allow: RegExp[] | undefined;
  privateBlock: RegExp[];
  privateAllow: RegExp[];
}

/** Navigation rules compiled once per version: every request of every tab is tested against them. */
const compiledRules = new Map<string, CompiledRules>();

/** What a call's navigation rules (its grant included) say about a request, in the extension's order. */
function refusedBy(rules: NavigationRules, url: string): boolean {
  let compiled = compiledRules.get(rules.version);
  if (!compiled) {
    // A handful of versions at a time (one per configuration and grant in use).
    if (compiledRules.size >= 16) compiledRules.clear();
    const compile = (source: string) => new RegExp(source, 'i');
    compiled = {
      block: rules.block.map(compile),
      allow: rules.allow_only?.map(compile),
      privateBlock: (rules.private_block ?? []).map(compile),
      privateAllow: (rules.private_allow ?? []).map(compile),
    };
    compiledRules.set(rules.version, compiled);
  }
  const matches = (pattern: RegExp) => pattern.test(url);
  if (compiled.block.some(matches)) return true;
  if (compiled.privateBlock.some(matches) && !compiled.privateAllow.some(matches)) return true;
  return compiled.allow !== undefined && !compiled.allow.some(matches);
}

function realTimer(onIdle: () => void, ms: number): { cancel(): void } {
  const timer = setTimeout(onIdle, ms);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
}

interface Tab {
  id: number;
  page: Page;
  world: PageWorld;
  navigations: number[];
  /** Requests of the page in flight (not its own navigation). */
  inFlight: Set<unknown>;
  lastNetwork: number;
  dialogs: string[];
  downloads: string[];
  snapshotDoc?: string | undefined;
  /**
   * The navigation rules (a task's grant narrowed into them) of the last call that used this tab,
   * and whose call it was. The proxy cannot tell which tab a request comes from (one proxy for the
   * browser, HTTPS seen only as CONNECT), so every tab's rules hold for every request: a task's
   * grant is never widened by another tab, at the cost of narrowing the others while it is open.
   */
  rules?: { run: string; navigation: NavigationRules } | undefined;
}

/**
 * The browser tools without a connected browser (a scheduled run at night): a headless system
 * Chromium driven from the daemon with Playwright, the same page agent in an isolated world, the
 * domain policy enforced by a proxy on every request, closed by the emergency stop and when idle.
 */
export class HeadlessBrowser implements BrowserBackend {
  readonly kind = 'headless';
  private context: Promise<BrowserContext> | undefined;
  private proxy: PolicyProxy | undefined;
  private readonly tabs = new Map<number, Tab>();
  private readonly byPage = new Map<Page, Tab>();
  private readonly working = new Map<string, number>();
  private nextId = 1;
  private idle: { cancel(): void } | undefined;
  /** Calls in progress or waiting for a person (hold()): the browser is not idle while any is. */
  private holds = 0;

  constructor(private readonly options: HeadlessOptions) {}

  get running(): boolean {
    return this.context !== undefined;
  }

  async call(
    name: ExtensionToolName,
    input: Record<string, unknown>,
    _callId: string,
    context: BrowserCallContext,
    signal?: AbortSignal,
  ): Promise<ToolOutcome> {
    if (signal?.aborted) return withdrawn(signal);
    const release = this.hold();
    // Withdrawn (a run stopped; the emergency stop also closes this browser): the caller is
    // answered at once; a page operation already sent to the browser ends at its own time limit.
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<ToolOutcome>((resolve) => {
      onAbort = () => resolve(withdrawn(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([this.run(name, input, context), stopped]);
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      release();
    }
  }

  private async run(
    name: ExtensionToolName,
    input: Record<string, unknown>,
    context: BrowserCallContext,
  ): Promise<ToolOutcome> {
    const tool = getTool(name);
    const parsed = tool?.input.safeParse(input);
    if (!parsed?.success) return { ok: false, error: { code: 'INVALID_INPUT', message: 'Invalid input.' } };
    try {
      const data = parsed.data as never;
      const output =
        name === 'browser_navigate'
          ? await this.navigate(data, context)
          : name === 'browser_tabs'
            ? await this.manageTabs(data, context)
            : name === 'browser_snapshot'
              ? await this.snapshot(data, context)
              : name === 'browser_extract'
                ? await this.extract(data, context)
                : await this.interact(data, context);
      return { ok: true, output };
    } catch (error) {
      const appError = error instanceof AppError ? error : new AppError('TOOL_FAILED', (error as Error).message);
      return { ok: false, error: { code: appError.code, message: appError.message } };
    }
  }

  async inspect(
    input: Record<string, unknown>,
    _callId: string,
    context: BrowserCallContext,
    tool: InspectedTool = 'browser_interact',
  ): Promise<InspectResult> {
    // A person may take a while over the approval that follows; the tab must still be there.
    const release = this.hold();
    try {
      if (tool === 'browser_tabs') return await this.inspectTab(input as ToolInput<'browser_tabs'>);
      const data = input as ToolInput<'browser_interact'>;
      const tab = this.requireTab(data.tab_id, context);
      const reply = await tab.world.call<InspectValue>({
        op: 'inspect',
        action: data.action,
        ref: data.ref,
        selector: data.selector,
        value: data.value,
        expect_doc: tab.snapshotDoc,
      });
      if (!reply.ok) return { error: reply.error };
      return { target: `${reply.value.target} on ${reply.url}`, sensitive: reply.value.sensitive };
    } catch (error) {
      const appError = error instanceof AppError ? error : new AppError('TOOL_FAILED', (error as Error).message);
      return { error: { code: appError.code, message: appError.message } };
    } finally {
      release();
    }
  }

  /** The tab a browser_tabs call would take: headless, every tab is the agent's, named by tab_id. */
  private async inspectTab(input: ToolInput<'browser_tabs'>): Promise<InspectResult> {
    if (input.tab_id === undefined) {
      return { error: { code: 'INVALID_INPUT', message: `${input.action} needs tab_id in the headless browser.` } };
    }
    const tab = this.tabs.get(input.tab_id);
    if (!tab) return { error: { code: 'TAB_CLOSED', message: `Tab ${input.tab_id} does not exist (it was closed).` } };
    const title = await tab.page.title().catch(() => '');
    return { tab_id: tab.id, target: `tab ${tab.id} "${title}" (${tab.page.url()})` };
  }

  /**
   * Keeps the browser open until the returned function is called: for a call from its start to
   * its end, the approval it may wait for included (the gateway holds it that long).
   */
  hold(): () => void {
    this.holds += 1;
    this.idle?.cancel();
    this.idle = undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds -= 1;
      this.touch();
    };
  }

  /** A run ended: its grant stops narrowing the other tabs' requests. */
  forgetRun(runId: string): void {
    this.working.delete(runId);
    for (const tab of this.tabs.values()) if (tab.rules?.run === runId) tab.rules = undefined;
  }

  /** Closes the browser (emergency stop, daemon shutdown, idle); the next call starts a new one. */
  async close(): Promise<void> {
    this.idle?.cancel();
    this.idle = undefined;
    // Taken now: a launch() while the context closes gets a proxy of its own, which must stay up.
    const context = this.context;
    const proxy = this.proxy;
    this.context = undefined;
    this.proxy = undefined;
    this.tabs.clear();
    this.working.clear();
    if (context) {
      await context
        .then((opened) => opened.close())
        .catch((error: unknown) => {
          this.options.log.warn('the headless browser did not close cleanly', { error: (error as Error).message });
        });
    }
    await proxy?.close();
  }

  /** Starts the idle countdown, unless a call holds the browser or it is not running. */
  private touch(): void {
    this.idle?.cancel();
    this.idle = undefined;
    if (this.holds > 0 || !this.context) return;
    this.idle = (this.options.idleTimer ?? realTimer)(() => {
      this.idle = undefined;
      if (this.holds === 0) void this.close();
    }, IDLE_CLOSE_MS);
  }

  /** The configured policy, then every open tab's navigation rules (see Tab.rules). */
  private checkRequest(url: string): HostVerdict {
    const verdict = this.options.checkHost(url);
    if (!verdict.allowed) return verdict;
    for (const tab of this.tabs.values()) {
      if (tab.rules && refusedBy(tab.rules.navigation, url)) {
        let host = url;
        try {
          host = new URL(url).hostname;
        } catch {
          // The whole address names it.
        }
        return {
          allowed: false,
          reason: `${host} is outside the domains granted to a task with a tab open in the headless browser (its grant, or security.allowed_domains); while that tab is open, every tab is held to them.`,
        };
      }
    }
    // Kept whole: explicitlyAllowed decides what the host may resolve to.
    return verdict;
  }

  private launch(): Promise<BrowserContext> {
    if (this.context) return this.context;
    const proxy = new PolicyProxy((url) => this.checkRequest(url), this.options.log, this.options.resolveHost);
    this.proxy = proxy;
    const launching = (async () => {
      fs.mkdirSync(this.options.userDataDir, { recursive: true, mode: 0o700 });
      const proxyUrl = await proxy.start();
      // Loaded on first use: most daemons never browse headless, and start-up time matters.
      const { chromium } = await import('playwright-core');
      const context = await chromium.launchPersistentContext(this.options.userDataDir, {
        executablePath: this.options.executablePath,
        headless: true,
        viewport: { width: 1280, height: 800 },
        acceptDownloads: true,
        downloadsPath: path.join(this.options.userDataDir, '..', 'downloads'),
        args: [
          ...QUIET_CHROMIUM_FLAGS,
          `--proxy-server=${proxyUrl}`,
          // Loopback goes through the proxy too: the policy has no exceptions.
          '--proxy-bypass-list=<-loopback>',
          // WebRTC sends UDP past any proxy; keeping it to proxied traffic keeps a page from
          // reaching the local network around the proxy's check.
          '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
        ],
      });
      context.on('page', (page) => this.adopt(page));
      for (const page of context.pages()) this.adopt(page);
      this.options.log.info('headless browser started', { profile: this.options.userDataDir });
      return context;
    })().catch(async (error: unknown) => {
      // Only this launch's state is undone: a close() and a new launch may have come in between.
      if (this.context === launching) this.context = undefined;
      if (this.proxy === proxy) this.proxy = undefined;
      await proxy.close();
      throw new AppError(
        'UNAVAILABLE',
        `The headless browser (${this.options.executablePath}) could not start: ${(error as Error).message}`,
      );
    });
    this.context = launching;
    return launching;
  }

  private adopt(page: Page): Tab {
    const known = this.byPage.get(page);
    if (known && this.tabs.has(known.id)) return known;
    const tab: Tab = {
      id: this.nextId++,
      page,
      world: new PageWorld(page.context().newCDPSession(page), pageAgentBundle()),
      navigations: [],
      inFlight: new Set(),
      lastNetwork: 0,
      dialogs: [],
      downloads: [],
    };
    // A new document: its requests of the old one will not be reported as finished. Same-document
    // navigations (pushState, #hash) are not navigations here, as webNavigation's
    // onBeforeNavigate is not for the extension: an SPA route change settles by its requests
    // (the data the new route loads), and the page agent's world and refs stay.
    tab.world.onNewDocument(() => {
      tab.navigations.push(performance.now());
      tab.inFlight.clear();
    });
    // A popup the page opens is held to the rules of the tab that opened it.
    page.on('popup', (popup) => {
      const child = this.adopt(popup);
      child.rules ??= tab.rules;
    });
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
        tab.navigations.push(performance.now());
      } else tab.inFlight.add(request);
      tab.lastNetwork = performance.now();
    });
    const finished = (request: unknown) => {
      tab.inFlight.delete(request);
      tab.lastNetwork = performance.now();
    };
    page.on('requestfinished', finished);
    page.on('requestfailed', finished);
    // A JavaScript dialog would block the page; a person is not there to answer it.
    page.on('dialog', (dialog) => {
      tab.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss().catch(() => undefined);
    });
    page.on('download', (download) => tab.downloads.push(download.suggestedFilename()));
    page.on('close', () => {
      this.tabs.delete(tab.id);
      this.byPage.delete(page);
    });
    this.tabs.set(tab.id, tab);
    this.byPage.set(page, tab);
    return tab;
  }

  private runKey(context: BrowserCallContext): string {
    return context.run_id ?? DIRECT_CALLS;
  }

  private tabOf(tabId: number | undefined, context: BrowserCallContext): Tab | undefined {
    if (tabId !== undefined) {
      const tab = this.tabs.get(tabId);
      if (!tab)
        throw new AppError(
          'TAB_CLOSED',
          `Tab ${tabId} does not exist (it was closed). List the tabs with browser_tabs.`,
        );
      this.working.set(this.runKey(context), tabId);
      return this.ruledBy(tab, context);
    }
    const working = this.working.get(this.runKey(context));
    if (working === undefined) return undefined;
    const tab = this.tabs.get(working);
    if (!tab)
      throw new AppError('TAB_CLOSED', `The agent's tab ${working} was closed. Open a page with browser_navigate.`);
    return this.ruledBy(tab, context);
  }

  /** The tab, from now on held to the rules of the call that uses it (before it goes anywhere). */
  private ruledBy(tab: Tab, context: BrowserCallContext): Tab {
    if (context.navigation) tab.rules = { run: this.runKey(context), navigation: context.navigation };
    return tab;
  }

  private requireTab(tabId: number | undefined, context: BrowserCallContext): Tab {
    const tab = this.tabOf(tabId, context);
    if (!tab) throw new AppError('NOT_FOUND', 'The agent has no tab yet. Open a page with browser_navigate.');
    return tab;
  }

  private async newTab(context: BrowserCallContext): Promise<Tab> {
    const browser = await this.launch();
    const page = await browser.newPage();
    const tab = this.ruledBy(this.adopt(page), context);
    this.working.set(this.runKey(context), tab.id);
    return tab;
  }

  private async page<T>(tab: Tab, request: PageRequest): Promise<PageReply<T> & { ok: true }> {
    const reply = await tab.world.call<T>(request);
    if (!reply.ok) throw new AppError(reply.error.code, reply.error.message);
    return reply;
  }

  private blockedError(since: number, url: string): AppError | undefined {
    const blocked = this.proxy?.blockedSince(since) ?? [];
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return undefined;
    }
    const hit = blocked.find((entry) => entry.host === host);
    if (!hit) return undefined;
    return new AppError(
      'POLICY_BLOCKED',
      `The tab was stopped from opening ${hit.url}: ${hit.reason.replace(/\.$/, '')} (the policy holds for redirects and clicked links too). Go back (browser_navigate "back") or choose another site.`,
    );
  }

  private async navigate(
    input: ToolInput<'browser_navigate'>,
    context: BrowserCallContext,
  ): Promise<ToolOutput<'browser_navigate'>> {
    await this.launch();
    const special = ['back', 'forward', 'reload'].includes(input.url);
    let tab = this.tabOf(input.tab_id, context);
    if (!tab) {
      if (special) throw new AppError('NOT_FOUND', 'The agent has no tab yet, so there is nothing to go back to.');
      tab = await this.newTab(context);
    }
    tab.snapshotDoc = undefined;
    const since = performance.now();
    const options = { waitUntil: input.wait_until, timeout: input.timeout } as const;
    let status: number | undefined;
    try {
      const response =
        input.url === 'back'
          ? await tab.page.goBack(options)
          : input.url === 'forward'
            ? await tab.page.goForward(options)
            : input.url === 'reload'
              ? await tab.page.reload(options)
              : await tab.page.goto(
                  /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(input.url) ? input.url : `https://${input.url}`,
                  options,
                );
      status = response?.status();
    } catch (error) {
      const blocked = this.blockedError(since, tab.page.url());
      if (blocked) throw blocked;
      const message = (error as Error).message.split('\n')[0] ?? '';
      if (/Timeout/i.test(message)) {
        throw new AppError(
          'TIMEOUT',
          `${input.url} did not finish loading within ${input.timeout} ms; what has loaded is in the tab.`,
        );
      }
      throw new AppError('TOOL_FAILED', `${input.url} could not be loaded (${message}).`);
    }
    const blocked = this.blockedError(since, tab.page.url());
    if (blocked) throw blocked;
    return { url: tab.page.url(), title: await tab.page.title(), tab_id: tab.id, ...(status ? { status } : {}) };
  }

  private async manageTabs(
    input: ToolInput<'browser_tabs'>,
    context: BrowserCallContext,
  ): Promise<ToolOutput<'browser_tabs'>> {
    const working = this.working.get(this.runKey(context));
    const list = async () =>
      Promise.all(
        [...this.tabs.values()].map(async (tab) => ({
          tab_id: tab.id,
          url: tab.page.url(),
          title: await tab.page.title().catch(() => ''),
          active: tab.id === working,
          agent: true,
        })),
      );
    switch (input.action) {
      case 'list':
        return { tabs: await list() };
      case 'open': {
        const tab = await this.newTab(context);
        if (input.url)
          await this.navigate({ url: input.url, wait_until: 'load', timeout: 30_000, tab_id: tab.id }, context);
        return { tabs: await list(), tab_id: tab.id };
      }
      case 'switch':
      case 'attach': {
        if (input.tab_id === undefined) throw new AppError('INVALID_INPUT', `${input.action} needs tab_id.`);
        const tab = this.requireTab(input.tab_id, context);
        await tab.page.bringToFront();
        return { tabs: await list(), tab_id: tab.id };
      }
      case 'close': {
        const tab = this.requireTab(input.tab_id, context);
        await tab.page.close();
        return { tabs: await list(), tab_id: tab.id };
      }
    }
  }

  private async snapshot(
    input: ToolInput<'browser_snapshot'>,
    context: BrowserCallContext,
  ): Promise<ToolOutput<'browser_snapshot'>> {
    const tab = this.requireTab(input.tab_id, context);
    const reply = await this.page<SnapshotValue>(tab, { op: 'snapshot', cursor: input.cursor });
    tab.snapshotDoc = reply.doc;
    return {
      snapshot: reply.value.snapshot,
      url: reply.url,
      title: reply.title,
      tab_id: tab.id,
      ...(reply.value.next_cursor ? { next_cursor: reply.value.next_cursor } : {}),
    };
  }

  private async extract(
    input: ToolInput<'browser_extract'>,
    context: BrowserCallContext,
  ): Promise<ToolOutput<'browser_extract'>> {
    const tab = this.requireTab(input.tab_id, context);
    if (input.type === 'screenshot') {
      const raw = await tab.page.screenshot({ type: 'png', fullPage: input.full_page });
      const shot = await scaleScreenshot(raw);
      return {
        type: 'screenshot',
        url: tab.page.url(),
        tab_id: tab.id,
        image: shot.image,
        content: `${shot.width}×${shot.height} JPEG of the ${input.full_page ? 'whole page' : 'visible area'}`,
      };
    }
    const reply = await this.page<ExtractValue>(tab, {
      op: 'extract',
      type: input.type,
      selector: input.selector,
      cursor: input.cursor,
    });
    return { type: input.type, url: reply.url, tab_id: tab.id, ...reply.value };
  }

  private async interact(
    input: ToolInput<'browser_interact'>,
    context: BrowserCallContext,
  ): Promise<ToolOutput<'browser_interact'>> {
    const tab = this.requireTab(input.tab_id, context);
    const since = performance.now();
    const before = { dialogs: tab.dialogs.length, downloads: tab.downloads.length };
    const reply = await this.page<ActValue>(tab, {
      op: 'act',
      action: input.action,
      ref: input.ref,
      selector: input.selector,
      value: input.value,
      file: context.file,
      allow_sensitive: context.allow_sensitive,
      expect_doc: tab.snapshotDoc,
    });
    const started = performance.now();
    const navigated = await this.settleAfter(tab, since);
    const notes = [
      ...tab.dialogs.slice(before.dialogs).map((dialog) => `The page showed a dialog (${dialog}); it was dismissed.`),
      ...tab.downloads.slice(before.downloads).map((file) => `The page started a download: ${file}.`),
    ];
    const blocked = this.blockedError(since, tab.page.url());
    if (blocked) throw blocked;
    return {
      success: true,
      message: [reply.value.message, navigated ? `The tab went to ${tab.page.url()}.` : '', ...notes]
        .filter(Boolean)
        .join(' '),
      url: tab.page.url(),
      title: await tab.page.title().catch(() => ''),
      tab_id: tab.id,
      navigated,
      settled_ms: Math.round(performance.now() - started),
    };
  }

  /**
   * Settled: no request in flight for a moment and the DOM quiet — checked again after each quiet
   * window, since a request an action starts is reported a little after the action returns.
   */
  private async settleAfter(tab: Tab, since: number): Promise<boolean> {
    const navigating = () => tab.navigations.some((at) => at >= since);
    const deadline = performance.now() + SETTLE_TIMEOUT_MS;
    for (let round = 0; performance.now() < deadline; round += 1) {
      if (navigating()) {
        await tab.page.waitForLoadState('load', { timeout: 15_000 }).catch(() => undefined);
        await this.quiet(tab).catch(() => undefined);
        return true;
      }
      await this.networkIdle(tab, 50, deadline - performance.now());
      try {
        await this.quiet(tab);
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'PAGE_NAVIGATED')) throw error;
      }
      if (!navigating() && tab.inFlight.size === 0 && round > 0) return false;
      if (!navigating() && tab.inFlight.size === 0 && tab.lastNetwork < since) return false;
    }
    return navigating();
  }

  private async quiet(tab: Tab): Promise<SettleValue> {
    return (await this.page<SettleValue>(tab, { op: 'settle', timeout_ms: SETTLE_TIMEOUT_MS })).value;
  }

  private async networkIdle(tab: Tab, idleMs: number, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (tab.inFlight.size === 0 && performance.now() - tab.lastNetwork >= idleMs) return;
      // Playwright reports requests as events; a short poll is the simplest way to wait on a count.
      await sleep(10);
    }
  }
}

/** The outcome of a call withdrawn by its signal: the reason it was given. */
function withdrawn(signal: AbortSignal): ToolOutcome {
  const reason: unknown = signal.reason;
  const error = reason instanceof AppError ? reason : new AppError('CANCELLED', 'The call was withdrawn.');
  return { ok: false, error: { code: error.code, message: error.message } };
}
