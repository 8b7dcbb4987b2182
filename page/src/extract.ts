/**
 * browser_extract in the page: visible text (hidden text listed apart, flagged), cleaned HTML,
 * readable markdown, links and tables, each paged so no answer is oversized.
 */
import type { ExtractValue, PageExtractType } from '@nextai/shared/browser';

import { collapse, isElement, isText, queryRoots, renderedChildren, tag, truncate } from './dom.js';
import { mainContent, toMarkdown } from './markdown.js';
import { tableRows } from './snapshot.js';
import { PageFailure, type PageState } from './state.js';
import { childContext, hiddenReason, isNotRendered, ROOT_CONTEXT, styleOf, type Inherited } from './visibility.js';

export const DEFAULT_EXTRACT_CHARS = 40_000;
const LINKS_PER_PAGE = 300;
const BLOCK = /^(block|flex|grid|list-item|table|flow-root|table-row|table-caption)/;

export function extract(
  state: PageState,
  document: Document,
  request: { type: PageExtractType; selector?: string | undefined; cursor?: string | undefined; max_chars?: number },
): ExtractValue {
  const maxChars = request.max_chars ?? DEFAULT_EXTRACT_CHARS;
  const roots = scope(document, request.selector);
  const key = `${request.type}:${request.selector ?? ''}`;
  switch (request.type) {
    case 'text': {
      const collected = roots.map((root) => visibleText(root));
      const content = collected.map((part) => part.text).join('\n\n');
      const hidden = collected.flatMap((part) => part.hidden);
      const page = paginate(state, key, content, request.cursor, maxChars);
      return { ...page, ...(hidden.length > 0 && !request.cursor ? { hidden_text: hidden.slice(0, 50) } : {}) };
    }
    case 'markdown': {
      const content = request.selector
        ? roots.map((root) => toMarkdown(root, { rendered: true })).join('\n\n')
        : toMarkdown(mainContent(document), { rendered: true });
      const hidden = roots.flatMap((root) => visibleText(root).hidden);
      const page = paginate(state, key, content, request.cursor, maxChars);
      return { ...page, ...(hidden.length > 0 && !request.cursor ? { hidden_text: hidden.slice(0, 50) } : {}) };
    }
    case 'html':
      return paginate(state, key, roots.map(cleanHtml).join('\n'), request.cursor, maxChars);
    case 'links': {
      const links = roots.flatMap(linksOf);
      const start = cursorOffset(state, key, request.cursor);
      const slice = links.slice(start, start + LINKS_PER_PAGE);
      const next =
        start + LINKS_PER_PAGE < links.length ? `${state.doc}.${key.length}.${start + LINKS_PER_PAGE}` : undefined;
      return { links: slice, ...(next ? { next_cursor: next } : {}) };
    }
    case 'tables': {
      const tables = roots.flatMap((root) => tablesIn(root));
      const start = cursorOffset(state, key, request.cursor);
      const out: string[][][] = [];
      let size = 0;
      let index = start;
      for (; index < tables.length; index += 1) {
        const table = tables[index] as string[][];
        const cost = JSON.stringify(table).length;
        if (out.length > 0 && size + cost > maxChars) break;
        out.push(cost > maxChars ? table.slice(0, Math.max(1, Math.floor((table.length * maxChars) / cost))) : table);
        size += cost;
      }
      const next = index < tables.length ? `${state.doc}.${key.length}.${index}` : undefined;
      return { tables: out, ...(next ? { next_cursor: next } : {}) };
    }
  }
}

function scope(document: Document, selector: string | undefined): Element[] {
  if (!selector) return [document.body ?? document.documentElement];
  let found: Element[];
  try {
    found = queryRoots(document).flatMap((root) => Array.from(root.querySelectorAll(selector)));
  } catch {
    throw new PageFailure('INVALID_INPUT', `${JSON.stringify(selector)} is not a valid CSS selector.`);
  }
  if (found.length === 0)
    throw new PageFailure('NOT_FOUND', `Nothing on the page matches the selector ${JSON.stringify(selector)}.`);
  // Nested matches would repeat their content.
  return found.filter((element) => !found.some((other) => other !== element && other.contains(element)));
}

function cursorOffset(state: PageState, key: string, cursor: string | undefined): number {
  if (!cursor) return 0;
  const [doc, keyLength, offset] = cursor.split('.');
  if (doc !== state.doc || Number(keyLength) !== key.length || !/^\d+$/.test(offset ?? '')) {
    throw new PageFailure(
      'INVALID_INPUT',
      'That cursor belongs to another page or another extraction. Extract again without a cursor.',
    );
  }
  return Number(offset);
}

