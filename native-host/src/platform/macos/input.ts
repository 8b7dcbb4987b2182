// macOS mouse and keyboard: Quartz events (CGEventCreateMouseEvent / CGEventCreateKeyboardEvent /
// CGEventPost) through the JXA ObjC bridge, so no extra binary is needed. Text is posted with
// CGEventKeyboardSetUnicodeString, which types any Unicode (CJK, emoji, symbols) regardless of the
// keyboard layout — System Events `keystroke` mangles non-ASCII text.
//
// Not run on a real macOS machine; command construction and parsing are unit-tested, and the
// script's logic runs in the tests against a recording stand-in for the ObjC bridge.
//
// Coordinates are macOS global display coordinates in points (top-left of the main display is
// 0,0), the space CGEvent, the Accessibility API and `screencapture -R` share; the screen adapter
// captures in the same points, so a screenshot pixel maps onto the point the mouse goes to.
//
// Posting events needs the Accessibility permission; without it CGEventPost silently does nothing,
// so every posting operation first asks AXIsProcessTrusted() and fails with the setting to change.
import { AppError } from '@nextai/shared';
import { z } from 'zod';

import type { InputAdapter, MouseButton, Point, ScrollDirection } from '../desktop.js';
import { checkClick, checkDuration, checkPoint } from '../input-checks.js';
import { normalizeKey } from '../keys.js';
import { JXA_TIMEOUT_MS, resolveOptions, type MacosAdapterOptions } from './jxa.js';
import { MACOS_MODIFIER_CODES, macosChord, macosModifiers, macosTypingPlan } from './keys.js';

/**
 * The input script: one constant program for every input operation, chosen by `request.op`.
 * Numeric Quartz constants are spelled out (the bridge's own names vary across macOS versions).
 */
