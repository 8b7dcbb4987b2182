/**
 * A brief outline around the element the agent acts on, so that a person watching the tab sees
 * where it clicks or types. A box over the page in a closed shadow root: it takes no clicks and no
 * focus, hides from assistive technology, and goes away by itself.
 */
const OUTLINE_TAG = 'nextai-outline';
const OUTLINE_MS = 900;

export function outline(element: Element): void {
  const document = element.ownerDocument;
  const view = document.defaultView;
  if (!view || !document.documentElement) return;
  const rect = element.getBoundingClientRect();
  if (rect.width === 0 && rect.height === 0) return;
  const host = document.createElement(OUTLINE_TAG);
  host.setAttribute('aria-hidden', 'true');
  // The page's styles cannot reach inside, nor move the host: it sits over everything, inert.
  host.style.cssText =
    'all: initial; position: fixed; left: 0; top: 0; width: 0; height: 0; pointer-events: none; z-index: 2147483647;';
  const root = host.attachShadow({ mode: 'closed' });
  const box = document.createElement('div');
  const pad = 3;
  box.style.cssText = [
    'position: fixed',
    `left: ${rect.left - pad}px`,
    `top: ${rect.top - pad}px`,
    `width: ${rect.width + 2 * pad}px`,
    `height: ${rect.height + 2 * pad}px`,
    'box-sizing: border-box',
    'border: 2px solid #6366f1',
    'border-radius: 6px',
    'box-shadow: 0 0 0 4px rgba(99, 102, 241, 0.25)',
    'pointer-events: none',
  ].join(';');
  root.append(box);
  document.documentElement.append(host);
  view.setTimeout(() => host.remove(), OUTLINE_MS);
}

/** Whether a DOM change is the outline's own (a page settling is not held up by it). */
export function isOutlineChange(record: MutationRecord): boolean {
  const own = (node: Node) => node.nodeName.toLowerCase() === OUTLINE_TAG;
  if (own(record.target)) return true;
  if (record.type !== 'childList') return false;
  const nodes = [...record.addedNodes, ...record.removedNodes];
  return nodes.length > 0 && nodes.every(own);
}
