import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { AGENT_PROCESS_ENV, AppError } from '@nextai/shared';

import { inheritedEnvironment, runCommand, type RunResult } from '../../core/subprocess.js';
import type { AppInfo, LaunchOptions, Rect, WindowAction, WindowAdapter, WindowInfo } from '../desktop.js';
import { requireDisplay } from './display.js';
import { resolveLaunchCommand } from './launch-resolution.js';
import {
  normalizeWindowId,
  outerBounds,
  parseRootProperties,
  parseTree,
  parseWindowProperties,
  parseXwininfo,
  type ClientGeometry,
  type WindowProperties,
} from './window-parsers.js';
import { sleep } from '../../core/sleep.js';

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
 *
 * What those programs print is read in window-parsers.ts; how a name given to `app_launch`
 * becomes a command, in launch-resolution.ts.
 */

// The clipboard adapter and the desktop tests find programs on PATH through this module.
export { findExecutable } from './launch-resolution.js';

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
      await sleep(POLL_INTERVAL_MS);
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
      await sleep(POLL_INTERVAL_MS);
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

// ---- Launching ----

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

/**
 * Starts the app in its own process group with no pipes to the daemon, so it outlives the
 * daemon and never blocks it. It is watched briefly: an app that exits at once with an error
 * (bad arguments, a missing library) is reported; one that exits at once with 0 handed off to an
 * already running instance, and has no pid of its own to give back.
 */
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
