/**
 * The actions of browser_interact, done the way a person's input does them so that page scripts
 * and frameworks see ordinary events: values go through the element's native setter (React's value
 * tracker then notices the change), followed by input and change events.
 */
import type { ActValue, InspectValue, InteractAction, PageRequest, UploadFile } from '@nextai/shared/browser';

import { classifyTarget } from './classify.js';
import { describe, interactiveRole } from './describe.js';
import { isTextField, keyEffect } from './activation.js';
import {
  changeEvent,
  click,
  focusTargetOf,
  hover,
  inputEvent,
  keyEvent,
  parseKey,
  tabbables,
  type KeySpec,
  type Point,
} from './events.js';
import {
  collapse,
  composedContains,
  composedParent,
  isInput,
  isSelect,
  isTextArea,
  nativeSetter,
  tag,
  windowOf,
} from './dom.js';
import { outline } from './highlight.js';
import { resolveTarget } from './resolve.js';
import { roleOf } from './roles.js';
import { PageFailure, type PageState } from './state.js';
import { styleOf } from './visibility.js';

type ActRequest = Extract<PageRequest, { op: 'act' }>;
type InspectRequest = Extract<PageRequest, { op: 'inspect' }>;

const NEEDS_TARGET: readonly InteractAction[] = ['click', 'fill', 'select', 'hover', 'check', 'uncheck', 'upload'];

function label(element: Element, state: PageState): string {
  const role = interactiveRole(element, styleOf(element), undefined) ?? roleOf(element) ?? tag(element);
  return describe(element, role, state).text;
}

function targetOf(state: PageState, document: Document, request: ActRequest | InspectRequest): Element | undefined {
  if (request.ref && request.expect_doc && request.expect_doc !== state.doc) {
    throw new PageFailure(
      'STALE_REF',
      `Ref ${request.ref} came from an earlier page: this tab has navigated or reloaded since your snapshot. Take a new browser_snapshot.`,
    );
  }
  if (!request.ref && !request.selector) {
    if (NEEDS_TARGET.includes(request.action)) {
      throw new PageFailure(
        'INVALID_INPUT',
        `${request.action} needs a target: pass \`ref\` (from browser_snapshot) or \`selector\`.`,
      );
    }
    return undefined;
  }
  return resolveTarget(state, document, request);
}

export function inspect(state: PageState, document: Document, request: InspectRequest): InspectValue {
  const target = targetOf(state, document, request);
  // Nothing moves here: for a key, this is where act() will send it (act checks that it does).
  const element =
    request.action === 'press' ? keyReceiver(document, target, false, state) : (target ?? focused(document));
  const sensitive = classifyTarget(element, request.action, request.value);
  return { target: label(element, state), ...(sensitive ? { sensitive } : {}) };
}

export async function act(state: PageState, document: Document, request: ActRequest): Promise<ActValue> {
  const target = targetOf(state, document, request);
  if (request.action === 'press' && !parseKey(request.value ?? '')) {
    throw new PageFailure(
      'INVALID_INPUT',
      `"${request.value ?? ''}" is not a key. Examples: Enter, Tab, Escape, ArrowDown, Control+a, a.`,
    );
  }
  // A key goes to whatever has the focus: focus the target first, then judge the element that
  // actually gets the key (a page can keep the focus in its password field).
  const element =
    request.action === 'press' ? keyReceiver(document, target, true, state) : (target ?? focused(document));
  const sensitive = classifyTarget(element, request.action, request.value);
  if (sensitive && !request.allow_sensitive.includes(sensitive.kind)) {
    // The daemon's policy decided before this call reached the page; a target that turned out
    // sensitive only now (the page changed in between) is refused, never acted on unasked.
    throw new PageFailure(
      'TARGET_CHANGED',
      `This ${request.action} ${sensitive.reason}, which needs the person's approval, and it was not approved for this call (the page may have changed since it was checked). Call browser_interact again: the person will be asked.`,
    );
  }
  const described = label(element, state);
  // The person sees where the agent acts (never on the whole document: a key with no target).
  if (target) outline(element);
  const done = (message: string): ActValue => ({ message, target: described, ...(sensitive ? { sensitive } : {}) });
  switch (request.action) {
    case 'click':
      clickElement(element, state);
      return done(`Clicked ${described}.`);
    case 'hover':
      hover(element, actionPoint(element, state));
      return done(`Moved the pointer over ${described} (CSS :hover styles do not apply to simulated pointers).`);
    case 'fill':
      return done(fill(element, request.value ?? '', state));
    case 'select':
      return done(selectOption(element, request.value ?? '', state));
    case 'check':
    case 'uncheck':
      return done(setChecked(element, request.action === 'check', state));
    case 'press':
      return done(press(element, parseKey(request.value ?? '')!, request.value ?? '', state));
    case 'scroll':
      return done(scroll(document, target, request.value));
    case 'upload':
      return done(upload(element, request.file, state));
  }
}

