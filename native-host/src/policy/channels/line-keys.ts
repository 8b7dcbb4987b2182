import { say, type Platform } from '@nextai/shared';

import { MODIFIER_KEYS, normalizeKey } from '../../platform/keys.js';
import {
  WHY as LINE,
  WORD_KINDS,
  back,
  becomesUnknown,
  cleared,
  deleteAt,
  deleteBefore,
  edit,
  either,
  forward,
  insert,
  killToEnd,
  killToStart,
  killWordBack,
  killWordForward,
  plain,
  prefix,
  submit,
  toEnd,
  toStart,
  unchanged,
  unknownLine,
  unmodelled,
  wordBack,
  wordForward,
  type KnownLine,
  type LineOp,
  type Step,
} from './command-line.js';
import { programKeys } from './terminals.js';

/**
 * What a key chord sent to a terminal does to the command line being composed there (readline's
 * emacs keys, which bash, zsh, fish and PowerShell's PSReadLine share for the most part; the
 * terminal emulators' own shortcuts). Where shells differ, every reading is kept; a key NextAI
 * does not follow may run the line and leaves it unknown.
 */
export type KeyAction =
  | { kind: 'op'; op: LineOp; resets: boolean }
  /** A paste of the clipboard, or of the X selection (which NextAI cannot read); `otherwise` is another reading of the same chord. */
  | { kind: 'paste'; source: 'clipboard' | 'selection'; otherwise?: LineOp | undefined };

export interface KeyContext {
  platform: Platform;
  /** The terminal's program (its window's app), for the shortcuts it takes itself. */
  terminal: string;
}

/** Terminals without shortcuts of their own: ctrl+shift+letter reaches the shell as ctrl+letter. */
const PLAIN_TERMINALS = new Set(['xterm', 'uxterm', 'lxterm', 'koi8rxterm', 'urxvt', 'urxvtc', 'rxvt', 'rxvt-unicode',
  'st', 'st-256color', 'aterm', 'eterm', 'kterm', 'mlterm', 'conhost']); // prettier-ignore

const WHY = {
  history: say(
    'a key brought back a line from the shell history, which NextAI cannot see',
    '按键调出了 shell 历史中的一行，NextAI 看不到它',
  ),
  yank: say(
    'a key inserted text from the shell’s kill ring, which NextAI cannot see',
    '按键插入了 shell 剪切缓冲区中的文字，NextAI 看不到它',
  ),
  selectAll: say(
    'ctrl+a selected the whole line (PowerShell), which NextAI does not follow',
    'ctrl+a 选中了整行（PowerShell），NextAI 无法跟踪',
  ),
  overwrite: say(
    'Insert may have switched to overwriting, which NextAI does not follow',
    'Insert 键可能切换到了覆盖模式，NextAI 无法跟踪',
  ),
  symbol: say(
    'a shifted key typed a character that depends on the keyboard layout',
    '按下 Shift 的键输入了取决于键盘布局的字符',
  ),
  undo: say(
    'a key undid or rearranged earlier edits, which NextAI does not follow',
    '按键撤销或调整了之前的编辑，NextAI 无法跟踪',
  ),
  nextHistory: say(
    'ctrl+o ran the line and brought the next one from the history',
    'ctrl+o 运行了这一行并调出了历史中的下一行',
  ),
  functionKey: say(
    'a function key may recall or edit the line (cmd.exe: F1–F9)',
    '功能键可能调出或编辑这一行（cmd.exe：F1–F9）',
  ),
  unicodeEntry: say(
    'ctrl+shift+u starts typing a character by its code, which NextAI does not follow',
    'ctrl+shift+u 开始按编码输入字符，NextAI 无法跟踪',
  ),
  unknownKey: (chord: string) =>
    say(`${chord} is a key NextAI does not follow in a terminal`, `${chord} 是 NextAI 在终端中无法跟踪的按键`),
};

