import { browser } from 'wxt/browser';

/** How the agent came to work in a tab. */
export type TabGrant = 'opened' | 'context_menu' | 'attached';

interface Stored {
  tabs: Record<string, { how: TabGrant; at: number }>;
  working: Record<string, number>;
  /** Working tabs that were closed, per run: the next call says so instead of "no tab". */
  closed?: Record<string, number>;
}

const STORAGE_KEY = 'agentTabs';
/** Calls outside a run (the CLI, the panel) share one working tab. */
export const DIRECT_CALLS = 'direct';

/**
 * The tabs the agent may act in — those it opened, and those the person gave it (the right-click
 * menu, or an approved `attach`) — and each run's working tab. Kept in session storage, so a
 * restart of the service worker forgets nothing while the browser runs.
 */
export class AgentTabs {
  private state: Stored = { tabs: {}, working: {} };
  private readonly loaded: Promise<void>;
  private readonly listeners = new Set<() => void>();

  constructor() {
    this.loaded = this.load();
    browser.tabs.onRemoved.addListener((tabId) => {
      void this.forget(tabId);
    });
  }

  async allowed(tabId: number): Promise<boolean> {
    await this.loaded;
    return this.state.tabs[String(tabId)] !== undefined;
  }

  async ids(): Promise<number[]> {
    await this.loaded;
    return Object.keys(this.state.tabs).map(Number);
  }

  async give(tabId: number, how: TabGrant, runKey?: string): Promise<void> {
    await this.loaded;
    this.state.tabs[String(tabId)] = { how, at: Date.now() };
    if (runKey) this.setWorkingNow(runKey, tabId);
    await this.save();
  }

  async setWorking(runKey: string, tabId: number): Promise<void> {
    await this.loaded;
    this.setWorkingNow(runKey, tabId);
    await this.save();
  }

  private setWorkingNow(runKey: string, tabId: number): void {
    this.state.working[runKey] = tabId;
    if (this.state.closed) delete this.state.closed[runKey];
  }

  /** The run's working tab; else the tab the person gave most recently; else none. */
  async working(runKey: string): Promise<number | undefined> {
    await this.loaded;
    const own = this.state.working[runKey];
    if (own !== undefined && this.state.tabs[String(own)]) return own;
    const given = Object.entries(this.state.tabs)
      .filter(([, entry]) => entry.how !== 'opened')
      .sort(([, a], [, b]) => b.at - a.at)[0];
    if (!given) return undefined;
    // From now on it is this run's working tab (and its closing is reported as such).
    await this.setWorking(runKey, Number(given[0]));
    return Number(given[0]);
  }

  /** The run's working tab that was closed (by the person or the agent), if that is what it lost. */
  async closedWorking(runKey: string): Promise<number | undefined> {
    await this.loaded;
    return this.state.closed?.[runKey];
  }

  /** Called when the set of tabs changes (the navigation rules follow the agent's tabs). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  private async forget(tabId: number): Promise<void> {
    await this.loaded;
    if (!this.state.tabs[String(tabId)]) return;
    delete this.state.tabs[String(tabId)];
    for (const [runKey, working] of Object.entries(this.state.working)) {
      if (working !== tabId) continue;
      delete this.state.working[runKey];
      this.state.closed = { ...this.state.closed, [runKey]: tabId };
    }
    await this.save();
  }

  private async load(): Promise<void> {
    const stored = (await browser.storage.session.get(STORAGE_KEY))[STORAGE_KEY] as Stored | undefined;
    if (stored?.tabs && stored.working) this.state = stored;
  }

  private async save(): Promise<void> {
    await browser.storage.session.set({ [STORAGE_KEY]: this.state });
    for (const listener of this.listeners) listener();
  }
}

let instance: AgentTabs | undefined;

/** The one registry of the background (the right-click menu gives tabs to it too). */
export function agentTabs(): AgentTabs {
  instance ??= new AgentTabs();
  return instance;
}
