/**
 * What an action sets off, in one place for the code that does it (interact.ts) and the code that
 * says whether a person must approve it (classify.ts): when the two disagree, a page can dress a
 * sign-in or a payment up as something harmless.
 */
import type { KeySpec } from './events.js';
import { composedParent, isInput, isSelect, isTextArea, tag } from './dom.js';
import { roleOf } from './roles.js';

/** Roles whose click a page script usually handles as "do it" (a custom button, link, menu item). */
const BUTTON_LIKE = new Set(['button', 'link', 'menuitem']);

export function isButtonLike(element: Element): boolean {
  return BUTTON_LIKE.has(roleOf(element) ?? '');
}

/** A field a key types into (not a button, box or file input drawn as an input). */
export function isTextField(element: Element): boolean {
  if (isTextArea(element)) return true;
  return (
    isInput(element) &&
    !['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'hidden'].includes(element.type)
  );
}

/** The button that submits `form` when Enter is pressed in one of its fields: its first submit button. */
export function defaultSubmitter(form: HTMLFormElement): Element | undefined {
  return Array.from(form.elements).find(
    (candidate) =>
      (tag(candidate) === 'button' && (candidate as HTMLButtonElement).type === 'submit') ||
      (isInput(candidate) && ['submit', 'image'].includes(candidate.type)),
  );
}

/** What a key does besides its events (the defaults interact.ts performs for Enter and Space). */
export type KeyEffect =
  | { kind: 'submit'; form: HTMLFormElement; submitter: Element | undefined }
  | { kind: 'click'; element: Element }
  | { kind: 'none' };

export function keyEffect(element: Element, spec: KeySpec): KeyEffect {
  if (spec.key === 'Enter') {
    if (isTextArea(element)) return { kind: 'none' };
    const form = (element as HTMLInputElement).form;
    if (isInput(element) && form && isTextField(element)) {
      return { kind: 'submit', form, submitter: defaultSubmitter(form) };
    }
    if (tag(element) === 'a' || tag(element) === 'button' || ['button', 'link'].includes(roleOf(element) ?? '')) {
      return { kind: 'click', element };
    }
    return { kind: 'none' };
  }
  if (spec.key === ' ' && !isTextField(element)) {
    if (['button', 'checkbox', 'radio', 'switch'].includes(roleOf(element) ?? '')) return { kind: 'click', element };
  }
  return { kind: 'none' };
}

/**
 * The elements a click on `element` sets off, innermost first: every button-like element the
 * click bubbles through (their scripts see it) and the native control whose activation behaviour
 * runs — the nearest button, input or link, or a label's control (a click on a `<span>` inside a
 * submit button, or on `<label for=submit>`, submits the form).
 */
export function activatedBy(element: Element): Element[] {
  const found: Element[] = [];
  const document = element.ownerDocument;
  // The click bubbles through shadow hosts, but not out of a frame's document.
  for (let node: Element | undefined = element; node && node.ownerDocument === document; node = composedParent(node)) {
    const name = tag(node);
    if (name === 'button' || (isInput(node) && node.type !== 'hidden')) return [...found, node];
    if ((name === 'a' || name === 'area') && node.hasAttribute('href')) return [...found, node];
    if (isSelect(node) || isTextArea(node)) return [...found, node];
    if (name === 'label') {
      // A label clicks its control (unless the click was on interactive content inside it,
      // which the loop has already stopped at).
      const control = (node as HTMLLabelElement).control;
      return control ? [...found, node, ...activatedBy(control)] : [...found, node];
    }
    if (isButtonLike(node)) found.push(node);
    if (node === document.body) break;
  }
  return found.length > 0 ? found : [element];
}
