// Windows and apps on Windows: EnumWindows / GetWindowText / DwmGetWindowAttribute through the C#
// helper for the window list, SetForegroundWindow to focus, ShowWindowAsync and SetWindowPos for
// the window actions, PostMessage(WM_CLOSE) to close, Get-Process for apps, Start-Process to
// launch and `taskkill` to end processes.
//
// NOT RUN ON A REAL WINDOWS MACHINE. Requests, command lines, id handling, output parsing and error
// mapping are unit-tested; the PowerShell and the Win32 calls have never run.
//
// Window ids are the HWND in hex ("0x1a02b4"), like X11 ids, so the tools' id matching works the
// same. Bounds are the visible frame (DWMWA_EXTENDED_FRAME_BOUNDS): GetWindowRect would include
// the invisible resize borders Windows 10+ draws around each window.
import { AppError } from '@nextai/shared';
import { z } from 'zod';

import type { AppInfo, WindowAction, WindowAdapter, WindowInfo } from '../desktop.js';
import type { CommandSpec, Exec } from '../command-exec.js';
import { LOAD_NATIVE, NATIVE_TYPE } from './native.js';
import { resolveOptions, type WindowsAdapterOptions } from './powershell.js';

export const WINDOWS_WINDOWS_SCRIPT = String.raw`
param($Request)
${LOAD_NATIVE}
$W = [${NATIVE_TYPE}]
function Row($Window) {
  return @{
    handle = [long]$Window.Handle; title = [string]$Window.Title; pid = [int]$Window.Pid; app = [string]$Window.App
    x = $Window.X; y = $Window.Y; width = $Window.Width; height = $Window.Height
    focused = [bool]$Window.Focused; minimized = [bool]$Window.Minimized; maximized = [bool]$Window.Maximized
  }
}
function Wait-Until([scriptblock]$Done) {
  $deadline = [DateTime]::UtcNow.AddMilliseconds(2000)
  while (-not (& $Done)) {
    if ([DateTime]::UtcNow -gt $deadline) { return $false }
    Start-Sleep -Milliseconds 20
  }
  return $true
}
$handle = [long]$Request.handle
switch ([string]$Request.op) {
  'list' {
    return @{ windows = @($W::ListWindows() | ForEach-Object { Row $_ }) }
  }
  'apps' {
    $apps = @(Get-Process | Where-Object { $_.MainWindowHandle -ne [IntPtr]::Zero } | ForEach-Object { @{ name = [string]$_.ProcessName; pid = [int]$_.Id } })
    return @{ apps = $apps }
  }
  'focus' {
    # Focus already retries with an Alt tap; a window that activates a moment later still counts.
    $focused = $W::Focus($handle)
    if (-not $focused) { $focused = Wait-Until { ($W::Window($handle)).Focused } }
    return @{ focused = $focused; window = (Row ($W::Window($handle))) }
  }
  'close' {
    $W::Close($handle)
    return @{ done = $true }
  }
  'show' {
    $command = @{ maximize = 3; minimize = 6; restore = 9 }[[string]$Request.kind]
    $W::Show($handle, $command)
    $settled = Wait-Until {
      $now = $W::Window($handle)
      switch ([string]$Request.kind) {
        'maximize' { $now.Maximized }
        'minimize' { $now.Minimized }
        default { -not $now.Maximized -and -not $now.Minimized }
      }
    }
    return @{ settled = $settled; window = (Row ($W::Window($handle))) }
  }
  'place' {
    $before = $W::Window($handle)
    if ($before.Maximized -or $before.Minimized) {
      $W::Show($handle, 9)
      [void](Wait-Until { $now = $W::Window($handle); -not $now.Maximized -and -not $now.Minimized })
    }
    $x = [int]$Request.x; $y = [int]$Request.y; $width = [int]$Request.width; $height = [int]$Request.height
    $W::Place($handle, $x, $y, $width, $height, [bool]$Request.move, [bool]$Request.size)
    $settled = Wait-Until {
      $now = $W::Window($handle)
      ((-not $Request.move) -or ($now.X -eq $x -and $now.Y -eq $y)) -and ((-not $Request.size) -or ($now.Width -eq $width -and $now.Height -eq $height))
    }
    return @{ settled = $settled; window = (Row ($W::Window($handle))) }
  }
  'launch' {
    $start = @{ FilePath = [string]$Request.name; PassThru = $true }
    if ([string]$Request.commandLine -ne '') { $start.ArgumentList = [string]$Request.commandLine }
    try {
      $process = Start-Process @start
    } catch [System.ComponentModel.Win32Exception], [System.InvalidOperationException] {
      NextAiFail 'NOT_FOUND' ('Windows could not start "' + $Request.name + '": ' + $_.Exception.Message)
    }
    if ($process -eq $null) { return @{ pid = $null } }
    return @{ pid = [int]$process.Id }
  }
}
NextAiFail 'INVALID_INPUT' ('Unknown window operation: ' + $Request.op)
`;

