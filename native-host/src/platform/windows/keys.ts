// Canonical key names (../keys.ts) → Windows virtual-key codes (WinUser.h VK_*), and the plans
// the input script executes for typing and chords. `meta` is the Windows key.
//
// NOT RUN ON A REAL WINDOWS MACHINE; the tables and plans are unit-tested.
import { AppError } from '@nextai/shared';

import { isModifier, normalizeKey } from '../keys.js';
import { typingPlan } from '../typing-plan.js';

export interface VirtualKey {
  vk: number;
  /**
   * KEYEVENTF_EXTENDEDKEY: the key sits in the extended block (arrows, Insert/Delete/Home/End/
   * Page keys, the Windows and menu keys). Without it, Windows reads an arrow as the numeric
   * keypad's, which types digits when Num Lock is on.
   */
  extended: boolean;
}

const key = (vk: number, extended = false): VirtualKey => ({ vk, extended });

/** Every canonical named key. F13–F24 exist as virtual keys (VK_F13 = 0x7C … VK_F24 = 0x87). */
export const WINDOWS_NAMED_KEYS: Record<string, VirtualKey> = {
  ctrl: key(0x11), // VK_CONTROL
  alt: key(0x12), // VK_MENU
  shift: key(0x10), // VK_SHIFT
  meta: key(0x5b, true), // VK_LWIN
  enter: key(0x0d),
  tab: key(0x09),
  escape: key(0x1b),
  backspace: key(0x08),
  delete: key(0x2e, true),
  insert: key(0x2d, true),
  space: key(0x20),
  up: key(0x26, true),
  down: key(0x28, true),
  left: key(0x25, true),
  right: key(0x27, true),
  home: key(0x24, true),
  end: key(0x23, true),
  pageup: key(0x21, true),
  pagedown: key(0x22, true),
  capslock: key(0x14),
  printscreen: key(0x2c, true), // VK_SNAPSHOT
  menu: key(0x5d, true), // VK_APPS
  ...Object.fromEntries(Array.from({ length: 24 }, (_, index) => [`f${index + 1}`, key(0x70 + index)])),
};

/** Every modifier virtual key, generic and left/right, released by `releaseAll`. */
export const WINDOWS_MODIFIER_KEYS: readonly VirtualKey[] = [
  key(0x10), // VK_SHIFT
  key(0x11), // VK_CONTROL
  key(0x12), // VK_MENU
  key(0xa0), // VK_LSHIFT
  key(0xa1), // VK_RSHIFT
  key(0xa2), // VK_LCONTROL
  key(0xa3, true), // VK_RCONTROL
  key(0xa4), // VK_LMENU
  key(0xa5, true), // VK_RMENU
  key(0x5b, true), // VK_LWIN
  key(0x5c, true), // VK_RWIN
];

/** One key of a chord: a virtual key, or a character whose key the script looks up on the current layout. */
export type WindowsKeyStroke = VirtualKey | { character: string };

/**
 * Letters and digits have layout-independent virtual keys ('A'..'Z' = 0x41.., '0'..'9' = 0x30..),
 * so ctrl+c is ctrl+c on any layout. Other characters (";", "/", "é") depend on the layout: the
 * script asks VkKeyScan at press time, and types the character as Unicode when no key makes it.
 */
export function windowsKeyStroke(canonical: string): WindowsKeyStroke {
  const named = WINDOWS_NAMED_KEYS[canonical];
  if (named) return named;
  if ([...canonical].length !== 1) {
    // A canonical name this table does not know: keys.ts grew a key this adapter lacks.
    throw new AppError('INVALID_INPUT', `The key "${canonical}" is not supported on Windows.`);
  }
  if (/^[a-z]$/.test(canonical)) return key(canonical.toUpperCase().charCodeAt(0));
  if (/^[0-9]$/.test(canonical)) return key(canonical.charCodeAt(0));
  return { character: canonical };
}

/** A chord of raw key names → strokes in press order (as given; the caller normalises order). */
export function windowsChord(rawKeys: readonly string[]): WindowsKeyStroke[] {
  if (rawKeys.length === 0) throw new AppError('INVALID_INPUT', 'Name at least one key to press.');
  return rawKeys.map((raw) => windowsKeyStroke(normalizeKey(raw)));
}

/** Modifier names → the keys held during a click. */
export function windowsModifiers(modifiers: readonly string[]): VirtualKey[] {
  return modifiers.map((raw) => {
    const canonical = normalizeKey(raw);
    if (!isModifier(canonical)) {
      throw new AppError(
        'INVALID_INPUT',
        `"${raw}" is not a modifier; use ctrl, alt, shift or meta (the Windows key).`,
      );
    }
    return WINDOWS_NAMED_KEYS[canonical]!;
  });
}

export type WindowsTypingItem = { text: string } | VirtualKey;

/** UTF-16 units per SendInput batch: long text goes in several, so other input can interleave. */
const MAX_CHUNK_UNITS = 64;

/**
 * Typing plan: text as Unicode key events in chunks (never splitting a surrogate pair); line
 * breaks and tabs as the Enter and Tab keys, which editors and terminals expect. With a delay,
 * one character per item.
 */
export function windowsTypingPlan(text: string, delayMs: number): WindowsTypingItem[] {
  return typingPlan(text, delayMs, MAX_CHUNK_UNITS, {
    enter: WINDOWS_NAMED_KEYS.enter!,
    tab: WINDOWS_NAMED_KEYS.tab!,
  });
}
