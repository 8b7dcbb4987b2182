import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { AppError, type Platform } from '@nextai/shared';

import type { AppInfo, LaunchOptions, WindowAction, WindowInfo } from '../../platform/desktop.js';
import type { HandlerGroup, HostServices, SandboxPlacement } from '../types.js';
import {
  describeWindow,
  describeWindows,
  findWindow,
  sameWindowId,
  toWindowOutput,
  windowsOfApp,
} from './window-match.js';

/** How long app_close waits for an app asked to quit, and for a killed one to be gone. */
const GRACEFUL_WAIT_MS = 3000;
const FORCED_WAIT_MS = 2000;
/** How long app_launch waits for the new app's first window. */
const LAUNCH_WINDOW_WAIT_MS = 3000;

/**
 * `app_launch`, `app_switch`, `app_list`, `app_close` and `window_manage` on top of the desktop's
 * WindowAdapter. Windows are named by id or by part of their title (window-match.ts); bounds in
 * every output are the outer window frame in absolute screen pixels (not screenshot pixels).
 */
export function createAppHandlers(
  services: HostServices,
): HandlerGroup<'app_launch' | 'app_switch' | 'app_list' | 'app_close' | 'window_manage'> {
  const windows = services.desktop.windows;

  async function freshWindow(id: string): Promise<WindowInfo | undefined> {
    return (await windows.listWindows()).find((window) => sameWindowId(window.id, id));
  }

  return {
    handlers: {
      app_launch: async (input, context) => {
        const confined = sandboxedLaunch(services, context.sandbox);
        const { pid: started } = await windows.launchApp(input.name, input.args ?? [], {
          ...(confined ? { confine: confined.confine } : {}),
          // The daemon keeps every app the agent starts, so the emergency stop can end it.
          started: (pid) => services.launchedApps.add(pid, input.name),
          agentMark: services.agentMark,
        });
        if (started === null) {
          return {
            success: true,
            name: input.name,
            message: `Started ${input.name}; it handed over to an instance that was already running.`,
          };
        }
        if (confined) services.sandbox?.registerApp(confined.hostname, started);
        // In the sandbox the app is a grandchild of what was started; its windows carry its own pid.
        let pid: number | undefined = confined ? undefined : started;
        const window = await pollFor(
          async () => {
            pid ??= services.sandbox?.commandPid(started);
            return pid === undefined
              ? undefined
              : (await windows.listWindows()).find((candidate) => candidate.pid === pid);
          },
          LAUNCH_WINDOW_WAIT_MS,
          context.signal,
        );
        const shownPid = pid ?? started;
        const where = confined
          ? ` in the sandbox (it sees your files read-only, may change only ${confined.writable}, and starts with fresh settings of its own)`
          : '';
        return {
          success: true,
          pid: shownPid,
          name: input.name,
          message: window
            ? `Started ${input.name} (pid ${shownPid})${where}; its window ${describeWindow(window)} is open at ${formatBounds(window)} (absolute screen pixels).`
            : `Started ${input.name} (pid ${shownPid})${where}; no window of it appeared within ${LAUNCH_WINDOW_WAIT_MS / 1000} s (it may still be starting, or have no window).`,
        };
      },

      app_switch: async (input) => {
        const all = await windows.listWindows();
        const target = all.find((window) => sameWindowId(window.id, input.name)) ?? windowsOfApp(all, input.name)[0];
        const window = target ?? findWindowOrApps(all, input.name, await windows.listApps());
        await windows.focusWindow(window.id);
        const now = (await freshWindow(window.id)) ?? { ...window, focused: true, minimized: false };
        return {
          success: true,
          message: `Switched to ${describeWindow(now)}.`,
          window: toWindowOutput(now),
        };
      },

      app_list: async (input) => {
        const [apps, all] = await Promise.all([
          windows.listApps(),
          input.include_windows ? windows.listWindows() : Promise.resolve<WindowInfo[]>([]),
        ]);
        return {
          apps: apps.map((app) => ({
            name: app.name,
            pid: app.pid,
            windows: all.filter((window) => window.pid === app.pid).map(toWindowOutput),
          })),
        };
      },

      app_close: async (input, context) => {
        const [all, apps] = await Promise.all([windows.listWindows(), windows.listApps()]);
        const target = resolveApp(all, apps, input.name);
        if (target.pids.length === 0) {
          // A window whose owner is unknown (a client on another machine): all we can do is ask it.
          if (input.force) {
            throw new AppError(
              'TOOL_FAILED',
              `Can't force ${target.label} to close: its process is unknown. Try without force.`,
            );
          }
          for (const window of target.windows) await windows.closeWindow(window.id);
          return { success: true, closed: 0, message: `Asked ${target.label} to close.` };
        }
        if (input.force) {
          for (const pid of target.pids) await windows.killProcess(pid, true);
        } else {
          for (const window of all.filter(
            (candidate) => candidate.pid !== null && target.pids.includes(candidate.pid),
          )) {
            await windows.closeWindow(window.id);
          }
        }
        const waitMs = input.force ? FORCED_WAIT_MS : GRACEFUL_WAIT_MS;
        await pollFor(
          async () => ((await aliveOf(target.pids, services.platform)).length === 0 ? true : undefined),
          waitMs,
          context.signal,
        );
        const alive = await aliveOf(target.pids, services.platform);
        const closed = target.pids.length - alive.length;
        const how = input.force ? 'Killed' : 'Closed';
        return {
          success: alive.length === 0,
          closed,
          message:
            alive.length === 0
              ? `${how} ${target.label}: ${closed} process${closed === 1 ? '' : 'es'} ended.`
              : `${target.label}: ${closed} of ${target.pids.length} processes ended; still running after ${waitMs / 1000} s: pid ${alive.join(', ')}.` +
                (input.force
                  ? ''
                  : ' It may be asking to save changes (take a screenshot), or use force: true to kill it.'),
        };
      },

      window_manage: async (input) => {
        const window = findWindow(await windows.listWindows(), input.window_title);
        const bounds = input.bounds ?? {};
        const actions: WindowAction[] = [];
        if (input.action === 'move' || input.action === 'resize') {
          const wantsMove = bounds.x !== undefined || bounds.y !== undefined;
          const wantsResize = bounds.width !== undefined || bounds.height !== undefined;
          if (input.action === 'move' && !wantsMove) {
            throw new AppError(
              'INVALID_INPUT',
              'move needs bounds.x and/or bounds.y (absolute screen pixels of the top-left corner).',
            );
          }
          if (input.action === 'resize' && !wantsResize) {
            throw new AppError(
              'INVALID_INPUT',
              'resize needs bounds.width and/or bounds.height (pixels, window frame included).',
            );
          }
          if (wantsMove) actions.push({ kind: 'move', x: bounds.x ?? window.bounds.x, y: bounds.y ?? window.bounds.y });
          if (wantsResize) {
            actions.push({
              kind: 'resize',
              width: bounds.width ?? window.bounds.width,
              height: bounds.height ?? window.bounds.height,
            });
          }
        } else {
          actions.push({ kind: input.action });
        }
        for (const action of actions) await windows.windowAction(window.id, action);
        const now = await freshWindow(window.id);
        if (!now) {
          return {
            success: false,
            message: `The window ${describeWindow(window)} closed while it was being arranged.`,
          };
        }
        return {
          success: true,
          message: describeOutcome(input.action, now, bounds),
          window: toWindowOutput(now),
        };
      },
    },
  };
}

