// How the Windows adapters talk to the system: Windows PowerShell (`powershell.exe`, present on
// every Windows 10/11) running constant scripts, plus a few programs (taskkill).
//
// NOT RUN ON A REAL WINDOWS MACHINE. The command lines, the framing and the reply parsing are
// unit-tested on Linux (the persistent host against a fake process); the PowerShell text itself has
// never been executed, so a PowerShell syntax or runtime mistake would only show on Windows.
//
// Every script is a constant: the program text never contains user data. The request (text to
// type, a window id, a file path…) travels as JSON written in pure ASCII (every non-ASCII unit as
// \uXXXX), so the console code page cannot mangle it, and quotes, backticks, `$(...)` or newlines in
// a title stay data. Replies come back the same way, on a line that starts with a marker, so stray
// output of a .NET call cannot be mistaken for the reply.
//
// Two hosts run the same scripts: `oneShotPowerShellHost` starts powershell.exe per call (≈300 ms,
// plus ≈1 s the first time a script compiles the C# helper with Add-Type), `persistentPowerShellHost`
// keeps one powershell.exe per daemon that reads one request per line and keeps compiled types.
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

import { AppError, isErrorCode } from '@nextai/shared';
import { z } from 'zod';

import { inheritedEnvironment, type RunResult } from '../../core/subprocess.js';
import { asciiJson, execCommand, failureStderr, type CommandSpec, type Exec } from '../command-exec.js';

export const POWERSHELL_TIMEOUT_MS = 20_000;

/** The marker a reply line starts with, followed by the request id and the reply JSON. */
export const REPLY_MARKER = 'NEXTAI-REPLY';

export const POWERSHELL_MISSING_MESSAGE =
  'Windows PowerShell (powershell.exe) was not found on PATH. It ships with Windows 10 and 11 in %SystemRoot%\\System32\\WindowsPowerShell\\v1.0: put that folder back on PATH for the NextAI daemon, then restart it.';

export const CONSTRAINED_LANGUAGE_MESSAGE =
  'PowerShell runs in Constrained Language Mode on this machine (set by a device policy such as AppLocker or WDAC), which forbids the .NET and Win32 calls the desktop tools need. Ask the administrator to allow it, or run NextAI on a machine without that policy.';

/**
 * Shared by every script. `NextAiFail code message` raises an error the host maps to that AppError
 * code; `NextAiInvoke` runs a script with its request and formats the reply line. A script's value
 * is the last object it outputs (stray output of .NET calls before it is ignored); scripts return
 * hashtables, never bare arrays, which PowerShell's pipeline would unroll.
 */
export const POWERSHELL_PRELUDE = String.raw`
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
function NextAiFail([string]$Code, [string]$Message) {
  $exception = New-Object System.InvalidOperationException $Message
  $exception.Data['nextaiCode'] = $Code
  throw $exception
}
function NextAiAscii([string]$Json) {
  return [regex]::Replace($Json, '[^\x00-\x7e]', { param($m) '\u{0:x4}' -f [int][char]$m.Value })
}
function NextAiErrorCode($Record) {
  $exception = $Record.Exception
  while ($exception -ne $null) {
    if ($exception.Data -ne $null -and $exception.Data.Contains('nextaiCode')) { return [string]$exception.Data['nextaiCode'] }
    $exception = $exception.InnerException
  }
  return $null
}
function NextAiInvoke([string]$Id, [string]$Script, $Request) {
  try {
    $block = [ScriptBlock]::Create($Script)
    $output = @(& $block $Request)
    $value = $null
    if ($output.Count -gt 0) { $value = $output[$output.Count - 1] }
    $reply = @{ ok = $true; value = $value }
  } catch {
    $inner = $_.Exception
    while ($inner.InnerException -ne $null -and $inner -is [System.Management.Automation.MethodInvocationException]) { $inner = $inner.InnerException }
    $reply = @{ ok = $false; code = (NextAiErrorCode $_); type = $inner.GetType().FullName; message = [string]$inner.Message }
  }
  return '${REPLY_MARKER} ' + $Id + ' ' + (NextAiAscii (ConvertTo-Json -InputObject $reply -Depth 12 -Compress))
}
`;

