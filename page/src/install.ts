/**
 * Installs the page agent once per document, in whatever world the script was injected into
 * (the extension's isolated world, or the daemon's isolated world in headless Chromium), where the
 * page's own scripts cannot reach or replace it.
 */
import { PAGE_AGENT_GLOBAL, PAGE_AGENT_VERSION } from '@nextai/shared/browser';

import { createPageAgent } from './agent.js';

export function installPageAgent(): void {
  const scope = globalThis as unknown as Record<string, { version?: number } | undefined>;
  if (scope[PAGE_AGENT_GLOBAL]?.version !== PAGE_AGENT_VERSION) scope[PAGE_AGENT_GLOBAL] = createPageAgent(window);
}
