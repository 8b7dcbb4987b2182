// macOS windows and apps: the window server's list (CGWindowListCopyWindowInfo) for stable window
// ids, the Accessibility API through System Events for titles, state and every action, and
// NSWorkspace for apps and launching. Ending processes is POSIX signals, as on Linux.
//
// NOT RUN ON A REAL macOS MACHINE. Requests, reply parsing and error mapping are unit-tested, and
// the script's own logic (matching window-server windows to Accessibility windows, choosing how to
// launch) runs in the tests against stand-ins for System Events and the ObjC bridge; whether the
// real System Events and AppKit answer as those stand-ins do has not been checked.
//
// Ids: a window's CGWindowID in decimal ("4127"), stable while the window exists. The Accessibility
// API has no public window id, so each AX window is matched to its window-server entry by owner pid
// and frame (then title). A window the window server does not list (rare: some minimized windows)
// gets "pid:index", good until that app's windows change.
//
// Permissions: titles and actions need Accessibility for the daemon's app, and System Events asks
// for Automation once; both failures name the System Settings pane (jxa.ts). listApps needs neither.
import { AppError } from '@nextai/shared';
import { z } from 'zod';

import type { AppInfo, WindowAction, WindowAdapter, WindowInfo } from '../desktop.js';
import { resolveOptions, type JxaHost, type MacosAdapterOptions } from './jxa.js';

