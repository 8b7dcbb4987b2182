import { describe, expect, it } from 'vitest';

import { HOSTILE_STRINGS } from '../windows/test-support.js';
import type { JxaHost } from './jxa.js';
import { fakeObjC, loadJxa } from './jxa-sandbox.js';
import {
  MACOS_WINDOWS_SCRIPT,
  checkMacosWindowId,
  createMacosWindows,
  killPosixProcess,
  macosWindowRequests,
  parseMacosApps,
  parseMacosWindows,
} from './windows.js';

interface FakeWindow {
  title: string;
  frame: [number, number, number, number];
  minimized?: boolean;
  main?: boolean;
}

/** Stand-ins for NSWorkspace, the window server list and System Events. */
function fakeMac(
  apps: Array<{ name: string; pid: number; policy?: number; active?: boolean; windows: FakeWindow[] }>,
  server: unknown[],
) {
  const launched: unknown[] = [];
  const $ = Object.assign((value: unknown) => value, {
    NSWorkspace: {
      sharedWorkspace: {
        runningApplications: {
          count: apps.length,
          objectAtIndex: (index: number) => ({
            activationPolicy: apps[index]!.policy ?? 0,
            localizedName: apps[index]!.name,
            processIdentifier: apps[index]!.pid,
            active: apps[index]!.active ?? false,
          }),
        },
        fullPathForApplication: (name: string) => ({
          isNil: () => name !== 'TextEdit',
          toString: () => '/Applications/TextEdit.app',
        }),
        URLForApplicationWithBundleIdentifier: () => ({ isNil: () => true }),
        launchApplicationAtURLOptionsConfigurationError: (url: unknown, _options: number, configuration: unknown) => {
          launched.push({ url, configuration });
          return { isNil: () => false, processIdentifier: 321 };
        },
      },
    },
    NSURL: { fileURLWithPath: (path: unknown) => ({ isNil: () => false, path }) },
    NSDictionary: { dictionaryWithObjectForKey: (value: unknown, key: unknown) => ({ [String(key)]: value }) },
    NSWorkspaceLaunchConfigurationArguments: 'arguments',
    NSFileHandle: { fileHandleWithNullDevice: 'null' },
    NSTask: {
      alloc: {
        init: {
          launch: undefined,
          processIdentifier: 654,
        },
      },
    },
    CGWindowListCopyWindowInfo: () => server,
  });
  const Application = () => ({
    processes: {
      whose:
        ({ unixId }: { unixId: number }) =>
        () =>
          apps
            .filter((app) => app.pid === unixId)
            .map((app) => ({
              windows: () =>
                app.windows.map((window) => ({
                  name: () => window.title,
                  position: () => [window.frame[0], window.frame[1]],
                  size: () => [window.frame[2], window.frame[3]],
                  attributes: {
                    byName: (name: string) => ({
                      value: () =>
                        name === 'AXMinimized'
                          ? (window.minimized ?? false)
                          : name === 'AXMain'
                            ? (window.main ?? false)
                            : null,
                    }),
                  },
                })),
            })),
    },
  });
  const script = loadJxa(MACOS_WINDOWS_SCRIPT, { $, ObjC: fakeObjC(), Application }, ['main', 'matchWindows']);
  return { ...script, launched };
}

const serverEntry = (
  number: number,
  pid: number,
  frame: [number, number, number, number],
  layer = 0,
  title?: string,
) => ({
  kCGWindowNumber: number,
  kCGWindowOwnerPID: pid,
  kCGWindowLayer: layer,
  kCGWindowName: title,
  kCGWindowBounds: { X: frame[0], Y: frame[1], Width: frame[2], Height: frame[3] },
});

