/**
 * Waiting for a page to settle after an action, adaptively: it is settled when its content has not
 * changed for a short quiet window. Attribute churn (a spinner, a blinking caret) counts only at
 * first, so an animation cannot hold the wait to its timeout. Network activity is the driver's
 * part (it sees requests; a page script cannot see pending ones).
 */
import type { SettleValue } from '@nextai/shared/browser';

import { queryRoots, windowOf } from './dom.js';
import { isOutlineChange } from './highlight.js';

const ATTRIBUTE_WINDOW_MS = 300;

export function settle(document: Document, timeoutMs: number, quietMs = 50): Promise<SettleValue> {
  const view = windowOf(document);
  const started = view.performance.now();
  let last = started;
  let mutations = 0;
  const observers = queryRoots(document).map((root) => {
    const observer = new (windowOf(root).MutationObserver)((records) => {
      const now = view.performance.now();
      for (const record of records) {
        if (isOutlineChange(record)) continue;
        if (record.type !== 'attributes' || now - started < ATTRIBUTE_WINDOW_MS) {
          mutations += 1;
          last = now;
        }
      }
    });
    observer.observe(root, { subtree: true, childList: true, characterData: true, attributes: true });
    return observer;
  });
  return new Promise((resolve) => {
    const finish = (quiet: boolean) => {
      for (const observer of observers) observer.disconnect();
      resolve({ waited_ms: Math.round(view.performance.now() - started), mutations, quiet });
    };
    const check = () => {
      const now = view.performance.now();
      if (now - last >= quietMs) finish(true);
      else if (now - started >= timeoutMs) finish(false);
      else view.setTimeout(check, Math.max(5, quietMs - (now - last)));
    };
    view.setTimeout(check, quietMs);
  });
}
