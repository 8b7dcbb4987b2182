import type { DraftBox } from './drafts.js';
import type { BackgroundContext } from './features.js';

/** The right-click "Let the agent handle this" menu (issue #6 point 6). */
export function startContextMenu(_context: BackgroundContext, _drafts: DraftBox): void {}