describe('the windows script (run against stand-ins)', () => {
  it('lists the windows of regular apps with window-server ids, focus and minimized state', () => {
    const mac = fakeMac(
      [
        {
          name: 'TextEdit',
          pid: 10,
          active: true,
          windows: [
            { title: 'Untitled "1"', frame: [100, 50, 600, 400], main: true },
            { title: 'Notes', frame: [0, 0, 300, 200], minimized: true },
          ],
        },
        { name: 'Dock', pid: 11, policy: 1, windows: [{ title: 'Dock', frame: [0, 0, 1, 1] }] },
      ],
      [serverEntry(77, 10, [100, 50, 600, 400]), serverEntry(78, 10, [0, 0, 1440, 25], 25)],
    );
    expect(mac.main({ op: 'list' })).toEqual([
      {
        id: '77',
        title: 'Untitled "1"',
        pid: 10,
        app: 'TextEdit',
        bounds: { x: 100, y: 50, width: 600, height: 400 },
        focused: true,
        minimized: false,
      },
      {
        id: '10:1',
        title: 'Notes',
        pid: 10,
        app: 'TextEdit',
        bounds: { x: 0, y: 0, width: 300, height: 200 },
        focused: false,
        minimized: true,
      },
    ]);
  });

  it('matches same-frame windows by title first', () => {
    const mac = fakeMac([], []);
    const server = [
      { number: 1, pid: 5, title: 'B', bounds: { x: 0, y: 0, width: 10, height: 10 } },
      { number: 2, pid: 5, title: 'A', bounds: { x: 0, y: 0, width: 10, height: 10 } },
      { number: 3, pid: 6, title: 'A', bounds: { x: 0, y: 0, width: 10, height: 10 } },
    ];
    const ax = [
      { index: 0, title: 'A', bounds: { x: 0, y: 0, width: 10, height: 10 } },
      { index: 1, title: 'B', bounds: { x: 0.5, y: 0, width: 10, height: 10 } },
      { index: 2, title: 'C', bounds: { x: 50, y: 50, width: 10, height: 10 } },
    ];
    expect(mac.matchWindows(5, server, ax)).toEqual(['2', '1', '5:2']);
  });

  it('reports an unknown window id as NOT_FOUND', () => {
    const mac = fakeMac([{ name: 'TextEdit', pid: 10, windows: [] }], []);
    expect(() => mac.main({ op: 'close', id: '999' })).toThrow(/no window with id 999/);
  });

  it('launches apps by name with their arguments, plain programs with NSTask', () => {
    const mac = fakeMac([], []);
    expect(mac.main({ op: 'launch', name: 'TextEdit', args: ['a b'] })).toEqual({ pid: 321 });
    expect(mac.launched).toEqual([
      { url: { isNil: expect.any(Function), path: expect.anything() }, configuration: { arguments: ['a b'] } },
    ]);
    expect(mac.main({ op: 'launch', name: '/usr/local/bin/tool', args: [] })).toEqual({ pid: 654 });
    expect(() => mac.main({ op: 'launch', name: 'NoSuchApp', args: [] })).toThrow(/No app named "NoSuchApp"/);
  });
});

describe('macOS window requests and parsing', () => {
  it('accept window-server and pid:index ids only', () => {
    expect(checkMacosWindowId(' 4127 ')).toBe('4127');
    expect(checkMacosWindowId('812:0')).toBe('812:0');
    for (const bad of ['0x10', 'abc', '1:2:3', "4127'; do shell script"])
      expect(() => checkMacosWindowId(bad)).toThrow(/not a macOS window id/);
  });

  it('build actions and keep launch arguments as data', () => {
    expect(macosWindowRequests.action('5', { kind: 'resize', width: 800, height: 600 })).toEqual({
      op: 'place',
      id: '5',
      frame: { x: null, y: null, width: 800, height: 600 },
    });
    expect(() => macosWindowRequests.action('5', { kind: 'move', x: 0.5, y: 0 })).toThrow(/whole number/);
    expect(macosWindowRequests.launch('TextEdit', HOSTILE_STRINGS)).toEqual({
      op: 'launch',
      name: 'TextEdit',
      args: HOSTILE_STRINGS,
    });
  });

  it('parse windows (rounding points) and apps (sorted)', () => {
    expect(
      parseMacosWindows([
        {
          id: '1',
          title: 't',
          pid: 0,
          app: 'a',
          bounds: { x: 0.4, y: 1.6, width: 10, height: 10 },
          focused: false,
          minimized: false,
        },
      ]),
    ).toEqual([
      {
        id: '1',
        title: 't',
        pid: null,
        app: 'a',
        bounds: { x: 0, y: 2, width: 10, height: 10 },
        focused: false,
        minimized: false,
      },
    ]);
    expect(
      parseMacosApps([
        { name: 'b', pid: 2 },
        { name: 'a', pid: 3 },
      ]),
    ).toEqual([
      { name: 'a', pid: 3 },
      { name: 'b', pid: 2 },
    ]);
  });

  it('signal processes, refusing launchd and the daemon', () => {
    const sent: unknown[] = [];
    const kill = ((pid: number, signal: string) => {
      sent.push([pid, signal]);
      if (pid === 999) throw Object.assign(new Error('no'), { code: 'ESRCH' });
      return true;
    }) as typeof process.kill;
    killPosixProcess(50, false, kill);
    killPosixProcess(51, true, kill);
    expect(sent).toEqual([
      [50, 'SIGTERM'],
      [51, 'SIGKILL'],
    ]);
    expect(() => killPosixProcess(1, true, kill)).toThrow(/Refusing/);
    expect(() => killPosixProcess(process.pid, true, kill)).toThrow(/daemon itself/);
    expect(() => killPosixProcess(999, true, kill)).toThrow(/no process 999/);
  });

  it('tell the registry of launched apps the pid they started (the emergency stop ends it)', async () => {
    const jxa: JxaHost = { run: async () => ({ pid: 4321 }) };
    const started: number[] = [];
    await expect(
      createMacosWindows({ jxa }).launchApp('TextEdit', [], { started: (pid) => started.push(pid) }),
    ).resolves.toEqual({ pid: 4321 });
    expect(started).toEqual([4321]);
  });

  it('fail focus with a way out when the window did not come to the front', async () => {
    const jxa: JxaHost = { run: async () => false };
    await expect(createMacosWindows({ jxa }).focusWindow('5')).rejects.toMatchObject({ code: 'TOOL_FAILED' });
  });
});