/** The action of a chord as given to key_press or hotkey. */
export function keyAction(keys: readonly string[], context: KeyContext): KeyAction {
  const chord = canonical(keys);
  const action = chord ? plainAction(chord, context) : undefined;
  const shown = keys.join('+');
  if (!chord || !action) return { kind: 'op', op: unmodelled(WHY.unknownKey(shown)), resets: false };
  if (action.kind === 'paste') return action;
  const literal = literalOp(chord);
  const alt = chord.mods.has('alt') || chord.mods.has('ctrl') ? undefined : plainAction(withAlt(chord), context);
  // After Escape the key is alt+key; after ctrl+v it is inserted as it is.
  const op: LineOp = (line) =>
    line.meta
      ? (alt?.kind === 'op' ? alt.op : unmodelled(WHY.unknownKey(`Escape ${shown}`)))(plain(line))
      : line.literal
        ? literal(plain(line))
        : action.op(line);
  return { kind: 'op', op, resets: action.resets };
}

/** The first key typed after a pending Escape or ctrl+v (`\r` is Return, `\t` Tab). */
export function prefixedKey(line: KnownLine, character: string, context: KeyContext): Step {
  const key = character === '\r' ? 'enter' : character === '\t' ? 'tab' : character;
  const action = keyAction([key], context);
  if (action.kind !== 'op') return { runs: [], next: [unknownLine(WHY.unknownKey(key))] };
  return action.op(line);
}

interface Chord {
  mods: Set<string>;
  key: string;
}

function canonical(keys: readonly string[]): Chord | undefined {
  const mods = new Set<string>();
  const others: string[] = [];
  for (const raw of keys) {
    let key: string;
    try {
      key = normalizeKey(raw);
    } catch {
      // Names the tool itself refuses, but a keypad Enter is still Enter wherever it is taken.
      const folded = raw.toLowerCase().replace(/[\s_-]+/g, '');
      if (!/^(?:kp|keypad|numpad)?(?:enter|return)$/.test(folded)) return undefined;
      key = 'enter';
    }
    if ((MODIFIER_KEYS as readonly string[]).includes(key)) mods.add(key);
    else others.push(key);
  }
  if (others.length === 0) return { mods, key: '' };
  if (others.length > 1) return undefined;
  return { mods, key: others[0] as string };
}

function withAlt(chord: Chord): Chord {
  return { mods: new Set([...chord.mods, 'alt']), key: chord.key };
}

type Action = { kind: 'op'; op: LineOp; resets: boolean } | Extract<KeyAction, { kind: 'paste' }>;

const op = (lineOp: LineOp, resets = false): Action => ({ kind: 'op', op: lineOp, resets });
const only =
  (...mods: string[]) =>
  (chord: Chord) =>
    chord.mods.size === mods.length && mods.every((mod) => chord.mods.has(mod));