export const MACOS_WINDOWS_SCRIPT = String.raw`
ObjC.import('AppKit');
ObjC.import('CoreGraphics');
var EXCLUDE_DESKTOP_ELEMENTS = 16; // kCGWindowListExcludeDesktopElements (all windows, on screen or not)
var REGULAR = 0; // NSApplicationActivationPolicyRegular: apps with a Dock icon
var ACTIVATE_IGNORING_OTHER_APPS = 2;

function regularApps() {
  var running = $.NSWorkspace.sharedWorkspace.runningApplications;
  var apps = [];
  for (var i = 0; i < running.count; i++) {
    var app = running.objectAtIndex(i);
    if (app.activationPolicy !== REGULAR) continue;
    apps.push({ name: ObjC.unwrap(app.localizedName) || '', pid: app.processIdentifier, active: app.active === true });
  }
  return apps;
}
function serverWindows() {
  var list = ObjC.deepUnwrap(ObjC.castRefToObject($.CGWindowListCopyWindowInfo(EXCLUDE_DESKTOP_ELEMENTS, 0))) || [];
  var windows = [];
  for (var i = 0; i < list.length; i++) {
    var entry = list[i];
    if (entry.kCGWindowLayer !== 0 || !entry.kCGWindowBounds) continue;
    windows.push({
      number: entry.kCGWindowNumber,
      pid: entry.kCGWindowOwnerPID,
      title: entry.kCGWindowName || '',
      bounds: { x: entry.kCGWindowBounds.X, y: entry.kCGWindowBounds.Y, width: entry.kCGWindowBounds.Width, height: entry.kCGWindowBounds.Height },
    });
  }
  return windows;
}
function attribute(element, name, fallback) {
  try {
    var value = element.attributes.byName(name).value();
    return value === null || value === undefined ? fallback : value;
  } catch (error) {
    return fallback;
  }
}
function axWindows(pid) {
  var processes = Application('System Events').processes.whose({ unixId: pid })();
  if (processes.length === 0) return [];
  var elements = processes[0].windows();
  var windows = [];
  for (var i = 0; i < elements.length; i++) {
    var element = elements[i];
    var position = element.position();
    var size = element.size();
    windows.push({
      element: element,
      index: i,
      title: element.name() || '',
      bounds: { x: position[0], y: position[1], width: size[0], height: size[1] },
      minimized: attribute(element, 'AXMinimized', false) === true,
      main: attribute(element, 'AXMain', false) === true,
    });
  }
  return windows;
}
function sameFrame(a, b) {
  return Math.abs(a.x - b.x) <= 1 && Math.abs(a.y - b.y) <= 1 && Math.abs(a.width - b.width) <= 1 && Math.abs(a.height - b.height) <= 1;
}
/** Pairs each Accessibility window of one app with a window-server entry: frame and title, then frame, then title. */
function matchWindows(pid, server, ax) {
  var free = server.filter(function (entry) { return entry.pid === pid; });
  var take = function (test) {
    for (var i = 0; i < free.length; i++) {
      if (test(free[i])) return free.splice(i, 1)[0];
    }
    return null;
  };
  var ids = [];
  var passes = [
    function (window) { return function (entry) { return sameFrame(entry.bounds, window.bounds) && entry.title === window.title; }; },
    function (window) { return function (entry) { return sameFrame(entry.bounds, window.bounds); }; },
    function (window) { return function (entry) { return window.title !== '' && entry.title === window.title; }; },
  ];
  for (var p = 0; p < passes.length; p++) {
    for (var i = 0; i < ax.length; i++) {
      if (ids[i] !== undefined) continue;
      var found = take(passes[p](ax[i]));
      if (found) ids[i] = String(found.number);
    }
  }
  for (var j = 0; j < ax.length; j++) if (ids[j] === undefined) ids[j] = pid + ':' + ax[j].index;
  return ids;
}
function describe(app, window, id) {
  return {
    id: id,
    title: window.title,
    pid: app.pid,
    app: app.name,
    bounds: window.bounds,
    focused: app.active && window.main && !window.minimized,
    minimized: window.minimized,
  };
}
function listWindows() {
  var server = serverWindows();
  var apps = regularApps();
  var result = [];
  for (var i = 0; i < apps.length; i++) {
    var ax = axWindows(apps[i].pid);
    var ids = matchWindows(apps[i].pid, server, ax);
    for (var j = 0; j < ax.length; j++) result.push(describe(apps[i], ax[j], ids[j]));
  }
  return result;
}
/** The app and Accessibility window an id names, or NOT_FOUND. */
function findWindow(id) {
  var server = serverWindows();
  var pid = null;
  var local = /^(\d+):(\d+)$/.exec(id);
  if (local) pid = Number(local[1]);
  else {
    for (var i = 0; i < server.length; i++) if (String(server[i].number) === id) pid = server[i].pid;
  }
  var apps = regularApps().filter(function (app) { return app.pid === pid; });
  if (pid !== null && apps.length > 0) {
    var ax = axWindows(pid);
    var ids = matchWindows(pid, server, ax);
    for (var j = 0; j < ax.length; j++) if (ids[j] === id) return { app: apps[0], window: ax[j] };
  }
  nextaiFail('NOT_FOUND', 'There is no window with id ' + id + ' (it may have been closed). List the open windows with app_list and include_windows: true.');
}
function waitUntil(test) {
  for (var i = 0; i < 100; i++) {
    if (test()) return true;
    delay(0.02);
  }
  return false;
}
function reread(id) {
  var found = findWindow(id);
  return describe(found.app, found.window, id);
}
function launch(request) {
  var workspace = $.NSWorkspace.sharedWorkspace;
  var name = request.name;
  var url = null;
  if (name.indexOf('/') === 0) {
    if (!/\.app\/?$/.test(name)) return launchExecutable(name, request.args);
    url = $.NSURL.fileURLWithPath(name);
  } else if (/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+){2,}$/.test(name)) {
    url = workspace.URLForApplicationWithBundleIdentifier(name);
  } else {
    var path = workspace.fullPathForApplication(name);
    if (!path.isNil()) url = $.NSURL.fileURLWithPath(path);
  }
  if (!url || url.isNil()) nextaiFail('NOT_FOUND', 'No app named "' + name + '" was found. Give the name shown in /Applications, a bundle id (com.apple.TextEdit) or the full path to the .app.');
  var configuration = $.NSDictionary.dictionaryWithObjectForKey($(request.args), $.NSWorkspaceLaunchConfigurationArguments);
  var error = $();
  var app = workspace.launchApplicationAtURLOptionsConfigurationError(url, 0, configuration, error);
  if (!app || app.isNil()) nextaiFail('TOOL_FAILED', 'macOS could not start "' + name + '": ' + ObjC.unwrap(error.localizedDescription));
  return { pid: app.processIdentifier };
}
function launchExecutable(path, args) {
  // A plain program: its own process with output to /dev/null, so nothing holds osascript's pipes.
  var task = $.NSTask.alloc.init;
  task.launchPath = path;
  task.arguments = $(args);
  task.standardInput = $.NSFileHandle.fileHandleWithNullDevice;
  task.standardOutput = $.NSFileHandle.fileHandleWithNullDevice;
  task.standardError = $.NSFileHandle.fileHandleWithNullDevice;
  try {
    task.launch;
  } catch (error) {
    nextaiFail('NOT_FOUND', 'Could not start ' + path + ': ' + error.message);
  }
  return { pid: task.processIdentifier };
}
function main(request) {
  switch (request.op) {
    case 'apps':
      return regularApps().map(function (app) { return { name: app.name, pid: app.pid }; });
    case 'list':
      return listWindows();
    case 'focus': {
      var target = findWindow(request.id);
      $.NSRunningApplication.runningApplicationWithProcessIdentifier(target.app.pid).activateWithOptions(ACTIVATE_IGNORING_OTHER_APPS);
      if (target.window.minimized) target.window.element.attributes.byName('AXMinimized').value = false;
      target.window.element.actions.byName('AXRaise').perform();
      return waitUntil(function () { return reread(request.id).focused; });
    }
    case 'close': {
      var closing = findWindow(request.id);
      var buttons = closing.window.element.buttons.whose({ subrole: 'AXCloseButton' })();
      if (buttons.length === 0) nextaiFail('TOOL_FAILED', 'The window ' + request.id + ' has no close button; close its app instead.');
      buttons[0].click();
      return true;
    }
    case 'minimize':
    case 'restore': {
      var window = findWindow(request.id).window;
      window.element.attributes.byName('AXMinimized').value = request.op === 'minimize';
      if (request.op === 'restore' && attribute(window.element, 'AXFullScreen', false) === true) {
        window.element.attributes.byName('AXFullScreen').value = false;
      }
      return waitUntil(function () { return reread(request.id).minimized === (request.op === 'minimize'); });
    }
    case 'place': {
      var placed = findWindow(request.id).window;
      if (placed.minimized) placed.element.attributes.byName('AXMinimized').value = false;
      if (request.frame.x !== null) placed.element.position = [request.frame.x, request.frame.y];
      if (request.frame.width !== null) placed.element.size = [request.frame.width, request.frame.height];
      return waitUntil(function () {
        var now = reread(request.id).bounds;
        return (request.frame.x === null || (now.x === request.frame.x && now.y === request.frame.y)) &&
          (request.frame.width === null || (now.width === request.frame.width && now.height === request.frame.height));
      });
    }
    case 'maximize': {
      // macOS has no maximize: fill the main screen's visible frame (below the menu bar, beside the Dock).
      var screen = $.NSScreen.screens.objectAtIndex(0);
      var full = screen.frame;
      var visible = screen.visibleFrame;
      var top = full.size.height - (visible.origin.y + visible.size.height);
      var growing = findWindow(request.id).window;
      if (growing.minimized) growing.element.attributes.byName('AXMinimized').value = false;
      growing.element.position = [visible.origin.x, top];
      growing.element.size = [visible.size.width, visible.size.height];
      return true;
    }
    case 'launch':
      return launch(request);
  }
  nextaiFail('INVALID_INPUT', 'Unknown window operation: ' + request.op);
}
`;