/** One call: reads `{ script, request }` from stdin, prints one reply line. */
export const ONE_SHOT_BOOTSTRAP = `${POWERSHELL_PRELUDE}
$message = [Console]::In.ReadToEnd() | ConvertFrom-Json
[Console]::Out.WriteLine((NextAiInvoke '0' $message.script $message.request))
`;

/** Many calls: one `{ id, script, request }` per stdin line, one reply line each, until stdin closes. */
export const PERSISTENT_BOOTSTRAP = `${POWERSHELL_PRELUDE}
while ($true) {
  $line = [Console]::In.ReadLine()
  if ($line -eq $null) { break }
  if ($line.Trim().Length -eq 0) { continue }
  $message = $line | ConvertFrom-Json
  [Console]::Out.WriteLine((NextAiInvoke ([string]$message.id) $message.script $message.request))
  [Console]::Out.Flush()
}
`;

/** `-EncodedCommand` takes base64 of UTF-16LE: no quoting rules of cmd.exe or PowerShell apply. */
export function encodeCommand(script: string): string {
  return Buffer.from(script, 'utf16le').toString('base64');
}

export const DEFAULT_POWERSHELL = 'powershell.exe';

export function powershellArgs(bootstrap: string): string[] {
  return [
    '-NoLogo',
    '-NoProfile',
    '-NonInteractive',
    '-ExecutionPolicy',
    'Bypass',
    '-EncodedCommand',
    encodeCommand(bootstrap),
  ];
}

/** The one-shot invocation: constant bootstrap on the command line, script and request on stdin. */
export function powershellCommand(script: string, request: unknown, program = DEFAULT_POWERSHELL): CommandSpec {
  return { command: program, args: powershellArgs(ONE_SHOT_BOOTSTRAP), input: asciiJson({ script, request }) };
}

const replySchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({
    ok: z.literal(false),
    code: z.string().nullable().optional(),
    type: z.string().nullable().optional(),
    message: z.string(),
  }),
]);

export interface PowerShellFailure {
  code?: string | null | undefined;
  type?: string | null | undefined;
  message: string;
}

/** Scripts report these codes for conditions that have a fix the person can apply. */
export const BLOCKED_INPUT_MESSAGE =
  'Windows blocked the simulated input: the window in front belongs to a program running as administrator, or a secure screen (a UAC prompt, the lock screen, Ctrl+Alt+Del) is showing. Run the NextAI daemon as administrator to control elevated programs, or dismiss the secure screen.';

export const NO_DESKTOP_MESSAGE =
  'There is no interactive desktop to use: the screen is locked, a secure screen (UAC prompt) is showing, or the NextAI daemon runs as a service without a desktop session. Unlock the screen, or start the daemon from the signed-in user session.';

/** The AppError a failed script stands for. */
export function powershellError(failure: PowerShellFailure): AppError {
  const { code, type, message } = failure;
  if (code === 'BLOCKED_INPUT') return new AppError('UNAVAILABLE', BLOCKED_INPUT_MESSAGE, { details: failure });
  if (code === 'NO_DESKTOP') return new AppError('UNAVAILABLE', NO_DESKTOP_MESSAGE, { details: failure });
  if (/language mode/i.test(message))
    return new AppError('UNAVAILABLE', CONSTRAINED_LANGUAGE_MESSAGE, { details: failure });
  if (code && isErrorCode(code)) return new AppError(code, message, { details: failure });
  if (type === 'System.UnauthorizedAccessException') {
    return new AppError('PERMISSION_DENIED', `Windows refused: ${message}`, { details: failure });
  }
  return new AppError('TOOL_FAILED', `A Windows PowerShell script failed: ${message}`, { details: failure });
}

/** The reply JSON after the marker → the value, or the matching AppError. */
export function parseReplyJson(json: string): unknown {
  let reply: z.infer<typeof replySchema>;
  try {
    reply = replySchema.parse(JSON.parse(json));
  } catch (error) {
    throw new AppError('TOOL_FAILED', `PowerShell replied something unexpected: ${json.slice(0, 300)}`, {
      cause: error,
    });
  }
  if (reply.ok) return reply.value;
  throw powershellError(reply);
}

