/**
 * Input events in the order a person's mouse and keyboard produce them. They are dispatched from
 * script (untrusted), so the browser runs no default action for keys; the few defaults a person
 * relies on (Enter submits, Tab moves focus, Space toggles) are performed here on purpose.
 */
import { windowOf } from './dom.js';

export interface Point {
  x: number;
  y: number;
}

type PointerKind = 'pointerover' | 'pointerenter' | 'pointermove' | 'pointerdown' | 'pointerup';
type MouseKind = 'mouseover' | 'mouseenter' | 'mousemove' | 'mousedown' | 'mouseup' | 'click';

function mouseInit(element: Element, point: Point, pressed: boolean): MouseEventInit {
  return {
    bubbles: true,
    cancelable: true,
    composed: true,
    view: windowOf(element),
    clientX: point.x,
    clientY: point.y,
    screenX: point.x,
    screenY: point.y,
    button: 0,
    buttons: pressed ? 1 : 0,
    detail: 1,
  };
}

function pointer(element: Element, type: PointerKind, point: Point, pressed: boolean): boolean {
  const view = windowOf(element);
  const Pointer = view.PointerEvent ?? view.MouseEvent;
  const init: PointerEventInit = {
    ...mouseInit(element, point, pressed),
    pointerId: 1,
    pointerType: 'mouse',
    isPrimary: true,
    width: 1,
    height: 1,
    pressure: pressed ? 0.5 : 0,
  };
  if (type === 'pointerenter') Object.assign(init, { bubbles: false, cancelable: false });
  return element.dispatchEvent(new Pointer(type, init));
}

function mouse(element: Element, type: MouseKind, point: Point, pressed: boolean): boolean {
  const view = windowOf(element);
  const init = mouseInit(element, point, pressed);
  if (type === 'mouseenter') Object.assign(init, { bubbles: false, cancelable: false });
  if (type === 'click') init.buttons = 0;
  return element.dispatchEvent(new view.MouseEvent(type, init));
}

const FOCUSABLE =
  'a[href],area[href],button,input:not([type=hidden]),select,textarea,summary,iframe,[tabindex],[contenteditable]:not([contenteditable="false"])';

/** What a real mousedown focuses: the element or its nearest focusable ancestor. */
export function focusTargetOf(element: Element): HTMLElement | undefined {
  const found = element.closest(FOCUSABLE) as HTMLElement | null;
  if (!found || (found as HTMLButtonElement).disabled) return undefined;
  return found;
}

export function hover(element: Element, point: Point): void {
  pointer(element, 'pointerover', point, false);
  pointer(element, 'pointerenter', point, false);
  mouse(element, 'mouseover', point, false);
  mouse(element, 'mouseenter', point, false);
  pointer(element, 'pointermove', point, false);
  mouse(element, 'mousemove', point, false);
}

/**
 * pointerover → … → pointerdown → mousedown → focus → pointerup → mouseup → click. A cancelled
 * pointerdown suppresses the mouse compatibility events; a cancelled mousedown keeps the focus.
 */
export function click(element: Element, point: Point): void {
  hover(element, point);
  const pointerDown = pointer(element, 'pointerdown', point, true);
  const mouseDown = pointerDown ? mouse(element, 'mousedown', point, true) : true;
  if (mouseDown) {
    const target = focusTargetOf(element);
    const active = element.ownerDocument.activeElement as HTMLElement | null;
    if (target && target !== active) target.focus({ preventScroll: true });
    else if (!target && active && active !== element.ownerDocument.body) active.blur();
  }
  pointer(element, 'pointerup', point, false);
  if (pointerDown) mouse(element, 'mouseup', point, false);
  mouse(element, 'click', point, false);
}