/** "0x1a02b4", "0x001A02B4" and "1704628" (decimal) name the same HWND. */
export function parseWindowHandle(id: string): number {
  const text = id.trim();
  let value: number;
  if (/^0x[0-9a-f]+$/i.test(text)) value = Number.parseInt(text.slice(2), 16);
  else if (/^\d+$/.test(text)) value = Number.parseInt(text, 10);
  else throw new AppError('INVALID_INPUT', `"${id}" is not a Windows window id (like 0x1a02b4).`);
  if (value <= 0 || !Number.isSafeInteger(value)) {
    throw new AppError('INVALID_INPUT', `"${id}" is not a Windows window id (like 0x1a02b4).`);
  }
  return value;
}

export function formatWindowHandle(handle: number): string {
  return `0x${handle.toString(16)}`;
}

/**
 * One argument list → one Windows command line, quoted the way CommandLineToArgvW and the C
 * runtime split it back: quotes around arguments with spaces, tabs or quotes (or empty ones),
 * embedded quotes as \", and backslashes doubled only where they precede a quote. Start-Process
 * joins an array with bare spaces, which would split "My Documents" in two; one string avoids it.
 */
export function windowsCommandLine(args: readonly string[]): string {
  return args.map(quoteArgument).join(' ');
}

function quoteArgument(argument: string): string {
  if (argument.includes('\0')) throw new AppError('INVALID_INPUT', 'An argument cannot contain a NUL character.');
  if (argument !== '' && !/[\s"]/u.test(argument)) return argument;
  let quoted = '"';
  let backslashes = 0;
  for (const character of argument) {
    if (character === '\\') {
      backslashes += 1;
      continue;
    }
    if (character === '"') {
      quoted += '\\'.repeat(backslashes * 2 + 1) + '"';
    } else {
      quoted += '\\'.repeat(backslashes) + character;
    }
    backslashes = 0;
  }
  return `${quoted}${'\\'.repeat(backslashes * 2)}"`;
}

export const windowRequests = {
  list: () => ({ op: 'list' }),
  apps: () => ({ op: 'apps' }),
  focus: (id: string) => ({ op: 'focus', handle: parseWindowHandle(id) }),
  close: (id: string) => ({ op: 'close', handle: parseWindowHandle(id) }),
  action: (id: string, action: WindowAction) => {
    const handle = parseWindowHandle(id);
    switch (action.kind) {
      case 'maximize':
      case 'minimize':
      case 'restore':
        return { op: 'show', handle, kind: action.kind };
      case 'move':
        wholeNumber(action.x, 'x');
        wholeNumber(action.y, 'y');
        return { op: 'place', handle, x: action.x, y: action.y, width: 0, height: 0, move: true, size: false };
      case 'resize':
        positiveWholeNumber(action.width, 'width');
        positiveWholeNumber(action.height, 'height');
        return { op: 'place', handle, x: 0, y: 0, width: action.width, height: action.height, move: false, size: true };
    }
  },
  launch: (name: string, args: readonly string[]) => {
    if (name.trim() === '') throw new AppError('INVALID_INPUT', 'Name the app to start (a program name or a path).');
    return { op: 'launch', name, commandLine: windowsCommandLine(args) };
  },
};

function wholeNumber(value: number, name: string): void {
  if (!Number.isInteger(value)) throw new AppError('INVALID_INPUT', `${name} must be a whole number of pixels.`);
}

function positiveWholeNumber(value: number, name: string): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new AppError('INVALID_INPUT', `${name} must be a positive whole number of pixels.`);
  }
}

