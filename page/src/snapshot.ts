/**
 * The compact text view of a page: interactive elements with refs, names, values and states,
 * inline with the visible text they sit in; headings as `#`, lists as `-`, tables as `| … |`;
 * dialogs, forms and frames as indented groups; hidden text flagged with `⚠hidden`; lines new since
 * the previous snapshot of this document marked with `+`.
 */
import type { SnapshotValue } from '@nextai/shared/browser';

import { describe, interactiveRole } from './describe.js';
import { collapse, frameDocument, isElement, isText, renderedChildren, tag, truncate } from './dom.js';
import { accessibleName, headingLevel, roleOf } from './roles.js';
import { PageFailure, type PageState } from './state.js';
import { childContext, hiddenReason, isNotRendered, ROOT_CONTEXT, styleOf, type Inherited } from './visibility.js';

const SKIPPED = new Set(['script', 'style', 'template', 'noscript', 'head', 'meta', 'link', 'title', 'base']);
const BLOCK_DISPLAYS = /^(block|flex|grid|list-item|table|flow-root|table-row|table-caption)/;
const TEXT_CHARS = 400;
const HIDDEN_CHARS = 160;
const TABLE_ROWS = 40;
export const DEFAULT_SNAPSHOT_CHARS = 24_000;

const INTERACTIVE_DESCENDANT =
  'a[href],button,input:not([type=hidden]),select,textarea,summary,[role],[tabindex],[contenteditable],[onclick]';

interface Line {
  depth: number;
  prefix: string;
  parts: string[];
}

interface Walk {
  depth: number;
  context: Inherited;
  cursor: string | undefined;
  /** Inside a label whose text names its control: the text is not repeated. */
  inLabel: boolean;
}

export class SnapshotBuilder {
  private readonly lines: Line[] = [];
  private current: Line | undefined;
  readonly refs = new Map<string, string>();

  constructor(private readonly state: PageState) {}

  build(root: Element): string[] {
    this.walk(root, { depth: 0, context: ROOT_CONTEXT, cursor: undefined, inLabel: false });
    this.flush();
    return this.lines
      .filter((line) => line.parts.length > 0 || line.prefix.endsWith(':'))
      .map((line) => `${'  '.repeat(line.depth)}${line.prefix}${line.parts.join(' ')}`.trimEnd());
  }

  private line(depth: number): Line {
    if (!this.current) {
      this.current = { depth, prefix: '', parts: [] };
    }
    return this.current;
  }

  private flush(): void {
    if (this.current && (this.current.parts.length > 0 || this.current.prefix.endsWith(':'))) {
      this.lines.push(this.current);
    }
    this.current = undefined;
  }

  private push(text: string, depth: number): void {
    this.line(depth).parts.push(text);
  }

  private walk(node: Node, walk: Walk): void {
    if (isText(node)) {
      this.text(node, walk);
      return;
    }
    if (!isElement(node)) return;
    const element = node;
    const name = tag(element);
    if (SKIPPED.has(name)) return;
    if (name === 'input' && (element as HTMLInputElement).type === 'hidden') return;
    const style = styleOf(element);
    if (isNotRendered(element, style)) return;
    const context = childContext(element, style, walk.context);
    const inner: Walk = { ...walk, context, cursor: style.cursor };
    const role = interactiveRole(element, style, walk.cursor);
    const block = BLOCK_DISPLAYS.test(style.display) || name === 'br';

    if (role) {
      const hidden = this.hiddenElement(element, style, context);
      const described = describe(element, role, this.state, hidden ? `(hidden: ${hidden})` : undefined);
      this.refs.set(described.ref, described.text);
      if (block && role !== 'link') this.flush();
      this.push(described.text, walk.depth);
      if (role !== 'combobox' && role !== 'listbox' && this.hasInteractiveInside(element)) {
        this.children(element, { ...inner, inLabel: true });
      }
      if (block && role !== 'link') this.flush();
      return;
    }

    const explicit = roleOf(element);
    if (explicit === 'heading') {
      this.flush();
      this.line(walk.depth).prefix = `${'#'.repeat(headingLevel(element))} `;
      this.children(element, inner);
      this.flush();
      return;
    }
    if (explicit === 'list') {
      this.flush();
      this.children(element, { ...inner, depth: walk.depth });
      this.flush();
      return;
    }
    if (explicit === 'listitem') {
      this.flush();
      this.line(walk.depth).prefix = '- ';
      this.children(element, { ...inner, depth: walk.depth + 1 });
      this.flush();
      return;
    }
    if (explicit === 'table' || explicit === 'grid') {
      this.flush();
      this.table(element, inner);
      return;
    }
    const frame = name === 'iframe' || name === 'frame';
    if (frame && !frameDocument(element)) {
      this.flush();
      const src = (element as HTMLIFrameElement).src;
      this.lines.push({
        depth: walk.depth,
        prefix: '',
        parts: [`iframe (another site${src ? `: ${truncate(src, 80)}` : ''}; its content cannot be read from here)`],
      });
      return;
    }
    const group = this.groupHeader(element, explicit);
    if (group !== undefined) {
      this.flush();
      this.lines.push({ depth: walk.depth, prefix: `${group}:`, parts: [] });
      this.children(element, { ...inner, depth: walk.depth + 1 });
      this.flush();
      return;
    }
    if (name === 'img' || explicit === 'img' || name === 'svg') {
      const alt = accessibleName(element, 'img');
      if (alt && !walk.inLabel) this.push(`img ${JSON.stringify(alt)}`, walk.depth);
      return;
    }
    // A label's text names its control, a legend's names its group: neither is repeated.
    const labelled = (name === 'label' && (element as HTMLLabelElement).control !== null) || name === 'legend';
    if (block) this.flush();
    this.children(element, { ...inner, inLabel: walk.inLabel || labelled });
    if (block) this.flush();
  }

