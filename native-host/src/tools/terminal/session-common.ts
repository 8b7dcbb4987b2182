import { randomBytes } from 'node:crypto';

import type { Platform } from '@nextai/shared';
import type { IPty } from 'node-pty';

import type { CapturedText } from './output.js';
import type { ProcessControl } from './processes.js';
import { sleep } from '../../core/sleep.js';

/**
 * What a shell session (session.ts) and its shell kinds (posix-session.ts, powershell-session.ts)
 * share: the call's request and result, the running shell, how a call ended, and the markers.
 */

export interface CallRequest {
  command: string;
  /** Absolute and checked to be a directory; the shell `cd`s there and stays. */
  workingDir?: string;
  /** The shell must end up in exactly `workingDir`, no link followed (shells.ts, PosixCall). */
  exactDir?: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface CallResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  timedOut: boolean;
  /** The call's signal was aborted (emergency stop, the caller went away). */
  aborted: boolean;
  truncated: boolean;
  /** What the host did or saw besides the command's own streams, for the model and the person. */
  notices: string[];
}

export interface ShellProcess {
  pty: IPty;
  /** The shell itself: its directory, and where an interrupt goes. */
  pid: number;
  /**
   * What the pty started, the leader of the terminal session everything the shell starts belongs
   * to: the shell itself, or the sandbox around it.
   */
  leader: number;
  exited: Promise<ShellExit>;
  exit?: ShellExit;
}

export interface ShellExit {
  exitCode: number;
  signal?: number;
}

/**
 * How a call ended: its end markers came (`done`), the shell exited, the time ran out, the call
 * was cancelled, or the shell left the call file without writing its markers (`abandoned`: it
 * was interrupted, e.g. by `kill -INT $$`, and went back to reading input).
 */
export type Outcome =
  { kind: 'done' } | { kind: 'exit' } | { kind: 'timeout' } | { kind: 'abort' } | { kind: 'abandoned'; status: number };

/** The outcomes that stop a call: the time ran out, or it was cancelled. */
export type StopReason = 'timeout' | 'abort';

/** What a shell kind's calls use, and change, of the session they run in. */
export interface SessionContext {
  readonly id: string;
  /** The session's private 0700 directory: call files, FIFOs, output files. */
  readonly dir: string;
  readonly platform: Platform;
  /** Cap per stream, in bytes. */
  readonly outputCap: number | undefined;
  readonly processes: ProcessControl;
  isKilled(): boolean;
  /** The shell's current directory (see ShellSession.cwd). */
  cwd(): string | undefined;
  /** Where the next shell starts, should this one end. */
  setLastCwd(cwd: string): void;
  /** Why the next call runs in a new shell, told once to that call. */
  setRestartReason(reason: string): void;
  /** Text the shell wrote to the pty since `resetTerminal`. */
  terminalText(): string;
  resetTerminal(): void;
  /** Resolves true when `marker` appears on the pty, false after `ms`. */
  waitForTerminal(marker: string, ms: number): Promise<boolean>;
  /** The shell's `$?` once it reads input again, or undefined when it does not answer. */
  resync(shell: ShellProcess): Promise<number | undefined>;
  /** Ends the shell and everything in its session (it did not respond). */
  endShell(shell: ShellProcess): Promise<void>;
  /** Stops the running call (time-out or abort), as notices for the result. */
  stopCall(shell: ShellProcess, since: number, why: StopReason, timeoutMs: number): Promise<string[]>;
}

/** One kind of shell: how it is started and how a call runs in it. */
export interface ShellCalls {
  /** The name of the start-up file in the session's private directory. */
  readonly initFileName: string;
  /** The start-up file: makes the shell quiet and predictable, then prints `ready`. */
  initScript(ready: string): string;
  /** What the host types to run a file in the shell. */
  sourceLine(file: string): string;
  /** A new shell runs: what belonged to the previous one is forgotten. */
  shellStarted(): void;
  run(shell: ShellProcess, request: CallRequest): Promise<CallResult>;
  /** The session is killed: whatever is still open is closed. */
  close(): void;
}

/** A fresh marker no command can guess: `__NEXTAI_<label>_<32 hex digits>__`. */
export const randomMarker = (label: string) => `__NEXTAI_${label}_${randomBytes(16).toString('hex')}__`;

/**
 * Finds the status posixResyncLine prints after `marker` (`<marker><digits>` and a line end) in
 * the pty's text: the number, or undefined while it is not there.
 */
export function resyncStatusFinder(marker: string): (text: string) => number | undefined {
  const pattern = new RegExp(`${marker}(\\d+)\r?\n`);
  return (text) => {
    const found = pattern.exec(text)?.[1];
    return found === undefined ? undefined : Number(found);
  };
}

/**
 * Resolves with how the call ended: `done` resolved, the shell exited, the time ran out, the
 * request's signal aborted, or `abandoned` resolved (its status is asked afterwards).
 */
export function waitForOutcome(
  done: Promise<unknown>,
  exited: Promise<unknown>,
  request: Pick<CallRequest, 'timeoutMs' | 'signal'>,
  abandoned?: Promise<unknown>,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => settle({ kind: 'timeout' }), request.timeoutMs);
    const onAbort = () => settle({ kind: 'abort' });
    const settle = (outcome: Outcome) => {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    if (request.signal?.aborted) {
      settle({ kind: 'abort' });
      return;
    }
    request.signal?.addEventListener('abort', onAbort, { once: true });
    void done.then(() => settle({ kind: 'done' }));
    void exited.then(() => settle({ kind: 'exit' }));
    // The status is asked from the shell afterwards (posix-session.ts, afterAbandoned).
    void abandoned?.then(() => settle({ kind: 'abandoned', status: -1 }));
  });
}

export const isStop = (outcome: Outcome): outcome is Extract<Outcome, { kind: StopReason }> =>
  outcome.kind === 'timeout' || outcome.kind === 'abort';

/** A call's result from its outcome and streams: a stopped call has no exit code. */
export function finish(
  outcome: Outcome,
  stdout: CapturedText,
  stderr: CapturedText,
  rest: { exitCode: number | null; notices: string[] },
): CallResult {
  return {
    stdout: stdout.text,
    stderr: stderr.text,
    exitCode: isStop(outcome) ? null : rest.exitCode,
    timedOut: outcome.kind === 'timeout',
    aborted: outcome.kind === 'abort',
    truncated: stdout.truncated || stderr.truncated,
    notices: rest.notices,
  };
}

/** A shell's exit as a shell would report it: 128 + the signal when it was killed. */
export function exitStatus(exit: ShellExit): number {
  return exit.signal ? 128 + exit.signal : exit.exitCode;
}

export function describeExit(exit: ShellExit): string {
  return exit.signal ? `killed by signal ${exit.signal}` : `exit code ${exit.exitCode}`;
}

export function delay(ms: number): Promise<false> {
  return sleep(ms).then(() => false);
}
