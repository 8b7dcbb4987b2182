import fs from 'node:fs';
import path from 'node:path';

import { AppError } from '@nextai/shared';

import type { ClipboardContent, Desktop, Point, RawImage, Rect, Size, WindowInfo } from './desktop.js';

/** What the fake desktop was asked to do, in order, for logic tests to check. */
export type FakeAction = { op: string; args: unknown[] };

/**
 * An in-memory desktop for logic tests (no X server): a screen of a given size filled by
 * `paint`, windows from a list, a clipboard, and a trash directory. Adapters are tested for real
 * under Xvfb; this is for the tool layer above them.
 */
export function createFakeDesktop(
  options: {
    size?: Size;
    windows?: WindowInfo[];
    trashDir?: string;
    paint?: (x: number, y: number) => [number, number, number];
  } = {},
) {
  const size = options.size ?? { width: 1920, height: 1080 };
  const windows = options.windows ?? [];
  const actions: FakeAction[] = [];
  let pointer: Point = { x: 0, y: 0 };
  let clipboard: ClipboardContent = { formats: [] };
  const record = (op: string, ...args: unknown[]): void => {
    actions.push({ op, args });
  };
  const paint = options.paint ?? (() => [32, 64, 128] as [number, number, number]);
  const findWindow = (id: string) => {
    const window = windows.find((candidate) => candidate.id === id);
    if (!window) throw new AppError('NOT_FOUND', `There is no window with id ${id}.`);
    return window;
  };

  const desktop: Desktop = {
    platform: 'linux',
    screen: {
      screenSize: async () => size,
      capture: async (region?: Rect): Promise<RawImage> => {
        const area = region ?? { x: 0, y: 0, ...size };
        const data = Buffer.alloc(area.width * area.height * 3);
        for (let y = 0; y < area.height; y++) {
          for (let x = 0; x < area.width; x++) {
            const [r, g, b] = paint(area.x + x, area.y + y);
            const offset = (y * area.width + x) * 3;
            data[offset] = r;
            data[offset + 1] = g;
            data[offset + 2] = b;
          }
        }
        return { width: area.width, height: area.height, channels: 3, order: 'rgb', data };
      },
    },
    input: {
      pointer: async () => pointer,
      mouseMove: async (to, durationMs) => {
        record('mouseMove', to, durationMs);
        pointer = to;
      },
      click: async (at, button, count, modifiers) => {
        record('click', at, button, count, modifiers);
        pointer = at;
      },
      drag: async (from, to, durationMs) => {
        record('drag', from, to, durationMs);
        pointer = to;
      },
      scroll: async (at, direction, amount) => record('scroll', at, direction, amount),
      typeText: async (text, delayMs) => record('typeText', text, delayMs),
      pressKeys: async (keys) => record('pressKeys', keys),
      releaseAll: async () => {
        record('releaseAll');
        return 'released';
      },
    },
    windows: {
      listWindows: async () => windows,
      listApps: async () => [
        ...new Map(windows.filter((w) => w.pid !== null).map((w) => [w.pid, { name: w.app, pid: w.pid! }])).values(),
      ],
      focusWindow: async (id) => {
        for (const window of windows) window.focused = window.id === findWindow(id).id;
        record('focusWindow', id);
      },
      closeWindow: async (id) => {
        windows.splice(windows.indexOf(findWindow(id)), 1);
        record('closeWindow', id);
      },
      windowAction: async (id, action) => {
        const window = findWindow(id);
        record('windowAction', id, action);
        if (action.kind === 'move') window.bounds = { ...window.bounds, x: action.x, y: action.y };
        if (action.kind === 'resize') window.bounds = { ...window.bounds, width: action.width, height: action.height };
        if (action.kind === 'minimize') window.minimized = true;
        if (action.kind === 'restore') window.minimized = false;
      },
      launchApp: async (name, args) => {
        record('launchApp', name, args);
        return { pid: 4242 };
      },
      killProcess: async (pid, force) => record('killProcess', pid, force),
    },
    clipboard: {
      read: async () => clipboard,
      writeText: async (text) => {
        clipboard = { formats: ['text/plain'], text };
      },
      writeImage: async (png) => {
        clipboard = { formats: ['image/png'], png };
      },
    },
    notifications: { notify: async (title, body, urgency) => record('notify', title, body, urgency) },
    trash: {
      moveToTrash: async (absolutePath) => {
        if (!options.trashDir) throw new AppError('UNAVAILABLE', 'The fake desktop has no trash directory.');
        const target = path.join(options.trashDir, path.basename(absolutePath));
        fs.renameSync(absolutePath, target);
        return { trashedTo: target };
      },
    },
  };
  return { desktop, actions, windows, clipboard: () => clipboard };
}
