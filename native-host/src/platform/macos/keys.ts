// Canonical key names (../keys.ts) → macOS virtual key codes (HIToolbox Events.h, kVK_*), and
// the plans the input script executes for typing and chords.
//
// Not run on a real macOS machine; command construction and parsing are unit-tested.
import { AppError } from '@nextai/shared';

import { normalizeKey, type ModifierKey } from '../keys.js';
import { typingPlan } from '../typing-plan.js';

/** CGEventFlags masks for the modifiers (kCGEventFlagMask*). */
export const MODIFIER_FLAGS: Record<ModifierKey, number> = {
  shift: 0x20000,
  ctrl: 0x40000,
  alt: 0x80000,
  meta: 0x100000,
};

/** Every named key except F21–F24, which macOS has no key codes for. */
export const MACOS_KEY_CODES: Record<string, number> = {
  ctrl: 59, // kVK_Control
  alt: 58, // kVK_Option
  shift: 56, // kVK_Shift
  meta: 55, // kVK_Command
  enter: 36, // kVK_Return
  tab: 48,
  escape: 53,
  backspace: 51, // kVK_Delete (the key labelled "delete" on a Mac deletes backwards)
  delete: 117, // kVK_ForwardDelete
  insert: 114, // kVK_Help: where a PC keyboard's Insert key arrives on a Mac
  space: 49,
  up: 126,
  down: 125,
  left: 123,
  right: 124,
  home: 115,
  end: 119,
  pageup: 116,
  pagedown: 121,
  capslock: 57,
  printscreen: 105, // F13: what a PC keyboard's Print Screen key sends on a Mac
  menu: 110, // kVK_ContextualMenu
  f1: 122,
  f2: 120,
  f3: 99,
  f4: 118,
  f5: 96,
  f6: 97,
  f7: 98,
  f8: 100,
  f9: 101,
  f10: 109,
  f11: 103,
  f12: 111,
  f13: 105,
  f14: 107,
  f15: 113,
  f16: 106,
  f17: 64,
  f18: 79,
  f19: 80,
  f20: 90,
};

/** Named keys that exist on other systems but have no macOS key code. */
export const MACOS_MISSING_KEYS = ['f21', 'f22', 'f23', 'f24'] as const;

/**
 * Characters on the US (ANSI) layout: the key code, and whether Shift is part of the character.
 * Key codes are physical positions, so on another layout the code of "a" may type another letter;
 * shortcuts (cmd+c) are matched by position on macOS anyway. Characters not listed here are sent
 * as Unicode text on a key event (see `macosKeyStroke`).
 */
const ANSI_CHARACTERS: Record<string, { code: number; shift: boolean }> = (() => {
  const table: Record<string, { code: number; shift: boolean }> = {};
  const plain: Record<string, number> = {
    a: 0,
    s: 1,
    d: 2,
    f: 3,
    h: 4,
    g: 5,
    z: 6,
    x: 7,
    c: 8,
    v: 9,
    b: 11,
    q: 12,
    w: 13,
    e: 14,
    r: 15,
    y: 16,
    t: 17,
    '1': 18,
    '2': 19,
    '3': 20,
    '4': 21,
    '6': 22,
    '5': 23,
    '=': 24,
    '9': 25,
    '7': 26,
    '-': 27,
    '8': 28,
    '0': 29,
    ']': 30,
    o: 31,
    u: 32,
    '[': 33,
    i: 34,
    p: 35,
    l: 37,
    j: 38,
    "'": 39,
    k: 40,
    ';': 41,
    '\\': 42,
    ',': 43,
    '/': 44,
    n: 45,
    m: 46,
    '.': 47,
    '`': 50,
  };
  const shifted: Record<string, string> = {
    '!': '1',
    '@': '2',
    '#': '3',
    $: '4',
    '%': '5',
    '^': '6',
    '&': '7',
    '*': '8',
    '(': '9',
    ')': '0',
    _: '-',
    '+': '=',
    '{': '[',
    '}': ']',
    '|': '\\',
    ':': ';',
    '"': "'",
    '<': ',',
    '>': '.',
    '?': '/',
    '~': '`',
  };
  for (const [character, code] of Object.entries(plain)) table[character] = { code, shift: false };
  for (const [character, base] of Object.entries(shifted)) table[character] = { code: plain[base]!, shift: true };
  return table;
})();

/** One key of a chord as the input script presses it. */
export interface MacosKeyStroke {
  /** Virtual key code; 0 with `text` for characters that have no code. */
  code: number;
  /** Flags this key adds while held (a modifier's mask, or Shift for "!"), 0 otherwise. */
  flag: number;
  /** Unicode text the key event carries instead of the code's own character. */
  text?: string;
}

/** How to press one canonical key (from `normalizeKey`) on macOS. */
export function macosKeyStroke(canonical: string): MacosKeyStroke {
  const code = MACOS_KEY_CODES[canonical];
  if (code !== undefined) {
    const flag = (MODIFIER_FLAGS as Record<string, number>)[canonical] ?? 0;
    return { code, flag };
  }
  if ((MACOS_MISSING_KEYS as readonly string[]).includes(canonical)) {
    throw new AppError('INVALID_INPUT', `macOS has no ${canonical.toUpperCase()} key; F1–F20 exist.`);
  }
  if ([...canonical].length !== 1) {
    // A canonical name this table does not know: keys.ts grew a key this adapter lacks.
    throw new AppError('INVALID_INPUT', `The key "${canonical}" is not supported on macOS.`);
  }
  const ansi = ANSI_CHARACTERS[canonical];
  if (ansi) return { code: ansi.code, flag: ansi.shift ? MODIFIER_FLAGS.shift : 0 };
  return { code: 0, flag: 0, text: canonical };
}

/** A chord of raw key names → strokes in press order (modifiers first). */
export function macosChord(canonicalKeys: readonly string[]): MacosKeyStroke[] {
  return canonicalKeys.map((key) => macosKeyStroke(normalizeKey(key)));
}

/** Modifier names → the strokes held during a click. */
export function macosModifiers(modifiers: readonly string[]): MacosKeyStroke[] {
  return modifiers.map((raw) => {
    const key = normalizeKey(raw);
    const flag = (MODIFIER_FLAGS as Record<string, number>)[key];
    if (flag === undefined) {
      throw new AppError('INVALID_INPUT', `"${raw}" is not a modifier; use ctrl, alt, shift or meta (cmd).`);
    }
    return { code: MACOS_KEY_CODES[key]!, flag };
  });
}

/** Key codes of every modifier key, left and right (and fn), released by `releaseAll`. */
export const MACOS_MODIFIER_CODES = [55, 54, 56, 60, 58, 61, 59, 62, 63];

/**
 * Typing plan (typing-plan.ts): chunks of at most 20 UTF-16 units, what one key event carries.
 */
export type TypingItem = { text: string } | { code: number };

const MAX_CHUNK_UNITS = 20;

export function macosTypingPlan(text: string, delayMs: number): TypingItem[] {
  return typingPlan(text, delayMs, MAX_CHUNK_UNITS, {
    enter: { code: MACOS_KEY_CODES.enter! },
    tab: { code: MACOS_KEY_CODES.tab! },
  });
}
