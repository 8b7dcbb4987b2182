import { spawn } from 'node:child_process';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { AGENT_PROCESS_ENV, AppError } from '@nextai/shared';

import { inheritedEnvironment, runCommand, type RunResult } from '../../core/subprocess.js';
import type { AppInfo, LaunchOptions, Rect, WindowAction, WindowAdapter, WindowInfo } from '../desktop.js';
import { applicationDirs, execToArgs, findDesktopEntry, readDesktopEntries } from './desktop-entries.js';
import { requireDisplay } from './display.js';

/**
 * Windows and apps on Linux (X11) through EWMH, the protocol every common window manager speaks:
 * `xprop` reads the window manager's client list and each window's properties, `xwininfo` the
 * geometry, `wmctrl` and `xdotool` ask the window manager to act. (nut.js cannot be used here:
 * under a window manager it lists the frames, which have no titles.)
 *
 * `bounds` is always the outer frame (decorations included) in absolute screen pixels: the
 * client's absolute position from `xwininfo` minus `_NET_FRAME_EXTENTS`. `wmctrl -lG` is not used
 * for geometry: it adds the client's offset inside its frame a second time (under openbox an
 * xterm placed at +100+100 is reported at 102,140).
 *
 * A list costs two subprocesses for the whole screen plus one `xprop` per window (run a few at a
 * time), because no single X tool prints every window's name, state and frame extents at once.
 */

const HINT_X11_UTILS = 'On Debian/Ubuntu: sudo apt install x11-utils';
const HINT_WMCTRL = 'On Debian/Ubuntu: sudo apt install wmctrl';
const HINT_XDOTOOL = 'On Debian/Ubuntu: sudo apt install xdotool';

/** Properties read for every window in one `xprop` call. */
const WINDOW_PROPERTIES = [
  '_NET_WM_NAME',
  '_NET_WM_VISIBLE_NAME',
  'WM_NAME',
  '_NET_WM_PID',
  '_NET_WM_STATE',
  '_NET_FRAME_EXTENTS',
  '_NET_WM_WINDOW_TYPE',
  'WM_CLASS',
  'WM_CLIENT_MACHINE',
];

/** Window types that are part of the desktop itself (panels, the wallpaper window), not app windows. */
const SHELL_WINDOW_TYPES = new Set(['_NET_WM_WINDOW_TYPE_DOCK', '_NET_WM_WINDOW_TYPE_DESKTOP']);

/** How long focus and geometry changes may take before we say the window manager ignored them. */
const SETTLE_TIMEOUT_MS = 2000;
const POLL_INTERVAL_MS = 15;
/** How long a launched app is watched for an immediate failure (bad arguments, missing library). */
const LAUNCH_WATCH_MS = 250;
const PARALLEL_XPROP = 6;

export interface WindowProperties {
  title: string;
  pid: number | null;
  state: string[];
  /** left, right, top, bottom */
  frameExtents: [number, number, number, number];
  types: string[];
  wmClass: string[];
  /** The host the client says it runs on (an app in the sandbox: the sandbox's own name). */
  machine?: string | undefined;
}