export const MACOS_INPUT_SCRIPT = String.raw`
ObjC.import('CoreGraphics');
var HID_TAP = 0; // kCGHIDEventTap
var HID_STATE = 1; // kCGEventSourceStateHIDSystemState
var MOUSE_MOVED = 5;
var LEFT_DRAGGED = 6;
var KEY_DOWN = 10;
var KEY_UP = 11;
var CLICK_STATE_FIELD = 1; // kCGMouseEventClickState
var PIXEL_UNITS = 0; // kCGScrollEventUnitPixel
var BUTTONS = {
  left: { down: 1, up: 2, number: 0 },
  right: { down: 3, up: 4, number: 1 },
  middle: { down: 25, up: 26, number: 2 },
};
var MODIFIER_CODES = ${JSON.stringify(MACOS_MODIFIER_CODES)};
var unicodeBound = false;
var scrollBound = false;

function accessibilityTrusted() {
  try {
    ObjC.import('ApplicationServices');
    ObjC.bindFunction('AXIsProcessTrusted', ['bool', []]);
    return $.AXIsProcessTrusted();
  } catch (error) {
    return null; // cannot tell: post anyway
  }
}
function requireAccessibility() {
  if (accessibilityTrusted() === false) nextaiFail('NEEDS_ACCESSIBILITY', 'Accessibility permission is off');
}
function sleep(ms) {
  if (ms > 0) delay(ms / 1000);
}
function post(event) {
  $.CGEventPost(HID_TAP, event);
}
function location() {
  var point = $.CGEventGetLocation($.CGEventCreate(null));
  return { x: point.x, y: point.y };
}
function mouseEvent(type, point, button, flags) {
  var event = $.CGEventCreateMouseEvent(null, type, $.CGPointMake(point.x, point.y), button);
  $.CGEventSetFlags(event, flags);
  return event;
}
function glide(from, to, durationMs, type, button) {
  var steps = Math.max(1, Math.round(durationMs / 15));
  for (var step = 1; step <= steps; step++) {
    var t = step / steps;
    post(mouseEvent(type, { x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t }, button, 0));
    if (step < steps) sleep(durationMs / steps);
  }
}
function setUnicode(event, text) {
  if (!unicodeBound) {
    // The stock signature wants a UniChar array; with void * the NSData bytes pass through.
    ObjC.bindFunction('CGEventKeyboardSetUnicodeString', ['void', ['void *', 'unsigned long', 'void *']]);
    unicodeBound = true;
  }
  var data = $(text).dataUsingEncoding(0x94000100); // NSUTF16LittleEndianStringEncoding
  $.CGEventKeyboardSetUnicodeString(event, text.length, data.bytes);
}
function key(code, down, flags, text) {
  var event = $.CGEventCreateKeyboardEvent(null, code, down);
  if (text) setUnicode(event, text);
  $.CGEventSetFlags(event, flags);
  post(event);
}
function pressAll(strokes) {
  var flags = 0;
  for (var i = 0; i < strokes.length; i++) {
    flags = flags | strokes[i].flag;
    key(strokes[i].code, true, flags, strokes[i].text);
  }
  return flags;
}
function releaseAll(strokes, flags) {
  for (var i = strokes.length - 1; i >= 0; i--) {
    key(strokes[i].code, false, flags, strokes[i].text);
    flags = flags & ~strokes[i].flag;
  }
}
function scrollEvent(vertical, horizontal) {
  if (!scrollBound) {
    // CGEventCreateScrollWheelEvent is variadic, which the bridge cannot call; its fixed-argument
    // twin (macOS 10.13+) can be, bound by hand where the bridge's metadata lacks it.
    if (typeof $.CGEventCreateScrollWheelEvent2 !== 'function') {
      ObjC.bindFunction('CGEventCreateScrollWheelEvent2', ['void *', ['void *', 'int', 'unsigned int', 'int', 'int', 'int']]);
    }
    scrollBound = true;
  }
  return $.CGEventCreateScrollWheelEvent2(null, PIXEL_UNITS, 2, vertical, horizontal, 0);
}

function main(request) {
  switch (request.op) {
    case 'pointer':
      return location();
    case 'move':
      requireAccessibility();
      glide(location(), request.to, request.durationMs, MOUSE_MOVED, 0);
      return null;
    case 'click': {
      requireAccessibility();
      var button = BUTTONS[request.button];
      var flags = pressAll(request.modifiers);
      try {
        post(mouseEvent(MOUSE_MOVED, request.at, 0, flags));
        for (var click = 1; click <= request.count; click++) {
          var down = mouseEvent(button.down, request.at, button.number, flags);
          $.CGEventSetIntegerValueField(down, CLICK_STATE_FIELD, click);
          post(down);
          var up = mouseEvent(button.up, request.at, button.number, flags);
          $.CGEventSetIntegerValueField(up, CLICK_STATE_FIELD, click);
          post(up);
        }
      } finally {
        releaseAll(request.modifiers, flags);
      }
      return null;
    }
    case 'drag': {
      requireAccessibility();
      post(mouseEvent(MOUSE_MOVED, request.from, 0, 0));
      post(mouseEvent(BUTTONS.left.down, request.from, 0, 0));
      try {
        glide(request.from, request.to, request.durationMs, LEFT_DRAGGED, 0);
      } finally {
        post(mouseEvent(BUTTONS.left.up, request.to, 0, 0));
      }
      return null;
    }
    case 'scroll': {
      requireAccessibility();
      post(mouseEvent(MOUSE_MOVED, request.at, 0, 0));
      for (var i = 0; i < request.steps.length; i++) {
        post(scrollEvent(request.steps[i].vertical, request.steps[i].horizontal));
        if (i < request.steps.length - 1) sleep(10);
      }
      return null;
    }
    case 'type': {
      requireAccessibility();
      for (var j = 0; j < request.items.length; j++) {
        var item = request.items[j];
        if (item.text !== undefined) {
          key(0, true, 0, item.text);
          key(0, false, 0, item.text);
        } else {
          key(item.code, true, 0);
          key(item.code, false, 0);
        }
        if (j < request.items.length - 1) sleep(request.pauseMs);
      }
      return null;
    }
    case 'keys': {
      requireAccessibility();
      var held = pressAll(request.keys);
      releaseAll(request.keys, held);
      return null;
    }
    case 'release': {
      var released = [];
      for (var m = 0; m < MODIFIER_CODES.length; m++) {
        if ($.CGEventSourceKeyState(HID_STATE, MODIFIER_CODES[m])) {
          key(MODIFIER_CODES[m], false, 0);
          released.push('key ' + MODIFIER_CODES[m]);
        }
      }
      var at = location();
      var names = ['left', 'right', 'middle'];
      for (var b = 0; b < names.length; b++) {
        var spec = BUTTONS[names[b]];
        if ($.CGEventSourceButtonState(HID_STATE, spec.number)) {
          post(mouseEvent(spec.up, at, spec.number, 0));
          released.push(names[b] + ' button');
        }
      }
      return released;
    }
  }
  nextaiFail('INVALID_INPUT', 'Unknown input operation: ' + request.op);
}
`;

/** Pixels per scroll event: large amounts go as several events, as a wheel or trackpad sends them. */
export const MACOS_SCROLL_STEP = 100;

