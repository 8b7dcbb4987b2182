/**
 * Readable markdown of a page's main content. DOM-only, so the daemon's web_fetch runs the same
 * converter on a parsed document (`rendered: false`: no layout there, only markup says what is hidden).
 */
import { collapse, isElement, isText, renderedChildren, tag } from './dom.js';
import { isNotRendered, styleOf } from './visibility.js';

const SKIP = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'head',
  'svg',
  'canvas',
  'iframe',
  'form',
  'button',
  'input',
  'select',
  'textarea',
]);
const BOILERPLATE = new Set(['nav', 'header', 'footer', 'aside']);

export interface MarkdownOptions {
  /** Computed styles exist (a live page): skip what is not rendered. */
  rendered: boolean;
}

/** The element holding the main content: <main>, [role=main] or <article> with text, else the body. */
export function mainContent(document: Document): Element {
  const candidates = Array.from(document.querySelectorAll('main, [role="main"], article'));
  const withText = candidates.find((candidate) => collapse(candidate.textContent ?? '').length > 200);
  return withText ?? document.body ?? document.documentElement;
}

export function toMarkdown(root: Element, options: MarkdownOptions): string {
  const useBody = root === root.ownerDocument.body;
  const out = block(root, options, useBody);
  return out.replace(/\n{3,}/g, '\n\n').trim();
}

function hidden(element: Element, options: MarkdownOptions): boolean {
  if (element.hasAttribute('hidden') || element.getAttribute('aria-hidden') === 'true') return true;
  return options.rendered && isNotRendered(element, styleOf(element));
}

function inline(node: Node, options: MarkdownOptions): string {
  if (isText(node)) return node.data.replace(/[\s\u00a0]+/g, ' ');
  if (!isElement(node) || SKIP.has(tag(node)) || hidden(node, options)) return '';
  const inner = () =>
    renderedChildren(node)
      .map((child) => inline(child, options))
      .join('');
  switch (tag(node)) {
    case 'a': {
      const text = collapse(inner());
      const href = (node as HTMLAnchorElement).href || node.getAttribute('href') || '';
      if (!text) return '';
      return href && !href.startsWith('javascript:') ? `[${text}](${href})` : text;
    }
    case 'img': {
      const alt = node.getAttribute('alt');
      return alt ? `![${alt}](${(node as HTMLImageElement).src || node.getAttribute('src') || ''})` : '';
    }
    case 'strong':
    case 'b': {
      const text = collapse(inner());
      return text ? `**${text}**` : '';
    }
    case 'em':
    case 'i': {
      const text = collapse(inner());
      return text ? `_${text}_` : '';
    }
    case 'code':
      return `\`${node.textContent ?? ''}\``;
    case 'br':
      return '\n';
    default:
      return BLOCKS.has(tag(node)) ? `\n${block(node, options, false)}\n` : inner();
  }
}

const BLOCKS = new Set([
  'p', 'div', 'section', 'article', 'main', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote',
  'table', 'header', 'footer', 'nav', 'aside', 'figure', 'figcaption', 'dl', 'dt', 'dd', 'hr', 'body',
]); // prettier-ignore

function block(element: Element, options: MarkdownOptions, dropBoilerplate: boolean): string {
  const name = tag(element);
  if (SKIP.has(name) || hidden(element, options)) return '';
  if (dropBoilerplate && BOILERPLATE.has(name)) return '';
  const children = () => {
    const parts: string[] = [];
    let run = '';
    for (const child of renderedChildren(element)) {
      if (isElement(child) && BLOCKS.has(tag(child))) {
        if (collapse(run)) parts.push(collapse(run));
        run = '';
        const inner = block(child, options, dropBoilerplate);
        if (inner) parts.push(inner);
      } else {
        run += inline(child, options);
      }
    }
    if (collapse(run)) parts.push(run.split('\n').map(collapse).filter(Boolean).join('\n'));
    return parts.join('\n\n');
  };
  const heading = /^h([1-6])$/.exec(name);
  if (heading) return `${'#'.repeat(Number(heading[1]))} ${collapse(inlineChildren(element, options))}`;
  switch (name) {
    case 'ul':
    case 'ol':
      return Array.from(element.children)
        .filter((child) => tag(child) === 'li' && !hidden(child, options))
        .map((child, index) => {
          const text = block(child, options, dropBoilerplate).split('\n').join('\n   ');
          return `${name === 'ol' ? `${index + 1}.` : '-'} ${text}`;
        })
        .join('\n');
    case 'li':
      return children();
    case 'pre':
      return `\`\`\`\n${element.textContent ?? ''}\n\`\`\``;
    case 'blockquote':
      return children()
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
    case 'hr':
      return '---';
    case 'table':
      return tableMarkdown(element as HTMLTableElement, options);
    default:
      return children();
  }
}

function inlineChildren(element: Element, options: MarkdownOptions): string {
  return renderedChildren(element)
    .map((child) => inline(child, options))
    .join('');
}

function tableMarkdown(table: HTMLTableElement, options: MarkdownOptions): string {
  // By markup rather than table.rows: parsed documents without a browser (web_fetch) lack it.
  const rows = Array.from(table.querySelectorAll('tr')).filter(
    (row) => row.closest('table') === table && !hidden(row, options),
  );
  if (rows.length === 0) return '';
  const cells = rows.map((row) =>
    Array.from(row.children)
      .filter((cell) => tag(cell) === 'td' || tag(cell) === 'th')
      .map((cell) => collapse(inlineChildren(cell, options)).replace(/\|/g, '\\|')),
  );
  const width = Math.max(...cells.map((row) => row.length));
  const line = (row: string[]) => `| ${Array.from({ length: width }, (_, i) => row[i] ?? '').join(' | ')} |`;
  const [head, ...body] = cells;
  return [line(head ?? []), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}
