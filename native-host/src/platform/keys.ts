import { AppError } from '@nextai/shared';

/**
 * Canonical key names, the same on every OS. Models and people write keys many ways ("Cmd",
 * "command", "⌘", "Super", "Win", "Return", "Esc", "PgDn"); `normalizeKey` turns each into one
 * canonical name, and each adapter maps canonical names to its own (X keysyms, AppleScript key
 * codes, SendInput virtual keys). Single characters (letters, digits, punctuation, any Unicode
 * character) are their own canonical name; letters are lower-cased.
 */
export const MODIFIER_KEYS = ['ctrl', 'alt', 'shift', 'meta'] as const;
export type ModifierKey = (typeof MODIFIER_KEYS)[number];

export const NAMED_KEYS = [
  ...MODIFIER_KEYS,
  'enter',
  'tab',
  'escape',
  'backspace',
  'delete',
  'insert',
  'space',
  'up',
  'down',
  'left',
  'right',
  'home',
  'end',
  'pageup',
  'pagedown',
  'capslock',
  'printscreen',
  'menu',
  ...Array.from({ length: 24 }, (_, index) => `f${index + 1}`),
] as const;

const ALIASES: Record<string, string> = {
  control: 'ctrl',
  ctl: 'ctrl',
  '⌃': 'ctrl',
  option: 'alt',
  opt: 'alt',
  '⌥': 'alt',
  altgr: 'alt',
  '⇧': 'shift',
  cmd: 'meta',
  command: 'meta',
  '⌘': 'meta',
  super: 'meta',
  win: 'meta',
  windows: 'meta',
  os: 'meta',
  return: 'enter',
  '↵': 'enter',
  esc: 'escape',
  back: 'backspace',
  bksp: 'backspace',
  del: 'delete',
  ins: 'insert',
  spacebar: 'space',
  ' ': 'space',
  arrowup: 'up',
  arrowdown: 'down',
  arrowleft: 'left',
  arrowright: 'right',
  pgup: 'pageup',
  pgdn: 'pagedown',
  pagedn: 'pagedown',
  caps: 'capslock',
  prtsc: 'printscreen',
  print: 'printscreen',
  apps: 'menu',
  contextmenu: 'menu',
};

const NAMED = new Set<string>(NAMED_KEYS);

export function isModifier(key: string): key is ModifierKey {
  return (MODIFIER_KEYS as readonly string[]).includes(key);
}

/** The canonical name of a key, or INVALID_INPUT naming the key and what is understood. */
export function normalizeKey(raw: string): string {
  if ([...raw].length === 1) {
    const alias = ALIASES[raw];
    return alias ?? raw.toLowerCase();
  }
  const folded = raw
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/gu, '');
  const key = ALIASES[folded] ?? folded;
  if (NAMED.has(key)) return key;
  throw new AppError(
    'INVALID_INPUT',
    `Unknown key "${raw}". Use a single character, or one of: ${NAMED_KEYS.join(', ')} (cmd, super and win mean meta).`,
  );
}

/** Normalises a chord, keeping modifiers first and refusing duplicates. */
export function normalizeChord(keys: readonly string[]): string[] {
  const normalized = keys.map(normalizeKey);
  const seen = new Set<string>();
  for (const key of normalized) {
    if (seen.has(key))
      throw new AppError('INVALID_INPUT', `The key "${key}" appears twice in ${JSON.stringify(keys)}.`);
    seen.add(key);
  }
  return [...normalized.filter(isModifier), ...normalized.filter((key) => !isModifier(key))];
}
