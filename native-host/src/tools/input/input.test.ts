import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { createFakeDesktop } from '../../platform/fake-desktop.js';
import { callTool, testContext, testServices } from '../test-support.js';
import { canonicalModifiers, createInputHandlers } from './index.js';

/** A 2560×1440 screen whose last screenshot was scaled by 0.5 to 1280×720. */
function setup() {
  const fake = createFakeDesktop({ size: { width: 2560, height: 1440 } });
  const services = testServices(fake.desktop);
  services.screenSpace.remember({
    area: { x: 0, y: 0, width: 2560, height: 1440 },
    scale: 0.5,
    image: { width: 1280, height: 720 },
  });
  const { handlers } = createInputHandlers(services);
  return { fake, services, handlers };
}

describe('mouse tools map screenshot pixels to the screen', () => {
  it('clicks at the screen pixel under the image pixel and reports the image position', async () => {
    const { fake, handlers } = setup();
    const result = await callTool('left_click', handlers.left_click, { x: 100, y: 50 });
    expect(fake.actions).toEqual([{ op: 'click', args: [{ x: 201, y: 101 }, 'left', 1, []] }]);
    expect(result).toMatchObject({ success: true, position: { x: 100, y: 50 } });
    expect((result as { message: string }).message).toContain('screen pixel (201, 101)');
  });

  it('right-clicks and double-clicks with the right button and count', async () => {
    const { fake, handlers } = setup();
    await callTool('right_click', handlers.right_click, { x: 0, y: 0 });
    await callTool('double_click', handlers.double_click, { x: 1279, y: 719 });
    expect(fake.actions).toEqual([
      { op: 'click', args: [{ x: 1, y: 1 }, 'right', 1, []] },
      { op: 'click', args: [{ x: 2559, y: 1439 }, 'left', 2, []] },
    ]);
  });

  it('holds canonical modifiers: cmd is meta, duplicates dropped', async () => {
    const { fake, handlers } = setup();
    const result = await callTool('left_click', handlers.left_click, {
      x: 10,
      y: 10,
      modifiers: ['cmd', 'shift', 'cmd'],
    });
    expect(fake.actions[0]!.args[3]).toEqual(['meta', 'shift']);
    expect((result as { message: string }).message).toContain('holding meta+shift');
  });

  it('moves smoothly with the duration, or at once when smooth is false', async () => {
    const { fake, handlers } = setup();
    const result = await callTool('mouse_move', handlers.mouse_move, { x: 640, y: 360 });
    await callTool('mouse_move', handlers.mouse_move, { x: 10, y: 20, smooth: false, duration: 900 });
    expect(fake.actions).toEqual([
      { op: 'mouseMove', args: [{ x: 1281, y: 721 }, 100] },
      { op: 'mouseMove', args: [{ x: 21, y: 41 }, 0] },
    ]);
    expect(result).toMatchObject({ position: { x: 640, y: 360 } });
  });

  it('drags between mapped points and echoes the image coordinates', async () => {
    const { fake, handlers } = setup();
    const result = await callTool('mouse_drag', handlers.mouse_drag, { from_x: 10, from_y: 10, to_x: 300, to_y: 200 });
    expect(fake.actions).toEqual([{ op: 'drag', args: [{ x: 21, y: 21 }, { x: 601, y: 401 }, 500] }]);
    expect(result).toMatchObject({ from: { x: 10, y: 10 }, to: { x: 300, y: 200 } });
  });

  it('scrolls at the mapped point with direction and amount', async () => {
    const { fake, handlers } = setup();
    await callTool('scroll', handlers.scroll, { x: 50, y: 60, direction: 'left' });
    expect(fake.actions).toEqual([{ op: 'scroll', args: [{ x: 101, y: 121 }, 'left', 300] }]);
  });

  it('maps through a region screenshot (offset frame)', async () => {
    const { fake, services, handlers } = setup();
    services.screenSpace.remember({
      area: { x: 1000, y: 500, width: 400, height: 300 },
      scale: 1,
      image: { width: 400, height: 300 },
    });
    await callTool('left_click', handlers.left_click, { x: 5, y: 6 });
    expect(fake.actions[0]!.args[0]).toEqual({ x: 1005, y: 506 });
  });

  it('refuses points outside the latest screenshot, naming its size, and does nothing', async () => {
    const { fake, handlers } = setup();
    const error = await callTool('left_click', handlers.left_click, { x: 1280, y: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'INVALID_INPUT' });
    expect((error as Error).message).toContain('1280×720');
    await expect(
      callTool('mouse_drag', handlers.mouse_drag, { from_x: 0, from_y: 0, to_x: 10, to_y: 9999 }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(fake.actions).toEqual([]);
  });

  it('refuses negative coordinates and unknown modifiers at the schema', async () => {
    const { handlers } = setup();
    await expect(callTool('left_click', handlers.left_click, { x: -1, y: 0 })).rejects.toThrow();
    await expect(callTool('left_click', handlers.left_click, { x: 1, y: 0, modifiers: ['hyper'] })).rejects.toThrow();
  });
});

describe('keyboard tools', () => {
  it('types text with the delay and counts code points', async () => {
    const { fake, handlers } = setup();
    const result = await callTool('type_text', handlers.type_text, { text: 'a你😀', delay: 0 });
    expect(fake.actions).toEqual([{ op: 'typeText', args: ['a你😀', 0] }]);
    expect(result).toMatchObject({ success: true, characters: 3 });
  });

  it('presses canonical chords, modifiers first', async () => {
    const { fake, handlers } = setup();
    const result = await callTool('key_press', handlers.key_press, { keys: ['C', 'Control'] });
    expect(fake.actions).toEqual([{ op: 'pressKeys', args: [['ctrl', 'c']] }]);
    expect(result).toMatchObject({ keys: ['ctrl', 'c'], message: 'Pressed ctrl+c.' });
  });

  it('sends hotkeys with cmd/super/win as meta and says why', async () => {
    const { fake, handlers } = setup();
    const result = await callTool('hotkey', handlers.hotkey, { keys: ['cmd', 'Tab'], reason: 'switch apps' });
    await callTool('hotkey', handlers.hotkey, { keys: ['win'], reason: 'open the menu' });
    expect(fake.actions).toEqual([
      { op: 'pressKeys', args: [['meta', 'tab']] },
      { op: 'pressKeys', args: [['meta']] },
    ]);
    expect((result as { message: string }).message).toContain('switch apps');
  });

  it('refuses unknown key names with the list of valid ones, and duplicates', async () => {
    const { fake, handlers } = setup();
    const error = await callTool('key_press', handlers.key_press, { keys: ['ctrl', 'banana'] }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'INVALID_INPUT' });
    expect((error as Error).message).toMatch(/Unknown key "banana".*enter.*pagedown.*f24/u);
    await expect(callTool('key_press', handlers.key_press, { keys: ['a', 'A'] })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(fake.actions).toEqual([]);
  });

  it('passes the call signal to typing and gliding', async () => {
    const { services } = setup();
    const seen: Array<AbortSignal | undefined> = [];
    services.desktop.input.typeText = async (_text, _delay, signal) => {
      seen.push(signal);
    };
    const { handlers } = createInputHandlers(services);
    const context = testContext();
    await callTool('type_text', handlers.type_text, { text: 'x' }, context);
    expect(seen).toEqual([context.signal]);
  });
});

it('canonicalModifiers accepts the spellings models use', () => {
  expect(canonicalModifiers(['Command', 'option', 'Control', '⇧'])).toEqual(['meta', 'alt', 'ctrl', 'shift']);
  expect(() => canonicalModifiers(['tab'])).toThrow(/not a modifier/u);
});

describe("the agent's input stays off NextAI's own pages", () => {
  /** The side panel at screen pixels 2000–2400 × 0–1400 (DIPs at scale 2), as the browser reported it. */
  function withPanel(focused: boolean) {
    const context = setup();
    context.services.ownSurfaces.report('browser', [
      { kind: 'panel', focused, rects: [{ x: 1000, y: 0, width: 200, height: 700 }], scale: 2 },
    ]);
    return context;
  }

  it('sends no click, drag or scroll that would land on the panel', async () => {
    const { fake, handlers } = withPanel(false);
    // Image pixel (1100, 300) is screen pixel (2201, 601): on the panel.
    for (const call of [
      callTool('left_click', handlers.left_click, { x: 1100, y: 300 }),
      callTool('double_click', handlers.double_click, { x: 1100, y: 300 }),
      callTool('right_click', handlers.right_click, { x: 1100, y: 300 }),
      callTool('scroll', handlers.scroll, { x: 1100, y: 300, direction: 'down', amount: 100 }),
      callTool('mouse_drag', handlers.mouse_drag, { from_x: 10, from_y: 10, to_x: 1100, to_y: 300 }),
    ]) {
      await expect(call).rejects.toMatchObject({ code: 'POLICY_BLOCKED' });
    }
    expect(fake.actions).toEqual([]);
    // Beside the panel the click goes through; moving over it clicks nothing and is allowed.
    await callTool('left_click', handlers.left_click, { x: 900, y: 300 });
    await callTool('mouse_move', handlers.mouse_move, { x: 1100, y: 300, smooth: false });
    expect(fake.actions.map((action) => action.op)).toEqual(['click', 'mouseMove']);
  });

  it('sends no keys while the panel has the keyboard focus', async () => {
    const { fake, handlers, services } = withPanel(true);
    await expect(callTool('type_text', handlers.type_text, { text: 'approve' })).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
    });
    await expect(callTool('key_press', handlers.key_press, { keys: ['enter'] })).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
    });
    await expect(callTool('hotkey', handlers.hotkey, { keys: ['ctrl', 'v'], reason: 'paste' })).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
    });
    expect(fake.actions).toEqual([]);
    services.ownSurfaces.report('browser', []);
    await callTool('key_press', handlers.key_press, { keys: ['enter'] });
    expect(fake.actions).toEqual([{ op: 'pressKeys', args: [['enter']] }]);
  });
});
