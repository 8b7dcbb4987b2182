/**
 * Roles and accessible names, close enough to the ARIA rules for a model to recognise what it
 * sees: explicit roles first, then the implicit role of the element; names from labelling
 * attributes, labels, then content.
 */
import { collapse, isElement, isInput, isText, renderedChildren, tag, truncate } from './dom.js';

const INPUT_ROLES: Record<string, string> = {
  button: 'button',
  submit: 'button',
  reset: 'button',
  image: 'button',
  checkbox: 'checkbox',
  radio: 'radio',
  range: 'slider',
  number: 'spinbutton',
  search: 'searchbox',
  file: 'file',
  hidden: '',
};

/** Roles a person operates; elements with them get refs. */
export const INTERACTIVE_ROLES = new Set([
  'link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio', 'switch', 'combobox', 'listbox', 'option',
  'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'slider', 'spinbutton', 'treeitem', 'file', 'clickable',
]); // prettier-ignore

/** Roles whose name comes from their content when nothing labels them. */
const NAME_FROM_CONTENT = new Set([
  'link', 'button', 'checkbox', 'radio', 'switch', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab',
  'treeitem', 'heading', 'cell', 'columnheader', 'rowheader', 'clickable', 'tooltip',
]); // prettier-ignore

export function explicitRole(element: Element): string | undefined {
  const role = element.getAttribute('role')?.trim().split(/\s+/)[0]?.toLowerCase();
  return role && role !== 'presentation' && role !== 'none' && role !== 'generic' ? role : undefined;
}

export function implicitRole(element: Element): string | undefined {
  switch (tag(element)) {
    case 'a':
    case 'area':
      return element.hasAttribute('href') ? 'link' : undefined;
    case 'button':
      return 'button';
    case 'summary':
      return 'button';
    case 'input': {
      const type = (element as HTMLInputElement).type;
      return type in INPUT_ROLES ? INPUT_ROLES[type] || undefined : 'textbox';
    }
    case 'textarea':
      return 'textbox';
    case 'select': {
      const select = element as HTMLSelectElement;
      return select.multiple || select.size > 1 ? 'listbox' : 'combobox';
    }
    case 'option':
      return 'option';
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
      return 'heading';
    case 'img':
      return element.getAttribute('alt') === '' ? undefined : 'img';
    case 'dialog':
      return 'dialog';
    case 'form':
      return 'form';
    case 'nav':
      return 'navigation';
    case 'table':
      return 'table';
    case 'ul':
    case 'ol':
      return 'list';
    case 'li':
      return 'listitem';
    case 'fieldset':
      return 'group';
    default:
      return (element as HTMLElement).isContentEditable &&
        !(element.parentElement as HTMLElement | null)?.isContentEditable
        ? 'textbox'
        : undefined;
  }
}

export function roleOf(element: Element): string | undefined {
  return explicitRole(element) ?? implicitRole(element);
}

export function headingLevel(element: Element): number {
  const match = /^h([1-6])$/.exec(tag(element));
  if (match) return Number(match[1]);
  const level = Number(element.getAttribute('aria-level'));
  return Number.isInteger(level) && level > 0 ? Math.min(level, 6) : 2;
}

/** Text a person sees inside an element, with image alternatives, skipping hidden subtrees. */
export function visibleText(node: Node, max = 200): string {
  const parts: string[] = [];
  let length = 0;
  const visit = (current: Node) => {
    if (length > max) return;
    if (isText(current)) {
      parts.push(current.data);
      length += current.data.length;
      return;
    }
    if (!isElement(current)) return;
    const name = tag(current);
    if (['script', 'style', 'template', 'noscript', 'select', 'textarea', 'option'].includes(name)) return;
    if ((current as HTMLElement).hidden || current.getAttribute('aria-hidden') === 'true') return;
    if (name === 'img') {
      const alt = current.getAttribute('alt');
      if (alt) parts.push(` ${alt} `);
      return;
    }
    if (name === 'input' && ['submit', 'button', 'reset'].includes((current as HTMLInputElement).type)) {
      parts.push(` ${(current as HTMLInputElement).value} `);
      return;
    }
    for (const child of renderedChildren(current)) visit(child);
    if (name === 'br' || name === 'p' || name === 'div' || name === 'li') parts.push(' ');
  };
  visit(node);
  return truncate(collapse(parts.join('')), max);
}

function byIds(element: Element, ids: string): string {
  const root = element.getRootNode() as Document | ShadowRoot;
  return ids
    .split(/\s+/)
    .map((id) => (id ? root.getElementById?.(id) : null))
    .filter((found): found is HTMLElement => found !== null)
    .map((found) => visibleText(found))
    .join(' ');
}

/** The accessible name: aria-labelledby, aria-label, labels, alt/title/placeholder, then content. */
export function accessibleName(element: Element, role = roleOf(element)): string {
  const labelledBy = element.getAttribute('aria-labelledby');
  if (labelledBy) {
    const text = collapse(byIds(element, labelledBy));
    if (text) return truncate(text, 100);
  }
  const label = element.getAttribute('aria-label');
  if (label?.trim()) return truncate(collapse(label), 100);
  const name = tag(element);
  if (name === 'input' || name === 'textarea' || name === 'select') {
    const control = element as HTMLInputElement;
    if (isInput(element) && ['submit', 'button', 'reset'].includes(control.type)) {
      return truncate(collapse(control.value || (control.type === 'reset' ? 'Reset' : 'Submit')), 100);
    }
    if (isInput(element) && control.type === 'image') return collapse(element.getAttribute('alt') ?? 'Submit');
    const labels = Array.from(control.labels ?? [])
      .map((found) => visibleText(found, 100))
      .join(' ');
    if (labels.trim()) return truncate(collapse(labels), 100);
    const fallback = element.getAttribute('title') ?? element.getAttribute('placeholder') ?? '';
    return truncate(collapse(fallback), 100);
  }
  if (name === 'img')
    return truncate(collapse(element.getAttribute('alt') ?? element.getAttribute('title') ?? ''), 100);
  if (name === 'fieldset') {
    const legend = element.querySelector(':scope > legend');
    if (legend) return visibleText(legend, 100);
  }
  if (name === 'table') {
    const caption = (element as HTMLTableElement).caption;
    if (caption) return visibleText(caption, 100);
  }
  if (name === 'dialog' || role === 'dialog' || role === 'alertdialog') {
    const heading = element.querySelector('h1,h2,h3,h4,h5,h6,[role="heading"]');
    if (heading) return visibleText(heading, 100);
  }
  if (role && NAME_FROM_CONTENT.has(role)) {
    const text = visibleText(element, 100);
    if (text) return text;
  }
  return truncate(collapse(element.getAttribute('title') ?? ''), 100);
}
