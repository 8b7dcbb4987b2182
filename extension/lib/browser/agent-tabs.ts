import { browser } from 'wxt/browser';

/**
 * How the agent came to work in a tab: it opened it; a page in one of its tabs opened it
 * (`spawned`: a link with target=_blank, window.open); the person gave it with a right-click
 * (`context_menu`) or an approved `attach`.
 */
export type TabGrant = 'opened' | 'spawned' | 'context_menu' | 'attached';

interface TabEntry {
  how: TabGrant;
  at: number;
  /** The run (or DIRECT_CALLS) that may act in the tab: only it. */
  owner: string;
}

interface Stored {
  tabs: Record<string, TabEntry>;
  working: Record<string, number>;
  /** Working tabs that were closed, per run: the next call says so instead of "no tab". */
  closed?: Record<string, number>;
  /**
   * Tabs the person gave with the right-click menu, waiting for the run started from that menu
   * click's draft: no run may use them before, and only that run after.
   */
  gifts?: Record<string, { draft: string; at: number }>;
}

const STORAGE_KEY = 'agentTabs';
/** Calls outside a run (the CLI, the panel, fixed-step schedules) share one working tab. */
export const DIRECT_CALLS = 'direct';

/**
 * The tabs the agent may act in, and which run may: each tab belongs to one run — the run that
 * opened it (or whose page opened it), the run the person started from a right-click on it, or the
 * run whose `attach` the person approved. Another run, and a direct call, must `attach` it (the
 * person is asked each time). Kept in session storage, so a restart of the service worker forgets
 * nothing while the browser runs.
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

  /** Whether `runKey` may act in the tab. */
  async allowed(tabId: number, runKey: string): Promise<boolean> {
    await this.loaded;
    return this.state.tabs[String(tabId)]?.owner === runKey;
  }

  /** The run a tab belongs to and how it came to it, if it is an agent tab at all. */
  async entry(tabId: number): Promise<{ owner: string; how: TabGrant } | undefined> {
    await this.loaded;
    const entry = this.state.tabs[String(tabId)];
    return entry ? { owner: entry.owner, how: entry.how } : undefined;
  }

  /** Every agent tab with the run it belongs to (the navigation rules follow them). */
  async owners(): Promise<Map<number, string>> {
    await this.loaded;
    return new Map(Object.entries(this.state.tabs).map(([id, entry]) => [Number(id), entry.owner]));
  }

  /** The tab now belongs to `runKey` (and is its working tab, unless a page opened it). */
  async give(tabId: number, how: Exclude<TabGrant, 'context_menu'>, runKey: string): Promise<void> {
    await this.loaded;
    this.state.tabs[String(tabId)] = { how, at: Date.now(), owner: runKey };
    if (this.state.gifts) delete this.state.gifts[String(tabId)];
    if (how !== 'spawned') this.setWorkingNow(runKey, tabId);
    await this.save();
  }

  /**
   * The person gave the tab with the right-click menu, for the run they start from `draftId`.
   * Until that run starts it is nobody's; a tab already in a run's hands stays there.
   */
  async offer(tabId: number, draftId: string): Promise<void> {
    await this.loaded;
    this.state.gifts = { ...this.state.gifts, [String(tabId)]: { draft: draftId, at: Date.now() } };
    await this.save();
  }

  /** The run started from `draftId` takes the tab offered with it (once): it becomes its working tab. */
  async claim(draftId: string, runKey: string): Promise<number | undefined> {
    await this.loaded;
    const found = Object.entries(this.state.gifts ?? {}).find(([, gift]) => gift.draft === draftId);
    if (!found) return undefined;
    const tabId = Number(found[0]);
    delete this.state.gifts![found[0]];
    this.state.tabs[String(tabId)] = { how: 'context_menu', at: Date.now(), owner: runKey };
    this.setWorkingNow(runKey, tabId);
    await this.save();
    return tabId;
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

  /**
   * The run's working tab, or none. Never a tab given to someone else: a tab the person gave
   * once is not handed to whichever run comes next.
   */
  async working(runKey: string): Promise<number | undefined> {
    await this.loaded;
    const own = this.state.working[runKey];
    return own !== undefined && this.state.tabs[String(own)]?.owner === runKey ? own : undefined;
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
    const gift = this.state.gifts?.[String(tabId)];
    if (gift) delete this.state.gifts![String(tabId)];
    if (!this.state.tabs[String(tabId)]) {
      if (gift) await this.save();
      return;
    }
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
    if (!stored?.tabs || !stored.working) return;
    // Entries from a build before tabs had owners belong to no run: nobody may use them unasked.
    for (const [id, entry] of Object.entries(stored.tabs)) {
      if (typeof entry.owner !== 'string') delete stored.tabs[id];
    }
    this.state = stored;
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
