// Windows mouse and keyboard: SendInput through the C# helper (native.ts) in PowerShell. Text is
// typed with KEYEVENTF_UNICODE, which types any Unicode regardless of the keyboard layout; chords
// press virtual keys (windows/keys.ts), with extended-key flags where Windows needs them.
//
// NOT RUN ON A REAL WINDOWS MACHINE. The requests, key tables and plans are unit-tested, the C#
// compiles in the tests (Mono, C# 5); the PowerShell script has never run.
//
// Coordinates are physical pixels of the virtual screen (the helper makes PowerShell per-monitor
// DPI aware), the space the screen adapter captures in. Swapped mouse buttons are honoured.
//
// Windows drops injected input aimed at a program running as administrator (UIPI) or at a secure
// screen (UAC, lock screen); SendInput then sends fewer events than asked, and the call fails with
// BLOCKED_INPUT_MESSAGE instead of pretending it clicked.
import { AppError } from '@nextai/shared';
import { z } from 'zod';

import type { InputAdapter, MouseButton, Point, ScrollDirection } from '../desktop.js';
import { checkClick, checkDuration, checkPoint } from '../input-checks.js';
import { normalizeChord } from '../keys.js';
import { WINDOWS_MODIFIER_KEYS, windowsChord, windowsModifiers, windowsTypingPlan } from './keys.js';
import { LOAD_NATIVE, NATIVE_TYPE } from './native.js';
import { POWERSHELL_TIMEOUT_MS, resolveOptions, type WindowsAdapterOptions } from './powershell.js';

export const WINDOWS_INPUT_SCRIPT = String.raw`
param($Request)
${LOAD_NATIVE}
$W = [${NATIVE_TYPE}]
$ModifierKeys = @(${WINDOWS_MODIFIER_KEYS.map((key) => `@{ vk = ${key.vk}; extended = $${key.extended} }`).join(', ')})

function Resolve-Stroke($Stroke, [bool]$Alone) {
  if ($Stroke.character -ne $null) {
    $found = $W::KeyForCharacter([string]$Stroke.character)
    if ($found -ne $null) { return @{ vk = [int]$found[0]; extended = $false; shift = ($found[1] -eq 1) } }
    if ($Alone) { return @{ text = [string]$Stroke.character } }
    NextAiFail 'INVALID_INPUT' ('No key on the current keyboard layout types "' + $Stroke.character + '", so it cannot be part of a shortcut.')
  }
  return @{ vk = [int]$Stroke.vk; extended = [bool]$Stroke.extended; shift = $false }
}
function Press-Chord($Strokes) {
  $resolved = @($Strokes | ForEach-Object { Resolve-Stroke $_ ($Strokes.Count -eq 1) })
  if ($resolved.Count -eq 1 -and $resolved[0].text -ne $null) { $W::TypeUnicode($resolved[0].text); return }
  $held = New-Object System.Collections.ArrayList
  try {
    foreach ($stroke in $resolved) {
      if ($stroke.shift) { $W::KeyEvent(0x10, $false, $false); [void]$held.Add(@{ vk = 0x10; extended = $false }) }
      $W::KeyEvent($stroke.vk, $false, $stroke.extended)
      [void]$held.Add($stroke)
    }
  } finally {
    for ($i = $held.Count - 1; $i -ge 0; $i--) { $W::KeyEvent($held[$i].vk, $true, $held[$i].extended) }
  }
}
function Move-Pointer($To, [int]$DurationMs) {
  if ($DurationMs -gt 0) {
    $from = $W::Pointer()
    $W::Glide($from[0], $from[1], [int]$To.x, [int]$To.y, $DurationMs)
  } else {
    $W::MoveTo([int]$To.x, [int]$To.y)
  }
}

switch ([string]$Request.op) {
  'pointer' {
    $point = $W::Pointer()
    return @{ x = $point[0]; y = $point[1] }
  }
  'move' {
    Move-Pointer $Request.to ([int]$Request.durationMs)
    return @{ done = $true }
  }
  'click' {
    $held = New-Object System.Collections.ArrayList
    try {
      foreach ($modifier in @($Request.modifiers)) {
        if ($modifier -eq $null) { continue }
        $W::KeyEvent([int]$modifier.vk, $false, [bool]$modifier.extended)
        [void]$held.Add($modifier)
      }
      $W::MoveTo([int]$Request.at.x, [int]$Request.at.y)
      $W::Click([string]$Request.button, [int]$Request.count)
    } finally {
      for ($i = $held.Count - 1; $i -ge 0; $i--) { $W::KeyEvent([int]$held[$i].vk, $true, [bool]$held[$i].extended) }
    }
    return @{ done = $true }
  }
  'drag' {
    $W::MoveTo([int]$Request.from.x, [int]$Request.from.y)
    $W::Button('left', $false)
    try {
      # Apps start a drag once the pointer moves past a threshold after the press: give them a beat.
      Start-Sleep -Milliseconds 30
      $W::Glide([int]$Request.from.x, [int]$Request.from.y, [int]$Request.to.x, [int]$Request.to.y, [int]$Request.durationMs)
    } finally {
      $W::Button('left', $true)
    }
    return @{ done = $true }
  }
  'scroll' {
    $W::MoveTo([int]$Request.at.x, [int]$Request.at.y)
    foreach ($step in @($Request.steps)) {
      $W::Wheel([int]$step.delta, [bool]$step.horizontal)
      Start-Sleep -Milliseconds 10
    }
    return @{ done = $true }
  }
  'type' {
    $items = @($Request.items)
    for ($i = 0; $i -lt $items.Count; $i++) {
      $item = $items[$i]
      if ($item.text -ne $null) {
        $W::TypeUnicode([string]$item.text)
      } else {
        $W::KeyEvent([int]$item.vk, $false, [bool]$item.extended)
        $W::KeyEvent([int]$item.vk, $true, [bool]$item.extended)
      }
      if ($i -lt $items.Count - 1) { Start-Sleep -Milliseconds ([int]$Request.pauseMs) }
    }
    return @{ done = $true }
  }
  'keys' {
    Press-Chord @($Request.keys)
    return @{ done = $true }
  }
  'release' {
    $released = New-Object System.Collections.ArrayList
    foreach ($key in $ModifierKeys) {
      if ($W::IsDown($key.vk)) {
        $W::KeyEvent($key.vk, $true, $key.extended)
        [void]$released.Add('key 0x' + $key.vk.ToString('x2'))
      }
    }
    foreach ($button in $W::ReleaseButtons()) { [void]$released.Add($button) }
    return @{ released = @($released) }
  }
}
NextAiFail 'INVALID_INPUT' ('Unknown input operation: ' + $Request.op)
`;

