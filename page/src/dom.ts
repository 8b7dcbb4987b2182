/**
 * DOM helpers that work across realms: elements inside a same-origin iframe belong to another
 * window, so `instanceof HTMLInputElement` is false for them — tag names and node types are not.
 */

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

export function isElement(node: Node | null | undefined): node is Element {
  return node?.nodeType === ELEMENT_NODE;
}

export function isText(node: Node | null | undefined): node is Text {
  return node?.nodeType === TEXT_NODE;
}

export function tag(element: Element): string {
  return element.localName;
}

export function isInput(element: Element): element is HTMLInputElement {
  return tag(element) === 'input';
}

export function isTextArea(element: Element): element is HTMLTextAreaElement {
  return tag(element) === 'textarea';
}

export function isSelect(element: Element): element is HTMLSelectElement {
  return tag(element) === 'select';
}

export function windowOf(node: Node): Window & typeof globalThis {
  return (node.ownerDocument ?? (node as Document)).defaultView as Window & typeof globalThis;
}

/** The document of a same-origin iframe; undefined for a cross-origin (or not yet loaded) one. */
export function frameDocument(element: Element): Document | undefined {
  if (tag(element) !== 'iframe' && tag(element) !== 'frame') return undefined;
  try {
    return (element as HTMLIFrameElement).contentDocument ?? undefined;
  } catch {
    // A cross-origin frame throws on some engines instead of returning null; it stays unread.
    return undefined;
  }
}

/**
 * The children as they are rendered: an open shadow root's content instead of the light DOM,
 * a slot's assigned nodes (or its fallback content), and a same-origin frame's body.
 */
export function renderedChildren(node: Node): Node[] {
  if (isElement(node)) {
    const shadow = (node as Element & { shadowRoot: ShadowRoot | null }).shadowRoot;
    if (shadow) return Array.from(shadow.childNodes);
    if (tag(node) === 'slot') {
      const assigned = (node as HTMLSlotElement).assignedNodes({ flatten: true });
      return assigned.length > 0 ? assigned : Array.from(node.childNodes);
    }
    const inner = frameDocument(node);
    if (inner) return inner.body ? [inner.body] : [];
  }
  return Array.from(node.childNodes);
}

/** Parent in the composed tree: through shadow roots and out of same-origin frames. */
export function composedParent(element: Element): Element | undefined {
  if (element.assignedSlot) return element.assignedSlot;
  const parent = element.parentNode;
  if (!parent) return windowFrameElement(element);
  if (parent.nodeType === 11) return (parent as ShadowRoot).host ?? undefined;
  if (isElement(parent)) return parent;
  return windowFrameElement(element);
}

function windowFrameElement(element: Element): Element | undefined {
  try {
    return windowOf(element).frameElement ?? undefined;
  } catch {
    return undefined;
  }
}

/** True when `inner` is `outer` or inside it, across shadow roots and frames. */
export function composedContains(outer: Element, inner: Element): boolean {
  for (let node: Element | undefined = inner; node; node = composedParent(node)) {
    if (node === outer) return true;
  }
  return false;
}

/** Every document and open shadow root reachable from `root` (for selectors and observers). */
export function queryRoots(root: Document): (Document | ShadowRoot)[] {
  const roots: (Document | ShadowRoot)[] = [];
  const visit = (scope: Document | ShadowRoot) => {
    roots.push(scope);
    const walker = (scope.ownerDocument ?? (scope as Document)).createTreeWalker(scope, 1);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node as Element;
      const shadow = (element as Element & { shadowRoot: ShadowRoot | null }).shadowRoot;
      if (shadow) visit(shadow);
      const inner = frameDocument(element);
      if (inner) visit(inner);
    }
  };
  visit(root);
  return roots;
}

/** Whitespace collapsed and trimmed, as a person reads it. */
export function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A native property setter from the element's own realm, bypassing any instance override. */
export function nativeSetter(element: Element, property: string): ((value: unknown) => void) | undefined {
  for (let proto = Object.getPrototypeOf(element) as object | null; proto; proto = Object.getPrototypeOf(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, property);
    if (descriptor?.set) return descriptor.set.bind(element) as (value: unknown) => void;
  }
  return undefined;
}
