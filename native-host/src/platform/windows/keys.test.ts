import { describe, expect, it } from 'vitest';

import { NAMED_KEYS } from '../keys.js';
import {
  WINDOWS_MODIFIER_KEYS,
  WINDOWS_NAMED_KEYS,
  windowsChord,
  windowsKeyStroke,
  windowsModifiers,
  windowsTypingPlan,
} from './keys.js';

describe('Windows virtual-key table', () => {
  it('covers every canonical named key with a distinct virtual key', () => {
    expect(Object.keys(WINDOWS_NAMED_KEYS).sort()).toEqual([...NAMED_KEYS].sort());
    const codes = Object.values(WINDOWS_NAMED_KEYS).map((key) => key.vk);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('uses the WinUser.h codes, with the extended flag on the extended block', () => {
    expect(WINDOWS_NAMED_KEYS.meta).toEqual({ vk: 0x5b, extended: true });
    expect(WINDOWS_NAMED_KEYS.enter).toEqual({ vk: 0x0d, extended: false });
    expect(WINDOWS_NAMED_KEYS.f1).toEqual({ vk: 0x70, extended: false });
    expect(WINDOWS_NAMED_KEYS.f24).toEqual({ vk: 0x87, extended: false });
    for (const name of ['up', 'down', 'left', 'right', 'home', 'end', 'pageup', 'pagedown', 'insert', 'delete']) {
      expect(WINDOWS_NAMED_KEYS[name]!.extended).toBe(true);
    }
    expect(WINDOWS_NAMED_KEYS.backspace!.extended).toBe(false);
  });

  it('maps letters and digits to layout-independent keys and leaves other characters to the layout', () => {
    expect(windowsKeyStroke('c')).toEqual({ vk: 0x43, extended: false });
    expect(windowsKeyStroke('7')).toEqual({ vk: 0x37, extended: false });
    expect(windowsKeyStroke(';')).toEqual({ character: ';' });
    expect(windowsKeyStroke('é')).toEqual({ character: 'é' });
    expect(() => windowsKeyStroke('hyper')).toThrow(/not supported on Windows/);
  });

  it('reads chords through the canonical aliases (win, cmd = meta)', () => {
    expect(windowsChord(['Win', 'R'])).toEqual([WINDOWS_NAMED_KEYS.meta, { vk: 0x52, extended: false }]);
    expect(windowsChord(['Ctrl', 'Shift', 'Esc'])).toEqual([
      WINDOWS_NAMED_KEYS.ctrl,
      WINDOWS_NAMED_KEYS.shift,
      WINDOWS_NAMED_KEYS.escape,
    ]);
    expect(() => windowsChord([])).toThrow(/at least one key/);
    expect(() => windowsChord(['ctrl', 'bogus'])).toThrow(/Unknown key "bogus"/);
  });

  it('accepts only modifiers for clicks', () => {
    expect(windowsModifiers(['shift', 'cmd'])).toEqual([WINDOWS_NAMED_KEYS.shift, WINDOWS_NAMED_KEYS.meta]);
    expect(() => windowsModifiers(['a'])).toThrow(/not a modifier/);
  });

  it('releases left, right and generic modifiers', () => {
    expect(WINDOWS_MODIFIER_KEYS.map((key) => key.vk)).toEqual([
      0x10, 0x11, 0x12, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0x5b, 0x5c,
    ]);
  });
});

describe('windowsTypingPlan', () => {
  it('types text in chunks and line breaks and tabs as keys', () => {
    expect(windowsTypingPlan('ab\r\ncd\te', 0)).toEqual([
      { text: 'ab' },
      WINDOWS_NAMED_KEYS.enter,
      { text: 'cd' },
      WINDOWS_NAMED_KEYS.tab,
      { text: 'e' },
    ]);
  });

  it('never splits a surrogate pair and keeps chunks at most 64 units', () => {
    const text = '😀'.repeat(100);
    const plan = windowsTypingPlan(text, 0) as Array<{ text: string }>;
    expect(plan.map((item) => item.text).join('')).toBe(text);
    for (const item of plan) {
      expect(item.text.length).toBeLessThanOrEqual(64);
      expect(item.text.length % 2).toBe(0);
    }
  });

  it('sends one character per item with a delay', () => {
    expect(windowsTypingPlan('中文😀', 50)).toEqual([{ text: '中' }, { text: '文' }, { text: '😀' }]);
  });
});
