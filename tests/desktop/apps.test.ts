import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLinuxDesktop } from '../../native-host/src/platform/linux/index.js';
import { runCommand } from '../../native-host/src/core/subprocess.js';
import { createAppHandlers } from '../../native-host/src/tools/apps/index.js';
import { callTool, failureOf, testServices } from '../../native-host/src/tools/test-support.js';
import { openXterm, startXServer, type XServer } from '../support/x-server.js';

/** App and window tools against real windows: Xvfb, openbox, xterm; checked with xwininfo and xprop. */
let server: XServer;
let handlers: ReturnType<typeof createAppHandlers>['handlers'];

beforeAll(async () => {
  server = await startXServer();
  handlers = createAppHandlers(testServices(createLinuxDesktop(server.env))).handlers;
}, 40_000);
afterAll(async () => server?.stop());

const x = (args: string[]) => runCommand(args[0] as string, args.slice(1), { env: { DISPLAY: server.display } });

/**
 * The outer frame of a window, from xwininfo (the client area in absolute pixels) and the window
 * manager's _NET_FRAME_EXTENTS (left, right, top, bottom borders), as a person sees it on screen.
 */
async function frameOf(windowId: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const { stdout } = await x(['xwininfo', '-id', windowId]);
  const number = (label: string) => Number(new RegExp(`${label}:\\s+(-?\\d+)`, 'u').exec(stdout)?.[1]);
  const extents = (await x(['xprop', '-id', windowId, '_NET_FRAME_EXTENTS'])).stdout;
  const [left = 0, right = 0, top = 0, bottom = 0] = (/=\s*(.*)$/mu.exec(extents)?.[1] ?? '')
    .split(',')
    .map((value) => Number(value.trim()));
  return {
    x: number('Absolute upper-left X') - left,
    y: number('Absolute upper-left Y') - top,
    width: number('Width') + left + right,
    height: number('Height') + top + bottom,
  };
}

async function activeWindow(): Promise<number> {
  const { stdout } = await x(['xprop', '-root', '_NET_ACTIVE_WINDOW']);
  return Number.parseInt(/0x[0-9a-f]+/iu.exec(stdout)?.[0] ?? '0', 16);
}

describe('app_list and window addressing', () => {
  it('lists xterm with its pid, title, absolute bounds and focus', async () => {
    const { child, windowId } = await openXterm(server, 'nx-list-term');
    try {
      const result = (await callTool('app_list', handlers.app_list, { include_windows: true })) as {
        apps: {
          name: string;
          pid: number;
          windows: { id: string; title: string; bounds: object; focused: boolean }[];
        }[];
      };
      const app = result.apps.find((candidate) => candidate.pid === child.pid);
      expect(app?.name).toBe('xterm');
      const window = app?.windows.find((candidate) => candidate.title === 'nx-list-term');
      expect(Number.parseInt(window?.id ?? '', 16)).toBe(Number(windowId));
      expect(window?.bounds).toEqual(await frameOf(windowId));
    } finally {
      child.kill();
    }
  });
});

