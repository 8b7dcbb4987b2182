import { describe, expect, it } from 'vitest';

import { HOSTILE_STRINGS } from '../windows/test-support.js';
import { MACOS_INPUT_SCRIPT, createMacosInput, macosInputRequests, macosScrollSteps } from './input.js';
import { ACCESSIBILITY_MESSAGE, jxaError, type JxaHost } from './jxa.js';
import { fakeObjC, loadJxa } from './jxa-sandbox.js';
import { MODIFIER_FLAGS } from './keys.js';

type Posted = {
  kind: string;
  type?: number;
  code?: number;
  down?: boolean;
  flags?: number;
  x?: number;
  y?: number;
  text?: string;
  click?: number;
};

/** A recording Quartz: every posted event, in order. */
function recordingBridge(options: { trusted?: boolean; held?: number[]; buttons?: number[] } = {}) {
  const posted: Posted[] = [];
  const $ = Object.assign((text: string) => ({ dataUsingEncoding: () => ({ bytes: text }) }), {
    CGEventCreate: () => ({}),
    CGEventGetLocation: () => ({ x: 5, y: 6 }),
    CGPointMake: (x: number, y: number) => ({ x, y }),
    CGEventCreateMouseEvent: (_source: null, type: number, point: { x: number; y: number }) => ({
      kind: 'mouse',
      type,
      x: point.x,
      y: point.y,
    }),
    CGEventCreateKeyboardEvent: (_source: null, code: number, down: boolean) => ({ kind: 'key', code, down }),
    CGEventKeyboardSetUnicodeString: (event: Posted, _length: number, bytes: string) => {
      event.text = bytes;
    },
    CGEventSetFlags: (event: Posted, flags: number) => {
      event.flags = flags;
    },
    CGEventSetIntegerValueField: (event: Posted, _field: number, value: number) => {
      event.click = value;
    },
    CGEventPost: (_tap: number, event: Posted) => posted.push({ ...event }),
    CGEventSourceKeyState: (_state: number, code: number) => (options.held ?? []).includes(code),
    CGEventSourceButtonState: (_state: number, button: number) => (options.buttons ?? []).includes(button),
    CGEventCreateScrollWheelEvent2: (
      _s: null,
      _units: number,
      _count: number,
      vertical: number,
      horizontal: number,
    ) => ({
      kind: 'scroll',
      x: horizontal,
      y: vertical,
    }),
    AXIsProcessTrusted: () => options.trusted ?? true,
  });
  const { main } = loadJxa(MACOS_INPUT_SCRIPT, { $, ObjC: fakeObjC() }, ['main']);
  return { posted, main: (request: unknown) => main(JSON.parse(JSON.stringify(request))) };
}

describe('macOS input requests', () => {
  it('validate coordinates, buttons, counts and modifiers', () => {
    expect(() => macosInputRequests.move({ x: Number.NaN, y: 0 }, 0)).toThrow(/Coordinates/);
    expect(() => macosInputRequests.click({ x: 0, y: 0 }, 'left', 0, [])).toThrow(/1, 2 or 3/);
    expect(() => macosInputRequests.click({ x: 0, y: 0 }, 'left', 1, ['a'])).toThrow(/not a modifier/);
    expect(() => macosInputRequests.keys([])).toThrow(/at least one key/);
  });

  it('scroll in steps of at most 100 pixels with Quartz signs', () => {
    expect(macosScrollSteps('down', 250)).toEqual([
      { vertical: -100, horizontal: 0 },
      { vertical: -100, horizontal: 0 },
      { vertical: -50, horizontal: 0 },
    ]);
    expect(macosScrollSteps('left', 30)).toEqual([{ vertical: 0, horizontal: 30 }]);
    expect(() => macosScrollSteps('up', -1)).toThrow(/positive/);
  });
});

describe('the input script (run against a recording Quartz)', () => {
  it('clicks with modifiers held around every press, then releases them in reverse', () => {
    const bridge = recordingBridge();
    bridge.main(macosInputRequests.click({ x: 10, y: 20 }, 'right', 2, ['cmd', 'shift']));
    const meta = MODIFIER_FLAGS.meta;
    const both = meta | MODIFIER_FLAGS.shift;
    expect(bridge.posted).toEqual([
      { kind: 'key', code: 55, down: true, flags: meta },
      { kind: 'key', code: 56, down: true, flags: both },
      { kind: 'mouse', type: 5, x: 10, y: 20, flags: both },
      { kind: 'mouse', type: 3, x: 10, y: 20, flags: both, click: 1 },
      { kind: 'mouse', type: 4, x: 10, y: 20, flags: both, click: 1 },
      { kind: 'mouse', type: 3, x: 10, y: 20, flags: both, click: 2 },
      { kind: 'mouse', type: 4, x: 10, y: 20, flags: both, click: 2 },
      { kind: 'key', code: 56, down: false, flags: both },
      { kind: 'key', code: 55, down: false, flags: meta },
    ]);
  });

  it('types text as Unicode key events and line breaks as Return', () => {
    const bridge = recordingBridge();
    bridge.main(macosInputRequests.type('中\n', 0));
    expect(bridge.posted.map((event) => [event.code, event.down, event.text])).toEqual([
      [0, true, '中'],
      [0, false, '中'],
      [36, true, undefined],
      [36, false, undefined],
    ]);
  });

  it('drags with the button released even at the end of a glide', () => {
    const bridge = recordingBridge();
    bridge.main(macosInputRequests.drag({ x: 0, y: 0 }, { x: 30, y: 0 }, 30));
    expect(bridge.posted.map((event) => event.type)).toEqual([5, 1, 6, 6, 2]);
    expect(bridge.posted.at(-1)).toMatchObject({ x: 30, y: 0 });
  });

  it('releases only what is held', () => {
    const bridge = recordingBridge({ held: [59], buttons: [0] });
    expect(bridge.main(macosInputRequests.release())).toEqual(['key 59', 'left button']);
    expect(bridge.posted).toEqual([
      { kind: 'key', code: 59, down: false, flags: 0 },
      { kind: 'mouse', type: 2, x: 5, y: 6, flags: 0 },
    ]);
  });

  it('refuses to post without the Accessibility permission', () => {
    const bridge = recordingBridge({ trusted: false });
    expect(() => bridge.main(macosInputRequests.click({ x: 1, y: 1 }, 'left', 1, []))).toThrow(/Accessibility/);
    expect(bridge.posted).toEqual([]);
  });
});

describe('createMacosInput', () => {
  it('passes hostile text as request data and maps missing Accessibility to its setting', async () => {
    const requests: unknown[] = [];
    const jxa: JxaHost = {
      run: async (script, request) => {
        expect(script).toBe(MACOS_INPUT_SCRIPT);
        requests.push(request);
        if ((request as { op: string }).op === 'keys')
          throw jxaError({ code: 'NEEDS_ACCESSIBILITY', number: null, message: 'off' });
        return null;
      },
    };
    const input = createMacosInput({ jxa });
    await input.typeText(HOSTILE_STRINGS[1]!, 0);
    const items = (requests[0] as { items: Array<{ text?: string }> }).items;
    expect(items.map((item) => item.text).join('')).toBe(HOSTILE_STRINGS[1]);
    await expect(input.pressKeys(['cmd', 'q'])).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: ACCESSIBILITY_MESSAGE,
    });
  });
});
