import { spawn } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { AppError } from '@nextai/shared';

import { createFakeDesktop } from '../../platform/fake-desktop.js';
import type { WindowInfo } from '../../platform/desktop.js';
import { callTool, testContext, testServices } from '../test-support.js';
import { createAppHandlers } from './index.js';

/** Pids above the kernel's pid_max: never a running process, so app_close sees them end at once. */
const EDITOR_PID = 999_999_001;
const SHELL_PID = 999_999_002;
const SECOND_EDITOR_PID = 999_999_003;

function window(id: string, title: string, extra: Partial<WindowInfo> = {}): WindowInfo {
  return {
    id,
    title,
    pid: EDITOR_PID,
    app: 'gedit',
    bounds: { x: 100, y: 100, width: 640, height: 480 },
    focused: false,
    minimized: false,
    ...extra,
  };
}

function setup(windows?: WindowInfo[]) {
  const fake = createFakeDesktop({
    windows: windows ?? [
      window('0x3a00007', 'notes.txt - gedit'),
      window('0x3a00019', 'todo.txt - gedit'),
      window('0x3c0000b', 'gedit', { pid: SHELL_PID, app: 'xterm', focused: true }),
      window('0x3e00004', 'draft.txt - gedit', { pid: SECOND_EDITOR_PID }),
    ],
  });
  const { handlers } = createAppHandlers(testServices(fake.desktop));
  return { ...fake, handlers };
}

