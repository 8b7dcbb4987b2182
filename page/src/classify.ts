/**
 * Which page actions a person must always approve when the agent does them: submitting
 * credential or payment forms, sending messages, downloading files, typing passwords or card
 * numbers, uploading local files. The policy in the daemon makes the decision; this only says
 * what the target is, from what the page itself shows.
 *
 * It judges what the action will do, not the words of the request: the key as the action parses
 * it ("Return" is Enter), the element that receives the key, and the control a click activates
 * (activation.ts, shared with the code that acts).
 */
import type { InteractAction, SensitiveTarget } from '@nextai/shared/browser';

import { activatedBy, isButtonLike, keyEffect } from './activation.js';
import { collapse, isInput, tag } from './dom.js';
import { parseKey } from './events.js';
import { accessibleName, roleOf } from './roles.js';

const PAYMENT_WORDS =
  /\b(pay|payment|buy|purchase|checkout|check out|place (?:your )?order|order now|confirm order|donate|transfer|send money|subscribe)\b|支付|付款|购买|下单|转账|结算|充值/i;
const SEND_WORDS = /\b(send|post|reply|publish|tweet|comment|share|email|message)\b|发送|发布|回复|评论|分享/i;
const CARD_FIELD = /(card|cc-?(num|number|csc|exp)|cvc|cvv|security.?code|iban|account.?number|routing)/i;
const CARD_AUTOCOMPLETE = /^cc-|transaction-amount/;
const CREDENTIAL_AUTOCOMPLETE = /(current-password|new-password|one-time-code)/;
const RISKY_DOWNLOAD =
  /\.(exe|msi|bat|cmd|ps1|sh|bash|zsh|command|app|dmg|pkg|deb|rpm|appimage|jar|apk|scr|vbs|js|py|pl|rb|zip|tar|gz|tgz|7z|rar|iso|bin|run)(?:$|[?#])/i;

function fieldsOf(form: HTMLFormElement | null): Element[] {
  return form ? Array.from(form.elements) : [];
}

function isPasswordField(element: Element): boolean {
  if (!isInput(element)) return false;
  return element.type === 'password' || CREDENTIAL_AUTOCOMPLETE.test(element.autocomplete ?? '');
}

function isCardField(element: Element): boolean {
  if (!isInput(element) && tag(element) !== 'select') return false;
  const input = element as HTMLInputElement;
  if (CARD_AUTOCOMPLETE.test(input.autocomplete ?? '')) return true;
  const words = `${input.name} ${input.id} ${input.getAttribute('placeholder') ?? ''} ${accessibleName(element)}`;
  return CARD_FIELD.test(words);
}

function isMessageForm(form: HTMLFormElement | null): boolean {
  const fields = fieldsOf(form);
  const hasBody = fields.some((field) => tag(field) === 'textarea' || (field as HTMLElement).isContentEditable);
  const hasRecipient = fields.some((field) =>
    /\b(to|recipient|recipients|cc|bcc)\b|收件人/i.test(
      `${(field as HTMLInputElement).name} ${field.id} ${accessibleName(field)}`,
    ),
  );
  return hasBody && hasRecipient;
}

/** The form a click on this control submits, if any. */
function submittedBy(control: Element): HTMLFormElement | null {
  const name = tag(control);
  const submits =
    (name === 'button' && (control as HTMLButtonElement).type === 'submit') ||
    (name === 'input' && ['submit', 'image'].includes((control as HTMLInputElement).type));
  return submits ? (control as HTMLButtonElement).form : null;
}

/** Submitting `form`, through the control named `name` (a button's words count too). */
function classifySubmit(form: HTMLFormElement, name: string): SensitiveTarget | undefined {
  const fields = fieldsOf(form);
  if (fields.some(isPasswordField)) {
    return {
      kind: 'credential_submit',
      reason: 'submits a form with a password field (signs in or sends credentials)',
    };
  }
  if (fields.some(isCardField) || PAYMENT_WORDS.test(name)) {
    return { kind: 'payment_submit', reason: `submits a payment form ("${name || 'submit'}")` };
  }
  if (isMessageForm(form) || SEND_WORDS.test(name)) {
    return { kind: 'send_message', reason: `sends a message ("${name || 'submit'}")` };
  }
  return undefined;
}

function nameOf(element: Element): string {
  return collapse(accessibleName(element, roleOf(element)));
}

/** What activating one control does: submit its form, download, or press a Pay/Send-like button. */
function classifyActivation(control: Element): SensitiveTarget | undefined {
  const name = nameOf(control);
  const form = submittedBy(control);
  if (form) return classifySubmit(form, name);
  if (tag(control) === 'a' || tag(control) === 'area') {
    const anchor = control as HTMLAnchorElement;
    if (anchor.hasAttribute('download') || RISKY_DOWNLOAD.test(anchor.pathname ?? '')) {
      return {
        kind: 'download',
        reason: `downloads a file (${anchor.download || anchor.pathname.split('/').pop()})`,
      };
    }
  }
  if (PAYMENT_WORDS.test(name) && isButtonLike(control)) {
    return { kind: 'payment_submit', reason: `presses "${name}", which looks like a payment` };
  }
  if (SEND_WORDS.test(name) && isButtonLike(control) && /^(send|post|reply|发送|发布|回复)\b/i.test(name)) {
    return { kind: 'send_message', reason: `presses "${name}", which looks like sending a message` };
  }
  return undefined;
}

/** A click on `element`: whatever it, the button-like elements around it and the control it activates do. */
function classifyClick(element: Element): SensitiveTarget | undefined {
  for (const control of activatedBy(element)) {
    const found = classifyActivation(control);
    if (found) return found;
  }
  return undefined;
}

function classifyEntry(element: Element): SensitiveTarget | undefined {
  if (isPasswordField(element)) return { kind: 'credential_entry', reason: 'types into a password field' };
  if (isCardField(element)) return { kind: 'payment_entry', reason: 'types into a payment card field' };
  return undefined;
}

/**
 * What the action on `element` would do that needs a person, or undefined. For `press`, `element`
 * is the element that receives the key (the focused one), not merely the one the call named.
 */
export function classifyTarget(
  element: Element,
  action: InteractAction,
  value: string | undefined,
): SensitiveTarget | undefined {
  switch (action) {
    case 'upload':
      return { kind: 'file_upload', reason: 'sends a file from this computer to the site' };
    case 'click':
    case 'check':
    case 'uncheck':
      // Checking clicks the box (or its label), which is a click like any other.
      return classifyClick(element);
    case 'fill':
      if (isInput(element) && (element.type === 'checkbox' || element.type === 'radio')) return classifyClick(element);
      return classifyEntry(element);
    case 'press': {
      const spec = parseKey(value ?? '');
      if (!spec) return undefined; // not a key: the action refuses it
      const effect = keyEffect(element, spec);
      // What the key sets off comes first: Enter in a password field submits the sign-in, which
      // is more than typing into it.
      if (effect.kind === 'submit') {
        const submitted = effect.submitter
          ? classifyClick(effect.submitter)
          : classifySubmit(effect.form, nameOf(effect.form));
        if (submitted) return submitted;
      }
      if (effect.kind === 'click') {
        const clicked = classifyClick(effect.element);
        if (clicked) return clicked;
      }
      return classifyEntry(element);
    }
    case 'select':
      // The same as filling a <select>.
      return classifyEntry(element);
    case 'hover':
    case 'scroll':
      return undefined;
  }
}
