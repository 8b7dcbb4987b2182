/**
 * Finds the element a call means: a ref from a snapshot, a CSS selector (searched through open
 * shadow roots and same-origin frames), or visible text. Nothing found and several found are
 * errors that tell the model what to do next — with refs for the candidates.
 */
import type { TargetSpec } from '@nextai/shared/browser';

import { describe, interactiveRole } from './describe.js';
import { collapse, composedParent, isElement, queryRoots, renderedChildren, tag } from './dom.js';
import { accessibleName } from './roles.js';
import { PageFailure, type PageState } from './state.js';
import { isNotRendered, isVisibleElement, styleOf } from './visibility.js';

const CANDIDATES_SHOWN = 8;

export function resolveTarget(state: PageState, document: Document, target: TargetSpec): Element {
  if (target.ref) return state.resolveRef(target.ref);
  const selector = target.selector?.trim();
  if (!selector) {
    throw new PageFailure('INVALID_INPUT', 'Say which element: pass `ref` from browser_snapshot, or `selector`.');
  }
  const css = byCss(document, selector);
  if (css !== undefined && css.length > 0) return pick(state, css, `the selector ${JSON.stringify(selector)}`);
  const text = unquote(selector);
  const found = byText(document, text);
  if (found.length > 0) return pick(state, found, `the text ${JSON.stringify(text)}`);
  throw new PageFailure(
    'NOT_FOUND',
    `Nothing on the page matches ${JSON.stringify(selector)} (as a CSS selector or as visible text). Take a browser_snapshot to see what is there, and use a ref.`,
  );
}

/** Elements matching a CSS selector in every document and open shadow root; undefined if not CSS. */
function byCss(document: Document, selector: string): Element[] | undefined {
  try {
    document.createDocumentFragment().querySelector(selector);
  } catch {
    return undefined;
  }
  return queryRoots(document).flatMap((root) => Array.from(root.querySelectorAll(selector)));
}

function unquote(text: string): string {
  const trimmed = text.trim().replace(/^text=/, '');
  const quoted = /^(["'“])(.*)(["'”])$/.exec(trimmed);
  return collapse(quoted ? (quoted[2] ?? '') : trimmed);
}

/** Interactive elements named exactly so, then containing it, then the smallest text holder. */
function byText(document: Document, text: string): Element[] {
  const wanted = text.toLowerCase();
  if (!wanted) return [];
  const exact: Element[] = [];
  const partial: Element[] = [];
  const holders: Element[] = [];
  const visit = (node: Node, parentCursor: string | undefined) => {
    if (!isElement(node)) return;
    const name = tag(node);
    if (name === 'script' || name === 'style' || name === 'template' || name === 'head') return;
    const style = styleOf(node);
    if (isNotRendered(node, style)) return;
    const role = interactiveRole(node, style, parentCursor);
    if (role) {
      const label = accessibleName(node, role).toLowerCase();
      if (label === wanted) exact.push(node);
      else if (label.includes(wanted)) partial.push(node);
    } else {
      const own = collapse(
        Array.from(node.childNodes)
          .filter((child) => child.nodeType === 3)
          .map((child) => child.textContent ?? '')
          .join(' '),
      ).toLowerCase();
      if (own && own.includes(wanted)) holders.push(node);
    }
    for (const child of renderedChildren(node)) visit(child, style.cursor);
  };
  if (document.body) visit(document.body, undefined);
  const visible = (list: Element[]) => {
    const shown = list.filter(isVisibleElement);
    return shown.length > 0 ? shown : list;
  };
  if (exact.length > 0) return visible(exact);
  if (partial.length > 0) return visible(partial);
  // Text outside any control: act on the control it sits in, if any, else on the text's element.
  return visible(holders).map((holder) => closestInteractive(holder) ?? holder);
}

function closestInteractive(element: Element): Element | undefined {
  let parentCursor: string | undefined;
  for (let node: Element | undefined = element; node; node = composedParent(node)) {
    const style = styleOf(node);
    const parent = composedParent(node);
    parentCursor = parent ? styleOf(parent).cursor : undefined;
    if (interactiveRole(node, style, parentCursor)) return node;
  }
  return undefined;
}

function pick(state: PageState, found: Element[], what: string): Element {
  const unique = [...new Set(found)];
  if (unique.length === 1) return unique[0] as Element;
  const visible = unique.filter(isVisibleElement);
  if (visible.length === 1) return visible[0] as Element;
  const shown = (visible.length > 0 ? visible : unique).slice(0, CANDIDATES_SHOWN);
  const list = shown.map((element) => {
    const style = styleOf(element);
    const role = interactiveRole(element, style, undefined) ?? tag(element);
    return describe(element, role, state).text;
  });
  const more = unique.length > shown.length ? ` and ${unique.length - shown.length} more` : '';
  throw new PageFailure(
    'AMBIGUOUS_TARGET',
    `${unique.length} elements match ${what}: ${list.join('; ')}${more}. Use the ref of the one you mean.`,
  );
}