async function rejected(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const ops = (actions: { op: string; args: unknown[] }[]) => actions.map((action) => [action.op, ...action.args]);

describe('app_close', () => {
  it('closes every window of every process of the app named, rather than the window titled so', async () => {
    const { handlers, actions, windows } = setup();
    const result = await callTool('app_close', handlers.app_close, { name: 'GEDIT' });
    expect(result).toEqual({
      success: true,
      closed: 2,
      message: `Closed gedit (pid ${EDITOR_PID}, ${SECOND_EDITOR_PID}): 2 processes ended.`,
    });
    expect(ops(actions)).toEqual([
      ['closeWindow', '0x3a00007'],
      ['closeWindow', '0x3a00019'],
      ['closeWindow', '0x3e00004'],
    ]);
    // The xterm whose title is "gedit" is still open.
    expect(windows.map((remaining) => remaining.id)).toEqual(['0x3c0000b']);
  });

  it('closes the owner of the window a title names, and only it', async () => {
    const { handlers, actions } = setup();
    const result = (await callTool('app_close', handlers.app_close, { name: 'draft.txt' })) as { message: string };
    expect(ops(actions)).toEqual([['closeWindow', '0x3e00004']]);
    expect(result.message).toBe(
      `Closed gedit (pid ${SECOND_EDITOR_PID}) owning "draft.txt - gedit" (id 0x3e00004, gedit): 1 process ended.`,
    );
  });

  it('closes by window id too', async () => {
    const { handlers, actions } = setup();
    await callTool('app_close', handlers.app_close, { name: String(0x3c0000b) });
    expect(ops(actions)).toEqual([['closeWindow', '0x3c0000b']]);
  });

  it('kills the processes with force instead of asking the windows', async () => {
    const { handlers, actions } = setup();
    const result = (await callTool('app_close', handlers.app_close, { name: 'gedit', force: true })) as {
      message: string;
    };
    expect(ops(actions)).toEqual([
      ['killProcess', EDITOR_PID, true],
      ['killProcess', SECOND_EDITOR_PID, true],
    ]);
    expect(result.message).toMatch(/^Killed gedit/u);
  });

  it('asks a window without a known process to close, and refuses to force it', async () => {
    const remote = () => [window('0x5000001', 'remote clock', { pid: null, app: '' })];
    const asked = setup(remote());
    expect(await callTool('app_close', asked.handlers.app_close, { name: 'clock' })).toEqual({
      success: true,
      closed: 0,
      message: 'Asked the window "remote clock" (id 0x5000001) to close.',
    });
    expect(ops(asked.actions)).toEqual([['closeWindow', '0x5000001']]);
    const forced = setup(remote());
    const error = await rejected(callTool('app_close', forced.handlers.app_close, { name: 'clock', force: true }));
    expect(error.code).toBe('TOOL_FAILED');
    expect(forced.actions).toEqual([]);
  });

  it('reports a process that is still running, and suggests force', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = child.pid as number;
      const { handlers } = setup([window('0x3a00007', 'unsaved.txt - gedit', { pid })]);
      // An aborted call stops waiting at once: the result is what is true now.
      const context = { ...testContext(), signal: AbortSignal.abort() };
      const result = (await callTool('app_close', handlers.app_close, { name: 'unsaved' }, context)) as {
        success: boolean;
        closed: number;
        message: string;
      };
      expect(result.success).toBe(false);
      expect(result.closed).toBe(0);
      expect(result.message).toContain(`still running after 3 s: pid ${pid}`);
      expect(result.message).toContain('force: true');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('says NOT_FOUND naming the running apps and the open windows', async () => {
    const { handlers, actions } = setup();
    const error = await rejected(callTool('app_close', handlers.app_close, { name: 'libreoffice' }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain('Running apps: gedit, xterm.');
    expect(error.message).toContain('"todo.txt - gedit" (id 0x3a00019, gedit)');
    expect(actions).toEqual([]);
  });
});

describe('app_switch', () => {
  it("focuses the app's first visible window by app name", async () => {
    const { handlers, actions } = setup([
      window('0x3a00007', 'notes.txt - gedit', { minimized: true }),
      window('0x3a00019', 'todo.txt - gedit'),
      window('0x3c0000b', 'shell', { pid: SHELL_PID, app: 'xterm', focused: true }),
    ]);
    const result = (await callTool('app_switch', handlers.app_switch, { name: 'gedit' })) as {
      window: { id: string; focused: boolean };
    };
    expect(ops(actions)).toEqual([['focusWindow', '0x3a00019']]);
    expect(result.window).toMatchObject({ id: '0x3a00019', focused: true });
  });

  it('focuses by window id in decimal and by part of a title', async () => {
    const { handlers, actions } = setup();
    await callTool('app_switch', handlers.app_switch, { name: String(0x3a00019) });
    await callTool('app_switch', handlers.app_switch, { name: 'draft' });
    expect(ops(actions)).toEqual([
      ['focusWindow', '0x3a00019'],
      ['focusWindow', '0x3e00004'],
    ]);
  });
});

describe('window_manage', () => {
  it('refuses move without x or y, and resize without width or height, before touching the window', async () => {
    const { handlers, actions } = setup();
    const move = await rejected(
      callTool('window_manage', handlers.window_manage, {
        window_title: 'notes',
        action: 'move',
        bounds: { width: 300 },
      }),
    );
    expect(move.code).toBe('INVALID_INPUT');
    expect(move.message).toMatch(/^move needs bounds\.x and\/or bounds\.y/u);
    const resize = await rejected(
      callTool('window_manage', handlers.window_manage, { window_title: 'notes', action: 'resize' }),
    );
    expect(resize.code).toBe('INVALID_INPUT');
    expect(resize.message).toMatch(/^resize needs bounds\.width and\/or bounds\.height/u);
    expect(actions).toEqual([]);
  });

  it('moves along one axis, keeping the other, and reports where the window is', async () => {
    const { handlers, actions } = setup();
    const result = (await callTool('window_manage', handlers.window_manage, {
      window_title: 'notes.txt',
      action: 'move',
      bounds: { x: -20 },
    })) as { success: boolean; message: string; window: { bounds: object } };
    expect(ops(actions)).toEqual([['windowAction', '0x3a00007', { kind: 'move', x: -20, y: 100 }]]);
    expect(result.success).toBe(true);
    expect(result.window.bounds).toEqual({ x: -20, y: 100, width: 640, height: 480 });
    expect(result.message).toBe(
      'Moved "notes.txt - gedit" (id 0x3a00007, gedit); it is now at (-20, 100) size 640×480 (outer frame, absolute screen pixels).',
    );
  });

  it('moves and resizes when resize is given a position too', async () => {
    const { handlers, actions } = setup();
    await callTool('window_manage', handlers.window_manage, {
      window_title: 'todo',
      action: 'resize',
      bounds: { x: 0, y: 0, height: 300 },
    });
    expect(ops(actions)).toEqual([
      ['windowAction', '0x3a00019', { kind: 'move', x: 0, y: 0 }],
      ['windowAction', '0x3a00019', { kind: 'resize', width: 640, height: 300 }],
    ]);
  });

  it('notes when the window manager or the app adjusted the size', async () => {
    const { handlers, desktop, windows } = setup();
    // Like a terminal: sizes in steps of 7 × 13 pixels.
    desktop.windows.windowAction = async (id, action) => {
      const target = windows.find((candidate) => candidate.id === id) as WindowInfo;
      if (action.kind === 'resize') {
        target.bounds = {
          ...target.bounds,
          width: action.width - (action.width % 7),
          height: action.height - (action.height % 13),
        };
      }
    };
    const result = (await callTool('window_manage', handlers.window_manage, {
      window_title: 'notes',
      action: 'resize',
      bounds: { width: 500, height: 390 },
    })) as { success: boolean; message: string };
    expect(result.success).toBe(true);
    expect(result.message).toContain('now at (100, 100) size 497×390');
    expect(result.message).toContain('adjusted the request (width 500 asked)');
  });

  it('says nothing about adjustments when the window got what was asked', async () => {
    const { handlers } = setup();
    const result = (await callTool('window_manage', handlers.window_manage, {
      window_title: 'notes',
      action: 'resize',
      bounds: { width: 500, height: 390 },
    })) as { message: string };
    expect(result.message).not.toContain('adjusted');
  });

  it('minimizes by title and reports the new state', async () => {
    const { handlers } = setup();
    const result = (await callTool('window_manage', handlers.window_manage, {
      window_title: 'todo',
      action: 'minimize',
    })) as { window: { minimized: boolean } };
    expect(result.window.minimized).toBe(true);
  });

  it('says so when the window closed while it was being arranged', async () => {
    const { handlers, desktop, windows } = setup();
    desktop.windows.windowAction = async (id) => {
      windows.splice(
        windows.findIndex((candidate) => candidate.id === id),
        1,
      );
    };
    const result = (await callTool('window_manage', handlers.window_manage, {
      window_title: 'notes',
      action: 'maximize',
    })) as { success: boolean; message: string; window?: unknown };
    expect(result.success).toBe(false);
    expect(result.window).toBeUndefined();
    expect(result.message).toContain('closed while it was being arranged');
  });

  it('asks which window when the title matches several', async () => {
    const { handlers, actions } = setup();
    const error = await rejected(
      callTool('window_manage', handlers.window_manage, { window_title: '.txt', action: 'maximize' }),
    );
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('3 windows match ".txt"');
    expect(actions).toEqual([]);
  });
});
