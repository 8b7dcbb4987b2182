import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { Desktop } from '../../native-host/src/platform/desktop.js';
import { createLinuxDesktop } from '../../native-host/src/platform/linux/index.js';
import { releaseHeldInputs } from '../../native-host/src/platform/release-inputs.js';
import { runCommand } from '../../native-host/src/core/subprocess.js';
import { createInputHandlers } from '../../native-host/src/tools/input/index.js';
import { callTool, testContext, testServices } from '../../native-host/src/tools/test-support.js';
import type { HostServices } from '../../native-host/src/tools/types.js';
import { openXterm, startXServer, waitForWindow, type XServer } from '../support/x-server.js';

/**
 * The input tools against a real X server (Xvfb + openbox): text typed into a real xterm is read
 * back from a file the terminal's program writes; clicks, modifiers, drags, scrolls and keys are
 * observed by `xev` in its own window.
 */

let server: XServer;
let desktop: Desktop;
let services: HostServices;
let handlers: ReturnType<typeof createInputHandlers>['handlers'];
let workDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  server = await startXServer();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-input-'));
  desktop = createLinuxDesktop(server.env, workDir);
  services = testServices(desktop);
  // Screenshots at half size: image pixel (x, y) is screen pixel (2x + 1, 2y + 1).
  services.screenSpace.remember({
    area: { x: 0, y: 0, width: server.width, height: server.height },
    scale: 0.5,
    image: { width: server.width / 2, height: server.height / 2 },
  });
  handlers = createInputHandlers(services).handlers;
}, 40_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await server?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

const x = (args: string[]) => runCommand('xdotool', args, { env: { DISPLAY: server.display } });

/** Polls `probe` every 25 ms, for at most 8 s, until it gives a value (not undefined); returns it. */
const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>) =>
  vi.waitFor(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error(`waiting for ${what}`);
      return value;
    },
    { timeout: 8000, interval: 25 },
  );

async function focus(windowId: string): Promise<void> {
  await x(['windowactivate', '--sync', windowId]).catch(() => undefined);
  await until('focus', async () => (await x(['getwindowfocus'])).stdout.trim() === windowId || undefined);
}

const utf8 = { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };

/** An xterm (UTF-8) running `script` under bash; returns its window id. */
async function terminal(title: string, script: string): Promise<{ child: ChildProcess; windowId: string }> {
  const term = await openXterm({ ...server, env: { ...server.env, ...utf8 } }, title, [
    '-u8',
    '-e',
    'bash',
    '-c',
    script,
  ]);
  children.push(term.child);
  await focus(term.windowId);
  return term;
}

interface XEvent {
  type: string;
  root: { x: number; y: number };
  state: number;
  button?: number;
  keysym?: string;
}