function plainAction(chord: Chord, context: KeyContext): Action | undefined {
  const { key, mods } = chord;
  const none = only();
  const ctrl = only('ctrl');
  const alt = only('alt');
  const shift = only('shift');
  const ctrlShift = only('ctrl', 'shift');
  const posix = context.platform !== 'windows';
  if (key === '') return op(edit(unchanged)); // Modifiers alone.

  // Pastes: the terminal types the clipboard's text (or the X selection's).
  if (key === 'v' && (mods.has('meta') || ctrlShift(chord))) {
    return {
      kind: 'paste',
      source: 'clipboard',
      otherwise: ctrlShift(chord) && plainTerminal(context) ? prefixOp('literal') : undefined,
    };
  }
  if (key === 'v' && ctrl(chord)) {
    // Windows consoles paste; in a POSIX shell it is quoted insert (some terminals paste).
    return { kind: 'paste', source: 'clipboard', otherwise: posix ? prefixOp('literal') : undefined };
  }
  if (key === 'insert' && shift(chord)) {
    return { kind: 'paste', source: context.platform === 'linux' ? 'selection' : 'clipboard' };
  }

  // Submitting.
  if (key === 'enter') {
    if (none(chord) || shift(chord)) return op(submit, true);
    // alt+enter inserts a line break in fish; elsewhere it runs the line.
    return op(
      either(
        submit,
        edit((line) => insert('\n')(line).next[0] as KnownLine),
      ),
    );
  }
  if ((key === 'm' || key === 'j') && (ctrl(chord) || ctrlShift(chord))) return op(submit, true);
  if (key === 'o' && ctrl(chord)) return op((line) => ({ runs: [plain(line)], next: [unknownLine(WHY.nextHistory)] }));

  // Abandoning the line.
  if (key === 'c' && ctrl(chord)) return op(edit(cleared), true);
  if (key === 'g' && ctrl(chord)) return op(edit(unchanged, cleared));
  if (key === 'escape' && none(chord)) return op(edit(prefix('meta'), cleared));
  if (key === 'd' && ctrl(chord)) {
    // On an empty line it ends the shell; what comes next is another prompt.
    return op((line) => (line.text === '' ? edit(cleared)(line) : edit(deleteAt, unchanged)(line)));
  }

  // Editing and moving.
  if ((key === 'backspace' && (none(chord) || shift(chord))) || (key === 'h' && ctrl(chord)))
    return op(edit(deleteBefore));
  if (key === 'delete' && none(chord)) return op(edit(deleteAt));
  if ((key === 'left' && none(chord)) || (key === 'b' && ctrl(chord))) return op(edit(back));
  if ((key === 'right' && none(chord)) || (key === 'f' && ctrl(chord))) return op(edit(forward));
  if (key === 'home' && none(chord)) return op(edit(toStart));
  if (key === 'end' && none(chord)) return op(edit(toEnd));
  if (key === 'a' && ctrl(chord)) return op(posix ? edit(toStart) : becomesUnknown(WHY.selectAll));
  if (key === 'e' && ctrl(chord)) return op(edit(toEnd));
  if ((key === 'left' && ctrl(chord)) || (key === 'b' && alt(chord))) return op(edit(...WORD_KINDS.map(wordBack)));
  if ((key === 'right' && ctrl(chord)) || (key === 'f' && alt(chord))) return op(edit(...WORD_KINDS.map(wordForward)));
  if (key === 'u' && ctrl(chord)) return op(edit(killToStart, cleared, unchanged));
  if (key === 'k' && ctrl(chord)) return op(edit(killToEnd, unchanged));
  if (key === 'w' && ctrl(chord)) return op(edit(...WORD_KINDS.map(killWordBack), unchanged));
  if (key === 'backspace' && (alt(chord) || ctrl(chord))) return op(edit(...WORD_KINDS.map(killWordBack)));
  if ((key === 'd' && alt(chord)) || (key === 'delete' && ctrl(chord))) {
    return op(edit(...WORD_KINDS.map(killWordForward)));
  }
  if (key === 'l' && ctrl(chord)) return op(edit(unchanged)); // Clears the screen, not the line.

  // Text NextAI cannot see.
  if (['up', 'down', 'pageup', 'pagedown'].includes(key) && none(chord)) return op(becomesUnknown(WHY.history));
  if (['p', 'n', 'r', 's'].includes(key) && ctrl(chord)) return op(becomesUnknown(WHY.history));
  if (key === 'tab' || (key === 'i' && ctrl(chord))) return op(becomesUnknown(LINE.completion));
  if ((key === 'y' && (ctrl(chord) || alt(chord))) || (['.', '_'].includes(key) && alt(chord))) {
    return op(becomesUnknown(WHY.yank));
  }
  if (key === 'insert' && none(chord)) return op(becomesUnknown(WHY.overwrite));
  if (/^f\d+$/.test(key) && none(chord)) return op(becomesUnknown(WHY.functionKey));
  if (
    (['t', '_', '/', '-', 'x', ']'].includes(key) && ctrl(chord)) ||
    (['t', 'u', 'l', 'c', 'r'].includes(key) && alt(chord))
  ) {
    return op(becomesUnknown(WHY.undo));
  }

  // GTK and IBus read ctrl+shift+u (and +e) as the start of a character typed by its code:
  // `ctrl+shift+u 7e space` types `~`, which the keys themselves do not show.
  if (['u', 'e'].includes(key) && ctrlShift(chord)) return op(becomesUnknown(WHY.unicodeEntry));

  // The terminal's own shortcuts: copying, finding, zooming, scrolling, tabs and windows.
  const shortcut = terminalShortcut(chord, context);
  if (shortcut) {
    // A terminal without shortcuts hands ctrl+shift+letter to the shell as ctrl+letter.
    if (ctrlShift(chord) && plainTerminal(context)) {
      const asCtrl = plainAction({ mods: new Set(['ctrl']), key }, context);
      if (asCtrl?.kind === 'op') return op(either(shortcut, asCtrl.op));
      return op(unmodelled(WHY.unknownKey(`ctrl+shift+${key}`)));
    }
    return op(shortcut);
  }
  if (ctrlShift(chord)) {
    const asCtrl = plainAction({ mods: new Set(['ctrl']), key }, context);
    return asCtrl?.kind === 'op' ? op(either(edit(unchanged), asCtrl.op)) : undefined;
  }

  // Characters.
  const character = key === 'space' ? ' ' : [...key].length === 1 ? key : undefined;
  if (character !== undefined && none(chord)) return op(insert(character));
  if (character !== undefined && shift(chord)) {
    return op(/^\p{Ll}$/u.test(character) ? insert(character.toUpperCase()) : becomesUnknown(WHY.symbol));
  }
  if (mods.has('meta') && !mods.has('ctrl') && !mods.has('alt')) return op(edit(unchanged)); // Window manager, or the terminal.
  return undefined;
}