/** "4127" (a CGWindowID) or "812:0" (pid:index). */
export function checkMacosWindowId(id: string): string {
  const text = id.trim();
  if (!/^\d+$/.test(text) && !/^\d+:\d+$/.test(text)) {
    throw new AppError(
      'INVALID_INPUT',
      `"${id}" is not a macOS window id (like 4127). app_list with include_windows shows them.`,
    );
  }
  return text;
}

export const macosWindowRequests = {
  apps: () => ({ op: 'apps' }),
  list: () => ({ op: 'list' }),
  focus: (id: string) => ({ op: 'focus', id: checkMacosWindowId(id) }),
  close: (id: string) => ({ op: 'close', id: checkMacosWindowId(id) }),
  action: (id: string, action: WindowAction) => {
    const checked = checkMacosWindowId(id);
    switch (action.kind) {
      case 'maximize':
      case 'minimize':
      case 'restore':
        return { op: action.kind, id: checked };
      case 'move':
        wholeNumber(action.x, 'x');
        wholeNumber(action.y, 'y');
        return { op: 'place', id: checked, frame: { x: action.x, y: action.y, width: null, height: null } };
      case 'resize':
        positiveWholeNumber(action.width, 'width');
        positiveWholeNumber(action.height, 'height');
        return { op: 'place', id: checked, frame: { x: null, y: null, width: action.width, height: action.height } };
    }
  },
  launch: (name: string, args: readonly string[]) => {
    if (name.trim() === '')
      throw new AppError('INVALID_INPUT', 'Name the app to start (a name, a bundle id or a path).');
    return { op: 'launch', name: name.trim(), args: [...args] };
  },
};

function wholeNumber(value: number, name: string): void {
  if (!Number.isInteger(value)) throw new AppError('INVALID_INPUT', `${name} must be a whole number of points.`);
}

