import { browser } from 'wxt/browser';

/** The name of the tab group the agent's tabs go into, in every window. */
export const AGENT_GROUP_TITLE = 'NextAI';

interface TabGroupsApi {
  query(query: { title?: string; windowId?: number }): Promise<{ id: number }[]>;
  update(groupId: number, properties: { title?: string; color?: string; collapsed?: boolean }): Promise<unknown>;
}

interface GroupingTabs {
  group?(options: { tabIds: number[]; groupId?: number; createProperties?: { windowId?: number } }): Promise<number>;
}

/**
 * Puts a tab the agent opened into its window's "NextAI" tab group, made on first use, so that a
 * person sees at a glance which tabs the agent works in. Tabs the person gave it stay where they
 * are (moving a person's tab is not the agent's to do). Where the browser has no tab groups for
 * extensions (Firefox before 139), nothing happens; a failure is only logged — the tool goes on.
 */
export async function groupAgentTab(tabId: number): Promise<void> {
  const tabGroups = (browser as unknown as { tabGroups?: TabGroupsApi }).tabGroups;
  const tabs = browser.tabs as unknown as GroupingTabs;
  if (!tabGroups || typeof tabs.group !== 'function') return;
  try {
    const tab = await browser.tabs.get(tabId);
    const [existing] = await tabGroups.query({ title: AGENT_GROUP_TITLE, windowId: tab.windowId });
    if (existing) {
      await tabs.group({ tabIds: [tabId], groupId: existing.id });
      return;
    }
    const groupId = await tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } });
    await tabGroups.update(groupId, { title: AGENT_GROUP_TITLE, color: 'purple' });
  } catch (error) {
    console.warn('NextAI: could not put the agent’s tab in its tab group.', error);
  }
}