/** A reply line → its id and JSON; null for any other line. */
export function splitReplyLine(line: string): { id: string; json: string } | null {
  const match = new RegExp(`^${REPLY_MARKER} (\\S+) (.*)$`).exec(line.trim());
  return match ? { id: match[1]!, json: match[2]! } : null;
}

/** What a one-shot powershell.exe printed → the reply of request id 0. */
export function parseOneShotOutput(stdout: string): unknown {
  const reply = stdout
    .split(/\r?\n/)
    .map(splitReplyLine)
    .filter((line): line is { id: string; json: string } => line !== null)
    .at(-1);
  if (!reply) {
    throw new AppError('TOOL_FAILED', `PowerShell printed no reply: ${stdout.trim().slice(0, 300) || '(nothing)'}`);
  }
  return parseReplyJson(reply.json);
}

/** powershell.exe itself failing (missing, killed, a syntax error before the reply). */
export function powershellProcessFailure(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  if (error.code === 'NOT_FOUND') return new AppError('UNAVAILABLE', POWERSHELL_MISSING_MESSAGE, { cause: error });
  if (error.code !== 'TOOL_FAILED') return error;
  const stderr = failureStderr(error);
  if (/language mode/i.test(stderr)) return new AppError('UNAVAILABLE', CONSTRAINED_LANGUAGE_MESSAGE, { cause: error });
  // runCommand's own message would quote the whole encoded command line.
  return new AppError('TOOL_FAILED', `powershell.exe failed: ${stderr.slice(0, 1000) || 'no error text'}`, {
    cause: error,
  });
}

export interface ScriptOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Runs one constant script with a JSON request and resolves with its value. */
export interface PowerShellHost {
  run(script: string, request: unknown, options?: ScriptOptions): Promise<unknown>;
  /** Ends a long-lived process, if any. */
  dispose(): void;
}