describe('window_manage', () => {
  it('moves and resizes a window by part of its title, as xwininfo sees it', async () => {
    const { child, windowId } = await openXterm(server, 'nx-arrange-term');
    try {
      const moved = (await callTool('window_manage', handlers.window_manage, {
        window_title: 'arrange-term',
        action: 'move',
        bounds: { x: 333, y: 222 },
      })) as { success: boolean; window: { bounds: { x: number; y: number } } };
      expect(moved.success).toBe(true);
      const afterMove = await frameOf(windowId);
      expect({ x: afterMove.x, y: afterMove.y }).toEqual({ x: 333, y: 222 });
      expect(moved.window.bounds).toMatchObject({ x: 333, y: 222 });

      const before = await frameOf(windowId);
      const resized = (await callTool('window_manage', handlers.window_manage, {
        window_title: 'nx-arrange-term',
        action: 'resize',
        bounds: { width: 900, height: 600 },
      })) as { window: { bounds: { width: number; height: number } } };
      const afterResize = await frameOf(windowId);
      // xterm takes sizes in character cells: within one cell (6×13 px in the default font) of the request.
      expect(Math.abs(afterResize.width - 900)).toBeLessThan(13);
      expect(Math.abs(afterResize.height - 600)).toBeLessThan(20);
      expect(afterResize.width).toBeGreaterThan(before.width);
      expect(resized.window.bounds).toMatchObject({ width: afterResize.width, height: afterResize.height });
    } finally {
      child.kill();
    }
  });

  it('maximizes, minimizes and restores', async () => {
    const { child, windowId } = await openXterm(server, 'nx-state-term');
    try {
      await callTool('window_manage', handlers.window_manage, { window_title: windowId, action: 'maximize' });
      const maximized = await frameOf(windowId);
      expect(maximized.width).toBe(server.width);
      const state = async () => (await x(['xprop', '-id', windowId, '_NET_WM_STATE'])).stdout;
      expect(await state()).toContain('_NET_WM_STATE_MAXIMIZED_HORZ');

      await callTool('window_manage', handlers.window_manage, { window_title: windowId, action: 'minimize' });
      expect(await state()).toContain('_NET_WM_STATE_HIDDEN');

      const restored = (await callTool('window_manage', handlers.window_manage, {
        window_title: windowId,
        action: 'restore',
      })) as { window: { minimized: boolean } };
      expect(restored.window.minimized).toBe(false);
      const after = await state();
      expect(after).not.toContain('_NET_WM_STATE_HIDDEN');
      expect(after).not.toContain('_NET_WM_STATE_MAXIMIZED_HORZ');
    } finally {
      child.kill();
    }
  });

  it('says which windows exist when none matches, and which match when several do', async () => {
    const first = await openXterm(server, 'nx-twin-one');
    const second = await openXterm(server, 'nx-twin-two');
    try {
      const missing = await failureOf(
        callTool('window_manage', handlers.window_manage, { window_title: 'no such window', action: 'maximize' }),
      );
      expect(missing.code).toBe('NOT_FOUND');
      expect(missing.message).toContain('nx-twin-one');
      // Two titles match and the focused one is among them: the focused one is meant.
      await x(['wmctrl', '-i', '-a', second.windowId]);
      const focusedTwin = (await callTool('app_switch', handlers.app_switch, { name: 'nx-twin' })) as {
        window: { title: string };
      };
      expect(focusedTwin.window.title).toBe('nx-twin-two');
    } finally {
      first.child.kill();
      second.child.kill();
    }
  });
});

describe('app_switch, app_launch and app_close', () => {
  it('brings a window to the front by title', async () => {
    const first = await openXterm(server, 'nx-front-one');
    const second = await openXterm(server, 'nx-front-two');
    try {
      expect(await activeWindow()).toBe(Number(second.windowId));
      const result = (await callTool('app_switch', handlers.app_switch, { name: 'nx-front-one' })) as {
        window: { focused: boolean };
      };
      expect(result.window.focused).toBe(true);
      expect(await activeWindow()).toBe(Number(first.windowId));
    } finally {
      first.child.kill();
      second.child.kill();
    }
  });

  it('launches an app by name with arguments, then closes it gracefully', async () => {
    const launched = (await callTool('app_launch', handlers.app_launch, {
      name: 'xterm',
      args: ['-T', 'nx-launched-term'],
    })) as { pid: number; message: string };
    expect(launched.pid).toBeGreaterThan(1);
    expect(launched.message).toContain('nx-launched-term');
    const closed = (await callTool('app_close', handlers.app_close, { name: 'nx-launched-term' })) as {
      success: boolean;
      closed: number;
    };
    expect(closed).toMatchObject({ success: true, closed: 1 });
    await expect(x(['kill', '-0', String(launched.pid)])).rejects.toThrow();
  });

  it('kills an app with force', async () => {
    const { child } = await openXterm(server, 'nx-forced-term');
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    const closed = (await callTool('app_close', handlers.app_close, { name: 'nx-forced-term', force: true })) as {
      closed: number;
    };
    expect(closed.closed).toBe(1);
    expect(await exited).toBe('SIGKILL');
  });

  it('reports an app that does not exist, naming what can be launched or is running', async () => {
    const launch = await failureOf(callTool('app_launch', handlers.app_launch, { name: 'no-such-app-nx' }));
    expect(launch.code).toBe('NOT_FOUND');
    const close = await failureOf(callTool('app_close', handlers.app_close, { name: 'no-such-app-nx' }));
    expect(close.code).toBe('NOT_FOUND');
  });
});