/** Shortcuts the terminal takes itself; undefined for anything else. */
function terminalShortcut(chord: Chord, context: KeyContext): LineOp | undefined {
  const { key, mods } = chord;
  const ctrlShift = mods.size === 2 && mods.has('ctrl') && mods.has('shift');
  const meta = mods.size >= 1 && mods.has('meta') && !mods.has('ctrl') && !mods.has('alt');
  const tabs = ['t', 'n', 'w', 'q', 'tab', 'pageup', 'pagedown', '[', ']', '{', '}'];
  // Another tab or window comes to the front: its line (maybe the person's), or ours again later.
  if ((ctrlShift || meta) && tabs.includes(key)) return edit(unchanged, cleared);
  if (mods.size === 1 && mods.has('ctrl') && ['pageup', 'pagedown', 'tab'].includes(key))
    return edit(unchanged, cleared);
  if (mods.size === 1 && mods.has('alt') && /^[1-9]$/.test(key)) return edit(unchanged, cleared);
  if ((ctrlShift || meta) && ['c', 'f', 'a', 'k', '+', '=', '-', '0', 'up', 'down', 'home', 'end'].includes(key)) {
    return edit(unchanged);
  }
  if (meta && key === 'backspace') return edit(killToStart, cleared, unchanged); // iTerm2 sends ctrl+u.
  if (meta && key === 'left') return edit(toStart, unchanged);
  if (meta && key === 'right') return edit(toEnd, unchanged);
  if (mods.size === 1 && mods.has('shift') && ['pageup', 'pagedown', 'home', 'end', 'up', 'down'].includes(key)) {
    return edit(unchanged); // Scrolls the terminal's history.
  }
  if (mods.size === 1 && mods.has('ctrl') && ['+', '='].includes(key) && context.platform !== 'windows') {
    return edit(unchanged); // Zoom.
  }
  if (mods.size === 1 && mods.has('ctrl') && key === 'insert') return edit(unchanged); // Copy.
  return undefined;
}

/** What a key does right after ctrl+v (quoted insert): a character is inserted, anything else is a raw control code. */
function literalOp(chord: Chord): LineOp {
  const character = chord.key === 'space' ? ' ' : [...chord.key].length === 1 ? chord.key : undefined;
  if (character !== undefined && chord.mods.size === 0) return insert(character);
  return becomesUnknown(WHY.unknownKey(`ctrl+v ${[...chord.mods, chord.key].join('+')}`));
}

function prefixOp(kind: 'meta' | 'literal'): LineOp {
  return edit(prefix(kind));
}

function plainTerminal(context: KeyContext): boolean {
  return programKeys(context.terminal).some((key) => PLAIN_TERMINALS.has(key));
}