/** An xev window reporting mouse and keyboard events; `events()` parses what it printed so far. */
async function eventWindow(title: string) {
  let output = '';
  const child = spawn(
    'xev',
    ['-name', title, '-geometry', '400x300+500+300', '-event', 'mouse', '-event', 'keyboard'],
    {
      env: server.env,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  children.push(child);
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const windowId = await waitForWindow(server, title);
  await focus(windowId);
  const { stdout } = await runCommand('xwininfo', ['-id', windowId], { env: { DISPLAY: server.display } });
  const left = Number(/Absolute upper-left X:\s+(-?\d+)/u.exec(stdout)![1]);
  const top = Number(/Absolute upper-left Y:\s+(-?\d+)/u.exec(stdout)![1]);
  let consumed = 0;
  const parse = (): XEvent[] => {
    const pattern =
      /(\w+) event, serial \d+, synthetic \w+, window 0x[0-9a-f]+,\n\s+root 0x[0-9a-f]+, subw 0x[0-9a-f]+, time \d+, \(-?\d+,-?\d+\), root:\((-?\d+),(-?\d+)\),\n\s+state (0x[0-9a-f]+), (?:button (\d+)|keycode \d+ \(keysym 0x[0-9a-f]+, (\w+)\)|is_hint)?/gu;
    return [...output.slice(consumed).matchAll(pattern)].map((match) => ({
      type: match[1]!,
      root: { x: Number(match[2]), y: Number(match[3]) },
      state: parseInt(match[4]!, 16),
      ...(match[5] ? { button: Number(match[5]) } : {}),
      ...(match[6] ? { keysym: match[6] } : {}),
    }));
  };
  return {
    windowId,
    /** Screen point inside the window, away from xev's inner square. */
    inside: (dx: number, dy: number) => ({ x: left + dx, y: top + dy }),
    /** Forget what was seen so far. */
    reset: () => {
      consumed = output.length;
    },
    events: parse,
    /** Waits until `test` holds for the events seen since the last reset. */
    waitFor: (what: string, test: (events: XEvent[]) => boolean) =>
      until(what, () => (test(parse()) ? parse() : undefined)),
  };
}

/** Image coordinates for a screen point under the half-scale frame remembered above. */
const toImage = (point: { x: number; y: number }) => ({ x: Math.floor(point.x / 2), y: Math.floor(point.y / 2) });

const SHIFT = 0x1;
const CONTROL = 0x4;
const MOD1 = 0x8;
const MOD4 = 0x40;
const BUTTON1 = 0x100;

describe('key_press and hotkey', () => {
  it('ctrl+c interrupts a sleep in an xterm', async () => {
    const { child } = await terminal('nx-keys-sleep', 'sleep 60');
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const result = await callTool('key_press', handlers.key_press, { keys: ['ctrl', 'c'] });
    expect(result).toMatchObject({ keys: ['ctrl', 'c'] });
    await Promise.race([
      exited,
      new Promise((_, reject) => setTimeout(() => reject(new Error('xterm still running: ctrl+c did not land')), 8000)),
    ]);
  });

  it('ctrl+u erases the line and enter submits', async () => {
    const file = path.join(workDir, 'keys.txt');
    // Written aside and renamed: the file appears whole, never empty while the shell writes it.
    await terminal('nx-keys-line', `IFS= read -r line; printf %s "$line" > ${file}.part && mv ${file}.part ${file}`);
    await callTool('type_text', handlers.type_text, { text: 'garbage', delay: 0 });
    await callTool('key_press', handlers.key_press, { keys: ['Control', 'U'] });
    await callTool('type_text', handlers.type_text, { text: 'kept', delay: 0 });
    await callTool('key_press', handlers.key_press, { keys: ['Return'] });
    const typed = await until('the line', () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined));
    expect(typed).toBe('kept');
  });

  it('hotkey sends the chord with cmd as Super, modifiers held', async () => {
    const xev = await eventWindow('nx-xev-hotkey');
    xev.reset();
    await callTool('hotkey', handlers.hotkey, { keys: ['cmd', 'alt', 'F7'], reason: 'test' });
    await callTool('key_press', handlers.key_press, { keys: ['shift', '+'] });
    const events = await xev.waitFor(
      'the key events',
      (seen) => seen.filter((e) => e.type === 'KeyRelease').length >= 5,
    );
    const presses = events.filter((event) => event.type === 'KeyPress');
    expect(presses.map((event) => event.keysym)).toEqual(['Super_L', 'Alt_L', 'F7', 'Shift_L', 'plus']);
    expect(presses[2]!.state & (MOD4 | MOD1)).toBe(MOD4 | MOD1);
    expect(presses[4]!.state & SHIFT).toBe(SHIFT);
  });
});

describe('mouse on a real X server', () => {
  it('clicks land at the mapped screen pixel, with the button asked for and no delay', async () => {
    const xev = await eventWindow('nx-xev-click');
    xev.reset();
    const target = toImage(xev.inside(200, 150));
    const expected = { x: target.x * 2 + 1, y: target.y * 2 + 1 };
    const result = await callTool('left_click', handlers.left_click, target);
    expect(result).toMatchObject({ success: true, position: target });
    await callTool('right_click', handlers.right_click, { x: target.x + 5, y: target.y });
    const events = await xev.waitFor(
      'two clicks',
      (seen) => seen.filter((e) => e.type === 'ButtonRelease').length >= 2,
    );
    const presses = events.filter((event) => event.type === 'ButtonPress');
    expect(presses).toEqual([
      { type: 'ButtonPress', root: expected, state: 0, button: 1 },
      { type: 'ButtonPress', root: { x: expected.x + 10, y: expected.y }, state: 0, button: 3 },
    ]);
    const location = (await x(['getmouselocation'])).stdout;
    expect(location).toContain(`x:${expected.x + 10} y:${expected.y}`);
  });

  it('many quick clicks at different points each land where asked', async () => {
    const xev = await eventWindow('nx-xev-burst');
    xev.reset();
    const points = Array.from({ length: 20 }, (_, index) => xev.inside(100 + index * 10, 100 + (index % 5) * 30));
    for (const point of points) await desktop.input.click(point, 'left', 1, []);

    const events = await xev.waitFor(
      '20 clicks',
      (seen) => seen.filter((e) => e.type === 'ButtonRelease').length >= 20,
    );
    expect(events.filter((event) => event.type === 'ButtonPress').map((event) => event.root)).toEqual(points);
  });

  it('holds modifiers during the click and releases them after', async () => {
    const xev = await eventWindow('nx-xev-modifiers');
    xev.reset();
    const target = toImage(xev.inside(150, 150));
    await callTool('left_click', handlers.left_click, { ...target, modifiers: ['shift'] });
    await callTool('left_click', handlers.left_click, { ...target, modifiers: ['ctrl', 'cmd'] });
    await callTool('left_click', handlers.left_click, target);
    const events = await xev.waitFor(
      'three clicks',
      (seen) => seen.filter((e) => e.type === 'ButtonRelease').length >= 3,
    );
    const states = events.filter((event) => event.type === 'ButtonPress').map((event) => event.state);
    expect(states).toEqual([SHIFT, CONTROL | MOD4, 0]);
    const keys = events.filter((event) => event.type === 'KeyRelease').map((event) => event.keysym);
    expect(keys).toEqual(['Shift_L', 'Super_L', 'Control_L']);
  });

  it('double_click sends two presses', async () => {
    const xev = await eventWindow('nx-xev-double');
    xev.reset();
    await callTool('double_click', handlers.double_click, toImage(xev.inside(150, 150)));
    const events = await xev.waitFor(
      'two presses',
      (seen) => seen.filter((e) => e.type === 'ButtonRelease').length >= 2,
    );
    expect(events.filter((event) => event.type === 'ButtonPress').map((event) => event.button)).toEqual([1, 1]);
  });

  it('scroll sends wheel buttons 4/5/6/7, one per 100 px', async () => {
    const xev = await eventWindow('nx-xev-scroll');
    const at = toImage(xev.inside(150, 150));
    const buttons = async (direction: 'up' | 'down' | 'left' | 'right', amount: number) => {
      xev.reset();
      await callTool('scroll', handlers.scroll, { ...at, direction, amount });
      const steps = Math.max(1, Math.round(amount / 100));
      const events = await xev.waitFor(
        `scroll ${direction}`,
        (seen) => seen.filter((e) => e.type === 'ButtonRelease').length >= steps,
      );
      return events.filter((event) => event.type === 'ButtonPress').map((event) => event.button);
    };
    expect(await buttons('up', 300)).toEqual([4, 4, 4]);
    expect(await buttons('down', 100)).toEqual([5]);
    expect(await buttons('left', 200)).toEqual([6, 6]);
    expect(await buttons('right', 40)).toEqual([7]);
  });

  it('mouse_move glides through intermediate points or jumps', async () => {
    const xev = await eventWindow('nx-xev-move');
    await desktop.input.mouseMove(xev.inside(20, 20), 0);
    xev.reset();
    const target = toImage(xev.inside(380, 280));
    const result = await callTool('mouse_move', handlers.mouse_move, { ...target, duration: 200 });
    expect(result).toMatchObject({ position: target });
    const events = await xev.waitFor('motion', (seen) =>
      seen.some((e) => e.type === 'MotionNotify' && e.root.x === target.x * 2 + 1 && e.root.y === target.y * 2 + 1),
    );
    expect(events.filter((event) => event.type === 'MotionNotify').length).toBeGreaterThan(5);
  });

  it('mouse_drag presses, moves with the button down, and releases at the target', async () => {
    const xev = await eventWindow('nx-xev-drag');
    xev.reset();
    const from = toImage(xev.inside(100, 100));
    const to = toImage(xev.inside(350, 250));
    await callTool('mouse_drag', handlers.mouse_drag, {
      from_x: from.x,
      from_y: from.y,
      to_x: to.x,
      to_y: to.y,
      duration: 100,
    });
    const events = await xev.waitFor('the release', (seen) => seen.some((e) => e.type === 'ButtonRelease'));
    const press = events.find((event) => event.type === 'ButtonPress')!;
    const release = events.find((event) => event.type === 'ButtonRelease')!;
    expect(press.root).toEqual({ x: from.x * 2 + 1, y: from.y * 2 + 1 });
    expect(release.root).toEqual({ x: to.x * 2 + 1, y: to.y * 2 + 1 });
    const dragged = events.filter((event) => event.type === 'MotionNotify' && (event.state & BUTTON1) !== 0);
    expect(dragged.length).toBeGreaterThanOrEqual(4);
  });

  it('a cancelled drag releases the button', async () => {
    const xev = await eventWindow('nx-xev-drag-abort');
    xev.reset();
    const controller = new AbortController();
    const drag = desktop.input.drag(xev.inside(100, 100), xev.inside(350, 250), 5000, controller.signal);
    await xev.waitFor('the press', (seen) => seen.some((e) => e.type === 'ButtonPress'));
    controller.abort();
    await expect(drag).rejects.toMatchObject({ code: 'EMERGENCY_STOPPED' });
    const events = await xev.waitFor('the release', (seen) => seen.some((e) => e.type === 'ButtonRelease'));
    const release = events.find((event) => event.type === 'ButtonRelease')!;
    expect(release.root.x).toBeLessThan(xev.inside(350, 250).x);
  });

  it('releaseHeldInputs lets go of held keys and buttons', async () => {
    const xev = await eventWindow('nx-xev-release');
    await desktop.input.mouseMove(xev.inside(150, 150), 0);
    xev.reset();
    await x(['keydown', 'shift', 'keydown', 'ctrl', 'mousedown', '1']);
    await xev.waitFor('the press', (seen) => seen.some((e) => e.type === 'ButtonPress'));
    const said = await releaseHeldInputs(desktop);
    expect(said).toMatch(/^released modifier keys/u);
    const events = await xev.waitFor(
      'the releases',
      (seen) => seen.filter((e) => e.type.endsWith('Release')).length >= 3,
    );
    const released = events.filter((event) => event.type.endsWith('Release'));
    expect(released.map((event) => event.keysym ?? `button ${event.button}`).sort()).toEqual(
      ['Control_L', 'Shift_L', 'button 1'].sort(),
    );
    // Nothing held any more: a plain click has no modifier state.
    xev.reset();
    await desktop.input.click(xev.inside(160, 160), 'left', 1, []);
    const after = await xev.waitFor('a click', (seen) => seen.some((e) => e.type === 'ButtonPress'));
    expect(after.find((event) => event.type === 'ButtonPress')!.state).toBe(0);
  });

  it('refuses points off the screen and off the screenshot', async () => {
    await expect(desktop.input.click({ x: server.width, y: 0 }, 'left', 1, [])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(
      callTool('left_click', handlers.left_click, { x: server.width / 2, y: 0 }, testContext()),
    ).rejects.toThrow(/outside the latest screenshot, which is 960×540/u);
  });
});

// Last: rebinding keycodes makes openbox re-grab its keys, which slows new windows for seconds.
describe('type_text into a real xterm', () => {
  it('types ASCII symbols, Chinese, accents and emoji exactly', async () => {
    const file = path.join(workDir, 'line.txt');
    // No echo: xterm drawing CJK and emoji keeps the X server busy looking for fonts for seconds.
    await terminal(
      'nx-type-line',
      `stty -echo; IFS= read -r line; printf %s "$line" > ${file}.part && mv ${file}.part ${file}`,
    );
    const text = '~!@#$%^&*()_+{}|:"<>? `-=[]\\;\',./ 你好，世界 café ß 😀 end';
    const result = await callTool('type_text', handlers.type_text, { text: `${text}\n`, delay: 0 });
    expect(result).toMatchObject({ success: true, characters: [...text].length + 1 });
    const typed = await until('the typed line', () =>
      fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined,
    );
    expect(typed).toBe(text);
  });

  it('types long text with more distinct characters than free keycodes, in order, and restores the keymap', async () => {
    const file = path.join(workDir, 'long.txt');
    const term = await terminal('nx-type-long', `stty -echo; cat > ${file}`);
    const before = (await runCommand('xmodmap', ['-pk'], { env: { DISPLAY: server.display } })).stdout;
    // About 60 distinct Han characters (more than Xvfb's ~19 free keycodes), 3 lines, > 200 code points.
    const lines = [
      '天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏闰余成岁律吕调阳云腾致雨露结为霜',
      'The quick brown fox jumps over the lazy dog 0123456789 — naïve façade ¿qué? ¡sí! €5',
      '金生丽水玉出昆冈剑号巨阙珠称夜光果珍李柰菜重芥姜海咸河淡鳞潜羽翔 ✓ ★ 😀🎉',
    ];
    const text = `${lines.join('\n')}\n`;
    await callTool('type_text', handlers.type_text, { text, delay: 0 });
    const typed = await until('all lines', () => {
      const content = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      return content.split('\n').length > lines.length ? content : undefined;
    });
    expect(typed).toBe(text);
    const after = (await runCommand('xmodmap', ['-pk'], { env: { DISPLAY: server.display } })).stdout;
    expect(after).toBe(before);
    term.child.kill();
  });
});
