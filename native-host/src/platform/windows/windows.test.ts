import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import type { Exec } from '../command-exec.js';
import { fakePowerShell, HOSTILE_STRINGS } from './test-support.js';
import {
  WINDOWS_WINDOWS_SCRIPT,
  createWindowsWindows,
  formatWindowHandle,
  parseAppList,
  parseWindowHandle,
  parseWindowList,
  taskkillCommand,
  taskkillFailure,
  windowRequests,
  windowsCommandLine,
} from './windows.js';

/** How the C runtime / CommandLineToArgvW split a command line (the rules since 2008). */
function splitCommandLine(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let inQuotes = false;
  let started = false;
  for (let index = 0; index < line.length;) {
    const character = line[index]!;
    if (character === '\\') {
      let count = 0;
      while (line[index] === '\\') {
        count += 1;
        index += 1;
      }
      if (line[index] === '"') {
        current += '\\'.repeat(Math.floor(count / 2));
        if (count % 2 === 1) {
          current += '"';
          index += 1;
        }
      } else {
        current += '\\'.repeat(count);
      }
      started = true;
      continue;
    }
    if (character === '"') {
      inQuotes = !inQuotes;
      started = true;
      index += 1;
      continue;
    }
    if (!inQuotes && (character === ' ' || character === '\t')) {
      if (started) args.push(current);
      current = '';
      started = false;
      index += 1;
      continue;
    }
    current += character;
    started = true;
    index += 1;
  }
  if (started) args.push(current);
  return args;
}

const SAMPLE_ROW = {
  handle: 0x1a02b4,
  title: 'notes.txt - Notepad "x" 中',
  pid: 4242,
  app: 'notepad',
  x: -1913,
  y: 10,
  width: 800,
  height: 600,
  focused: true,
  minimized: false,
  maximized: false,
};

describe('window ids', () => {
  it('reads hex and decimal HWNDs and writes hex', () => {
    expect(parseWindowHandle('0x1A02B4')).toBe(0x1a02b4);
    expect(parseWindowHandle(' 1704628 ')).toBe(1704628);
    expect(formatWindowHandle(1704628)).toBe('0x1a02b4');
    for (const bad of ['notepad', '0x', '-5', '0', '1e5', '0x1a; Stop-Computer']) {
      expect(() => parseWindowHandle(bad)).toThrow(/not a Windows window id/);
    }
  });
});

describe('windowsCommandLine', () => {
  it('quotes only what needs it', () => {
    expect(windowsCommandLine(['plain', 'with space', '', 'quote"inside', 'C:\\dir\\'])).toBe(
      'plain "with space" "" "quote\\"inside" C:\\dir\\',
    );
    expect(windowsCommandLine(['C:\\My Dir\\'])).toBe('"C:\\My Dir\\\\"');
  });

  it('splits back into exactly the arguments given, hostile ones included', () => {
    const args = [
      ...HOSTILE_STRINGS.slice(0, 6),
      'a\\\\"b',
      '\\',
      '"',
      '\\\\server\\share path\\',
      '-flag=va lue',
      '$env:PATH',
      '%PATH%',
    ];
    expect(splitCommandLine(windowsCommandLine(args))).toEqual(args);
  });

  it('refuses NUL, which no command line can carry', () => {
    expect(() => windowsCommandLine(['a\0b'])).toThrow(/NUL/);
  });
});

describe('window requests', () => {
  it('maps actions to ShowWindow commands and placements', () => {
    expect(windowRequests.action('0x10', { kind: 'maximize' })).toEqual({ op: 'show', handle: 16, kind: 'maximize' });
    expect(windowRequests.action('16', { kind: 'move', x: -100, y: 20 })).toEqual({
      op: 'place',
      handle: 16,
      x: -100,
      y: 20,
      width: 0,
      height: 0,
      move: true,
      size: false,
    });
    expect(windowRequests.action('16', { kind: 'resize', width: 640, height: 480 })).toMatchObject({
      op: 'place',
      width: 640,
      height: 480,
      move: false,
      size: true,
    });
    expect(() => windowRequests.action('16', { kind: 'resize', width: 0, height: 480 })).toThrow(/positive whole/);
    expect(() => windowRequests.action('16', { kind: 'move', x: 1.5, y: 0 })).toThrow(/whole number/);
  });

  it('launches with the app name and one quoted command line', () => {
    expect(windowRequests.launch('C:\\Program Files\\App\\app.exe', ['--open', 'My File.txt'])).toEqual({
      op: 'launch',
      name: 'C:\\Program Files\\App\\app.exe',
      commandLine: '--open "My File.txt"',
    });
    expect(() => windowRequests.launch('  ', [])).toThrow(/Name the app/);
  });
});

describe('parsing script output', () => {
  it('turns rows into WindowInfo with hex ids', () => {
    expect(parseWindowList({ windows: [SAMPLE_ROW, { ...SAMPLE_ROW, handle: 99, pid: 0, focused: false }] })).toEqual([
      {
        id: '0x1a02b4',
        title: 'notes.txt - Notepad "x" 中',
        pid: 4242,
        app: 'notepad',
        bounds: { x: -1913, y: 10, width: 800, height: 600 },
        focused: true,
        minimized: false,
      },
      expect.objectContaining({ id: '0x63', pid: null, focused: false }),
    ]);
    expect(parseWindowList({ windows: null })).toEqual([]);
    expect(() => parseWindowList({ windows: [{ handle: 'x' }] })).toThrow();
  });

  it('lists each app once, sorted', () => {
    expect(
      parseAppList({
        apps: [
          { name: 'notepad', pid: 9 },
          { name: 'Code', pid: 3 },
          { name: 'notepad', pid: 9 },
          { name: 'Code', pid: 1 },
        ],
      }),
    ).toEqual([
      { name: 'Code', pid: 1 },
      { name: 'Code', pid: 3 },
      { name: 'notepad', pid: 9 },
    ]);
    expect(parseAppList({ apps: null })).toEqual([]);
  });
});

