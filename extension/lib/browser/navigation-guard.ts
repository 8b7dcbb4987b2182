import { browser } from 'wxt/browser';

import type { NavigationRules } from '@nextai/shared';

import type { AgentTabs } from './agent-tabs.js';

const FIRST_RULE_ID = 7000;

type Rule = {
  id: number;
  priority: number;
  action: { type: 'block' | 'allow' };
  condition: { regexFilter: string; resourceTypes: ('main_frame' | 'sub_frame')[]; tabIds: number[] };
};

interface DnrApi {
  getSessionRules(): Promise<{ id: number }[]>;
  updateSessionRules(options: { removeRuleIds?: number[]; addRules?: Rule[] }): Promise<void>;
}

/**
 * The daemon's domain policy, enforced by the browser itself on every navigation of the agent's
 * tabs — typed addresses, redirects, links clicked, frames — with declarativeNetRequest session
 * rules scoped to those tabs (the person's other tabs are untouched). A blocked navigation never
 * leaves the browser; the tab shows the browser's "blocked" page and the tool reports it.
 */
export class NavigationGuard {
  private rules: NavigationRules | undefined;
  private installed = '';
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly tabs: AgentTabs) {
    tabs.onChange(() => void this.apply());
  }

  /** Whether the rules in force refuse `url` (the same test the browser applies). */
  blocks(url: string): boolean {
    const rules = this.rules;
    if (!rules) return false;
    const matches = (source: string) => new RegExp(source, 'i').test(url);
    if (rules.block.some(matches)) return true;
    return rules.allow_only !== undefined && /^https?:/i.test(url) && !rules.allow_only.some(matches);
  }

  /** Installs `rules` (when they changed) for the agent's current tabs. */
  update(rules: NavigationRules | undefined): Promise<void> {
    if (rules) this.rules = rules;
    return this.apply();
  }

  private apply(): Promise<void> {
    this.queue = this.queue
      .then(() => this.install())
      .catch((error: unknown) => {
        console.warn('NextAI: could not install the navigation rules.', error);
      });
    return this.queue;
  }

  private async install(): Promise<void> {
    const dnr = (browser as unknown as { declarativeNetRequest?: DnrApi }).declarativeNetRequest;
    if (!dnr || !this.rules) return;
    const tabIds = (await this.tabs.ids()).sort((a, b) => a - b);
    const key = `${this.rules.version}|${tabIds.join(',')}`;
    if (key === this.installed) return;
    const existing = (await dnr.getSessionRules()).map((rule) => rule.id).filter((id) => id >= FIRST_RULE_ID);
    const addRules: Rule[] = [];
    if (tabIds.length > 0) {
      let id = FIRST_RULE_ID;
      const rule = (priority: number, type: 'block' | 'allow', regexFilter: string): Rule => ({
        id: id++,
        priority,
        action: { type },
        condition: { regexFilter, resourceTypes: ['main_frame', 'sub_frame'], tabIds },
      });
      // Blocked beats allowed, allowed beats "everything else" when there is an allow list.
      for (const pattern of this.rules.block) addRules.push(rule(3, 'block', pattern));
      if (this.rules.allow_only) {
        for (const pattern of this.rules.allow_only) addRules.push(rule(2, 'allow', pattern));
        addRules.push(rule(1, 'block', '^[a-z][a-z0-9+.-]*://'));
      }
    }
    await dnr.updateSessionRules({ removeRuleIds: existing, addRules });
    this.installed = key;
  }
}