/** One page of `content`, cut at a line break where possible. */
function paginate(
  state: PageState,
  key: string,
  content: string,
  cursor: string | undefined,
  maxChars: number,
): ExtractValue {
  const start = cursorOffset(state, key, cursor);
  if (content.length - start <= maxChars) return { content: content.slice(start) };
  let end = start + maxChars;
  const lineBreak = content.lastIndexOf('\n', end);
  if (lineBreak > start + maxChars / 2) end = lineBreak + 1;
  return {
    content: `${content.slice(start, end)}\n… (${content.length - end} more characters: call again with next_cursor)`,
    next_cursor: `${state.doc}.${key.length}.${end}`,
  };
}

/** Visible text by blocks, and the text a person cannot see, each with why. */
export function visibleText(root: Element): { text: string; hidden: string[] } {
  const lines: string[] = [];
  const hidden: string[] = [];
  let run = '';
  const flush = () => {
    const text = collapse(run);
    if (text) lines.push(text);
    run = '';
  };
  const visit = (node: Node, context: Inherited) => {
    if (isText(node)) {
      const text = collapse(node.data);
      const parent = node.parentElement;
      if (!text || !parent) return;
      const style = styleOf(parent);
      if (style.visibility !== 'visible') return;
      const range = node.ownerDocument.createRange();
      range.selectNodeContents(node);
      const reason = hiddenReason(range.getBoundingClientRect(), style, context, node.ownerDocument.defaultView!);
      if (reason) hidden.push(`(${reason}) ${truncate(text, 300)}`);
      else run += ` ${node.data}`;
      return;
    }
    if (!isElement(node)) return;
    const name = tag(node);
    if (name === 'script' || name === 'style' || name === 'template' || name === 'noscript' || name === 'head') return;
    const style = styleOf(node);
    if (isNotRendered(node, style)) return;
    const inner = childContext(node, style, context);
    const block = BLOCK.test(style.display) || name === 'br';
    if (block) flush();
    if (name === 'input' || name === 'textarea') {
      const value = (node as HTMLInputElement).value;
      if (value && (node as HTMLInputElement).type !== 'password' && (node as HTMLInputElement).type !== 'hidden')
        run += ` ${value}`;
    }
    for (const child of renderedChildren(node)) visit(child, inner);
    if (block) flush();
  };
  visit(root, ROOT_CONTEXT);
  flush();
  return { text: lines.join('\n'), hidden };
}

function cleanHtml(root: Element): string {
  const copy = root.cloneNode(true) as Element;
  for (const element of Array.from(copy.querySelectorAll('script,style,noscript,template'))) element.remove();
  const walker = copy.ownerDocument.createTreeWalker(copy, 128);
  const comments: Node[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) comments.push(node);
  for (const comment of comments) comment.parentNode?.removeChild(comment);
  return copy.outerHTML.replace(/\n\s*\n+/g, '\n');
}

function linksOf(root: Element): { text: string; href: string }[] {
  const seen = new Set<string>();
  const out: { text: string; href: string }[] = [];
  const anchors = queryRootsOf(root).flatMap((scope) =>
    Array.from(scope.querySelectorAll<HTMLAnchorElement>('a[href],area[href]')),
  );
  for (const anchor of anchors) {
    const href = anchor.href;
    if (!href || href.startsWith('javascript:')) continue;
    const text = truncate(collapse(anchor.innerText || anchor.getAttribute('aria-label') || anchor.title || ''), 120);
    const key = `${text}\u0000${href}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ text, href });
  }
  return out;
}

function queryRootsOf(root: Element): (Element | ShadowRoot | Document)[] {
  if (root === root.ownerDocument.body) return queryRoots(root.ownerDocument);
  return [root];
}

function tablesIn(root: Element): string[][][] {
  const tables = queryRootsOf(root).flatMap((scope) =>
    Array.from(scope.querySelectorAll('table,[role="table"],[role="grid"]')),
  );
  if (tag(root) === 'table' || root.matches('[role="table"],[role="grid"]')) tables.unshift(root);
  return tables
    .filter((table) => !isNotRendered(table, styleOf(table)))
    .map((table) =>
      tableRows(table).map((cells) =>
        cells.map((cell) => collapse((cell as HTMLElement).innerText ?? cell.textContent ?? '')),
      ),
    );
}