describe('taskkill', () => {
  it('ends the tree, forcefully only when asked', () => {
    expect(taskkillCommand(1234, false)).toEqual({ command: 'taskkill.exe', args: ['/PID', '1234', '/T'] });
    expect(taskkillCommand(1234, true)).toEqual({ command: 'taskkill.exe', args: ['/PID', '1234', '/T', '/F'] });
  });

  it('maps its failures by exit code first (its text is translated)', () => {
    const failed = (exit_code: number, stderr: string) =>
      new AppError('TOOL_FAILED', 'x', { details: { exit_code, stderr } });
    expect(taskkillFailure(5, true, failed(128, 'FEHLER: Prozess nicht gefunden'))).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(taskkillFailure(5, true, failed(1, 'ERROR: Access is denied.'))).toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    expect(
      taskkillFailure(
        5,
        false,
        failed(1, 'ERROR: The process with PID 5 could only be terminated forcefully (with /F option).'),
      ),
    ).toMatchObject({ code: 'TOOL_FAILED', message: expect.stringContaining('end it with force') });
    expect(taskkillFailure(5, true, new AppError('NOT_FOUND', 'no taskkill'))).toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe('createWindowsWindows', () => {
  it('lists windows and apps through the script', async () => {
    const host = fakePowerShell((request) =>
      request.op === 'list' ? { windows: [SAMPLE_ROW] } : { apps: [{ name: 'notepad', pid: 4242 }] },
    );
    const windows = createWindowsWindows({ powershell: host });
    await expect(windows.listWindows()).resolves.toHaveLength(1);
    await expect(windows.listApps()).resolves.toEqual([{ name: 'notepad', pid: 4242 }]);
    expect(host.calls.every((call) => call.script === WINDOWS_WINDOWS_SCRIPT)).toBe(true);
  });

  it('fails focus with the way out when Windows keeps another window in front', async () => {
    const host = fakePowerShell(() => ({ focused: false, window: SAMPLE_ROW }));
    await expect(createWindowsWindows({ powershell: host }).focusWindow('0x1a02b4')).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('foreground lock'),
    });
    expect(host.calls[0]!.request).toEqual({ op: 'focus', handle: 0x1a02b4 });
  });

  it('reports a closed window as NOT_FOUND', async () => {
    const host = fakePowerShell(() => ({ ok: false, code: 'NOT_FOUND', message: 'There is no window 0x5' }));
    await expect(createWindowsWindows({ powershell: host }).closeWindow('0x5')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('fails a maximize that did not happen, but not a move a window resisted', async () => {
    const host = fakePowerShell(() => ({ settled: false, window: SAMPLE_ROW }));
    const windows = createWindowsWindows({ powershell: host });
    await expect(windows.windowAction('0x1', { kind: 'maximize' })).rejects.toMatchObject({ code: 'TOOL_FAILED' });
    await expect(windows.windowAction('0x1', { kind: 'move', x: 0, y: 0 })).resolves.toBeUndefined();
  });

  it('launches and returns the pid, or null when the shell handed over (a URL, a running instance)', async () => {
    const host = fakePowerShell((request) => ({ pid: request.name === 'notepad' ? 77 : null }));
    const windows = createWindowsWindows({ powershell: host });
    await expect(windows.launchApp('notepad', ['a b'])).resolves.toEqual({ pid: 77 });
    await expect(windows.launchApp('https://example.com', [])).resolves.toEqual({ pid: null });
    expect(host.calls[0]!.request).toEqual({ op: 'launch', name: 'notepad', commandLine: '"a b"' });
  });

  it('tells the registry of launched apps the pid it started (the emergency stop ends it), and nothing for a hand-over', async () => {
    const host = fakePowerShell((request) => ({ pid: request.name === 'notepad' ? 77 : null }));
    const windows = createWindowsWindows({ powershell: host });
    const started: number[] = [];
    await windows.launchApp('notepad', [], { started: (pid) => started.push(pid) });
    await windows.launchApp('https://example.com', [], { started: (pid) => started.push(pid) });
    expect(started).toEqual([77]);
  });

  it('kills through taskkill and refuses system pids and itself', async () => {
    const ran: Array<{ command: string; args: string[] }> = [];
    const exec: Exec = async (spec) => {
      ran.push({ command: spec.command, args: spec.args });
      return { stdout: 'SUCCESS', stderr: '', exitCode: 0 };
    };
    const windows = createWindowsWindows({ exec, powershell: fakePowerShell(() => null) });
    await windows.killProcess(4321, true);
    expect(ran).toEqual([{ command: 'taskkill.exe', args: ['/PID', '4321', '/T', '/F'] }]);
    await expect(windows.killProcess(4, true)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(windows.killProcess(process.pid, false)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(ran).toHaveLength(1);
  });

  it('has a script for every operation, with WM_CLOSE and async window calls in the helper', () => {
    for (const op of ['list', 'apps', 'focus', 'close', 'show', 'place', 'launch']) {
      expect(WINDOWS_WINDOWS_SCRIPT).toContain(`'${op}' {`);
    }
    expect(WINDOWS_WINDOWS_SCRIPT).toContain('Start-Process @start');
    expect(WINDOWS_WINDOWS_SCRIPT).toContain('MainWindowHandle -ne [IntPtr]::Zero');
  });
});