const rowSchema = z.object({
  handle: z.number(),
  title: z.string(),
  pid: z.number(),
  app: z.string(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
  focused: z.boolean(),
  minimized: z.boolean(),
  maximized: z.boolean(),
});

/** PowerShell 5.1 writes an empty array as null in some spots: both mean none. */
const listOf = <T extends z.ZodTypeAny>(schema: T) =>
  z
    .array(schema)
    .nullable()
    .transform((rows) => rows ?? []);

export function toWindowInfo(row: z.infer<typeof rowSchema>): WindowInfo {
  return {
    id: formatWindowHandle(row.handle),
    title: row.title,
    pid: row.pid > 0 ? row.pid : null,
    app: row.app,
    bounds: { x: row.x, y: row.y, width: row.width, height: row.height },
    focused: row.focused,
    minimized: row.minimized,
  };
}

export function parseWindowList(value: unknown): WindowInfo[] {
  return z
    .object({ windows: listOf(rowSchema) })
    .parse(value)
    .windows.map(toWindowInfo);
}

/** One entry per pid, sorted by name; the daemon's own PowerShell helper has no window, so is not listed. */
export function parseAppList(value: unknown): AppInfo[] {
  const apps = z.object({ apps: listOf(z.object({ name: z.string(), pid: z.number().int() })) }).parse(value).apps;
  const byPid = new Map<number, AppInfo>();
  for (const app of apps) if (!byPid.has(app.pid)) byPid.set(app.pid, { name: app.name, pid: app.pid });
  return [...byPid.values()].sort((a, b) => a.name.localeCompare(b.name) || a.pid - b.pid);
}

/** `taskkill /PID n /T` asks the process tree to close (WM_CLOSE); `/F` ends it at once. */
export function taskkillCommand(pid: number, force: boolean): CommandSpec {
  return { command: 'taskkill.exe', args: ['/PID', String(pid), '/T', ...(force ? ['/F'] : [])] };
}

/**
 * taskkill's failures. Its text is translated on non-English Windows, so the exit code decides
 * where it can: 128 means no such process. The English text is matched as a second guess.
 */
export function taskkillFailure(pid: number, force: boolean, error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  if (error.code === 'NOT_FOUND') {
    return new AppError('UNAVAILABLE', 'The `taskkill` program (in %SystemRoot%\\System32) was not found on PATH.', {
      cause: error,
    });
  }
  if (error.code !== 'TOOL_FAILED') return error;
  const details = error.details as { exit_code?: unknown; stderr?: unknown } | undefined;
  const stderr = typeof details?.stderr === 'string' ? details.stderr.trim() : '';
  if (details?.exit_code === 128 || /not found/i.test(stderr)) {
    return new AppError('NOT_FOUND', `There is no process ${pid} (it may have ended already).`, { cause: error });
  }
  if (/access is denied/i.test(stderr)) {
    return new AppError(
      'PERMISSION_DENIED',
      `Windows denied ending process ${pid}: it runs as another user or as administrator.`,
      { cause: error },
    );
  }
  if (!force && /forcefully|\/F/i.test(stderr)) {
    return new AppError(
      'TOOL_FAILED',
      `Process ${pid} has no window to ask to close (a console or background program); end it with force.`,
      { cause: error },
    );
  }
  return new AppError('TOOL_FAILED', `taskkill could not end process ${pid}: ${stderr || error.message}`, {
    cause: error,
  });
}

const placedSchema = z.object({ settled: z.boolean(), window: rowSchema });
const focusedSchema = z.object({ focused: z.boolean(), window: rowSchema });

export function createWindowsWindows(options: WindowsAdapterOptions = {}): WindowAdapter {
  const { exec, powershell } = resolveOptions(options);
  const run = (request: object) => powershell.run(WINDOWS_WINDOWS_SCRIPT, request);

  return {
    async listWindows() {
      return parseWindowList(await run(windowRequests.list()));
    },
    async listApps() {
      return parseAppList(await run(windowRequests.apps()));
    },
    async focusWindow(id) {
      const { focused, window } = focusedSchema.parse(await run(windowRequests.focus(id)));
      if (!focused) {
        throw new AppError(
          'TOOL_FAILED',
          `Windows did not bring "${window.title}" (${id}) to the front (its foreground lock refused). Click the window's taskbar button, or click inside it.`,
        );
      }
    },
    async closeWindow(id) {
      await run(windowRequests.close(id));
    },
    async windowAction(id, action) {
      const { settled } = placedSchema.parse(await run(windowRequests.action(id, action)));
      // A move or resize that did not land exactly is no error: windows keep a minimum size or
      // snap, and window_manage reports the bounds they took.
      if (!settled && (action.kind === 'maximize' || action.kind === 'minimize' || action.kind === 'restore')) {
        throw new AppError(
          'TOOL_FAILED',
          `The window ${id} did not ${action.kind} within 2 s (the app may not be responding).`,
        );
      }
    },
    async launchApp(name, args, options) {
      // Apps cannot be put in a sandbox here: refused, never started unconfined instead.
      if (options?.confine) {
        throw new AppError('SANDBOX_UNAVAILABLE', 'Apps cannot run in a sandbox on Windows yet; nothing was started.');
      }
      const { pid } = z
        .object({ pid: z.number().int().nullable() })
        .parse(await powershell.run(WINDOWS_WINDOWS_SCRIPT, windowRequests.launch(name, args)));
      if (pid !== null) options?.started?.(pid);
      return { pid };
    },
    async killProcess(pid, force) {
      await killProcess(exec, pid, force);
    },
  };
}

async function killProcess(exec: Exec, pid: number, force: boolean): Promise<void> {
  if (!Number.isInteger(pid) || pid <= 4) {
    // 0 is the idle process, 4 the kernel ("System").
    throw new AppError('INVALID_INPUT', `Refusing to end pid ${pid}: give the pid of an app (app_list shows them).`);
  }
  if (pid === process.pid) {
    throw new AppError('PERMISSION_DENIED', `Refusing to end pid ${pid}: that is the NextAI daemon itself.`);
  }
  try {
    await exec(taskkillCommand(pid, force), { timeoutMs: 10_000 });
  } catch (error) {
    throw taskkillFailure(pid, force, error);
  }
}
