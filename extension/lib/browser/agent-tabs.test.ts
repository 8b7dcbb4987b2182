import { beforeEach, describe, expect, it, vi } from 'vitest';

/** The parts of the browser AgentTabs uses: session storage and the tab-closed event. */
const fake = vi.hoisted(() => {
  const removed: ((tabId: number) => void)[] = [];
  let session: Record<string, unknown> = {};
  return {
    removed,
    reset() {
      removed.length = 0;
      session = {};
    },
    browser: {
      tabs: { onRemoved: { addListener: (listener: (tabId: number) => void) => void removed.push(listener) } },
      storage: {
        session: {
          get: (key: string) => Promise.resolve({ [key]: structuredClone(session[key]) }),
          set: (values: Record<string, unknown>) => {
            session = { ...session, ...structuredClone(values) };
            return Promise.resolve();
          },
        },
      },
    },
  };
});
vi.mock('wxt/browser', () => ({ browser: fake.browser }));

import { AgentTabs, DIRECT_CALLS } from './agent-tabs.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the agent’s tabs', () => {
  beforeEach(() => fake.reset());

  it('a right-click gift goes to the run started from that draft, once — not to direct calls or other runs', async () => {
    const tabs = new AgentTabs();
    await tabs.offer(7, 'draft-1');
    // Before that run starts, the tab is nobody's.
    expect(await tabs.working(DIRECT_CALLS)).toBeUndefined();
    expect(await tabs.working('run-other')).toBeUndefined();
    expect(await tabs.allowed(7, DIRECT_CALLS)).toBe(false);
    expect(await tabs.owners()).toEqual(new Map());

    expect(await tabs.claim('draft-1', 'run-1')).toBe(7);
    expect(await tabs.working('run-1')).toBe(7);
    expect(await tabs.allowed(7, 'run-1')).toBe(true);
    // Claimed once: another run started from the same draft id gets nothing.
    expect(await tabs.claim('draft-1', 'run-2')).toBeUndefined();
    expect(await tabs.working('run-2')).toBeUndefined();
    expect(await tabs.allowed(7, 'run-2')).toBe(false);
    expect(await tabs.working(DIRECT_CALLS)).toBeUndefined();
  });

  it('a tab one run attached or opened is not another run’s, unless the person lets it attach', async () => {
    const tabs = new AgentTabs();
    await tabs.give(3, 'attached', 'run-1');
    await tabs.give(4, 'opened', 'run-1');
    for (const other of ['run-2', DIRECT_CALLS]) {
      expect(await tabs.working(other)).toBeUndefined();
      expect(await tabs.allowed(3, other)).toBe(false);
      expect(await tabs.allowed(4, other)).toBe(false);
    }
    // An approved attach moves the tab to the run that asked.
    await tabs.give(3, 'attached', 'run-2');
    expect(await tabs.allowed(3, 'run-2')).toBe(true);
    expect(await tabs.allowed(3, 'run-1')).toBe(false);
    expect(await tabs.working('run-1')).toBe(4);
  });

  it('a tab a page opened belongs to the same run without becoming its working tab', async () => {
    const tabs = new AgentTabs();
    await tabs.give(4, 'opened', 'run-1');
    await tabs.give(5, 'spawned', 'run-1');
    expect(await tabs.entry(5)).toEqual({ owner: 'run-1', how: 'spawned' });
    expect(await tabs.working('run-1')).toBe(4);
    expect(await tabs.owners()).toEqual(
      new Map([
        [4, 'run-1'],
        [5, 'run-1'],
      ]),
    );
  });

  it('a gift whose tab closes is dropped; a closed working tab is reported as such', async () => {
    const tabs = new AgentTabs();
    await tabs.offer(7, 'draft-1');
    await tabs.give(8, 'opened', 'run-1');
    for (const listener of fake.removed) listener(7);
    for (const listener of fake.removed) listener(8);
    await settle();
    expect(await tabs.claim('draft-1', 'run-1')).toBeUndefined();
    expect(await tabs.working('run-1')).toBeUndefined();
    expect(await tabs.closedWorking('run-1')).toBe(8);
  });

  it('remembers everything across a restart of the service worker', async () => {
    const first = new AgentTabs();
    await first.offer(7, 'draft-1');
    await first.give(8, 'opened', 'run-1');
    const restarted = new AgentTabs();
    expect(await restarted.allowed(8, 'run-1')).toBe(true);
    expect(await restarted.claim('draft-1', 'run-2')).toBe(7);
  });
});