/** Pixels one wheel notch scrolls in most apps (3 lines); wheel events are whole notches (120). */
export const WINDOWS_PIXELS_PER_NOTCH = 50;
export const WHEEL_DELTA = 120;

/** Wheel events: whole notches (legacy apps ignore partial deltas), positive = up / right. */
export function windowsScrollSteps(
  direction: ScrollDirection,
  amount: number,
): Array<{ delta: number; horizontal: boolean }> {
  if (!Number.isFinite(amount) || amount <= 0) {
    throw new AppError('INVALID_INPUT', `The scroll amount must be a positive number of pixels, not ${amount}.`);
  }
  const notches = Math.max(1, Math.round(amount / WINDOWS_PIXELS_PER_NOTCH));
  const sign = direction === 'up' || direction === 'right' ? 1 : -1;
  const horizontal = direction === 'left' || direction === 'right';
  return Array.from({ length: notches }, () => ({ delta: sign * WHEEL_DELTA, horizontal }));
}

/** The requests the input script receives, one per operation (pure: unit-tested). */
export const windowsInputRequests = {
  pointer: () => ({ op: 'pointer' }),
  move: (to: Point, durationMs: number) => ({
    op: 'move',
    to: checkPoint(to, true),
    durationMs: checkDuration(durationMs),
  }),
  click: (at: Point, button: MouseButton, count: number, modifiers: readonly string[]) => {
    checkClick(button, count);
    return { op: 'click', at: checkPoint(at, true), button, count, modifiers: windowsModifiers(modifiers) };
  },
  drag: (from: Point, to: Point, durationMs: number) => ({
    op: 'drag',
    from: checkPoint(from, true),
    to: checkPoint(to, true),
    durationMs: checkDuration(durationMs),
  }),
  scroll: (at: Point, direction: ScrollDirection, amount: number) => ({
    op: 'scroll',
    at: checkPoint(at, true),
    steps: windowsScrollSteps(direction, amount),
  }),
  type: (text: string, delayMs: number) => ({
    op: 'type',
    items: windowsTypingPlan(text, delayMs),
    pauseMs: Math.max(2, checkDuration(delayMs)),
  }),
  keys: (keys: readonly string[]) => ({ op: 'keys', keys: windowsChord(normalizeChord(keys)) }),
  release: () => ({ op: 'release' }),
};

/** Enough time for a script that sleeps `sleepMs` in total. */
function timeoutFor(sleepMs: number): number {
  return POWERSHELL_TIMEOUT_MS + sleepMs * 1.5;
}

const pointSchema = z.object({ x: z.number(), y: z.number() });
const releasedSchema = z.object({ released: z.array(z.string()).nullable() });

export function createWindowsInput(options: WindowsAdapterOptions = {}): InputAdapter {
  const { powershell } = resolveOptions(options);
  const run = (request: object, sleepMs = 0, signal?: AbortSignal) =>
    powershell.run(WINDOWS_INPUT_SCRIPT, request, { timeoutMs: timeoutFor(sleepMs), ...(signal ? { signal } : {}) });
  return {
    async pointer() {
      return pointSchema.parse(await run(windowsInputRequests.pointer()));
    },
    async mouseMove(to, durationMs, signal) {
      await run(windowsInputRequests.move(to, durationMs), durationMs, signal);
    },
    async click(at, button, count, modifiers) {
      await run(windowsInputRequests.click(at, button, count, modifiers));
    },
    async drag(from, to, durationMs, signal) {
      await run(windowsInputRequests.drag(from, to, durationMs), durationMs + 30, signal);
    },
    async scroll(at, direction, amount) {
      const request = windowsInputRequests.scroll(at, direction, amount);
      await run(request, request.steps.length * 10);
    },
    async typeText(text, delayMs, signal) {
      const request = windowsInputRequests.type(text, delayMs);
      await run(request, request.items.length * (request.pauseMs + 2), signal);
    },
    async pressKeys(keys) {
      await run(windowsInputRequests.keys(keys));
    },
    async releaseAll() {
      const { released } = releasedSchema.parse(await run(windowsInputRequests.release()));
      const list = released ?? [];
      return list.length === 0 ? 'no key or mouse button was held' : `released ${list.join(', ')}`;
    },
  };
}
