import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { NAMED_KEYS, normalizeChord } from '../keys.js';
import {
  bindExpressions,
  chunkText,
  glidePath,
  keysymValue,
  modifiersOf,
  parseKeymap,
  planTyping,
  restoreExpressions,
  wheelButton,
  wheelSteps,
  xChord,
  xKeysym,
  X_KEYSYMS,
} from './input.js';

/** A piece of `xmodmap -pk` as Xvfb prints it: keycode 8 and 93 empty. */
const XMODMAP_PK = `There are 7 KeySyms per KeyCode; KeyCodes range from 8 to 255.

    KeyCode\tKeysym (Keysym)\t...
    Value  \tValue   (Name) \t...

      8    \t
      9    \t0xff1b (Escape)\t0x0000 (NoSymbol)\t0xff1b (Escape)\t
     10    \t0x0031 (1)\t0x0021 (exclam)\t0x0031 (1)\t0x0021 (exclam)\t
     38    \t0x0061 (a)\t0x0041 (A)\t0x0061 (a)\t0x0041 (A)\t
     65    \t0x0020 (space)\t0x0000 (NoSymbol)\t0x0020 (space)\t
     93    \t0x0000 (NoSymbol)\t0x0000 (NoSymbol)\t
    118    \t0xff63 (Insert)\t0x0000 (NoSymbol)\t0xff63 (Insert)\t
`;

describe('X keysyms for canonical keys', () => {
  it('names every named canonical key with a keysym', () => {
    for (const key of NAMED_KEYS) expect(X_KEYSYMS[key], key).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/u);
    expect(X_KEYSYMS.meta).toBe('Super_L');
    expect(X_KEYSYMS.pagedown).toBe('Next');
    expect(X_KEYSYMS.f24).toBe('F24');
  });

  it('keeps letters and digits, names other characters by code point', () => {
    expect(xKeysym('a')).toBe('a');
    expect(xKeysym('7')).toBe('7');
    expect(xKeysym('+')).toBe('U002B');
    expect(xKeysym('-')).toBe('U002D');
    expect(xKeysym('你')).toBe('U4F60');
    expect(xKeysym('😀')).toBe('U1F600');
  });

  it('builds xdotool chords from what models write', () => {
    expect(xChord(normalizeChord(['Cmd', 'Shift', 'T']))).toBe('Super_L+Shift_L+t');
    expect(xChord(normalizeChord(['ctrl', 'c']))).toBe('Control_L+c');
    expect(xChord(normalizeChord(['Control', '+']))).toBe('Control_L+U002B');
    expect(xChord(normalizeChord(['super']))).toBe('Super_L');
    expect(xChord(normalizeChord(['alt', 'F4']))).toBe('Alt_L+F4');
    expect(xChord(normalizeChord(['Return']))).toBe('Return');
  });

  it('refuses unknown key names, listing the valid ones', () => {
    expect(() => normalizeChord(['ctrl', 'hyperspace'])).toThrow(/Unknown key "hyperspace".*pagedown/u);
    expect(() => xKeysym('hyperspace')).toThrow(AppError);
  });

  it('accepts only modifiers as click modifiers, cmd meaning meta', () => {
    expect(modifiersOf(['cmd', 'Shift', 'shift'])).toEqual(['meta', 'shift']);
    expect(() => modifiersOf(['a'])).toThrow(/not a modifier/u);
  });
});

describe('typing plan', () => {
  const keymap = parseKeymap(XMODMAP_PK);

  it('reads keysyms and free keycodes from xmodmap -pk', () => {
    expect(keymap.freeKeycodes).toEqual([8, 93]);
    expect(keymap.keysyms.has(0x21)).toBe(true);
    expect(keymap.keysyms.has(0x61)).toBe(true);
    expect(keymap.keysyms.has(0)).toBe(false);
  });

  it('uses Latin-1 keysyms for Latin-1 and 0x1000000 + code point beyond', () => {
    expect(keysymValue('!'.codePointAt(0)!)).toBe(0x21);
    expect(keysymValue('é'.codePointAt(0)!)).toBe(0xe9);
    expect(keysymValue('你'.codePointAt(0)!)).toBe(0x1004f60);
  });

  it('binds nothing for text the keymap has', () => {
    expect(planTyping('a! a\n\t', keymap)).toEqual([{ bindings: [], text: 'a! a\n\t' }]);
  });

  it('binds each distinct missing character once per batch, and splits when keycodes run out', () => {
    const plan = planTyping('你a你好!世', keymap);
    expect(plan).toEqual([
      {
        bindings: [
          { keycode: 8, char: '你' },
          { keycode: 93, char: '好' },
        ],
        text: '你a你好!',
      },
      { bindings: [{ keycode: 8, char: '世' }], text: '世' },
    ]);
    expect(plan.map((batch) => batch.text).join('')).toBe('你a你好!世');
  });

  it('keeps astral characters (emoji) whole', () => {
    const plan = planTyping('😀a', keymap);
    expect(plan[0]!.bindings).toEqual([{ keycode: 8, char: '😀' }]);
    expect(bindExpressions(plan[0]!.bindings)).toEqual(['-e', 'keycode 8 = U1F600 U1F600']);
    expect(restoreExpressions([8, 93])).toEqual(['-e', 'keycode 8 =', '-e', 'keycode 93 =']);
  });

  it('refuses control characters other than newline and tab', () => {
    expect(() => planTyping('a\u0007b', keymap)).toThrow(/U\+0007/u);
  });

  it('says so when the keymap has no free keycode', () => {
    expect(() => planTyping('你', { keysyms: new Set(), freeKeycodes: [] })).toThrow(/no free keycode/u);
  });

  it('chunks by code points', () => {
    expect(chunkText('😀😀😀', 2)).toEqual(['😀😀', '😀']);
    expect(chunkText('', 2)).toEqual([]);
  });
});

describe('mouse arithmetic', () => {
  it('turns pixels into wheel steps of 100 px, at least one', () => {
    expect(wheelSteps(300)).toBe(3);
    expect(wheelSteps(20)).toBe(1);
    expect(wheelSteps(149)).toBe(1);
    expect(wheelSteps(150)).toBe(2);
    expect(() => wheelSteps(0)).toThrow(/positive/u);
  });

  it('maps directions onto X wheel buttons (4 up, 5 down, 6 left, 7 right)', () => {
    expect(['up', 'down', 'left', 'right'].map((d) => wheelButton(d as 'up'))).toEqual([4, 5, 6, 7]);
  });

  it('glides along a path that ends exactly at the target', () => {
    const path = glidePath({ x: 0, y: 0 }, { x: 101, y: -50 }, 10);
    expect(path).toHaveLength(10);
    expect(path.at(-1)).toEqual({ x: 101, y: -50 });
    for (let index = 1; index < path.length; index++) expect(path[index]!.x).toBeGreaterThanOrEqual(path[index - 1]!.x);
    expect(glidePath({ x: 5, y: 5 }, { x: 9, y: 9 }, 1)).toEqual([{ x: 9, y: 9 }]);
  });
});