/** Scroll steps in pixels (vertical positive = up, horizontal positive = left: Quartz's signs). */
export function macosScrollSteps(
  direction: ScrollDirection,
  amount: number,
): Array<{ vertical: number; horizontal: number }> {
  if (!Number.isFinite(amount) || amount <= 0) {
    throw new AppError('INVALID_INPUT', `The scroll amount must be a positive number of pixels, not ${amount}.`);
  }
  const total = Math.round(amount);
  const steps: Array<{ vertical: number; horizontal: number }> = [];
  for (let done = 0; done < total; done += MACOS_SCROLL_STEP) {
    const size = Math.min(MACOS_SCROLL_STEP, total - done);
    const vertical = direction === 'up' ? size : direction === 'down' ? -size : 0;
    const horizontal = direction === 'left' ? size : direction === 'right' ? -size : 0;
    steps.push({ vertical, horizontal });
  }
  return steps;
}

/** The requests the input script receives, one per operation (pure: unit-tested). */
export const macosInputRequests = {
  pointer: () => ({ op: 'pointer' }),
  move: (to: Point, durationMs: number) => ({ op: 'move', to: checkPoint(to), durationMs: checkDuration(durationMs) }),
  click: (at: Point, button: MouseButton, count: number, modifiers: readonly string[]) => {
    checkClick(button, count);
    return { op: 'click', at: checkPoint(at), button, count, modifiers: macosModifiers(modifiers) };
  },
  drag: (from: Point, to: Point, durationMs: number) => ({
    op: 'drag',
    from: checkPoint(from),
    to: checkPoint(to),
    durationMs: checkDuration(durationMs),
  }),
  scroll: (at: Point, direction: ScrollDirection, amount: number) => ({
    op: 'scroll',
    at: checkPoint(at),
    steps: macosScrollSteps(direction, amount),
  }),
  type: (text: string, delayMs: number) => ({
    op: 'type',
    items: macosTypingPlan(text, delayMs),
    // A few milliseconds between events even without a delay: apps drop events posted back to back.
    pauseMs: Math.max(4, checkDuration(delayMs)),
  }),
  keys: (keys: readonly string[]) => {
    if (keys.length === 0) throw new AppError('INVALID_INPUT', 'Name at least one key to press.');
    return { op: 'keys', keys: macosChord(keys.map(normalizeKey)) };
  },
  release: () => ({ op: 'release' }),
};

/** Enough time for a script that sleeps `sleepMs` in total. */
function timeoutFor(sleepMs: number): number {
  return JXA_TIMEOUT_MS + sleepMs * 1.5;
}

const pointSchema = z.object({ x: z.number(), y: z.number() });

export function createMacosInput(options: MacosAdapterOptions = {}): InputAdapter {
  const { jxa } = resolveOptions(options);
  return {
    async pointer() {
      return pointSchema.parse(await jxa.run(MACOS_INPUT_SCRIPT, macosInputRequests.pointer()));
    },
    async mouseMove(to, durationMs, signal) {
      await jxa.run(MACOS_INPUT_SCRIPT, macosInputRequests.move(to, durationMs), {
        timeoutMs: timeoutFor(durationMs),
        ...(signal ? { signal } : {}),
      });
    },
    async click(at, button, count, modifiers) {
      await jxa.run(MACOS_INPUT_SCRIPT, macosInputRequests.click(at, button, count, modifiers));
    },
    async drag(from, to, durationMs, signal) {
      await jxa.run(MACOS_INPUT_SCRIPT, macosInputRequests.drag(from, to, durationMs), {
        timeoutMs: timeoutFor(durationMs),
        ...(signal ? { signal } : {}),
      });
    },
    async scroll(at, direction, amount) {
      const request = macosInputRequests.scroll(at, direction, amount);
      await jxa.run(MACOS_INPUT_SCRIPT, request, { timeoutMs: timeoutFor(request.steps.length * 10) });
    },
    async typeText(text, delayMs, signal) {
      const request = macosInputRequests.type(text, delayMs);
      await jxa.run(MACOS_INPUT_SCRIPT, request, {
        timeoutMs: timeoutFor(request.items.length * (request.pauseMs + 2)),
        ...(signal ? { signal } : {}),
      });
    },
    async pressKeys(keys) {
      await jxa.run(MACOS_INPUT_SCRIPT, macosInputRequests.keys(keys));
    },
    async releaseAll() {
      const released = z.array(z.string()).parse(await jxa.run(MACOS_INPUT_SCRIPT, macosInputRequests.release()));
      return released.length === 0 ? 'no key or mouse button was held' : `released ${released.join(', ')}`;
    },
  };
}