export interface ClientGeometry {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LinuxWindowOptions {
  /**
   * A window's real pid given its `WM_CLIENT_MACHINE` and `_NET_WM_PID`: apps in the sandbox
   * report pids of their own PID namespace (sandbox/pids.ts).
   */
  windowPid?: (machine: string | undefined, pid: number | null) => number | null;
}

export function createLinuxWindows(
  env: NodeJS.ProcessEnv = process.env,
  options: LinuxWindowOptions = {},
): WindowAdapter {
  const run = (command: string, args: string[], installHint: string, timeoutMs = 5000): Promise<RunResult> =>
    runCommand(command, args, { env: xEnvironment(env), timeoutMs, installHint }).catch((error: unknown) => {
      throw missingProgramIsUnavailable(error);
    });

  async function readRoot(): Promise<{ clients: string[]; active: string | null }> {
    const { stdout } = await run('xprop', ['-root', '_NET_CLIENT_LIST', '_NET_ACTIVE_WINDOW'], HINT_X11_UTILS);
    return parseRootProperties(stdout);
  }

  /** Properties of one window; null when it disappeared meanwhile. */
  async function readProperties(id: string): Promise<WindowProperties | null> {
    try {
      const { stdout } = await run('xprop', ['-id', id, ...WINDOW_PROPERTIES], HINT_X11_UTILS);
      return parseWindowProperties(stdout);
    } catch (error) {
      if (isBadWindow(error)) return null;
      throw error;
    }
  }

  async function readGeometry(id: string): Promise<ClientGeometry | null> {
    try {
      const { stdout } = await run('xwininfo', ['-id', id], HINT_X11_UTILS);
      return parseXwininfo(stdout);
    } catch (error) {
      if (isBadWindow(error)) return null;
      throw error;
    }
  }

  async function describe(
    id: string,
    properties: WindowProperties,
    geometry: ClientGeometry,
    active: string | null,
  ): Promise<WindowInfo> {
    const pid = options.windowPid ? options.windowPid(properties.machine, properties.pid) : properties.pid;
    const processName = pid === null ? null : await readProcessName(pid);
    return {
      id,
      title: properties.title,
      pid,
      app: processName ?? properties.wmClass[0] ?? properties.wmClass[1] ?? '',
      bounds: outerBounds(geometry, properties.frameExtents),
      focused: id === active,
      minimized: properties.state.includes('_NET_WM_STATE_HIDDEN'),
    };
  }

  /** One window, read fresh (two subprocesses); NOT_FOUND when it is not a managed window. */
  async function readWindow(id: string): Promise<WindowInfo & { properties: WindowProperties }> {
    const [root, properties, geometry] = await Promise.all([readRoot(), readProperties(id), readGeometry(id)]);
    if (!root.clients.includes(id) || !properties || !geometry) throw noSuchWindow(id);
    return { ...(await describe(id, properties, geometry, root.active)), properties };
  }

  async function listWindows(): Promise<WindowInfo[]> {
    await requireDisplay(env);
    const [root, tree] = await Promise.all([
      readRoot(),
      run('xwininfo', ['-root', '-tree'], HINT_X11_UTILS).then(({ stdout }) => parseTree(stdout)),
    ]);
    const described = await mapLimited(root.clients, PARALLEL_XPROP, async (id) => {
      const geometry = tree.get(id);
      if (!geometry) return null;
      const properties = await readProperties(id);
      if (!properties || properties.types.some((type) => SHELL_WINDOW_TYPES.has(type))) return null;
      return describe(id, properties, geometry, root.active);
    });
    return described.filter((window): window is WindowInfo => window !== null);
  }

  /** The active window alone (a few subprocesses, not one per window): what the keyboard types into. */
  async function focusedWindow(): Promise<WindowInfo | null> {
    await requireDisplay(env);
    const { active } = await readRoot();
    if (active === null) return null;
    try {
      return await readWindow(active);
    } catch (error) {
      // It closed, or is not a managed window (a desktop or a dock): no window to type into.
      if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }

  async function ensureManaged(id: string): Promise<void> {
    if (!(await readRoot()).clients.includes(id)) throw noSuchWindow(id);
  }

  async function waitFor(
    id: string,
    done: (window: WindowInfo & { properties: WindowProperties }) => boolean,
  ): Promise<{ window: WindowInfo & { properties: WindowProperties }; settled: boolean }> {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    for (;;) {
      const window = await readWindow(id);
      if (done(window)) return { window, settled: true };
      if (Date.now() > deadline) return { window, settled: false };
      await delay(POLL_INTERVAL_MS);
    }
  }

  async function focusWindow(rawId: string): Promise<void> {
    await requireDisplay(env);
    const id = normalizeWindowId(rawId);
    await ensureManaged(id);
    await run('wmctrl', ['-i', '-a', id], HINT_WMCTRL);
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    while ((await readRoot()).active !== id) {
      if (Date.now() > deadline) {
        throw new AppError(
          'TOOL_FAILED',
          `The window manager did not give window ${id} the focus within ${SETTLE_TIMEOUT_MS} ms (it may prevent focus stealing). Try clicking the window instead.`,
        );
      }
      await delay(POLL_INTERVAL_MS);
    }
  }

  async function closeWindow(rawId: string): Promise<void> {
    await requireDisplay(env);
    const id = normalizeWindowId(rawId);
    await ensureManaged(id);
    // _NET_CLOSE_WINDOW: the app is asked (WM_DELETE_WINDOW) and may ask the person to save first.
    await run('wmctrl', ['-i', '-c', id], HINT_WMCTRL);
  }

  async function unmaximize(id: string, state: string[]): Promise<void> {
    if (!state.some((atom) => atom.startsWith('_NET_WM_STATE_MAXIMIZED') || atom === '_NET_WM_STATE_FULLSCREEN')) {
      return;
    }
    await run('wmctrl', ['-i', '-r', id, '-b', 'remove,maximized_vert,maximized_horz'], HINT_WMCTRL);
    await run('wmctrl', ['-i', '-r', id, '-b', 'remove,fullscreen'], HINT_WMCTRL);
    await waitFor(id, (window) => !isMaximized(window.properties.state));
  }

  async function windowAction(rawId: string, action: WindowAction): Promise<void> {
    await requireDisplay(env);
    const id = normalizeWindowId(rawId);
    const before = await readWindow(id);
    switch (action.kind) {
      case 'maximize':
        await run('wmctrl', ['-i', '-r', id, '-b', 'add,maximized_vert,maximized_horz'], HINT_WMCTRL);
        await waitFor(id, (window) => isMaximized(window.properties.state));
        return;
      case 'minimize':
        await run('xdotool', ['windowminimize', id], HINT_XDOTOOL);
        await waitFor(id, (window) => window.minimized);
        return;
      case 'restore':
        await unmaximize(id, before.properties.state);
        // Activating a minimized (iconic) window maps it again under every EWMH window manager.
        await run('wmctrl', ['-i', '-a', id], HINT_WMCTRL);
        await waitFor(id, (window) => !window.minimized && !isMaximized(window.properties.state));
        return;
      case 'move': {
        assertCoordinate(action.x, 'x');
        assertCoordinate(action.y, 'y');
        await unmaximize(id, before.properties.state);
        // Gravity 1 (NorthWest): x,y place the outer frame's top-left corner, whatever the app's own gravity.
        await run('wmctrl', ['-i', '-r', id, '-e', `1,${action.x},${action.y},-1,-1`], HINT_WMCTRL);
        await waitFor(id, (window) => window.bounds.x === action.x && window.bounds.y === action.y);
        return;
      }
      case 'resize': {
        assertSize(action.width, 'width');
        assertSize(action.height, 'height');
        await unmaximize(id, before.properties.state);
        const current = await readWindow(id);
        const [left, right, top, bottom] = current.properties.frameExtents;
        // wmctrl sizes the client area; the caller gave the outer frame.
        const clientWidth = Math.max(1, action.width - left - right);
        const clientHeight = Math.max(1, action.height - top - bottom);
        await run('wmctrl', ['-i', '-r', id, '-e', `1,-1,-1,${clientWidth},${clientHeight}`], HINT_WMCTRL);
        // Apps with size increments (terminals) get the nearest size they accept: wait until the
        // size is the one asked for, or has changed and holds still.
        let previous = current.bounds;
        await waitFor(id, (window) => {
          const exact = window.bounds.width === action.width && window.bounds.height === action.height;
          const changed = !sameSize(window.bounds, current.bounds);
          const steady = sameSize(window.bounds, previous);
          previous = window.bounds;
          return exact || (changed && steady);
        });
        return;
      }
    }
  }

  async function listApps(): Promise<AppInfo[]> {
    const windows = await listWindows();
    const apps = new Map<number, AppInfo>();
    for (const window of windows) {
      if (window.pid !== null && !apps.has(window.pid)) apps.set(window.pid, { name: window.app, pid: window.pid });
    }
    return [...apps.values()].sort((a, b) => a.name.localeCompare(b.name) || a.pid - b.pid);
  }

  async function launchApp(name: string, args: string[], launch: LaunchOptions = {}): Promise<{ pid: number | null }> {
    await requireDisplay(env);
    const command = await resolveLaunchCommand(name, args, env);
    if (!launch.confine) return spawnDetached(command, env, undefined, launch.started, launch.agentMark);
    const prepared = launch.confine(command, xEnvironmentFor(env));
    return spawnDetached([prepared.file, ...prepared.args], env, prepared.env, launch.started, launch.agentMark);
  }

  async function killProcess(pid: number, force: boolean): Promise<void> {
    if (!Number.isInteger(pid) || pid <= 1) {
      throw new AppError(
        'INVALID_INPUT',
        `Refusing to signal pid ${pid}: give the pid of an app (app_list shows them).`,
      );
    }
    if (pid === process.pid) {
      throw new AppError('PERMISSION_DENIED', `Refusing to end pid ${pid}: that is the NextAI daemon itself.`);
    }
    try {
      process.kill(pid, force ? 'SIGKILL' : 'SIGTERM');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ESRCH') throw new AppError('NOT_FOUND', `There is no process ${pid} (it may have ended already).`);
      if (code === 'EPERM') {
        throw new AppError('PERMISSION_DENIED', `Not allowed to end process ${pid}: it belongs to another user.`);
      }
      throw new AppError('TOOL_FAILED', `Couldn't signal process ${pid}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  return { listWindows, focusedWindow, listApps, focusWindow, closeWindow, windowAction, launchApp, killProcess };
}

/** What X programs need from the adapter's environment; the C.UTF-8 locale makes xprop print UTF-8. */
export function xEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const extra: Record<string, string> = { LC_ALL: 'C.UTF-8' };
  for (const name of ['DISPLAY', 'XAUTHORITY', 'PATH'] as const) {
    const value = env[name];
    if (value !== undefined) extra[name] = value;
  }
  return extra;
}

/** runCommand reports a missing program as NOT_FOUND; for an adapter that is UNAVAILABLE (install it). */
export function missingProgramIsUnavailable(error: unknown): unknown {
  if (error instanceof AppError && error.code === 'NOT_FOUND') {
    return new AppError('UNAVAILABLE', error.message, { cause: error });
  }
  return error;
}

function isBadWindow(error: unknown): boolean {
  return error instanceof AppError && error.code === 'TOOL_FAILED' && /BadWindow|No such window/u.test(error.message);
}

function noSuchWindow(id: string): AppError {
  return new AppError(
    'NOT_FOUND',
    `There is no window with id ${id} (it may have been closed). List the open windows with app_list and include_windows: true.`,
  );
}

/** "0x0060000c", "0x60000c" and "6291468" (decimal, as xdotool prints) all become "0x60000c". */
export function normalizeWindowId(id: string): string {
  const text = id.trim();
  let value: number;
  if (/^0x[0-9a-f]+$/iu.test(text)) value = Number.parseInt(text.slice(2), 16);
  else if (/^\d+$/u.test(text)) value = Number.parseInt(text, 10);
  else throw new AppError('INVALID_INPUT', `"${id}" is not an X window id (like 0x3a00007).`);
  return `0x${value.toString(16)}`;
}

function isMaximized(state: string[]): boolean {
  return state.includes('_NET_WM_STATE_MAXIMIZED_VERT') && state.includes('_NET_WM_STATE_MAXIMIZED_HORZ');
}

function sameSize(a: Rect, b: Rect): boolean {
  return a.width === b.width && a.height === b.height;
}

function assertCoordinate(value: number, name: string): void {
  if (!Number.isInteger(value)) throw new AppError('INVALID_INPUT', `${name} must be a whole number of pixels.`);
}

function assertSize(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new AppError('INVALID_INPUT', `${name} must be a positive whole number of pixels.`);
  }
}

export function outerBounds(client: ClientGeometry, extents: [number, number, number, number]): Rect {
  const [left, right, top, bottom] = extents;
  return {
    x: client.x - left,
    y: client.y - top,
    width: client.width + left + right,
    height: client.height + top + bottom,
  };
}

/** `xprop -root _NET_CLIENT_LIST _NET_ACTIVE_WINDOW` → managed windows and the focused one. */
export function parseRootProperties(text: string): { clients: string[]; active: string | null } {
  const list = /^_NET_CLIENT_LIST\(WINDOW\): window id # (.*)$/mu.exec(text);
  if (!list) {
    // "not found": the atom exists but no window manager set it (it quit); "no such atom": none ever ran.
    if (/^_NET_CLIENT_LIST:\s+(?:not found|no such atom)/mu.test(text)) {
      throw new AppError(
        'UNAVAILABLE',
        'No EWMH window manager is running on this display (the root window has no _NET_CLIENT_LIST), so windows cannot be listed or arranged. Run a desktop session or a window manager such as openbox.',
      );
    }
    return { clients: [], active: null };
  }
  const clients = (list[1] ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => /^0x[0-9a-f]+$/iu.test(id))
    .map(normalizeWindowId);
  const active = /^_NET_ACTIVE_WINDOW\(WINDOW\): window id # (0x[0-9a-f]+)/imu.exec(text)?.[1];
  const activeId = active ? normalizeWindowId(active) : null;
  return { clients, active: activeId === '0x0' ? null : activeId };
}

/** The per-window `xprop` output → title, pid, state, frame extents, type and WM_CLASS. */
export function parseWindowProperties(text: string): WindowProperties {
  const values = new Map<string, { type: string; value: string }>();
  for (const line of text.split('\n')) {
    const match = /^([A-Z_0-9]+)\(([A-Za-z_0-9]+)\) = ?(.*)$/u.exec(line);
    if (match) values.set(match[1] as string, { type: match[2] as string, value: match[3] as string });
  }
  const string = (name: string): string | undefined => {
    const entry = values.get(name);
    return entry ? decodeXpropString(entry.value, name, entry.type) : undefined;
  };
  const atoms = (name: string): string[] =>
    (values.get(name)?.value ?? '')
      .split(',')
      .map((atom) => atom.trim())
      .filter(Boolean);
  const numbers = (name: string): number[] =>
    (values.get(name)?.value ?? '')
      .split(',')
      .map((value) => Number.parseInt(value.trim(), 10))
      .filter(Number.isFinite);
  const title = [string('_NET_WM_NAME'), string('_NET_WM_VISIBLE_NAME'), string('WM_NAME')].find(
    (candidate) => candidate !== undefined && candidate !== '',
  );
  const pid = numbers('_NET_WM_PID')[0];
  const extents = numbers('_NET_FRAME_EXTENTS');
  const wmClassValue = values.get('WM_CLASS')?.value ?? '';
  const machine = string('WM_CLIENT_MACHINE');
  return {
    ...(machine ? { machine } : {}),
    title: title ?? '',
    pid: pid !== undefined && pid > 0 ? pid : null,
    state: atoms('_NET_WM_STATE'),
    frameExtents: extents.length === 4 ? (extents as [number, number, number, number]) : [0, 0, 0, 0],
    types: atoms('_NET_WM_WINDOW_TYPE'),
    wmClass: [...wmClassValue.matchAll(/"((?:[^"\\]|\\.)*)"/gu)].map((match) =>
      decodeEscapes(match[1] ?? '', values.get('WM_CLASS')?.type ?? 'STRING'),
    ),
  };
}

/**
 * Properties xprop prints in its text format ("8t" in its default format table) whatever their
 * type (STRING, UTF8_STRING or COMPOUND_TEXT): converted to the locale's encoding and printed
 * as they are, quotes and backslashes included; only characters that are not printable (control
 * characters, bytes that do not convert) become three-digit octal escapes. Every other string
 * property ("8s", "8u": _NET_WM_NAME, WM_CLASS…) is printed with \" \\ \n \t escaped and, outside
 * valid UTF-8, non-ASCII bytes as octal.
 */
const TEXT_FORMAT_PROPERTIES = new Set(['WM_NAME', 'WM_ICON_NAME']);

/**
 * An xprop string value, e.g. `"naïve \"q\" \\path"` for _NET_WM_NAME or `"naïve "q" \path"` for
 * WM_NAME (see TEXT_FORMAT_PROPERTIES). `property` is the property's name, `type` its type.
 * Text before the first quote (xprop's "<Invalid UTF-8 string: …>" note) is skipped.
 */
export function decodeXpropString(value: string, property: string, type: string): string {
  const first = value.indexOf('"');
  const last = value.lastIndexOf('"');
  if (first === -1 || last <= first) return '';
  const inner = value.slice(first + 1, last);
  if (TEXT_FORMAT_PROPERTIES.has(property)) return decodeTextFormat(inner);
  return decodeEscapes(inner, type);
}

function decodeEscapes(text: string, type: string): string {
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (char === '\\' && index + 1 < text.length) {
      const octal = /^[0-7]{1,3}/u.exec(text.slice(index + 1))?.[0];
      if (octal) {
        bytes.push(Number.parseInt(octal, 8) & 0xff);
        index += octal.length;
        continue;
      }
      const next = text[++index] as string;
      const mapped = next === 'n' ? '\n' : next === 't' ? '\t' : next === 'r' ? '\r' : next;
      bytes.push(...Buffer.from(mapped, 'utf8'));
      continue;
    }
    const codePoint = text.codePointAt(index) as number;
    const whole = String.fromCodePoint(codePoint);
    bytes.push(...Buffer.from(whole, 'utf8'));
    index += whole.length - 1;
  }
  return decodeBytes(Buffer.from(bytes), type);
}

/** STRING is Latin-1 by the ICCCM, yet many apps store UTF-8 in it: UTF-8 when the bytes are valid UTF-8. */
function decodeBytes(bytes: Buffer, type: string): string {
  if (type !== 'STRING') return bytes.toString('utf8');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/**
 * xprop's text format: only a non-printable character is escaped, so `\ooo` is an escape when
 * its value is a control character or a byte above 0x7e; `\123` ("S", printable) is literal text.
 */
function decodeTextFormat(text: string): string {
  const bytes: number[] = [];
  let literal = '';
  const flush = () => {
    bytes.push(...Buffer.from(literal, 'utf8'));
    literal = '';
  };
  for (let index = 0; index < text.length; index++) {
    const octal = text[index] === '\\' ? /^[0-3][0-7]{2}/u.exec(text.slice(index + 1))?.[0] : undefined;
    const value = octal === undefined ? -1 : Number.parseInt(octal, 8);
    if (octal !== undefined && (value < 0x20 || value > 0x7e)) {
      flush();
      bytes.push(value);
      index += octal.length;
      continue;
    }
    literal += text[index] as string;
  }
  flush();
  return Buffer.from(bytes).toString('utf8');
}

/** `xwininfo -root -tree` → every window's absolute position and size, by id. */
export function parseTree(text: string): Map<string, ClientGeometry> {
  const windows = new Map<string, ClientGeometry>();
  for (const line of text.split('\n')) {
    const match = /^\s*(0x[0-9a-f]+)\s.*\s(\d+)x(\d+)\+-?\d+\+-?\d+\s+\+(-?\d+)\+(-?\d+)\s*$/iu.exec(line);
    if (!match) continue;
    windows.set(normalizeWindowId(match[1] as string), {
      width: Number(match[2]),
      height: Number(match[3]),
      x: Number(match[4]),
      y: Number(match[5]),
    });
  }
  return windows;
}

/** `xwininfo -id <id>` → the window's absolute position and size. */
export function parseXwininfo(text: string): ClientGeometry {
  const field = (label: string): number => {
    const match = new RegExp(`^\\s*${label}:\\s+(-?\\d+)`, 'mu').exec(text);
    if (!match) throw new AppError('TOOL_FAILED', `Unexpected xwininfo output (no "${label}"): ${text.slice(0, 300)}`);
    return Number(match[1]);
  };
  return {
    x: field('Absolute upper-left X'),
    y: field('Absolute upper-left Y'),
    width: field('Width'),
    height: field('Height'),
  };
}

/**
 * A process's name: its `comm`, or argv[0]'s base name when `comm` is cut at the kernel's
 * 15 characters ("gnome-terminal-" → "gnome-terminal-server"). Null when it is not a local process.
 */
export async function readProcessName(pid: number): Promise<string | null> {
  try {
    const comm = (await fs.readFile(`/proc/${pid}/comm`, 'utf8')).trim();
    if (comm.length >= 15) {
      const argv0 = (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')[0] ?? '';
      const base = path.basename(argv0);
      if (base.startsWith(comm)) return base;
    }
    return comm || null;
  } catch {
    return null; // The process ended, or the window belongs to a client on another machine.
  }
}

async function mapLimited<T, R>(items: T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---- Launching ----

/** An executable on PATH (or the given PATH string), as an absolute path; null when there is none. */
export async function findExecutable(name: string, searchPath: string | undefined): Promise<string | null> {
  if (name.includes('/')) return (await isExecutableFile(name)) ? name : null;
  for (const dir of (searchPath ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stats = await fs.stat(file);
    if (!stats.isFile()) return false;
    await fs.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * What to run for `app_launch`: a path (which must be an executable file, or a .desktop file),
 * a program on PATH, or an installed app by its menu name (.desktop Name=, any language) or
 * desktop id. Unknown names are NOT_FOUND with the closest names installed.
 */
export async function resolveLaunchCommand(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const home = env.HOME || os.homedir();
  const trimmed = name.trim();
  if (trimmed.includes('/') || trimmed.startsWith('~')) {
    const file = path.resolve(home, trimmed.replace(/^~(?=$|\/)/u, home));
    let stats: Stats;
    try {
      stats = await fs.stat(file);
    } catch {
      throw new AppError('NOT_FOUND', `There is no file ${file} to launch.`);
    }
    if (file.endsWith('.desktop') && stats.isFile()) {
      const entries = await readDesktopEntries([path.dirname(file)]);
      const entry = entries.find((candidate) => candidate.file === file);
      if (!entry)
        throw new AppError('INVALID_INPUT', `${file} is not a launchable desktop entry (Type=Application with Exec=).`);
      return desktopCommand(entry, args, env);
    }
    if (!(await isExecutableFile(file))) {
      throw new AppError(
        'PERMISSION_DENIED',
        `${file} is not an executable program (${stats.isDirectory() ? 'it is a directory' : 'no execute permission'}).`,
      );
    }
    return [file, ...args];
  }
  const onPath = await findExecutable(trimmed, env.PATH);
  if (onPath) return [onPath, ...args];
  const entries = await readDesktopEntries(applicationDirs(env));
  const entry = findDesktopEntry(entries, trimmed);
  if (entry) return desktopCommand(entry, args, env);
  const suggestions = await closeMatches(trimmed, entries, env.PATH);
  throw new AppError(
    'NOT_FOUND',
    `No app called "${trimmed}" is installed (not a program on PATH nor an application menu entry).` +
      (suggestions.length > 0 ? ` Close matches: ${suggestions.join(', ')}.` : ''),
    { details: { suggestions } },
  );
}

async function desktopCommand(
  entry: Awaited<ReturnType<typeof readDesktopEntries>>[number],
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const command = execToArgs(entry.exec, entry, args);
  if (command.length === 0) throw new AppError('INVALID_INPUT', `${entry.file} has an empty Exec= line.`);
  const program = await findExecutable(command[0] as string, env.PATH);
  if (!program) {
    throw new AppError(
      'UNAVAILABLE',
      `"${entry.name}" (${entry.file}) runs \`${command[0]}\`, which is not installed.`,
    );
  }
  command[0] = program;
  if (!entry.terminal) return command;
  // Terminal=true apps (htop, vim…) need a terminal window around them.
  const terminal = (await findExecutable('x-terminal-emulator', env.PATH)) ?? (await findExecutable('xterm', env.PATH));
  if (!terminal)
    throw new AppError('UNAVAILABLE', `"${entry.name}" runs in a terminal, and no terminal emulator is installed.`);
  return [terminal, '-e', ...command];
}

async function closeMatches(
  query: string,
  entries: Awaited<ReturnType<typeof readDesktopEntries>>,
  searchPath: string | undefined,
): Promise<string[]> {
  const wanted = query.toLowerCase();
  const names = new Set<string>();
  for (const entry of entries) {
    names.add(`${entry.name} (${entry.id})`);
  }
  const programs = new Set<string>();
  for (const dir of (searchPath ?? '').split(path.delimiter).filter(Boolean)) {
    try {
      for (const file of await fs.readdir(dir)) programs.add(file);
    } catch {
      continue; // A PATH entry that does not exist.
    }
  }
  const similar = (candidate: string): boolean => {
    const lower = candidate.toLowerCase();
    if (lower.includes(wanted) || (lower.length >= 3 && wanted.includes(lower)) || editDistance(lower, wanted) <= 2) {
      return true;
    }
    // A misspelt word of a longer name: "firefx" for "Firefox ESR" and firefox-esr.
    return (
      wanted.length >= 4 && lower.split(/[\s._-]+/u).some((word) => word.length >= 4 && editDistance(word, wanted) <= 2)
    );
  };
  const fromMenu = [...names].filter((label) => {
    const entry = entries.find((candidate) => label === `${candidate.name} (${candidate.id})`);
    return entry ? entry.names.some(similar) || similar(entry.id) : false;
  });
  const fromPath = [...programs].filter(similar).sort((a, b) => a.length - b.length);
  return [...fromMenu, ...fromPath].slice(0, 10);
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(
        Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * Starts the app in its own process group with no pipes to the daemon, so it outlives the
 * daemon and never blocks it. It is watched briefly: an app that exits at once with an error
 * (bad arguments, a missing library) is reported; one that exits at once with 0 handed off to an
 * already running instance, and has no pid of its own to give back.
 */
/** The environment an app gets: the small inherited set, with the display and session bus. */
function xEnvironmentFor(env: NodeJS.ProcessEnv): Record<string, string> {
  const extra: Record<string, string> = {};
  for (const name of [
    'DISPLAY',
    'XAUTHORITY',
    'PATH',
    'HOME',
    'DBUS_SESSION_BUS_ADDRESS',
    'XDG_RUNTIME_DIR',
  ] as const) {
    const value = env[name];
    if (value !== undefined) extra[name] = value;
  }
  return inheritedEnvironment(extra);
}

function spawnDetached(
  command: string[],
  env: NodeJS.ProcessEnv,
  environment: Record<string, string> = xEnvironmentFor(env),
  started?: (pid: number) => void,
  agentMark = '1',
): Promise<{ pid: number | null }> {
  const [program, ...args] = command as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      detached: true,
      stdio: 'ignore',
      // Marks the app and all it starts as the agent's: the daemon refuses them the person's
      // authority, and the emergency stop ends what carries this daemon's mark, also after a restart.
      env: { ...environment, [AGENT_PROCESS_ENV]: agentMark },
      cwd: env.HOME || os.homedir(),
    });
    let timer: NodeJS.Timeout | undefined;
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT'
          ? new AppError('NOT_FOUND', `Couldn't find the program ${program}.`, { cause: error })
          : new AppError('TOOL_FAILED', `Couldn't start ${program}: ${error.message}`, { cause: error }),
      );
    });
    child.once('spawn', () => {
      // The leader of its own process group (detached): registered at once, so an emergency stop
      // ends it and all it starts even while it is still being watched here.
      if (child.pid !== undefined) started?.(child.pid);
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        clearTimeout(timer);
        if (code === 0) resolve({ pid: null });
        else {
          reject(
            new AppError(
              'TOOL_FAILED',
              `\`${command.join(' ')}\` exited at once (${code === null ? `killed by ${signal}` : `code ${code}`}). Check the app name and arguments.`,
            ),
          );
        }
      };
      child.once('exit', onExit);
      timer = setTimeout(() => {
        child.off('exit', onExit);
        child.unref();
        resolve({ pid: child.pid ?? null });
      }, LAUNCH_WATCH_MS);
    });
  });
}