export interface KeySpec {
  key: string;
  code: string;
  keyCode: number;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

const NAMED_KEYS: Record<string, [string, string, number]> = {
  enter: ['Enter', 'Enter', 13],
  return: ['Enter', 'Enter', 13],
  tab: ['Tab', 'Tab', 9],
  escape: ['Escape', 'Escape', 27],
  esc: ['Escape', 'Escape', 27],
  backspace: ['Backspace', 'Backspace', 8],
  delete: ['Delete', 'Delete', 46],
  space: [' ', 'Space', 32],
  arrowup: ['ArrowUp', 'ArrowUp', 38],
  arrowdown: ['ArrowDown', 'ArrowDown', 40],
  arrowleft: ['ArrowLeft', 'ArrowLeft', 37],
  arrowright: ['ArrowRight', 'ArrowRight', 39],
  up: ['ArrowUp', 'ArrowUp', 38],
  down: ['ArrowDown', 'ArrowDown', 40],
  left: ['ArrowLeft', 'ArrowLeft', 37],
  right: ['ArrowRight', 'ArrowRight', 39],
  home: ['Home', 'Home', 36],
  end: ['End', 'End', 35],
  pageup: ['PageUp', 'PageUp', 33],
  pagedown: ['PageDown', 'PageDown', 34],
};

/** "Enter", "Shift+Tab", "Control+a", "a" → the key event fields; undefined when not a key. */
export function parseKey(text: string): KeySpec | undefined {
  const parts = text.split('+').map((part) => part.trim());
  const last = parts.pop();
  if (last === undefined || (last === '' && !text.endsWith('+'))) return undefined;
  const keyText = last === '' ? '+' : last;
  const modifiers = parts.map((part) => part.toLowerCase());
  const spec: KeySpec = {
    key: keyText,
    code: '',
    keyCode: 0,
    ctrlKey: modifiers.some((m) => m === 'control' || m === 'ctrl'),
    shiftKey: modifiers.includes('shift'),
    altKey: modifiers.some((m) => m === 'alt' || m === 'option'),
    metaKey: modifiers.some((m) => m === 'meta' || m === 'cmd' || m === 'command'),
  };
  const named = NAMED_KEYS[keyText.toLowerCase()];
  if (named) {
    [spec.key, spec.code, spec.keyCode] = named;
  } else if ([...keyText].length === 1) {
    const upper = keyText.toUpperCase();
    spec.code = /[a-z]/i.test(keyText) ? `Key${upper}` : /\d/.test(keyText) ? `Digit${keyText}` : '';
    spec.keyCode = upper.charCodeAt(0);
  } else {
    return undefined;
  }
  return spec;
}

export function keyEvent(element: Element, type: 'keydown' | 'keypress' | 'keyup', spec: KeySpec): boolean {
  const view = windowOf(element);
  return element.dispatchEvent(
    new view.KeyboardEvent(type, {
      key: spec.key,
      code: spec.code,
      keyCode: spec.keyCode,
      which: spec.keyCode,
      charCode: type === 'keypress' ? spec.key.charCodeAt(0) : 0,
      ctrlKey: spec.ctrlKey,
      shiftKey: spec.shiftKey,
      altKey: spec.altKey,
      metaKey: spec.metaKey,
      bubbles: true,
      cancelable: true,
      composed: true,
      view,
    } as KeyboardEventInit),
  );
}

export function inputEvent(
  element: Element,
  type: 'beforeinput' | 'input',
  data: string | null,
  inputType: string,
): boolean {
  const view = windowOf(element);
  const Input = view.InputEvent ?? view.Event;
  return element.dispatchEvent(
    new Input(type, { bubbles: true, cancelable: type === 'beforeinput', composed: true, data, inputType }),
  );
}

export function changeEvent(element: Element): void {
  element.dispatchEvent(new (windowOf(element).Event)('change', { bubbles: true }));
}

/** Focusable elements a Tab visits, in order (positive tabindex first, as browsers do). */
export function tabbables(document: Document): HTMLElement[] {
  const all = Array.from(document.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((element) => {
    if ((element as HTMLButtonElement).disabled || element.tabIndex < 0) return false;
    const rect = element.getBoundingClientRect();
    return rect.width > 0 || rect.height > 0;
  });
  const positive = all.filter((element) => element.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex);
  return [...positive, ...all.filter((element) => element.tabIndex === 0)];
}