function positiveWholeNumber(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new AppError('INVALID_INPUT', `${name} must be a positive whole number of points.`);
  }
}

const rectSchema = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

const windowSchema = z.object({
  id: z.string(),
  title: z.string(),
  pid: z.number().int(),
  app: z.string(),
  bounds: rectSchema,
  focused: z.boolean(),
  minimized: z.boolean(),
});

export function parseMacosWindows(value: unknown): WindowInfo[] {
  return z
    .array(windowSchema)
    .parse(value)
    .map((window) => ({
      ...window,
      pid: window.pid > 0 ? window.pid : null,
      bounds: {
        x: Math.round(window.bounds.x),
        y: Math.round(window.bounds.y),
        width: Math.round(window.bounds.width),
        height: Math.round(window.bounds.height),
      },
    }));
}

export function parseMacosApps(value: unknown): AppInfo[] {
  return z
    .array(z.object({ name: z.string(), pid: z.number().int().positive() }))
    .parse(value)
    .sort((a, b) => a.name.localeCompare(b.name) || a.pid - b.pid);
}

/** SIGTERM (the app may save first) or SIGKILL; never the daemon itself or launchd. */
export function killPosixProcess(pid: number, force: boolean, kill: typeof process.kill = process.kill): void {
  if (!Number.isInteger(pid) || pid <= 1) {
    throw new AppError('INVALID_INPUT', `Refusing to signal pid ${pid}: give the pid of an app (app_list shows them).`);
  }
  if (pid === process.pid) {
    throw new AppError('PERMISSION_DENIED', `Refusing to end pid ${pid}: that is the NextAI daemon itself.`);
  }
  try {
    kill(pid, force ? 'SIGKILL' : 'SIGTERM');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') throw new AppError('NOT_FOUND', `There is no process ${pid} (it may have ended already).`);
    if (code === 'EPERM') {
      throw new AppError('PERMISSION_DENIED', `Not allowed to end process ${pid}: it belongs to another user.`);
    }
    throw new AppError('TOOL_FAILED', `Couldn't signal process ${pid}: ${(error as Error).message}`, { cause: error });
  }
}

/** Window actions wait for System Events to move a window; listing many apps' windows takes a while. */
const WINDOWS_TIMEOUT_MS = 30_000;

export function createMacosWindows(options: MacosAdapterOptions & { kill?: typeof process.kill } = {}): WindowAdapter {
  const { jxa } = resolveOptions(options);
  const run = (host: JxaHost, request: object) =>
    host.run(MACOS_WINDOWS_SCRIPT, request, { timeoutMs: WINDOWS_TIMEOUT_MS });
  return {
    async listWindows() {
      return parseMacosWindows(await run(jxa, macosWindowRequests.list()));
    },
    async listApps() {
      return parseMacosApps(await run(jxa, macosWindowRequests.apps()));
    },
    async focusWindow(id) {
      const focused = z.boolean().parse(await run(jxa, macosWindowRequests.focus(id)));
      if (!focused) {
        throw new AppError(
          'TOOL_FAILED',
          `macOS did not bring window ${id} to the front within 2 s (the app may be busy, or the window is on another Space). Try app_switch with the app's name.`,
        );
      }
    },
    async closeWindow(id) {
      await run(jxa, macosWindowRequests.close(id));
    },
    async windowAction(id, action) {
      const settled = z.boolean().parse(await run(jxa, macosWindowRequests.action(id, action)));
      // A move or resize that did not land exactly is no error (minimum sizes, screen edges); the
      // tool reports the bounds the window took.
      if (!settled && (action.kind === 'minimize' || action.kind === 'restore')) {
        throw new AppError(
          'TOOL_FAILED',
          `The window ${id} did not ${action.kind} within 2 s (the app may not be responding).`,
        );
      }
    },
    async launchApp(name, args, options) {
      // Apps cannot be put in a sandbox here: refused, never started unconfined instead.
      if (options?.confine) {
        throw new AppError('SANDBOX_UNAVAILABLE', 'Apps cannot run in a sandbox on macOS yet; nothing was started.');
      }
      const { pid } = z.object({ pid: z.number().int() }).parse(await run(jxa, macosWindowRequests.launch(name, args)));
      if (pid > 0) options?.started?.(pid);
      return { pid: pid > 0 ? pid : null };
    },
    async killProcess(pid, force) {
      killPosixProcess(pid, force, options.kill);
    },
  };
}