  private children(element: Element, walk: Walk): void {
    for (const child of renderedChildren(element)) this.walk(child, walk);
  }

  private hasInteractiveInside(element: Element): boolean {
    if (element.shadowRoot) return true;
    return element.querySelector(INTERACTIVE_DESCENDANT) !== null;
  }

  private groupHeader(element: Element, role: string | undefined): string | undefined {
    const name = tag(element);
    if (role === 'dialog' || role === 'alertdialog') {
      const modal = name === 'dialog' ? element.matches(':modal') : element.getAttribute('aria-modal') === 'true';
      const title = accessibleName(element, role);
      return `${role}${title ? ` ${JSON.stringify(title)}` : ''}${modal ? ' (modal)' : ''}`;
    }
    if (role === 'form') {
      const title = accessibleName(element, role);
      return `form${title ? ` ${JSON.stringify(title)}` : ''}`;
    }
    if (role === 'group' && name === 'fieldset') {
      const title = accessibleName(element, role);
      return `group${title ? ` ${JSON.stringify(title)}` : ''}`;
    }
    if (name === 'iframe' || name === 'frame') {
      const title = element.getAttribute('title');
      const src = (element as HTMLIFrameElement).src;
      return `iframe${title ? ` ${JSON.stringify(title)}` : ''}${src ? ` ${truncate(src, 80)}` : ''}`;
    }
    return undefined;
  }

  private text(node: Text, walk: Walk): void {
    if (walk.inLabel) return;
    const text = collapse(node.data);
    if (!text) return;
    const parent = node.parentElement;
    if (!parent) return;
    const style = styleOf(parent);
    if (style.visibility !== 'visible') return;
    const range = node.ownerDocument.createRange();
    range.selectNodeContents(node);
    const reason = hiddenReason(range.getBoundingClientRect(), style, walk.context, node.ownerDocument.defaultView!);
    if (reason) {
      this.flush();
      this.lines.push({
        depth: walk.depth,
        prefix: '',
        parts: [`⚠hidden (${reason}): ${JSON.stringify(truncate(text, HIDDEN_CHARS))}`],
      });
      return;
    }
    this.push(truncate(text, TEXT_CHARS), walk.depth);
  }

  private hiddenElement(element: Element, style: CSSStyleDeclaration, context: Inherited): string | undefined {
    if (context.ariaHidden) return undefined;
    const rect = element.getBoundingClientRect();
    const reason = hiddenReason(rect, style, { ...context, background: undefined }, element.ownerDocument.defaultView!);
    // Native checkboxes and radios are often drawn by their label instead: operable, not hidden.
    if (reason && element.localName === 'input' && (element as HTMLInputElement).labels?.length) return undefined;
    return reason === 'tiny text' ? undefined : reason;
  }