function formatBounds(window: WindowInfo): string {
  const { x, y, width, height } = window.bounds;
  return `(${x}, ${y}) size ${width}×${height}`;
}

function describeOutcome(
  action: 'maximize' | 'minimize' | 'restore' | 'resize' | 'move',
  window: WindowInfo,
  asked: { x?: number; y?: number; width?: number; height?: number },
): string {
  const where = `it is now at ${formatBounds(window)} (outer frame, absolute screen pixels).`;
  const verb = { maximize: 'Maximized', minimize: 'Minimized', restore: 'Restored', resize: 'Resized', move: 'Moved' }[
    action
  ];
  const missed: string[] = [];
  if (asked.x !== undefined && asked.x !== window.bounds.x) missed.push(`x ${asked.x}`);
  if (asked.y !== undefined && asked.y !== window.bounds.y) missed.push(`y ${asked.y}`);
  if (asked.width !== undefined && asked.width !== window.bounds.width) missed.push(`width ${asked.width}`);
  if (asked.height !== undefined && asked.height !== window.bounds.height) missed.push(`height ${asked.height}`);
  const note =
    (action === 'move' || action === 'resize') && missed.length > 0
      ? ` The window manager or the app adjusted the request (${missed.join(', ')} asked): some apps, such as terminals, only take sizes in steps.`
      : '';
  return `${verb} ${describeWindow(window)}; ${where}${note}`;
}

