import { AppError } from '@nextai/shared';

import { runCommand } from '../../core/subprocess.js';
import type { InputAdapter, KeyName, MouseButton, Point, ScrollDirection, Size } from '../desktop.js';
import { isModifier, normalizeChord, normalizeKey, type ModifierKey, type NAMED_KEYS } from '../keys.js';
import { missingProgramIsUnavailable, xEnvironment } from './windows.js';
import { buttonMask, reusableXConnection, X_EVENT, type XConnection } from './x-connection.js';
import { sleep as wait } from '../../core/sleep.js';

/**
 * Mouse and keyboard on Linux (X11).
 *
 * The mouse goes through our own X connection (x-connection.ts): XTEST events in-process,
 * each button event followed by QueryPointer until the server shows it processed. libnut and
 * xdotool were measured and both misplace quick clicks under a window manager (see there).
 *
 * Typing goes through `xdotool type`: libnut drops shifted symbols and everything outside ASCII.
 * xdotool types a character missing from the keymap by rebinding one spare keycode per keystroke
 * and reverting it right after — which races with the receiving app (it looks the keycode up after
 * the revert and gets nothing): under Xvfb, xterm lost a third of the Chinese characters even at
 * 75 ms between keys. So we bind every missing character of a batch to its own free keycode first
 * (`xmodmap`), type the batch (xdotool then finds each character in the keymap and never rebinds),
 * wait for the app to catch up, and only then rebind or restore the keycodes.
 *
 * Keys (`pressKeys`) go through `xdotool key` with X keysym names (X_KEYSYMS below).
 */

const HINT_XDOTOOL = 'On Debian/Ubuntu: sudo apt install xdotool';
const HINT_XMODMAP = 'On Debian/Ubuntu: sudo apt install x11-xserver-utils';

/**
 * Pixels per wheel step. X11 has no pixel scrolling for XTest: a step is a press of button 4/5
 * (vertical) or 6/7 (horizontal), which toolkits turn into about 50–120 px (GTK and Firefox ~3
 * lines, Chromium ~53–100 px). 100 px per step matches the macOS adapter, so the same `amount`
 * scrolls about as far everywhere; the default 300 px is 3 steps.
 */
export const SCROLL_STEP_PX = 100;
/** Time between the points of a glide (mouse_move smooth, drags): about 100 motion events a second. */
export const GLIDE_STEP_MS = 10;
/** A drag always moves through a few intermediate points, so apps see motion with the button down. */
export const MIN_DRAG_STEPS = 5;
/** Gap between the clicks of a double click: far below any double-click time (≥ 200 ms). */
export const CLICK_GAP_MS = 30;
/** How long the receiving app gets to process typed keys before their keycodes are rebound. */
export const TYPE_SETTLE_MS = 100;
/** Code points per `xdotool type` run: cancellation takes effect between runs (and kills a run). */
export const TYPE_CHUNK = 200;

type NamedKey = (typeof NAMED_KEYS)[number];

/** Left-hand modifier keys; meta is Super (the Windows/Command key of PC keyboards). */
const MODIFIER_KEYSYMS: Record<ModifierKey, string> = {
  ctrl: 'Control_L',
  alt: 'Alt_L',
  shift: 'Shift_L',
  meta: 'Super_L',
};

/** X keysym names (as xdotool takes them) for every named canonical key. */
export const X_KEYSYMS: Record<NamedKey, string> = {
  ...MODIFIER_KEYSYMS,
  enter: 'Return',
  tab: 'Tab',
  escape: 'Escape',
  backspace: 'BackSpace',
  delete: 'Delete',
  insert: 'Insert',
  space: 'space',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  home: 'Home',
  end: 'End',
  pageup: 'Prior',
  pagedown: 'Next',
  capslock: 'Caps_Lock',
  printscreen: 'Print',
  menu: 'Menu',
  ...functionKeys(),
};

function functionKeys(): Record<Extract<NamedKey, `f${number}`>, string> {
  const keys: Record<string, string> = {};
  for (let number = 1; number <= 24; number++) keys[`f${number}`] = `F${number}`;
  return keys as Record<Extract<NamedKey, `f${number}`>, string>;
}