/** One powershell.exe per call. */
export function oneShotPowerShellHost(exec: Exec = execCommand, program = DEFAULT_POWERSHELL): PowerShellHost {
  return {
    async run(script, request, options = {}) {
      let result: RunResult;
      try {
        result = await exec(powershellCommand(script, request, program), {
          timeoutMs: options.timeoutMs ?? POWERSHELL_TIMEOUT_MS,
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (error) {
        throw powershellProcessFailure(error);
      }
      return parseOneShotOutput(result.stdout);
    },
    dispose() {},
  };
}

/** The part of a child process the persistent host uses (a fake in tests). */
export interface PowerShellProcess {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  kill(): void;
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): this;
  unref?(): void;
}

export type SpawnPowerShell = (command: string, args: string[]) => PowerShellProcess;

/**
 * The real spawn. Not through runCommand, which runs a program to its end: this one lives for
 * many calls. Same small inherited environment and no console window.
 */
export const spawnPowerShell: SpawnPowerShell = (command, args) =>
  spawn(command, args, { env: inheritedEnvironment(), stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });

export interface PersistentHostOptions {
  spawn?: SpawnPowerShell;
  program?: string;
  /** The process ends after this long without a call, and starts again on the next. */
  idleMs?: number;
}

interface Pending {
  id: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * One powershell.exe that serves calls one at a time over stdin/stdout (JSON lines). A call that
 * times out or is cancelled kills the process (the script may be stuck in a hung window's message);
 * the next call starts a fresh one. Idle processes end by themselves and never keep the daemon alive.
 */
export function persistentPowerShellHost(options: PersistentHostOptions = {}): PowerShellHost {
  const spawnProcess = options.spawn ?? spawnPowerShell;
  const program = options.program ?? DEFAULT_POWERSHELL;
  const idleMs = options.idleMs ?? 60_000;
  let child: PowerShellProcess | null = null;
  let pending: Pending | null = null;
  let stdoutBuffer = '';
  let stderrTail = '';
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const stop = (process: PowerShellProcess) => {
    if (child === process) child = null;
    process.kill();
  };

  const fail = (error: unknown) => {
    const current = pending;
    pending = null;
    current?.reject(error);
  };

  function start(): PowerShellProcess {
    const process = spawnProcess(program, powershellArgs(PERSISTENT_BOOTSTRAP));
    stdoutBuffer = '';
    stderrTail = '';
    process.stdout.setEncoding('utf8');
    process.stderr.setEncoding('utf8');
    process.stdout.on('data', (chunk: string) => {
      stdoutBuffer += chunk;
      let newline: number;
      while ((newline = stdoutBuffer.indexOf('\n')) >= 0) {
        const line = stdoutBuffer.slice(0, newline);
        stdoutBuffer = stdoutBuffer.slice(newline + 1);
        const reply = splitReplyLine(line);
        // Stray lines (a .NET call that printed something) and late replies of killed calls are dropped.
        if (!reply || !pending || reply.id !== pending.id) continue;
        const current = pending;
        pending = null;
        try {
          current.resolve(parseReplyJson(reply.json));
        } catch (error) {
          current.reject(error);
        }
      }
    });
    process.stderr.on('data', (chunk: string) => {
      stderrTail = (stderrTail + chunk).slice(-2000);
    });
    // Events of a process this host already replaced (killed after a timeout) concern no call.
    process.on('error', (error) => {
      if (child !== process) return;
      child = null;
      fail(
        error.code === 'ENOENT'
          ? new AppError('UNAVAILABLE', POWERSHELL_MISSING_MESSAGE, { cause: error })
          : new AppError('TOOL_FAILED', `Couldn't start powershell.exe: ${error.message}`, { cause: error }),
      );
    });
    process.on('exit', (code, signal) => {
      if (child !== process) return;
      child = null;
      const stderr = stderrTail.trim();
      if (/language mode/i.test(stderr)) {
        fail(new AppError('UNAVAILABLE', CONSTRAINED_LANGUAGE_MESSAGE));
        return;
      }
      const how = code === null ? `was killed (${signal})` : `exited with code ${code}`;
      fail(
        new AppError(
          'TOOL_FAILED',
          `powershell.exe ${how} during the call${stderr ? `: ${stderr.slice(0, 1000)}` : ''}`,
        ),
      );
    });
    process.stdin.on('error', () => {
      // EPIPE when the process died; its 'exit' event rejects the call with the reason.
    });
    process.unref?.();
    for (const stream of [process.stdin, process.stdout, process.stderr]) {
      (stream as unknown as { unref?: () => void }).unref?.();
    }
    return process;
  }

  function armIdleTimer() {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      if (child && !pending) {
        // Closing stdin ends the read loop; the process exits by itself.
        child.stdin.end();
        child = null;
      }
    }, idleMs);
    idleTimer.unref();
  }

  function call(script: string, request: unknown, options: ScriptOptions): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(new AppError('EMERGENCY_STOPPED', 'The PowerShell call was not started: it was cancelled.'));
        return;
      }
      clearTimeout(idleTimer);
      const process = child ?? (child = start());
      const id = String(nextId++);
      const timeoutMs = options.timeoutMs ?? POWERSHELL_TIMEOUT_MS;
      const finish = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        armIdleTimer();
      };
      const timer = setTimeout(() => {
        fail(
          new AppError('TIMEOUT', `The PowerShell call did not finish within ${timeoutMs} ms; its process was ended.`),
        );
        stop(process);
      }, timeoutMs);
      const onAbort = () => {
        fail(new AppError('EMERGENCY_STOPPED', 'The PowerShell call was cancelled; its process was ended.'));
        stop(process);
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      pending = {
        id,
        resolve: (value) => {
          finish();
          resolve(value);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      };
      process.stdin.write(`${asciiJson({ id, script, request })}\n`);
    });
  }

  return {
    run(script, request, options = {}) {
      const result = queue.then(() => call(script, request, options));
      queue = result.catch(() => undefined);
      return result;
    },
    dispose() {
      clearTimeout(idleTimer);
      if (child) stop(child);
      fail(new AppError('EMERGENCY_STOPPED', 'The PowerShell host was shut down.'));
    },
  };
}

/** What every Windows adapter factory accepts: how to run commands and scripts (tests fake these). */
export interface WindowsAdapterOptions {
  exec?: Exec;
  powershell?: PowerShellHost;
}

export function resolveOptions(options: WindowsAdapterOptions = {}): { exec: Exec; powershell: PowerShellHost } {
  const exec = options.exec ?? execCommand;
  return { exec, powershell: options.powershell ?? oneShotPowerShellHost(exec) };
}