  private table(element: Element, walk: Walk): void {
    const rows = tableRows(element);
    const title = accessibleName(element, 'table');
    const columns = Math.max(0, ...rows.map((row) => row.length));
    this.lines.push({
      depth: walk.depth,
      prefix: `table${title ? ` ${JSON.stringify(title)}` : ''} (${rows.length} rows × ${columns} columns):`,
      parts: [],
    });
    rows.slice(0, TABLE_ROWS).forEach((cells) => {
      const rendered = cells.map((cell) => {
        const inner = new SnapshotBuilder(this.state);
        const lines = inner.build(cell);
        for (const [ref, text] of inner.refs) this.refs.set(ref, text);
        return lines
          .map((line) => line.trim())
          .join(' ')
          .replace(/\|/g, '/');
      });
      this.lines.push({ depth: walk.depth + 1, prefix: '', parts: [`| ${rendered.join(' | ')} |`] });
    });
    if (rows.length > TABLE_ROWS) {
      this.lines.push({
        depth: walk.depth + 1,
        prefix: '',
        parts: [`… ${rows.length - TABLE_ROWS} more rows (browser_extract type "tables" gives them all)`],
      });
    }
  }
}

/** Rows of cells of an HTML table or an ARIA grid/table, skipping hidden rows. */
export function tableRows(element: Element): Element[][] {
  if (tag(element) === 'table') {
    return Array.from((element as HTMLTableElement).rows)
      .filter((row) => styleOf(row).display !== 'none')
      .map((row) => Array.from(row.cells));
  }
  return Array.from(element.querySelectorAll('[role="row"]')).map((row) =>
    Array.from(row.querySelectorAll('[role="cell"],[role="gridcell"],[role="columnheader"],[role="rowheader"]')),
  );
}

/** The full snapshot of the document, the change marks against the previous one, then paging. */
export function takeSnapshot(
  state: PageState,
  document: Document,
  options: { maxChars?: number; cursor?: string | undefined },
): SnapshotValue {
  const maxChars = options.maxChars ?? DEFAULT_SNAPSHOT_CHARS;
  if (options.cursor) return pageOf(state, options.cursor, maxChars);
  const builder = new SnapshotBuilder(state);
  const body = document.body ?? document.documentElement;
  const lines = builder.build(body);
  const previous = state.previousLines;
  const marked = previous ? lines.map((line) => (previous.has(line) ? line : `+${line}`)) : lines;
  const header: string[] = [];
  if (previous) {
    const added = marked.filter((line) => line.startsWith('+')).length;
    const gone = [...state.previousRefs].filter(([ref]) => !builder.refs.has(ref)).map(([, text]) => text);
    const goneText =
      gone.length > 0
        ? `; gone: ${gone.slice(0, 10).join(', ')}${gone.length > 10 ? ` and ${gone.length - 10} more` : ''}`
        : '';
    header.push(
      added === 0 && gone.length === 0
        ? 'No change since your last snapshot.'
        : `Since your last snapshot: ${added} new or changed lines (marked +)${goneText}.`,
    );
  }
  state.previousLines = new Set(lines);
  state.previousRefs = builder.refs;
  state.lastSnapshot = { id: (state.lastSnapshot?.id ?? 0) + 1, lines: [...header, ...marked] };
  const value = pageOf(state, `${state.doc}.${state.lastSnapshot.id}.0`, maxChars);
  return { ...value, interactive: builder.refs.size };
}

function pageOf(state: PageState, cursor: string, maxChars: number): SnapshotValue {
  const [doc, id, start] = cursor.split('.');
  const last = state.lastSnapshot;
  if (doc !== state.doc || !last || String(last.id) !== id) {
    throw new PageFailure(
      'INVALID_INPUT',
      'That snapshot cursor belongs to an older snapshot or another page. Take a new browser_snapshot.',
    );
  }
  const from = Number(start);
  const out: string[] = [];
  let size = 0;
  let index = from;
  for (; index < last.lines.length; index += 1) {
    const line = last.lines[index] as string;
    if (out.length > 0 && size + line.length + 1 > maxChars) break;
    out.push(line);
    size += line.length + 1;
  }
  const snapshot = out.join('\n');
  const rest = last.lines.length - index;
  return rest > 0
    ? {
        snapshot: `${snapshot}\n… ${rest} more lines: call browser_snapshot with this cursor for the next part.`,
        next_cursor: `${state.doc}.${last.id}.${index}`,
        interactive: 0,
      }
    : { snapshot, interactive: 0 };
}
