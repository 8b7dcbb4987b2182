import { browser } from 'wxt/browser';

import { AppError, type NavigationRules } from '@nextai/shared';

const FIRST_RULE_ID = 7000;
const STORAGE_KEY = 'navigationRules';
/** Rules kept for runs that have no tab now (they may open one); the oldest are dropped beyond this. */
const KEEP_IDLE_RUNS = 50;
/** Any URL with a scheme: what the "everything else" and fail-closed rules block. */
const EVERY_URL = '^[a-z][a-z0-9+.-]*://';

type Rule = {
  id: number;
  priority: number;
  action: { type: 'block' | 'allow' };
  condition: { regexFilter: string; resourceTypes: ('main_frame' | 'sub_frame')[]; tabIds: number[] };
};

export interface DnrApi {
  getSessionRules(): Promise<{ id: number }[]>;
  updateSessionRules(options: { removeRuleIds?: number[]; addRules?: Rule[] }): Promise<void>;
}

/** What the guard needs of the tab registry (AgentTabs). */
export interface GuardedTabs {
  owners(): Promise<Map<number, string>>;
  onChange(listener: () => void): void;
}

export interface GuardEnvironment {
  dnr(): DnrApi | undefined;
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

const browserEnvironment: GuardEnvironment = {
  dnr: () => (browser as unknown as { declarativeNetRequest?: DnrApi }).declarativeNetRequest,
  load: async () => (await browser.storage.session.get(STORAGE_KEY))[STORAGE_KEY],
  save: (value) => browser.storage.session.set({ [STORAGE_KEY]: value }),
};

interface Stored {
  /** Each run's rules (the daemon narrows them to what the run's grant allows). */
  runs: Record<string, { rules: NavigationRules; at: number }>;
  /** The rules of the latest call, for an agent tab whose run has sent none yet. */
  latest?: NavigationRules;
}

/**
 * The daemon's domain policy, enforced by the browser itself on every navigation of the agent's
 * tabs — typed addresses, redirects, links clicked, frames — with declarativeNetRequest session
 * rules scoped to those tabs (the person's other tabs are untouched). A blocked navigation never
 * leaves the browser; the tab shows the browser's "blocked" page and the tool reports it.
 *
 * Each run has its own rules (a run's grant may allow fewer sites than another's), and each
 * agent tab gets the rules of the run it belongs to: one run's call never replaces another's.
 * When the browser refuses the rules, the guard fails closed: the agent's tabs may open nothing,
 * and every browser tool is refused, saying why (`ready()`).
 */
export class NavigationGuard {
  private stored: Stored = { runs: {} };
  private readonly loaded: Promise<void>;
  private installed = '';
  private failure: string | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly tabs: GuardedTabs,
    private readonly environment: GuardEnvironment = browserEnvironment,
  ) {
    this.loaded = this.load();
    tabs.onChange(() => void this.apply());
  }

  /** The rules a run's tabs follow. */
  private rulesOf(runKey: string | undefined): NavigationRules | undefined {
    return (runKey !== undefined ? this.stored.runs[runKey]?.rules : undefined) ?? this.stored.latest;
  }

  /** Whether the rules of `runKey` (the tab's run) refuse `url` — the same test the browser applies. */
  blocks(url: string, runKey?: string): boolean {
    const rules = this.rulesOf(runKey);
    if (!rules) return false;
    const matches = (source: string) => {
      try {
        return new RegExp(source, 'i').test(url);
      } catch {
        return true; // a pattern nobody can read blocks, as the browser's refusal does
      }
    };
    if (rules.block.some(matches)) return true;
    if (rules.private_block?.some(matches) && !rules.private_allow?.some(matches)) return true;
    return rules.allow_only !== undefined && /^https?:/i.test(url) && !rules.allow_only.some(matches);
  }

  /**
   * Whether `url` is refused as a loopback, link-local or private address (not by the blocked
   * list): the person can allow it by naming the host, and the tools say so.
   */
  refusedAsPrivate(url: string, runKey?: string): boolean {
    const rules = this.rulesOf(runKey);
    if (!rules) return false;
    const matches = (source: string) => {
      try {
        return new RegExp(source, 'i').test(url);
      } catch {
        return false; // only says why; blocks() decides
      }
    };
    return !!rules.private_block?.some(matches) && !rules.private_allow?.some(matches) && !rules.block.some(matches);
  }

  /** Installs `rules` for the tabs of `runKey` (when they changed). */
  async update(runKey: string, rules: NavigationRules | undefined): Promise<void> {
    await this.loaded;
    if (rules) {
      const changed =
        this.stored.runs[runKey]?.rules.version !== rules.version || this.stored.latest?.version !== rules.version;
      this.stored.runs[runKey] = { rules, at: Date.now() };
      this.stored.latest = rules;
      // Kept across restarts of the service worker: a tab's rules must not depend on its run calling again.
      if (changed) await this.environment.save(this.stored);
    }
    return this.apply();
  }

