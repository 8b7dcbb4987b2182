import { browser } from 'wxt/browser';

/** What happened to a tab's top frame, as webNavigation reported it. */
export interface NavigationEvent {
  /** `redirect` and `request_error`: what webRequest saw of the tab's document requests. */
  kind: 'before' | 'committed' | 'dom_ready' | 'completed' | 'error' | 'redirect' | 'request_error';
  url: string;
  at: number;
  error?: string;
}

const KEEP_EVENTS = 50;

/**
 * Watches navigations (webNavigation) and requests in flight (webRequest, observe-only) per tab,
 * so actions can wait for a page that navigates or loads data to settle, and report a navigation
 * the domain rules blocked.
 */
export class TabActivity {
  private readonly navigations = new Map<number, NavigationEvent[]>();
  private readonly inFlight = new Map<number, Set<string>>();
  private readonly lastNetwork = new Map<number, number>();
  private readonly waiters = new Set<() => void>();
  /** Tabs closed since the background started: a wait for one ends at once (ids are not reused). */
  private readonly closed = new Set<number>();

  constructor() {
    const record =
      (kind: NavigationEvent['kind']) => (details: { tabId: number; frameId: number; url: string; error?: string }) => {
        if (details.frameId !== 0) return;
        if (kind === 'before') this.inFlight.set(details.tabId, new Set());
        this.push(details.tabId, {
          kind,
          url: details.url,
          at: performance.now(),
          ...(details.error ? { error: details.error } : {}),
        });
      };
    browser.webNavigation.onBeforeNavigate.addListener(record('before'));
    browser.webNavigation.onCommitted.addListener(record('committed'));
    browser.webNavigation.onDOMContentLoaded.addListener(record('dom_ready'));
    browser.webNavigation.onCompleted.addListener(record('completed'));
    browser.webNavigation.onErrorOccurred.addListener(record('error'));
    const filter = { urls: ['<all_urls>'] };
    browser.webRequest.onBeforeRequest.addListener((details) => {
      if (details.tabId < 0 || details.type === 'main_frame') return undefined;
      const set = this.inFlight.get(details.tabId) ?? new Set<string>();
      set.add(details.requestId);
      this.inFlight.set(details.tabId, set);
      this.lastNetwork.set(details.tabId, performance.now());
      return undefined;
    }, filter);
    const done = (details: { tabId: number; requestId: string }) => {
      if (details.tabId < 0) return;
      this.inFlight.get(details.tabId)?.delete(details.requestId);
      this.lastNetwork.set(details.tabId, performance.now());
      this.wake();
    };
    browser.webRequest.onCompleted.addListener(done, filter);
    browser.webRequest.onErrorOccurred.addListener(done, filter);
    // Where a document request was sent on, and how one failed: a redirect to a blocked site shows
    // here in every browser, whatever words its navigation error uses.
    const documents = { urls: ['<all_urls>'], types: ['main_frame' as const] };
    browser.webRequest.onBeforeRedirect.addListener((details) => {
      if (details.tabId < 0) return;
      this.push(details.tabId, { kind: 'redirect', url: details.redirectUrl, at: performance.now() });
    }, documents);
    browser.webRequest.onErrorOccurred.addListener((details) => {
      if (details.tabId < 0) return;
      this.push(details.tabId, {
        kind: 'request_error',
        url: details.url,
        at: performance.now(),
        error: details.error,
      });
    }, documents);
    browser.tabs.onRemoved.addListener((tabId) => {
      this.navigations.delete(tabId);
      this.inFlight.delete(tabId);
      this.closed.add(tabId);
      this.wake();
    });
  }

  now(): number {
    return performance.now();
  }

  private push(tabId: number, event: NavigationEvent): void {
    const list = this.navigations.get(tabId) ?? [];
    list.push(event);
    if (list.length > KEEP_EVENTS) list.shift();
    this.navigations.set(tabId, list);
    this.wake();
  }

  /** Top-frame navigation events of the tab since `since`. */
  since(tabId: number, since: number): NavigationEvent[] {
    return (this.navigations.get(tabId) ?? []).filter((event) => event.at >= since);
  }

  /** When the tab last started or finished a request (0: never). */
  lastNetworkAt(tabId: number): number {
    return this.lastNetwork.get(tabId) ?? 0;
  }

  pending(tabId: number): number {
    return this.inFlight.get(tabId)?.size ?? 0;
  }

  /** Resolves when `ready()` holds, or after `timeoutMs` with false. */
  async until(ready: () => boolean, timeoutMs: number): Promise<boolean> {
    if (ready()) return true;
    return new Promise((resolve) => {
      const check = () => {
        if (!ready()) return;
        finish(true);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      const finish = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(result);
      };
      this.waiters.add(check);
    });
  }

  /**
   * The tab's top frame reached `until` after `since`, or failed; undefined after the timeout.
   * `skipBlank`: a navigation to a web address ignores the events of a new tab's own about:blank,
   * which the browser may report after the navigation started.
   */
  async loaded(
    tabId: number,
    since: number,
    until: 'load' | 'domcontentloaded' | 'networkidle',
    timeoutMs: number,
    skipBlank = false,
  ): Promise<NavigationEvent | undefined> {
    const wanted: NavigationEvent['kind'] = until === 'domcontentloaded' ? 'dom_ready' : 'completed';
    const find = () =>
      this.since(tabId, since).find(
        (event) =>
          !(skipBlank && event.url === 'about:blank') &&
          (event.kind === wanted || event.kind === 'error' || event.kind === 'request_error'),
      );
    const started = performance.now();
    await this.until(() => find() !== undefined || this.closed.has(tabId), timeoutMs);
    const event = find();
    if (event && event.kind !== 'error' && until === 'networkidle') {
      await this.networkIdle(tabId, 500, Math.max(0, timeoutMs - (performance.now() - started)));
    }
    return event;
  }

  /** No request of the tab in flight for `idleMs` (bounded by `timeoutMs`). */
  async networkIdle(tabId: number, idleMs: number, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const idle = await this.until(() => this.pending(tabId) === 0, Math.max(0, deadline - performance.now()));
      if (!idle) return false;
      const quietFor = performance.now() - (this.lastNetwork.get(tabId) ?? 0);
      if (quietFor >= idleMs) return true;
      if (performance.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, idleMs - quietFor));
      if (this.pending(tabId) === 0 && performance.now() - (this.lastNetwork.get(tabId) ?? 0) >= idleMs) return true;
    }
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
