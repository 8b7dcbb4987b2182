/**
 * Installs the page agent once per document, in whatever world the script was injected into
 * (the extension's isolated world, or the daemon's isolated world in headless Chromium), where the
 * page's own scripts cannot reach or replace it.
 */
import { PAGE_AGENT_GLOBAL } from '@nextai/shared/browser';

import { createPageAgent } from './agent.js';

const scope = globalThis as unknown as Record<string, unknown>;
if (!scope[PAGE_AGENT_GLOBAL]) scope[PAGE_AGENT_GLOBAL] = createPageAgent(window);
