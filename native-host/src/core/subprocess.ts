import { spawn } from 'node:child_process';

import { AppError } from '@nextai/shared';

import { currentPlatform } from './current-platform.js';

export interface RunOptions {
  /** Milliseconds before the process is killed; every subprocess has one. */
  timeoutMs?: number;
  input?: string;
  /** Extra variables on top of the small inherited environment. */
  env?: Record<string, string>;
  cwd?: string;
  /** Cap on captured stdout/stderr, each, in bytes. */
  maxOutputBytes?: number;
  /** When the binary is missing: how to get it, e.g. "On Debian/Ubuntu: sudo apt install xdotool". */
  installHint?: string;
  /** Aborting kills the program and everything it started (its whole process group). */
  signal?: AbortSignal;
}

export interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * Variables a child inherits: enough to find binaries, reach the display and speak the user's
 * locale — not the API keys and tokens that may be in the daemon's environment.
 */
const INHERITED_VARIABLES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TMPDIR',
  'TEMP',
  'TMP',
  'DISPLAY',
  'XAUTHORITY',
  'WAYLAND_DISPLAY',
  'XDG_RUNTIME_DIR',
  'XDG_SESSION_TYPE',
  'DBUS_SESSION_BUS_ADDRESS',
  'SystemRoot',
  'SYSTEMROOT',
  'windir',
  'ComSpec',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
];

export function inheritedEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs a program with an argument array (never a shell string) and resolves with its output when
 * it exits 0. Rejects with an AppError naming the command, exit code and stderr otherwise, or
 * `TIMEOUT` when it runs too long, or `NOT_FOUND` when the binary does not exist.
 */
export function runCommand(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxOutput = options.maxOutputBytes ?? 4 * 1024 * 1024;
  const display = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new AppError('EMERGENCY_STOPPED', `\`${display}\` was not started: the call was cancelled.`));
      return;
    }
    const child = spawn(command, args, {
      env: inheritedEnvironment(options.env),
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      // Its own process group, so cancelling also ends whatever it started.
      detached: options.signal !== undefined && currentPlatform() !== 'windows',
    });
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      killTree(child.pid, child);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdoutBytes < maxOutput) stdout.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderrBytes < maxOutput) stderr.push(chunk);
      stderrBytes += chunk.length;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error.code === 'ENOENT') {
        const hint = options.installHint ? ` ${options.installHint}` : '';
        reject(new AppError('NOT_FOUND', `Couldn't find the \`${command}\` program.${hint}`, { cause: error }));
      } else {
        reject(new AppError('INTERNAL', `Couldn't start \`${display}\`: ${error.message}`, { cause: error }));
      }
    });
    // 'close' (not 'exit'): wait until stdout and stderr are fully read.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const out = Buffer.concat(stdout).toString('utf8');
      const err = Buffer.concat(stderr).toString('utf8');
      if (cancelled) {
        reject(new AppError('EMERGENCY_STOPPED', `\`${display}\` was stopped: the call was cancelled.`));
      } else if (timedOut) {
        reject(new AppError('TIMEOUT', `\`${display}\` did not finish within ${timeoutMs} ms and was killed.`));
      } else if (code === 0) {
        resolve({ stdout: out, stderr: err, exitCode: 0 });
      } else {
        const reason = code === null ? `was killed by ${signal}` : `exited with code ${code}`;
        const detail = err.trim() ? `: ${err.trim().slice(0, 2000)}` : '';
        reject(
          new AppError('TOOL_FAILED', `\`${display}\` ${reason}${detail}`, {
            details: { command, args, exit_code: code, stderr: err.slice(0, 2000) },
          }),
        );
      }
    });
    child.stdin.on('error', () => {
      // The program may exit without reading its input (EPIPE); its exit status tells the story.
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Ends a child and its process group (POSIX), or the child alone where groups do not apply. */
function killTree(pid: number | undefined, child: { kill(signal: NodeJS.Signals): boolean }): void {
  if (pid !== undefined && currentPlatform() !== 'windows') {
    try {
      process.kill(-pid, 'SIGKILL');
      return;
    } catch (error) {
      // ESRCH: the group is already gone; anything else, fall back to the child itself.
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
    }
  }
  child.kill('SIGKILL');
}
