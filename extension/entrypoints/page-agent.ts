import { defineUnlistedScript } from 'wxt/utils/define-unlisted-script';

import { installPageAgent } from '../../page/src/install.js';

/**
 * The page agent (page/src), injected on demand by chrome.scripting into the extension's isolated
 * world of a tab. The daemon's headless browser injects a bundle of the very same source.
 */
export default defineUnlistedScript(() => installPageAgent());