/** A window for app_switch when neither id nor app name matched: by title, else NOT_FOUND naming apps too. */
function findWindowOrApps(all: WindowInfo[], query: string, apps: AppInfo[]): WindowInfo {
  try {
    return findWindow(all, query);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') {
      const names = [...new Set(apps.map((app) => app.name))];
      throw new AppError(
        'NOT_FOUND',
        `No app, window id or window title matches "${query}". Running apps: ${names.join(', ') || 'none'}. Open windows: ${describeWindows(all)}.`,
        { cause: error, details: error.details },
      );
    }
    throw error;
  }
}

/**
 * The processes `app_close` ends: every process of the app with that name, or the owner of the
 * window that id or title names.
 */
function resolveApp(
  all: WindowInfo[],
  apps: AppInfo[],
  query: string,
): { pids: number[]; windows: WindowInfo[]; label: string } {
  const wanted = query.trim().toLowerCase();
  const byName = apps.filter((app) => app.name.toLowerCase() === wanted);
  if (byName.length > 0) {
    const pids = byName.map((app) => app.pid);
    const name = byName[0]?.name ?? query;
    return {
      pids,
      windows: all.filter((window) => window.pid !== null && pids.includes(window.pid)),
      label: `${name} (pid ${pids.join(', ')})`,
    };
  }
  const window = findWindowOrApps(all, query, apps);
  if (window.pid === null) return { pids: [], windows: [window], label: `the window ${describeWindow(window)}` };
  return {
    pids: [window.pid],
    windows: all.filter((candidate) => candidate.pid === window.pid),
    label: `${window.app || 'the app'} (pid ${window.pid}) owning ${describeWindow(window)}`,
  };
}

/** Where apps keep settings and data: private to an app the sandbox starts (it starts fresh). */
const APP_STATE = ['.config', '.local/share', '.local/state', '.cache', '.mozilla', '.thunderbird', '.pki'];

/**
 * How an app starts in the sandbox, when the policy placed it there: the same folders as a
 * command, the display, the network as decided, settings folders of its own, and a host name by
 * which its windows are recognised. Undefined: it starts as it is (outside, as a person agreed,
 * or host tools built without a sandbox).
 */
function sandboxedLaunch(
  services: HostServices,
  placement: SandboxPlacement | undefined,
): { confine: NonNullable<LaunchOptions['confine']>; hostname: string; writable: string } | undefined {
  const sandbox = services.sandbox;
  if (!sandbox || placement?.mode === 'outside') return undefined;
  const hostname = sandbox.newAppHostname();
  const root = path.join(services.paths.runDir, 'sandbox-apps', hostname);
  const tmpDir = path.join(root, 'tmp');
  fsSync.mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
  const overlays = APP_STATE.map((relative) => path.join(services.homeDir, relative))
    .filter((target) => fsSync.existsSync(target))
    .map((target) => {
      const source = path.join(root, 'home', path.relative(services.homeDir, target));
      fsSync.mkdirSync(source, { recursive: true, mode: 0o700 });
      return { source, target };
    });
  const profile = sandbox.profile({
    granted: placement?.mode === 'confined' ? placement.granted : undefined,
    network: placement?.network ?? 'none',
    tmpDir,
    cwd: services.homeDir,
  });
  profile.overlays = overlays;
  profile.hostname = hostname;
  return {
    hostname,
    writable: profile.writable.length > 0 ? profile.writable.join(', ') : 'its private temporary folder',
    // The display is the one the desktop adapter gives the app (its DISPLAY and XAUTHORITY).
    confine: (command, env) => {
      const number = env.DISPLAY ? /^:(\d+)(?:\.\d+)?$/.exec(env.DISPLAY)?.[1] : undefined;
      if (env.DISPLAY && number !== undefined) {
        profile.display = { name: env.DISPLAY, socket: `/tmp/.X11-unix/X${number}`, xauthority: env.XAUTHORITY };
      }
      return sandbox.prepare(command, profile, env);
    },
  };
}

/** The pids of `pids` that are still running (a zombie awaiting its parent has ended). */
async function aliveOf(pids: number[], platform: Platform): Promise<number[]> {
  const alive: number[] = [];
  for (const pid of pids) if (await isAlive(pid, platform)) alive.push(pid);
  return alive;
}

async function isAlive(pid: number, platform: Platform): Promise<boolean> {
  if (platform === 'linux') {
    try {
      const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      return state !== 'Z' && state !== 'X';
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls `probe` until it returns a value or the time is up (undefined then); stops early on abort. */
async function pollFor<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline || signal.aborted) return undefined;
    await sleep(50);
  }
}
