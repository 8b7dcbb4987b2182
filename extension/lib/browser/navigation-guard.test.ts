import { describe, expect, it, vi } from 'vitest';

import type { NavigationRules } from '@nextai/shared';

vi.mock('wxt/browser', () => ({ browser: {} }));

import { NavigationGuard, type DnrApi, type GuardEnvironment, type GuardedTabs } from './navigation-guard.js';

type Installed = Parameters<DnrApi['updateSessionRules']>[0]['addRules'];

/** declarativeNetRequest's session rules, kept like the browser keeps them; `refuse` makes it say no. */
class FakeDnr implements DnrApi {
  rules: NonNullable<Installed> = [];
  refuse: ((rules: NonNullable<Installed>) => string | undefined) | undefined;
  getSessionRules() {
    return Promise.resolve(this.rules.map(({ id }) => ({ id })));
  }
  updateSessionRules(options: { removeRuleIds?: number[]; addRules?: Installed }) {
    const why = this.refuse?.(options.addRules ?? []);
    if (why) return Promise.reject(new Error(why));
    this.rules = this.rules.filter((rule) => !options.removeRuleIds?.includes(rule.id));
    this.rules.push(...(options.addRules ?? []));
    return Promise.resolve();
  }
  /** The patterns that block, per tab. */
  blockedIn(tabId: number): string[] {
    return this.rules
      .filter((rule) => rule.action.type === 'block' && rule.condition.tabIds.includes(tabId))
      .map((rule) => rule.condition.regexFilter);
  }
}

function setup(owners: Record<number, string>) {
  const dnr = new FakeDnr();
  let stored: unknown;
  const environment: GuardEnvironment = {
    dnr: () => dnr,
    load: () => Promise.resolve(stored),
    save: (value) => {
      stored = structuredClone(value);
      return Promise.resolve();
    },
  };
  const listeners: (() => void)[] = [];
  const tabs: GuardedTabs = {
    owners: () => Promise.resolve(new Map(Object.entries(owners).map(([id, run]) => [Number(id), run]))),
    onChange: (listener) => void listeners.push(listener),
  };
  return { dnr, guard: new NavigationGuard(tabs, environment), environment, tabs };
}

const CONFIG: NavigationRules = { version: 'config', block: ['^https?://blocked\\.test/'] };
const NARROW: NavigationRules = {
  version: 'grant',
  block: ['^https?://blocked\\.test/'],
  allow_only: ['^https?://shop\\.test/'],
};

describe('the navigation guard', () => {
  it('keeps each run’s rules on its own tabs: another run’s call does not replace them', async () => {
    const { dnr, guard } = setup({ 1: 'run-narrow', 2: 'run-wide' });
    await guard.update('run-narrow', NARROW);
    await guard.update('run-wide', CONFIG);
    // The narrow run's tab still allows only the shop; the other run's tab only blocks.
    expect(dnr.blockedIn(1)).toEqual(['^https?://blocked\\.test/', '^[a-z][a-z0-9+.-]*://']);
    expect(dnr.blockedIn(2)).toEqual(['^https?://blocked\\.test/']);
    expect(guard.blocks('https://news.test/', 'run-narrow')).toBe(true);
    expect(guard.blocks('https://news.test/', 'run-wide')).toBe(false);
    expect(guard.blocks('https://blocked.test/x', 'run-wide')).toBe(true);
  });

  it('refuses loopback and private addresses below the blocked list, except the hosts the person named', async () => {
    const { dnr, guard } = setup({ 1: 'run-a' });
    const rules: NavigationRules = {
      version: 'private',
      block: ['^https?://127\\.0\\.0\\.2[:/]'],
      private_block: ['^https?://127\\.', '^https?://localhost[:/]'],
      private_allow: ['^https?://127\\.0\\.0\\.(1|2)[:/]'],
    };
    await guard.update('run-a', rules);
    const installed = (type: 'block' | 'allow', pattern: string) =>
      dnr.rules.find((rule) => rule.action.type === type && rule.condition.regexFilter === pattern)?.priority;
    // The browser picks the matching rule of the highest priority.
    expect(installed('block', '^https?://127\\.0\\.0\\.2[:/]')).toBe(5);
    expect(installed('allow', '^https?://127\\.0\\.0\\.(1|2)[:/]')).toBe(4);
    expect(installed('block', '^https?://127\\.')).toBe(3);
    expect(guard.blocks('http://127.0.0.1:8080/', 'run-a')).toBe(false);
    expect(guard.blocks('http://127.0.0.3:8080/', 'run-a')).toBe(true);
    expect(guard.blocks('http://localhost:3000/', 'run-a')).toBe(true);
    // Named, but blocked: blocked wins.
    expect(guard.blocks('http://127.0.0.2:8080/', 'run-a')).toBe(true);
    expect(guard.blocks('https://example.test/', 'run-a')).toBe(false);
    // Why, for the error the tools give: only a private refusal can be lifted by naming the host.
    expect(guard.refusedAsPrivate('http://127.0.0.3:8080/', 'run-a')).toBe(true);
    expect(guard.refusedAsPrivate('http://127.0.0.2:8080/', 'run-a')).toBe(false);
    expect(guard.refusedAsPrivate('http://127.0.0.1:8080/', 'run-a')).toBe(false);
  });

  it('keeps the rules across a restart of the service worker', async () => {
    const first = setup({ 1: 'run-narrow' });
    await first.guard.update('run-narrow', NARROW);
    const restarted = new NavigationGuard(first.tabs, first.environment);
    await restarted.update('another-run', CONFIG);
    expect(first.dnr.blockedIn(1)).toContain('^[a-z][a-z0-9+.-]*://');
    expect(restarted.blocks('https://news.test/', 'run-narrow')).toBe(true);
  });

  it('fails closed when the browser refuses the rules: tools are refused, saying why, and the tabs open nothing', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const { dnr, guard } = setup({ 1: 'run-a', 2: 'run-a' });
    await guard.update('run-a', CONFIG);
    guard.ready();
    const bad: NavigationRules = { version: 'bad', block: ['^https?://(?<name>x)\\.test/'] };
    dnr.refuse = (rules) =>
      rules.some((rule) => rule.condition.regexFilter.includes('?<'))
        ? `Rule with id ${rules.find((rule) => rule.condition.regexFilter.includes('?<'))!.id} specified an invalid regular expression.`
        : undefined;
    await guard.update('run-a', bad);
    expect(() => guard.ready()).toThrow(expect.objectContaining({ code: 'POLICY_BLOCKED' }));
    expect(() => guard.ready()).toThrow(/invalid regular expression.*\(\?<name>x\)/);
    // Nothing but one rule that blocks everything in the agent's tabs.
    expect(dnr.rules).toHaveLength(1);
    expect(dnr.blockedIn(1)).toEqual(['^[a-z][a-z0-9+.-]*://']);
    expect(dnr.blockedIn(2)).toEqual(['^[a-z][a-z0-9+.-]*://']);

    // Fixed rules install again, and the tools work again.
    dnr.refuse = undefined;
    await guard.update('run-a', CONFIG);
    expect(() => guard.ready()).not.toThrow();
    expect(dnr.blockedIn(1)).toEqual(['^https?://blocked\\.test/']);
  });

  it('fails closed when there is no declarativeNetRequest to install rules with', async () => {
    const { guard, environment } = setup({ 1: 'run-a' });
    environment.dnr = () => undefined;
    await guard.update('run-a', CONFIG);
    expect(() => guard.ready()).toThrow(/no declarativeNetRequest/);
  });
});