/** The focused element, inside open shadow roots too (a document only names their host). */
function focused(document: Document): Element {
  let active = document.activeElement ?? document.body ?? document.documentElement;
  while (active.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/**
 * The element a key pressed "on" `target` goes to: the target, or its nearest focusable ancestor,
 * once focused as a person's click would focus it; the focused element when the call names none
 * (or the page itself), and when the target can take no focus (as a person's key would).
 * With `move` false nothing is focused: it says where the key would go. When the focus does not
 * land where it should — the target is not displayed, or the page moved the focus elsewhere — the
 * key is refused rather than sent to an element nobody looked at.
 */
function keyReceiver(document: Document, target: Element | undefined, move: boolean, state: PageState): Element {
  if (!target || target === target.ownerDocument.body || target === target.ownerDocument.documentElement) {
    return focused(target?.ownerDocument ?? document);
  }
  const focusable = focusTargetOf(target);
  if (!focusable) return focused(target.ownerDocument);
  if (!move) return focusable;
  if (focused(target.ownerDocument) !== focusable) focusable.focus({ preventScroll: true });
  const receiver = focused(target.ownerDocument);
  if (receiver !== focusable) {
    throw new PageFailure(
      'NOT_ACTIONABLE',
      `${label(focusable, state)} did not take the keyboard focus (${label(receiver, state)} has it), so the key would go there instead. Take a browser_snapshot; click the element first, or press the key in the element that has the focus.`,
    );
  }
  return receiver;
}

/** Where a person would point: the centre, once scrolled into view; refuses hidden or covered targets. */
function actionPoint(element: Element, state: PageState): Point {
  let rect = element.getBoundingClientRect();
  const view = windowOf(element);
  if (rect.width === 0 && rect.height === 0) {
    throw new PageFailure(
      'NOT_ACTIONABLE',
      `${label(element, state)} has no size on the page (it is not displayed), so a person could not click it.`,
    );
  }
  if (rect.bottom < 0 || rect.top > view.innerHeight || rect.right < 0 || rect.left > view.innerWidth) {
    element.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
    rect = element.getBoundingClientRect();
  }
  const point = { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
  const style = styleOf(element);
  if (style.visibility !== 'visible') {
    throw new PageFailure('NOT_ACTIONABLE', `${label(element, state)} is invisible (visibility: ${style.visibility}).`);
  }
  if (point.x >= 0 && point.y >= 0 && point.x <= view.innerWidth && point.y <= view.innerHeight) {
    const hit = deepElementFromPoint(element.ownerDocument, point);
    if (hit && !composedContains(element, hit) && !composedContains(hit, element)) {
      const cover = hit.closest('dialog,[role="dialog"],[role="alertdialog"]') ?? hit;
      throw new PageFailure(
        'NOT_ACTIONABLE',
        `${label(element, state)} is covered by ${label(cover, state)}, so a person could not click it. Close or move what covers it first.`,
      );
    }
  }
  return point;
}

function deepElementFromPoint(document: Document, point: Point): Element | undefined {
  let hit = document.elementFromPoint(point.x, point.y) ?? undefined;
  while (hit?.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(point.x, point.y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}

function isDisabled(element: Element): boolean {
  for (let node: Element | undefined = element; node; node = composedParent(node)) {
    if ((node as HTMLButtonElement).disabled === true && tag(node) !== 'fieldset') return true;
    if (node.getAttribute('aria-disabled') === 'true') return true;
    if (tag(node) === 'fieldset' && (node as HTMLFieldSetElement).disabled) return true;
    if (node === element.ownerDocument.body) break;
  }
  return false;
}

function clickElement(element: Element, state: PageState): void {
  if (isDisabled(element)) throw new PageFailure('NOT_ACTIONABLE', `${label(element, state)} is disabled.`);
  // A native checkbox drawn by its label is clicked where a person clicks: on the label.
  const target = visuallyHiddenControl(element) ?? element;
  click(target, actionPoint(target, state));
}

function visuallyHiddenControl(element: Element): Element | undefined {
  if (!isInput(element) || !['checkbox', 'radio', 'file'].includes(element.type)) return undefined;
  const rect = element.getBoundingClientRect();
  const style = styleOf(element);
  const hidden = rect.width < 2 || rect.height < 2 || Number(style.opacity) === 0;
  if (!hidden) return undefined;
  return Array.from(element.labels ?? []).find((found) => {
    const box = found.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  });
}

function fill(element: Element, value: string, state: PageState): string {
  if (isSelect(element)) return selectOption(element, value, state);
  if (isInput(element) && (element.type === 'checkbox' || element.type === 'radio')) {
    return setChecked(element, !/^(false|off|no|0|unchecked)$/i.test(value), state);
  }
  if (isDisabled(element)) throw new PageFailure('NOT_ACTIONABLE', `${label(element, state)} is disabled.`);
  const editable = (element as HTMLElement).isContentEditable;
  // Not a submit or image button either: filling one would click it (to focus it) and submit its form.
  if (!isTextField(element) && !editable) {
    throw new PageFailure('NOT_ACTIONABLE', `${label(element, state)} is not a field that takes text.`);
  }
  const field = element as HTMLInputElement;
  if (field.readOnly) throw new PageFailure('NOT_ACTIONABLE', `${label(element, state)} is read-only.`);
  if (element.ownerDocument.activeElement !== element) click(element, actionPoint(element, state));
  if (editable) {
    fillEditable(element as HTMLElement, value);
    return `Filled ${label(element, state)}.`;
  }
  let text = value;
  const max = field.maxLength;
  let note = '';
  if (max >= 0 && text.length > max) {
    text = text.slice(0, max);
    note = ` The field takes at most ${max} characters, so only the first ${max} went in.`;
  }
  if (!inputEvent(element, 'beforeinput', text, 'insertReplacementText')) {
    return `The page refused the text in ${label(element, state)} (it cancelled the input).`;
  }
  const setter = nativeSetter(element, 'value');
  if (setter) setter(text);
  else field.value = text;
  if (field.value !== text && isInput(element)) {
    throw new PageFailure(
      'INVALID_INPUT',
      `${label(element, state)} (type ${field.type}) did not accept ${JSON.stringify(text)}${field.type === 'date' ? ' — dates go as yyyy-mm-dd' : ''}.`,
    );
  }
  inputEvent(element, 'input', text, 'insertReplacementText');
  changeEvent(element);
  return `Filled ${label(element, state)}.${note}`;
}

function fillEditable(element: HTMLElement, value: string): void {
  const document = element.ownerDocument;
  element.focus();
  const selection = windowOf(element).getSelection();
  const range = document.createRange();
  range.selectNodeContents(element);
  selection?.removeAllRanges();
  selection?.addRange(range);
  // The editing command fires beforeinput/input like typing does, and editors built on them
  // (ProseMirror, Lexical…) follow; where it is unavailable, the text is set and announced.
  const inserted = value === '' ? document.execCommand('delete') : document.execCommand('insertText', false, value);
  if (!inserted) {
    element.textContent = value;
    inputEvent(element, 'input', value, 'insertText');
  }
}

function selectOption(element: Element, value: string, state: PageState): string {
  if (!isSelect(element)) {
    throw new PageFailure(
      'NOT_ACTIONABLE',
      `${label(element, state)} is not a <select>. For a custom dropdown, click it, then click the option.`,
    );
  }
  if (isDisabled(element)) throw new PageFailure('NOT_ACTIONABLE', `${label(element, state)} is disabled.`);
  const wanted = collapse(value).toLowerCase();
  const options = Array.from(element.options);
  const option =
    options.find((candidate) => candidate.value === value) ??
    options.find((candidate) => collapse(candidate.label || candidate.text).toLowerCase() === wanted) ??
    options.find((candidate) =>
      collapse(candidate.label || candidate.text)
        .toLowerCase()
        .includes(wanted),
    );
  if (!option) {
    const names = options.map((candidate) => JSON.stringify(collapse(candidate.label || candidate.text))).join(', ');
    throw new PageFailure(
      'NOT_FOUND',
      `${label(element, state)} has no option ${JSON.stringify(value)}. Its options: ${names}.`,
    );
  }
  if (option.disabled)
    throw new PageFailure('NOT_ACTIONABLE', `The option ${JSON.stringify(option.text)} is disabled.`);
  if (element.ownerDocument.activeElement !== element) (element as HTMLElement).focus();
  const setter = nativeSetter(element, 'value');
  if (setter) setter(option.value);
  else element.value = option.value;
  inputEvent(element, 'input', null, 'insertReplacementText');
  changeEvent(element);
  return `Selected ${JSON.stringify(collapse(option.text))} in ${label(element, state)}.`;
}

function isChecked(element: Element): boolean {
  if (isInput(element)) return element.checked;
  return element.getAttribute('aria-checked') === 'true' || element.getAttribute('aria-pressed') === 'true';
}

function setChecked(element: Element, wanted: boolean, state: PageState): string {
  const role = roleOf(element);
  const checkable =
    (isInput(element) && (element.type === 'checkbox' || element.type === 'radio')) ||
    ['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(role ?? '');
  if (!checkable)
    throw new PageFailure('NOT_ACTIONABLE', `${label(element, state)} is not a checkbox, radio or switch.`);
  if (isChecked(element) === wanted) return `${label(element, state)} was already ${wanted ? 'checked' : 'unchecked'}.`;
  if (!wanted && isInput(element) && element.type === 'radio') {
    throw new PageFailure(
      'NOT_ACTIONABLE',
      'A radio button cannot be unchecked; check another option of the group instead.',
    );
  }
  clickElement(element, state);
  if (isChecked(element) !== wanted) {
    throw new PageFailure('NOT_ACTIONABLE', `Clicked ${label(element, state)}, but the page did not change its state.`);
  }
  return `${wanted ? 'Checked' : 'Unchecked'} ${label(element, state)}.`;
}

/** The key's events and default action in `element`, the element that has the focus (keyReceiver). */
function press(element: Element, spec: KeySpec, keys: string, state: PageState): string {
  const described = label(element, state);
  const notCancelled = keyEvent(element, 'keydown', spec);
  const printable = [...spec.key].length === 1 && !spec.ctrlKey && !spec.metaKey && !spec.altKey;
  if (notCancelled && (printable || spec.key === 'Enter')) keyEvent(element, 'keypress', spec);
  let effect = '';
  if (notCancelled) effect = keyDefault(element, spec, printable, state);
  keyEvent(element, 'keyup', spec);
  return `Pressed ${keys} in ${described}.${effect ? ` ${effect}` : ''}`;
}

/** The default actions of the keys people use to move through pages. */
function keyDefault(element: Element, spec: KeySpec, printable: boolean, state: PageState): string {
  const document = element.ownerDocument;
  const field = element as HTMLInputElement;
  const textField = isTextField(element);
  // Enter and Space do what keyEffect says — the same function the sensitive-action check reads.
  const effect = keyEffect(element, spec);
  if (effect.kind === 'submit') {
    if (effect.submitter) {
      clickElement(effect.submitter, state);
      return `That submitted the form (through ${label(effect.submitter, state)}).`;
    }
    effect.form.requestSubmit();
    return 'That submitted the form.';
  }
  if (effect.kind === 'click') {
    clickElement(effect.element, state);
    return 'That activated it.';
  }
  if (spec.key === 'Enter') {
    return isTextArea(element) ? typeText(element, '\n') : '';
  }
  if (spec.key === ' ' && !textField) {
    const view = windowOf(element);
    view.scrollBy(0, view.innerHeight * 0.8);
    return '';
  }
  if (spec.key === 'Tab') {
    const order = tabbables(document);
    const index = order.indexOf(element as HTMLElement);
    const next = order[(index + (spec.shiftKey ? -1 : 1) + order.length) % order.length];
    next?.focus();
    return next ? `Focus moved to ${label(next, state)}.` : '';
  }
  if (spec.key === 'Escape') {
    const dialog = element.closest('dialog[open]') as HTMLDialogElement | null;
    if (dialog?.matches(':modal')) {
      if (dialog.dispatchEvent(new (windowOf(dialog).Event)('cancel', { cancelable: true }))) dialog.close();
      return 'That closed the dialog.';
    }
    return '';
  }
  if (textField && spec.key === 'Backspace') {
    return typeText(element, null);
  }
  if (textField && spec.ctrlKey && spec.key.toLowerCase() === 'a') {
    field.select();
    return '';
  }
  if (textField && printable) return typeText(element, spec.key);
  if (!textField && ['PageDown', 'PageUp', 'End', 'Home', 'ArrowDown', 'ArrowUp'].includes(spec.key)) {
    const view = windowOf(element);
    const page = view.innerHeight * 0.8;
    const by: Record<string, number> = { PageDown: page, PageUp: -page, ArrowDown: 40, ArrowUp: -40 };
    if (spec.key === 'End') view.scrollTo(0, document.documentElement.scrollHeight);
    else if (spec.key === 'Home') view.scrollTo(0, 0);
    else view.scrollBy(0, by[spec.key] ?? 0);
  }
  return '';
}

/** One typed character (or Backspace) at the end of a field, with its input events. */
function typeText(element: Element, text: string | null): string {
  const field = element as HTMLInputElement;
  const next = text === null ? field.value.slice(0, -1) : field.value + text;
  const inputType = text === null ? 'deleteContentBackward' : text === '\n' ? 'insertLineBreak' : 'insertText';
  if (!inputEvent(element, 'beforeinput', text, inputType)) return '';
  const setter = nativeSetter(element, 'value');
  if (setter) setter(next);
  else field.value = next;
  inputEvent(element, 'input', text, inputType);
  return '';
}

function scroll(document: Document, target: Element | undefined, value: string | undefined): string {
  const view = document.defaultView!;
  const how = (value ?? 'down').trim().toLowerCase();
  if (target && !value) {
    target.scrollIntoView({ block: 'center', behavior: 'instant' as ScrollBehavior });
    return 'Scrolled it into view.';
  }
  const scroller = target ? scrollableAncestor(target) : undefined;
  const page = (scroller?.clientHeight ?? view.innerHeight) * 0.8;
  const match = /^(up|down|left|right)?\s*(-?\d+)?$/.exec(how);
  const scrollBy = (x: number, y: number) => (scroller ? scroller.scrollBy(x, y) : view.scrollBy(x, y));
  if (how === 'top') {
    if (scroller) scroller.scrollTop = 0;
    else view.scrollTo(0, 0);
  } else if (how === 'bottom') {
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
    else view.scrollTo(0, document.documentElement.scrollHeight);
  } else if (match) {
    const direction = match[1] ?? 'down';
    const amount = match[2] !== undefined ? Number(match[2]) : page;
    if (direction === 'down') scrollBy(0, amount);
    else if (direction === 'up') scrollBy(0, -amount);
    else if (direction === 'right') scrollBy(amount, 0);
    else scrollBy(-amount, 0);
  } else {
    throw new PageFailure(
      'INVALID_INPUT',
      `Scroll value "${value}" is not one of: up, down, left, right (optionally with pixels), top, bottom.`,
    );
  }
  const element = scroller ?? document.scrollingElement ?? document.documentElement;
  const atBottom = element.scrollTop + element.clientHeight >= element.scrollHeight - 2;
  return `Scrolled ${how}; now at ${Math.round(element.scrollTop)} of ${Math.round(element.scrollHeight)} px${atBottom ? ' (the bottom)' : ''}.`;
}

function scrollableAncestor(element: Element): Element | undefined {
  for (let node: Element | undefined = element; node; node = composedParent(node)) {
    const style = styleOf(node);
    if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight) return node;
  }
  return undefined;
}

function upload(element: Element, file: UploadFile | undefined, state: PageState): string {
  const input = fileInputFor(element);
  if (!input)
    throw new PageFailure(
      'NOT_ACTIONABLE',
      `${label(element, state)} is not a file input, and has none inside or labelled by it.`,
    );
  if (!file) throw new PageFailure('INVALID_INPUT', 'upload needs `value`: the path of the file to upload.');
  const view = windowOf(input);
  const bytes = Uint8Array.from(view.atob(file.data_base64), (char) => char.charCodeAt(0));
  const transfer = new view.DataTransfer();
  transfer.items.add(new view.File([bytes], file.name, { type: file.mime_type }));
  input.files = transfer.files;
  inputEvent(input, 'input', null, 'insertReplacementText');
  changeEvent(input);
  return `Attached ${file.name} (${bytes.length} bytes) to ${label(input, state)}.`;
}

function fileInputFor(element: Element): HTMLInputElement | undefined {
  if (isInput(element) && element.type === 'file') return element;
  if (tag(element) === 'label') {
    const control = (element as HTMLLabelElement).control;
    if (control && isInput(control) && control.type === 'file') return control;
  }
  const inside = element.querySelector('input[type=file]');
  return inside ? (inside as HTMLInputElement) : undefined;
}