/**
 * The X keysym name of a canonical key. Letters and digits are their own keysym; any other single
 * character is named by its code point (`U002B` for "+", `U4F60` for 你), which Xlib resolves to
 * the Latin-1 or Unicode keysym — xdotool then adds Shift where the keymap needs it.
 */
export function xKeysym(key: string): string {
  const named = (X_KEYSYMS as Record<string, string>)[key];
  if (named) return named;
  const chars = [...key];
  if (chars.length !== 1) throw new AppError('INVALID_INPUT', `"${key}" is not a canonical key name.`);
  if (/^[a-z0-9]$/u.test(key)) return key;
  return unicodeKeysymName(key.codePointAt(0)!);
}

/** The xdotool chord for canonical keys, e.g. ["ctrl", "shift", "t"] → "Control_L+Shift_L+t". */
export function xChord(keys: readonly KeyName[]): string {
  return keys.map(xKeysym).join('+');
}

function unicodeKeysymName(codePoint: number): string {
  return `U${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The keysym value X uses for a character: Latin-1 keysyms equal the code point, others are 0x1000000 + it. */
export function keysymValue(codePoint: number): number {
  if ((codePoint >= 0x20 && codePoint <= 0x7e) || (codePoint >= 0xa0 && codePoint <= 0xff)) return codePoint;
  return 0x1000000 + codePoint;
}

/** The keyboard map as `xmodmap -pk` prints it: which keysyms it has, which keycodes are empty. */
export interface Keymap {
  keysyms: Set<number>;
  freeKeycodes: number[];
}

export function parseKeymap(xmodmapPk: string): Keymap {
  const keysyms = new Set<number>();
  const freeKeycodes: number[] = [];
  for (const line of xmodmapPk.split('\n')) {
    const match = /^\s*(\d+)\s*(.*)$/u.exec(line);
    if (!match) continue;
    const values = [...match[2]!.matchAll(/0x([0-9a-f]+)/giu)].map((value) => parseInt(value[1]!, 16));
    const bound = values.filter((value) => value !== 0);
    if (bound.length === 0) freeKeycodes.push(Number(match[1]));
    for (const value of bound) keysyms.add(value);
  }
  return { keysyms, freeKeycodes };
}

/** A run of text to type after binding `bindings` (keycode → character) to free keycodes. */
export interface TypingBatch {
  bindings: Array<{ keycode: number; char: string }>;
  text: string;
}

/**
 * Splits text into batches: characters the keymap has (and newline, tab) need nothing; each batch
 * binds at most one free keycode per distinct missing character. One batch for most texts; a long
 * Chinese text with more distinct characters than free keycodes (about 19 under Xvfb) takes several.
 */
export function planTyping(text: string, keymap: Keymap): TypingBatch[] {
  const batches: TypingBatch[] = [];
  let current: TypingBatch = { bindings: [], text: '' };
  let bound = new Map<string, number>();
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    if ((codePoint < 0x20 && char !== '\n' && char !== '\t') || (codePoint >= 0x7f && codePoint < 0xa0)) {
      throw new AppError(
        'INVALID_INPUT',
        `The text contains the control character U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}, which cannot be typed. Remove it, or press the key it stands for with key_press.`,
      );
    }
    const typable = char === '\n' || char === '\t' || keymap.keysyms.has(keysymValue(codePoint));
    if (!typable && !bound.has(char)) {
      if (keymap.freeKeycodes.length === 0) {
        throw new AppError(
          'UNAVAILABLE',
          `Cannot type "${char}": it is not on the keyboard map and the map has no free keycode to bind it to.`,
        );
      }
      if (bound.size === keymap.freeKeycodes.length) {
        batches.push(current);
        current = { bindings: [], text: '' };
        bound = new Map();
      }
      const keycode = keymap.freeKeycodes[bound.size]!;
      bound.set(char, keycode);
      current.bindings.push({ keycode, char });
    }
    current.text += char;
  }
  if (current.text) batches.push(current);
  return batches;
}

/** `xmodmap -e` expressions binding each character to its keycode (both levels, as xdotool does). */
export function bindExpressions(bindings: TypingBatch['bindings']): string[] {
  return bindings.flatMap(({ keycode, char }) => {
    const name = unicodeKeysymName(char.codePointAt(0)!);
    return ['-e', `keycode ${keycode} = ${name} ${name}`];
  });
}

export function restoreExpressions(keycodes: Iterable<number>): string[] {
  return [...keycodes].flatMap((keycode) => ['-e', `keycode ${keycode} =`]);
}

/** Splits text into runs of at most `size` code points. */
export function chunkText(text: string, size = TYPE_CHUNK): string[] {
  const chars = [...text];
  const chunks: string[] = [];
  for (let start = 0; start < chars.length; start += size) chunks.push(chars.slice(start, start + size).join(''));
  return chunks;
}

/** Wheel steps for a scroll of `amount` pixels: at least one. */
export function wheelSteps(amount: number): number {
  if (!Number.isFinite(amount) || amount <= 0) {
    throw new AppError('INVALID_INPUT', `The scroll amount must be a positive number of pixels, not ${amount}.`);
  }
  return Math.max(1, Math.round(amount / SCROLL_STEP_PX));
}

/** The X wheel button for a direction: 4 up, 5 down, 6 left, 7 right. */
export function wheelButton(direction: ScrollDirection): number {
  return { up: 4, down: 5, left: 6, right: 7 }[direction];
}

/** Points of a glide from `from` to `to` (ease in and out), ending exactly at `to`. */
export function glidePath(from: Point, to: Point, steps: number): Point[] {
  const points: Point[] = [];
  for (let step = 1; step <= steps; step++) {
    const t = step / steps;
    const eased = t * t * (3 - 2 * t);
    points.push({
      x: Math.round(from.x + (to.x - from.x) * eased),
      y: Math.round(from.y + (to.y - from.y) * eased),
    });
  }
  return points;
}

function cancelled(signal: AbortSignal | undefined, what: string): AppError {
  const reason = signal?.reason instanceof AppError ? ` (${signal.reason.message})` : '';
  return new AppError('EMERGENCY_STOPPED', `${what} was cancelled${reason}.`);
}

/** Waits `ms`; an abort ends the wait with EMERGENCY_STOPPED naming why. */
async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await wait(ms, signal);
  } catch (error) {
    if (signal?.aborted) throw cancelled(signal, 'The input');
    throw error;
  }
}

/** Keysym values of the modifier keys pressed for click modifiers. */
const MODIFIER_KEYSYM_VALUES: Record<ModifierKey, number> = {
  ctrl: 0xffe3, // Control_L
  alt: 0xffe9, // Alt_L
  shift: 0xffe1, // Shift_L
  meta: 0xffeb, // Super_L
};
/** Every modifier key released by releaseAll: Shift, Control, Alt, Meta, Super (left and right), AltGr. */
const ALL_MODIFIER_KEYSYM_VALUES = [
  0xffe1, 0xffe2, 0xffe3, 0xffe4, 0xffe7, 0xffe8, 0xffe9, 0xffea, 0xffeb, 0xffec, 0xfe03,
];
const ALL_MODIFIER_KEYSYM_NAMES = [
  'Shift_L',
  'Shift_R',
  'Control_L',
  'Control_R',
  'Meta_L',
  'Meta_R',
  'Alt_L',
  'Alt_R',
  'Super_L',
  'Super_R',
  'ISO_Level3_Shift',
];
const MOUSE_BUTTONS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3 };
/**
 * How long a button event may wait in the X server (a window manager deciding about a click) before
 * we go on anyway. Normally it is processed within a millisecond.
 */
const BUTTON_WAIT_MS = 1000;
/** The screen size is read again after this long (it changes with xrandr, rarely). */
const SCREEN_SIZE_TTL_MS = 2000;

export function createLinuxInput(env: NodeJS.ProcessEnv = process.env): InputAdapter {
  let screen: { size: Size; until: number } | undefined;
  /** One typing at a time: two would fight over the spare keycodes. */
  let typing: Promise<unknown> = Promise.resolve();
  const connect = reusableXConnection(env, () => {
    screen = undefined;
  });

  async function checkOnScreen(connection: XConnection, ...points: Point[]): Promise<void> {
    if (!screen || screen.until < Date.now()) {
      screen = { size: await connection.screenSize(), until: Date.now() + SCREEN_SIZE_TTL_MS };
    }
    const { size } = screen;
    for (const point of points) {
      if (
        !Number.isInteger(point.x) ||
        !Number.isInteger(point.y) ||
        point.x < 0 ||
        point.y < 0 ||
        point.x >= size.width ||
        point.y >= size.height
      ) {
        throw new AppError(
          'INVALID_INPUT',
          `(${point.x}, ${point.y}) is off the screen, which is ${size.width}×${size.height} pixels.`,
        );
      }
    }
  }

  /** Moves the pointer and waits until the server has applied it (one round trip). */
  async function moveTo(connection: XConnection, point: Point): Promise<void> {
    connection.fakeInput(X_EVENT.motion, 0, point.x, point.y);
    await connection.pointer();
  }

  /** Presses or releases a button and waits until the server has processed it (see x-connection.ts). */
  async function button(connection: XConnection, number: number, down: boolean): Promise<void> {
    connection.fakeInput(down ? X_EVENT.buttonPress : X_EVENT.buttonRelease, number);
    const mask = buttonMask(number);
    if (mask === 0) {
      await connection.pointer();
      return;
    }
    await connection.waitForButtons((state) => ((state & mask) !== 0) === down, BUTTON_WAIT_MS);
  }

  async function modifierKeycodes(connection: XConnection, modifiers: ModifierKey[]): Promise<number[]> {
    const keycodes: number[] = [];
    for (const modifier of modifiers) {
      const keycode = await connection.keycodeFor(MODIFIER_KEYSYM_VALUES[modifier]);
      if (keycode === undefined) {
        throw new AppError(
          'UNAVAILABLE',
          `The keyboard map has no key for ${X_KEYSYMS[modifier]}, so ${modifier} cannot be held.`,
        );
      }
      keycodes.push(keycode);
    }
    return keycodes;
  }

  const run = (
    command: string,
    args: string[],
    options: { input?: string; timeoutMs?: number; signal?: AbortSignal },
  ) =>
    runCommand(command, args, {
      env: xEnvironment(env),
      timeoutMs: options.timeoutMs ?? 5000,
      input: options.input,
      signal: options.signal,
      installHint: command === 'xmodmap' ? HINT_XMODMAP : HINT_XDOTOOL,
    }).catch((error: unknown) => {
      throw missingProgramIsUnavailable(error);
    });

  async function glide(
    connection: XConnection,
    to: Point,
    steps: number,
    signal: AbortSignal | undefined,
    what: string,
  ): Promise<void> {
    const from = await connection.pointer();
    for (const point of glidePath(from, to, steps)) {
      if (signal?.aborted) throw cancelled(signal, what);
      await moveTo(connection, point);
      if (point.x !== to.x || point.y !== to.y) await sleep(GLIDE_STEP_MS, signal);
    }
  }

  async function typeBatches(text: string, delayMs: number, signal: AbortSignal | undefined): Promise<void> {
    const { stdout } = await run('xmodmap', ['-pk'], {});
    const batches = planTyping(text.replace(/\r\n?/gu, '\n'), parseKeymap(stdout));
    const bound = new Set<number>();
    try {
      for (const batch of batches) {
        if (batch.bindings.length > 0) {
          // The app may still be reading the previous batch's keys: let it before their keycodes change.
          if (bound.size > 0) await sleep(TYPE_SETTLE_MS, signal);
          for (const { keycode } of batch.bindings) bound.add(keycode);
          await run('xmodmap', bindExpressions(batch.bindings), { signal });
        }
        for (const chunk of chunkText(batch.text)) {
          if (signal?.aborted) throw cancelled(signal, 'Typing');
          const timeoutMs = 5000 + [...chunk].length * (delayMs + 20);
          await run('xdotool', ['type', '--delay', String(delayMs), '--file', '-'], {
            input: chunk,
            timeoutMs,
            signal,
          });
        }
      }
    } finally {
      if (bound.size > 0) {
        // Not cancellable: the keycodes must go back even when the call was stopped.
        await wait(TYPE_SETTLE_MS);
        await run('xmodmap', restoreExpressions(bound), {}).catch(() => undefined);
      }
    }
  }

  return {
    pointer: async () => {
      const { x, y } = await (await connect()).pointer();
      return { x, y };
    },

    mouseMove: async (to, durationMs, signal) => {
      const connection = await connect();
      await checkOnScreen(connection, to);
      if (durationMs <= 0) {
        await moveTo(connection, to);
        return;
      }
      await glide(connection, to, Math.max(1, Math.round(durationMs / GLIDE_STEP_MS)), signal, 'The mouse move');
    },

    click: async (at: Point, which: MouseButton, count: number, modifiers: KeyName[]) => {
      const connection = await connect();
      await checkOnScreen(connection, at);
      const keycodes = await modifierKeycodes(connection, modifiersOf(modifiers));
      await moveTo(connection, at);
      const pressed: number[] = [];
      try {
        for (const keycode of keycodes) {
          connection.fakeInput(X_EVENT.keyPress, keycode);
          pressed.push(keycode);
        }
        for (let index = 0; index < Math.max(1, count); index++) {
          if (index > 0) await sleep(CLICK_GAP_MS);
          await button(connection, MOUSE_BUTTONS[which], true);
          await button(connection, MOUSE_BUTTONS[which], false);
        }
      } finally {
        for (const keycode of pressed.reverse()) connection.fakeInput(X_EVENT.keyRelease, keycode);
        if (pressed.length > 0) await connection.pointer();
      }
    },

    drag: async (from, to, durationMs, signal) => {
      const connection = await connect();
      await checkOnScreen(connection, from, to);
      if (signal?.aborted) throw cancelled(signal, 'The drag');
      await moveTo(connection, from);
      await button(connection, 1, true);
      try {
        const steps = Math.max(MIN_DRAG_STEPS, Math.round(durationMs / GLIDE_STEP_MS));
        await glide(connection, to, steps, signal, 'The drag');
      } finally {
        await button(connection, 1, false);
      }
    },

    scroll: async (at, direction, amount) => {
      const connection = await connect();
      await checkOnScreen(connection, at);
      const steps = wheelSteps(amount);
      await moveTo(connection, at);
      for (let step = 0; step < steps; step++) {
        await button(connection, wheelButton(direction), true);
        await button(connection, wheelButton(direction), false);
      }
    },

    typeText: async (text, delayMs, signal) => {
      if (text.length === 0) return;
      const delay = Math.max(0, Math.round(delayMs));
      const current = typing.catch(() => undefined).then(() => typeBatches(text, delay, signal));
      typing = current.catch(() => undefined);
      await current;
    },

    pressKeys: async (keys) => {
      const chord = normalizeChord(keys);
      if (chord.length === 0) throw new AppError('INVALID_INPUT', 'No keys to press.');
      await run('xdotool', ['key', '--delay', '0', xChord(chord)], {});
    },

    releaseAll: async () => {
      if (!env.DISPLAY) return 'nothing to release: no X display';
      const done = 'released modifier keys (shift, ctrl, alt, meta) and mouse buttons (left, middle, right)';
      // The X server ignores the release of a key or button that is not down, so release them all.
      try {
        const connection = await connect();
        for (const keysym of ALL_MODIFIER_KEYSYM_VALUES) {
          const keycode = await connection.keycodeFor(keysym);
          if (keycode !== undefined) connection.fakeInput(X_EVENT.keyRelease, keycode);
        }
        for (const number of [1, 2, 3]) connection.fakeInput(X_EVENT.buttonRelease, number);
        await connection.pointer();
        return done;
      } catch {
        // The connection may be what is broken: a separate program next.
      }
      try {
        await run(
          'xdotool',
          ['keyup', ...ALL_MODIFIER_KEYSYM_NAMES, 'mouseup', '1', 'mouseup', '2', 'mouseup', '3'],
          {},
        );
        return done;
      } catch (error) {
        return `could not release inputs: ${(error as Error).message}`;
      }
    },
  };
}

/** Canonical, de-duplicated modifiers; anything else is INVALID_INPUT. */
export function modifiersOf(keys: readonly KeyName[]): ModifierKey[] {
  const result: ModifierKey[] = [];
  for (const raw of keys) {
    const key = normalizeKey(raw);
    if (!isModifier(key)) {
      throw new AppError('INVALID_INPUT', `"${raw}" is not a modifier key; use shift, ctrl, alt or cmd (meta).`);
    }
    if (!result.includes(key)) result.push(key);
  }
  return result;
}
