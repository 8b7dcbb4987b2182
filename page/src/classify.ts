/**
 * Which page actions a person must always approve when the agent does them (issue #7): submitting
 * credential or payment forms, sending messages, downloading files, typing passwords or card
 * numbers, uploading local files. The policy in the daemon makes the decision; this only says
 * what the target is, from what the page itself shows.
 */
import type { InteractAction, SensitiveTarget } from '@nextai/shared/browser';

import { collapse, isInput, tag } from './dom.js';
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

/** The form a click or Enter on this element would submit, if any. */
function submittedForm(element: Element, action: InteractAction, value: string | undefined): HTMLFormElement | null {
  const control = element as HTMLButtonElement;
  if (action === 'click') {
    const name = tag(element);
    const submits =
      (name === 'button' && (control.type === 'submit' || control.getAttribute('type') === null)) ||
      (name === 'input' && ['submit', 'image'].includes((element as HTMLInputElement).type));
    return submits ? control.form : null;
  }
  if (action === 'press' && /(^|\+)enter$/i.test(value ?? '')) {
    if (tag(element) === 'textarea') return null;
    return (element as HTMLInputElement).form ?? null;
  }
  return null;
}

/** What the action on `element` would do that needs a person, or undefined. */
export function classifyTarget(
  element: Element,
  action: InteractAction,
  value: string | undefined,
): SensitiveTarget | undefined {
  if (action === 'upload') {
    return { kind: 'file_upload', reason: 'sends a file from this computer to the site' };
  }
  if (action === 'fill' || action === 'press') {
    if (isPasswordField(element)) return { kind: 'credential_entry', reason: 'types into a password field' };
    if (isCardField(element)) return { kind: 'payment_entry', reason: 'types into a payment card field' };
  }
  const name = collapse(accessibleName(element, roleOf(element)));
  const form = submittedForm(element, action, value);
  if (form) {
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
  }
  if (action === 'click' || (action === 'press' && /(^|\+)(enter| )$/i.test(value ?? ''))) {
    if (tag(element) === 'a' || tag(element) === 'area') {
      const anchor = element as HTMLAnchorElement;
      if (anchor.hasAttribute('download') || RISKY_DOWNLOAD.test(anchor.pathname ?? '')) {
        return {
          kind: 'download',
          reason: `downloads a file (${anchor.download || anchor.pathname.split('/').pop()})`,
        };
      }
    }
    if (!form && PAYMENT_WORDS.test(name) && isButtonLike(element)) {
      return { kind: 'payment_submit', reason: `presses "${name}", which looks like a payment` };
    }
    if (!form && SEND_WORDS.test(name) && isButtonLike(element) && /^(send|post|reply|发送|发布|回复)\b/i.test(name)) {
      return { kind: 'send_message', reason: `presses "${name}", which looks like sending a message` };
    }
  }
  return undefined;
}

function isButtonLike(element: Element): boolean {
  const role = roleOf(element);
  return role === 'button' || role === 'link' || role === 'menuitem';
}
