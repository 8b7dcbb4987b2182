import { describe, expect, it } from 'vitest';

import { WINDOWS_NAMED_KEYS } from './keys.js';
import { WINDOWS_INPUT_SCRIPT, createWindowsInput, windowsInputRequests, windowsScrollSteps } from './input.js';
import { NATIVE_TYPE } from './native.js';
import { BLOCKED_INPUT_MESSAGE } from './powershell.js';
import { HOSTILE_STRINGS, fakePowerShell } from './test-support.js';

describe('Windows input requests', () => {
  it('rounds coordinates to physical pixels and refuses non-numbers', () => {
    expect(windowsInputRequests.move({ x: 10.4, y: -20.6 }, 0)).toEqual({
      op: 'move',
      to: { x: 10, y: -21 },
      durationMs: 0,
    });
    expect(() => windowsInputRequests.move({ x: Number.NaN, y: 1 }, 0)).toThrow(/Coordinates must be numbers/);
    expect(() => windowsInputRequests.drag({ x: 1, y: 1 }, { x: Infinity, y: 1 }, 0)).toThrow(/Coordinates/);
  });

  it('builds clicks with held modifiers and checks button and count', () => {
    expect(windowsInputRequests.click({ x: 5, y: 6 }, 'right', 2, ['ctrl', 'win'])).toEqual({
      op: 'click',
      at: { x: 5, y: 6 },
      button: 'right',
      count: 2,
      modifiers: [WINDOWS_NAMED_KEYS.ctrl, WINDOWS_NAMED_KEYS.meta],
    });
    expect(() => windowsInputRequests.click({ x: 0, y: 0 }, 'left', 4, [])).toThrow(/1, 2 or 3/);
    expect(() => windowsInputRequests.click({ x: 0, y: 0 }, 'back' as 'left', 1, [])).toThrow(/Unknown mouse button/);
    expect(() => windowsInputRequests.click({ x: 0, y: 0 }, 'left', 1, ['q'])).toThrow(/not a modifier/);
  });

  it('scrolls in whole notches of 120, signs as Windows reads them', () => {
    expect(windowsScrollSteps('up', 100)).toEqual([
      { delta: 120, horizontal: false },
      { delta: 120, horizontal: false },
    ]);
    expect(windowsScrollSteps('down', 10)).toEqual([{ delta: -120, horizontal: false }]);
    expect(windowsScrollSteps('right', 50)).toEqual([{ delta: 120, horizontal: true }]);
    expect(windowsScrollSteps('left', 50)).toEqual([{ delta: -120, horizontal: true }]);
    expect(() => windowsScrollSteps('up', 0)).toThrow(/positive number/);
  });

  it('puts modifiers first in chords and refuses duplicates', () => {
    expect(windowsInputRequests.keys(['t', 'ctrl'])).toEqual({
      op: 'keys',
      keys: [WINDOWS_NAMED_KEYS.ctrl, { vk: 0x54, extended: false }],
    });
    expect(() => windowsInputRequests.keys(['a', 'A'])).toThrow(/twice/);
  });
});

describe('createWindowsInput', () => {
  it('sends every operation to the one input script', async () => {
    const host = fakePowerShell((request) => (request.op === 'pointer' ? { x: 3, y: 4 } : { done: true }));
    const input = createWindowsInput({ powershell: host });
    await expect(input.pointer()).resolves.toEqual({ x: 3, y: 4 });
    await input.mouseMove({ x: 1, y: 2 }, 300);
    await input.click({ x: 1, y: 2 }, 'left', 1, []);
    await input.drag({ x: 1, y: 2 }, { x: 3, y: 4 }, 0);
    await input.scroll({ x: 1, y: 2 }, 'down', 200);
    await input.pressKeys(['alt', 'f4']);
    expect(host.calls.map((call) => call.request.op)).toEqual(['pointer', 'move', 'click', 'drag', 'scroll', 'keys']);
    expect(new Set(host.calls.map((call) => call.script))).toEqual(new Set([WINDOWS_INPUT_SCRIPT]));
    // A 300 ms glide gets more than the default time.
    expect(host.calls[1]!.options?.timeoutMs).toBeGreaterThan(host.calls[0]!.options!.timeoutMs!);
  });

  it('types hostile text as data in the request, never in the script', async () => {
    const host = fakePowerShell(() => ({ done: true }));
    const input = createWindowsInput({ powershell: host });
    for (const text of HOSTILE_STRINGS) {
      await input.typeText(text, 0);
      const items = host.calls.at(-1)!.request.items as Array<{ text?: string; vk?: number }>;
      const typed = items.map((item) => item.text ?? (item.vk === 0x0d ? '\n' : '\t')).join('');
      expect(typed).toBe(text.replace(/\r\n?/g, '\n'));
      expect(host.calls.at(-1)!.script).toBe(WINDOWS_INPUT_SCRIPT);
    }
  });

  it('says what releaseAll released', async () => {
    const host = fakePowerShell(() => ({ released: ['key 0x11', 'left button'] }));
    await expect(createWindowsInput({ powershell: host }).releaseAll()).resolves.toBe('released key 0x11, left button');
    const idle = fakePowerShell(() => ({ released: [] }));
    await expect(createWindowsInput({ powershell: idle }).releaseAll()).resolves.toBe(
      'no key or mouse button was held',
    );
  });

  it('reports input Windows blocked (UIPI, secure desktop) as UNAVAILABLE with the fix', async () => {
    const host = fakePowerShell(() => ({ ok: false, code: 'BLOCKED_INPUT', message: 'SendInput sent 0 of 2 events' }));
    await expect(createWindowsInput({ powershell: host }).click({ x: 1, y: 1 }, 'left', 1, [])).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: BLOCKED_INPUT_MESSAGE,
    });
  });

  it('has a script that loads the helper and handles every operation', () => {
    expect(WINDOWS_INPUT_SCRIPT).toMatch(/^\s*param\(\$Request\)/);
    expect(WINDOWS_INPUT_SCRIPT).toContain(`$W = [${NATIVE_TYPE}]`);
    for (const op of ['pointer', 'move', 'click', 'drag', 'scroll', 'type', 'keys', 'release']) {
      expect(WINDOWS_INPUT_SCRIPT).toContain(`'${op}' {`);
    }
    expect(WINDOWS_INPUT_SCRIPT).toContain('@{ vk = 91; extended = $true }');
    expect(WINDOWS_INPUT_SCRIPT).toContain('$W::KeyForCharacter(');
    expect(WINDOWS_INPUT_SCRIPT).toContain('} finally {');
  });
});
