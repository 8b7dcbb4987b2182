/**
 * One interactive element as a snapshot line names it: `[e5] button "Save" disabled`. The same
 * words appear in errors and action results, so the model recognises the element everywhere.
 */
import { collapse, isInput, isSelect, isTextArea, tag, truncate } from './dom.js';
import { accessibleName, INTERACTIVE_ROLES, roleOf } from './roles.js';
import type { PageState } from './state.js';

const VALUE_CHARS = 60;
const OPTIONS_SHOWN = 8;

export interface Described {
  ref: string;
  role: string;
  name: string;
  text: string;
}

/** Elements a person can operate that carry no interactive role: click handlers, tabindex, pointer. */
export function isClickable(element: Element, style: CSSStyleDeclaration, parentCursor: string | undefined): boolean {
  const name = tag(element);
  if (name === 'body' || name === 'html' || name === 'label') return false;
  if (element.hasAttribute('onclick')) return true;
  const tabIndex = element.getAttribute('tabindex');
  if (tabIndex !== null && Number(tabIndex) >= 0) return true;
  return style.cursor === 'pointer' && parentCursor !== 'pointer';
}

export function interactiveRole(
  element: Element,
  style: CSSStyleDeclaration,
  parentCursor: string | undefined,
): string | undefined {
  const role = roleOf(element);
  if (role && INTERACTIVE_ROLES.has(role)) return role;
  if (isInput(element) && element.type === 'hidden') return undefined;
  return isClickable(element, style, parentCursor) ? 'clickable' : undefined;
}

function quoted(text: string): string {
  return `"${text.replace(/"/g, "'")}"`;
}

function valueOf(element: Element): string | undefined {
  if (isInput(element)) {
    if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file'].includes(element.type)) {
      if (element.type === 'file' && element.files && element.files.length > 0) {
        return Array.from(element.files)
          .map((file) => file.name)
          .join(', ');
      }
      return undefined;
    }
    if (element.value === '') return undefined;
    return element.type === 'password' ? '•'.repeat(Math.min(element.value.length, 8)) : element.value;
  }
  if (isTextArea(element)) return element.value === '' ? undefined : element.value;
  if (isSelect(element)) {
    const chosen = Array.from(element.selectedOptions).map((option) => collapse(option.label || option.text));
    return chosen.length > 0 ? chosen.join(', ') : undefined;
  }
  if ((element as HTMLElement).isContentEditable) {
    const text = collapse((element as HTMLElement).innerText ?? element.textContent ?? '');
    return text === '' ? undefined : text;
  }
  const now = element.getAttribute('aria-valuenow') ?? element.getAttribute('aria-valuetext');
  return now ?? undefined;
}

function states(element: Element, role: string): string[] {
  const out: string[] = [];
  const html = element as HTMLInputElement;
  if (
    isInput(element) &&
    ['email', 'password', 'number', 'date', 'tel', 'url', 'time', 'datetime-local', 'month', 'color'].includes(
      element.type,
    )
  ) {
    out.push(element.type);
  }
  if (isTextArea(element)) out.push('multiline');
  if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox') {
    const aria = element.getAttribute('aria-checked');
    const checked = isInput(element) ? html.checked : aria === 'true';
    if (isInput(element) && html.indeterminate) out.push('mixed');
    else if (aria === 'mixed') out.push('mixed');
    else if (checked) out.push('checked');
  }
  const expanded = element.getAttribute('aria-expanded');
  if (expanded === 'true') out.push('expanded');
  else if (expanded === 'false') out.push('collapsed');
  if (element.getAttribute('aria-pressed') === 'true') out.push('pressed');
  if (element.getAttribute('aria-selected') === 'true' || element.getAttribute('aria-current')) out.push('selected');
  if ((html.disabled as boolean | undefined) === true || element.getAttribute('aria-disabled') === 'true') {
    out.push('disabled');
  }
  if (html.required === true || element.getAttribute('aria-required') === 'true') out.push('required');
  if (html.readOnly === true || element.getAttribute('aria-readonly') === 'true') out.push('readonly');
  if (element.getAttribute('aria-invalid') === 'true' || userInvalid(element)) {
    const message = (html as { validationMessage?: string }).validationMessage;
    out.push(message ? `invalid: ${quoted(truncate(message, 80))}` : 'invalid');
  }
  if (element.ownerDocument.activeElement === element) out.push('focused');
  return out;
}

function userInvalid(element: Element): boolean {
  try {
    return element.matches(':user-invalid');
  } catch {
    // Engines without :user-invalid report only aria-invalid.
    return false;
  }
}

function optionsOf(element: Element): string | undefined {
  if (!isSelect(element)) return undefined;
  const labels = Array.from(element.options).map((option) => collapse(option.label || option.text));
  const shown = labels.slice(0, OPTIONS_SHOWN).join('|');
  return labels.length > OPTIONS_SHOWN ? `{${shown}|+${labels.length - OPTIONS_SHOWN}}` : `{${shown}}`;
}

function hrefOf(element: Element): string | undefined {
  if (tag(element) !== 'a' && tag(element) !== 'area') return undefined;
  const raw = element.getAttribute('href');
  if (!raw || raw === '#' || raw.startsWith('javascript:')) return undefined;
  const anchor = element as HTMLAnchorElement;
  let shown = anchor.href;
  try {
    const url = new URL(anchor.href);
    if (url.origin === element.ownerDocument.location.origin) shown = `${url.pathname}${url.search}${url.hash}`;
  } catch {
    // An unparseable href stays as written.
    shown = raw;
  }
  return truncate(shown, 60);
}

/** `[e5] button "Save" disabled` — registering the element's ref on the way. */
export function describe(element: Element, role: string, state: PageState, extra?: string): Described {
  const ref = state.refFor(element);
  const name = accessibleName(element, role === 'clickable' ? 'clickable' : role);
  const parts = [`[${ref}]`, role];
  if (name) parts.push(quoted(name));
  const value = valueOf(element);
  if (value !== undefined && value !== name) parts.push(`=${quoted(truncate(collapse(value), VALUE_CHARS))}`);
  const options = optionsOf(element);
  if (options) parts.push(options);
  const href = hrefOf(element);
  if (href && href !== name) parts.push(`→${href}`);
  parts.push(...states(element, role));
  if (extra) parts.push(extra);
  return { ref, role, name, text: parts.join(' ') };
}

/** A short description for messages about an element that may have no ref yet. */
export function briefly(element: Element, state: PageState): string {
  const role = roleOf(element) ?? tag(element);
  return describe(element, role, state).text;
}