  /**
   * Throws when the browser refused the rules: the agent's tabs could then go anywhere, so no
   * browser tool runs until the rules are in place again.
   */
  ready(): void {
    if (this.failure === undefined) return;
    throw new AppError(
      'POLICY_BLOCKED',
      `The browser refused NextAI's domain rules (${this.failure}), so the agent's tabs cannot be kept to the sites the policy allows. Browser tools are refused until that is fixed: check the blocked and allowed domains in the settings.`,
    );
  }

  private apply(): Promise<void> {
    this.queue = this.queue
      .then(() => this.install())
      .catch((error: unknown) => {
        this.installed = '';
        this.failure = error instanceof Error ? error.message : String(error);
      });
    return this.queue;
  }

  private async install(): Promise<void> {
    await this.loaded;
    const owners = await this.tabs.owners();
    // Tabs by the rules they follow: runs with the same rules share one set of browser rules.
    const groups = new Map<string, { rules: NavigationRules; tabIds: number[] }>();
    for (const [tabId, owner] of owners) {
      const rules = this.rulesOf(owner);
      if (!rules) continue;
      const group = groups.get(rules.version) ?? { rules, tabIds: [] };
      group.tabIds.push(tabId);
      groups.set(rules.version, group);
    }
    const ordered = [...groups.values()].sort((a, b) => (a.rules.version < b.rules.version ? -1 : 1));
    for (const group of ordered) group.tabIds.sort((a, b) => a - b);
    const key = JSON.stringify(ordered.map((group) => [group.rules.version, group.tabIds]));
    if (key === this.installed && this.failure === undefined) return;
    this.prune(new Set(owners.values()));

    const dnr = this.environment.dnr();
    if (!dnr) {
      this.failure = ordered.length > 0 ? 'this browser has no declarativeNetRequest' : undefined;
      return;
    }
    let id = FIRST_RULE_ID;
    const addRules: Rule[] = [];
    const patterns = new Map<number, string>();
    const rule = (priority: number, type: 'block' | 'allow', regexFilter: string, tabIds: number[]): Rule => {
      patterns.set(id, regexFilter);
      return {
        id: id++,
        priority,
        action: { type },
        condition: { regexFilter, resourceTypes: ['main_frame', 'sub_frame'], tabIds },
      };
    };
    for (const { rules, tabIds } of ordered) {
      // Blocked beats everything; a loopback or private address is refused unless the person
      // named that host; allowed beats "everything else" when there is an allow list.
      for (const pattern of rules.block) addRules.push(rule(5, 'block', pattern, tabIds));
      for (const pattern of rules.private_allow ?? []) addRules.push(rule(4, 'allow', pattern, tabIds));
      for (const pattern of rules.private_block ?? []) addRules.push(rule(3, 'block', pattern, tabIds));
      if (rules.allow_only) {
        for (const pattern of rules.allow_only) addRules.push(rule(2, 'allow', pattern, tabIds));
        addRules.push(rule(1, 'block', EVERY_URL, tabIds));
      }
    }
    const existing = async () =>
      (await dnr.getSessionRules()).map((found) => found.id).filter((found) => found >= FIRST_RULE_ID);
    try {
      await dnr.updateSessionRules({ removeRuleIds: await existing(), addRules });
      this.installed = key;
      this.failure = undefined;
    } catch (error) {
      this.installed = '';
      this.failure = describeRefusal(error, patterns);
      console.warn('NextAI: the browser refused the navigation rules; the agent tabs may open nothing.', error);
      // Fail closed: one rule that surely installs keeps the agent's tabs from going anywhere,
      // also where a page navigates by itself.
      const tabIds = [...owners.keys()].sort((a, b) => a - b);
      if (tabIds.length > 0) {
        const closed: Rule = {
          id: FIRST_RULE_ID,
          priority: 4,
          action: { type: 'block' },
          condition: { regexFilter: EVERY_URL, resourceTypes: ['main_frame', 'sub_frame'], tabIds },
        };
        await dnr
          .updateSessionRules({ removeRuleIds: await existing().catch(() => []), addRules: [closed] })
          .catch((fallback: unknown) => console.warn('NextAI: even the fail-closed rule was refused.', fallback));
      }
    }
  }

  /** Forgets the rules of runs that have no tab, beyond the most recent few. */
  private prune(owning: Set<string>): void {
    const idle = Object.entries(this.stored.runs)
      .filter(([runKey]) => !owning.has(runKey))
      .sort(([, a], [, b]) => b.at - a.at);
    for (const [runKey] of idle.slice(KEEP_IDLE_RUNS)) delete this.stored.runs[runKey];
  }

  private async load(): Promise<void> {
    const stored = (await this.environment.load().catch(() => undefined)) as Stored | undefined;
    if (stored?.runs) this.stored = stored;
  }
}

/** The browser's reason, with the pattern of the rule it names (the person can fix that one). */
function describeRefusal(error: unknown, patterns: Map<number, string>): string {
  const message = error instanceof Error ? error.message : String(error);
  const named = /\b(?:rule with id|id)\s*(\d+)/i.exec(message);
  const pattern = named ? patterns.get(Number(named[1])) : undefined;
  return pattern ? `${message}; the pattern is ${JSON.stringify(pattern)}` : message;
}
