import { describe, expect, it } from 'vitest';

import { NAMED_KEYS } from '../keys.js';
import {
  MACOS_KEY_CODES,
  MACOS_MISSING_KEYS,
  MODIFIER_FLAGS,
  macosChord,
  macosKeyStroke,
  macosModifiers,
  macosTypingPlan,
} from './keys.js';

describe('macOS key codes', () => {
  it('cover every canonical named key except those macOS lacks', () => {
    const covered = [...Object.keys(MACOS_KEY_CODES), ...MACOS_MISSING_KEYS].sort();
    expect(covered).toEqual([...NAMED_KEYS].sort());
    for (const missing of MACOS_MISSING_KEYS) expect(() => macosKeyStroke(missing)).toThrow(/macOS has no F2/);
  });

  it('use the HIToolbox codes, modifiers carrying their flag', () => {
    expect(macosKeyStroke('meta')).toEqual({ code: 55, flag: MODIFIER_FLAGS.meta });
    expect(macosKeyStroke('enter')).toEqual({ code: 36, flag: 0 });
    expect(macosKeyStroke('backspace')).toEqual({ code: 51, flag: 0 });
    expect(macosKeyStroke('delete')).toEqual({ code: 117, flag: 0 });
  });

  it('press ANSI characters by position, shifted ones with Shift, others as Unicode text', () => {
    expect(macosKeyStroke('c')).toEqual({ code: 8, flag: 0 });
    expect(macosKeyStroke('!')).toEqual({ code: 18, flag: MODIFIER_FLAGS.shift });
    expect(macosKeyStroke('é')).toEqual({ code: 0, flag: 0, text: 'é' });
    expect(() => macosKeyStroke('hyper')).toThrow(/not supported on macOS/);
  });

  it('read chords and click modifiers through the aliases', () => {
    expect(macosChord(['cmd', 'shift', 'z'])).toEqual([
      { code: 55, flag: MODIFIER_FLAGS.meta },
      { code: 56, flag: MODIFIER_FLAGS.shift },
      { code: 6, flag: 0 },
    ]);
    expect(macosModifiers(['option'])).toEqual([{ code: 58, flag: MODIFIER_FLAGS.alt }]);
    expect(() => macosModifiers(['x'])).toThrow(/not a modifier/);
  });
});

describe('macosTypingPlan', () => {
  it('chunks text to 20 units without splitting surrogate pairs, line breaks and tabs as keys', () => {
    const plan = macosTypingPlan(`${'😀'.repeat(15)}\r\nb\tc`, 0);
    expect(plan.at(-4)).toEqual({ code: 36 });
    expect(plan.slice(-3)).toEqual([{ text: 'b' }, { code: 48 }, { text: 'c' }]);
    const chunks = plan.slice(0, -4) as Array<{ text: string }>;
    expect(chunks.map((item) => item.text).join('')).toBe('😀'.repeat(15));
    for (const item of chunks) expect(item.text.length <= 20 && item.text.length % 2 === 0).toBe(true);
  });

  it('sends one character per event with a delay', () => {
    expect(macosTypingPlan('ab', 10)).toEqual([{ text: 'a' }, { text: 'b' }]);
  });
});
