import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AppError, type Platform } from '@nextai/shared';
import type * as NodePty from 'node-pty';
import type { IPty } from 'node-pty';

import type { Logger } from '../../core/logger.js';
import type { ProcessControl } from './processes.js';
import { PosixCalls } from './posix-session.js';
import { PowerShellCalls } from './powershell-session.js';
import {
  delay,
  describeExit,
  randomMarker,
  resyncStatusFinder,
  type CallRequest,
  type CallResult,
  type SessionContext,
  type ShellCalls,
  type ShellExit,
  type ShellProcess,
  type StopReason,
} from './session-common.js';
import { posixResyncLine, type ShellSpec } from '../../platform/shells.js';

export type { CallRequest, CallResult } from './session-common.js';

export interface SessionOptions {
  id: string;
  shell: ShellSpec;
  platform: Platform;
  /** Where the first shell starts. */
  cwd: string;
  env: Record<string, string>;
  log: Logger;
  processes: ProcessControl;
  /** Where the private 0700 directory is made (default: the OS temp directory). */
  tmpRoot?: string;
  /** Cap per stream, in bytes. */
  outputCap?: number;
  /**
   * Starts the shell somewhere else than directly: inside the sandbox. Given the shell's program,
   * arguments, environment and starting folder, and the session's private folder (which the
   * shell must see to read its call files and write its FIFOs), it returns what to start instead.
   */
  launcher?: ShellLauncher;
}

export interface ShellLauncher {
  wrap(
    shell: { file: string; args: string[]; env: Record<string, string>; cwd: string },
    privateDir: string,
  ): { file: string; args: string[]; env: Record<string, string> };
  /** The shell's own pid once it runs, given the pid the pty started (the launcher's helpers sit between). */
  shellPid(startedPid: number): number | undefined;
  /** After each call: what the launcher had to undo of what the command did, as notices. */
  afterCall?(): string[];
}

/** How long a shell may take to start and say it is ready. */
const START_TIMEOUT_MS = 10_000;
/** After an interrupt, how long the shell has to answer before the whole session is ended. */
const RESYNC_MS = 1_000;
/** How long one typed resync line is given before it is typed again. */
const RESYNC_RETRY_MS = 40;
/** While waiting for a resync answer, how often it is looked for. */
const RESYNC_SLICE_MS = 20;
/** While a stopped call's shell has not answered, how often what the call started is killed again. */
const KILL_AGAIN_MS = 100;

type PtyModule = typeof NodePty;

let ptyModule: Promise<PtyModule> | undefined;

/** node-pty is a native addon, loaded on first use so a broken build only disables the terminal. */
function loadPty(): Promise<PtyModule> {
  ptyModule ??= import('node-pty').then(
    (module) => (module as unknown as { default?: typeof module }).default ?? module,
    (error: unknown) => {
      ptyModule = undefined;
      throw new AppError(
        'UNAVAILABLE',
        `The terminal tools need node-pty, which could not be loaded (${String(error)}). Reinstall NextAI, or run \`nextai doctor\`.`,
        { cause: error },
      );
    },
  );
  return ptyModule;
}

/**
 * One persistent shell on a pty. Calls are serialised; each runs through the protocol described
 * in shells.ts, as the shell's kind does it (posix-session.ts, powershell-session.ts). When the
 * shell ends (a command ran `exit`, or it had to be killed) the next call starts a new one in
 * the last known directory and says so.
 */
export class ShellSession {
  readonly id: string;
  readonly shell: ShellSpec;
  readonly createdAt = new Date();
  private readonly dir: string;
  private readonly log: Logger;
  /** How this kind of shell starts and runs a call. */
  private readonly calls: ShellCalls;
  private current: ShellProcess | undefined;
  private lastCwd: string;
  private queue: Promise<void> = Promise.resolve();
  private killed = false;
  /** Why the next call runs in a new shell, told once to that call. */
  private restartReason: string | undefined;
  /** Text the shell wrote to the pty since `resetTerminal`. */
  private terminalText = '';
  private readonly terminalWatchers = new Set<() => void>();

  constructor(private readonly options: SessionOptions) {
    this.id = options.id;
    this.shell = options.shell;
    this.lastCwd = options.cwd;
    this.log = options.log;
    this.dir = fs.mkdtempSync(path.join(options.tmpRoot ?? os.tmpdir(), 'nextai-terminal-'));
    fs.chmodSync(this.dir, 0o700);
    const context: SessionContext = {
      id: this.id,
      dir: this.dir,
      platform: options.platform,
      outputCap: options.outputCap,
      processes: options.processes,
      isKilled: () => this.killed,
      cwd: () => this.cwd(),
      setLastCwd: (cwd) => {
        this.lastCwd = cwd;
      },
      setRestartReason: (reason) => {
        this.restartReason = reason;
      },
      terminalText: () => this.terminalText,
      resetTerminal: () => this.resetTerminal(),
      waitForTerminal: (marker, ms) => this.waitForTerminal(marker, ms),
      resync: (shell) => this.resync(shell),
      endShell: (shell) => this.endShell(shell),
      stopCall: (shell, since, why, timeoutMs) => this.stopCall(shell, since, why, timeoutMs),
    };
    this.calls =
      options.shell.kind === 'posix' ? new PosixCalls(context, options.shell.name) : new PowerShellCalls(context);
  }

  get pid(): number | undefined {
    return this.current && !this.current.exit ? this.current.pid : undefined;
  }

  /** The shell's current directory: read from the kernel on Linux, else as of the last call. */
  cwd(): string | undefined {
    const pid = this.pid;
    if (pid !== undefined && this.options.platform === 'linux') {
      try {
        return fs.readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // It is exiting right now: the last known directory is the best answer.
        return this.lastCwd;
      }
    }
    return this.lastCwd;
  }

  /** Starts the shell now (so `bash_session create` fails when the shell cannot start). */
  async start(): Promise<void> {
    await this.enqueue(undefined, () => this.ensureShell());
  }

  run(request: CallRequest): Promise<CallResult> {
    return this.enqueue(request.signal, async () => {
      const notices: string[] = [];
      await this.ensureShell(notices);
      const result = await this.calls.run(this.current as ShellProcess, request);
      const undone = this.options.launcher?.afterCall?.() ?? [];
      return { ...result, notices: [...notices, ...result.notices, ...undone] };
    });
  }

  /** Ends the shell and everything it started, and removes the private directory. */
  async kill(): Promise<void> {
    if (this.killed) return;
    this.killed = true;
    const current = this.current;
    if (current && !current.exit) {
      await this.options.processes.killSession(current.leader).catch((error: unknown) => {
        this.log.warn('could not end every process of a terminal session', { session: this.id, error: String(error) });
      });
      current.pty.kill();
    }
    this.calls.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  get isKilled(): boolean {
    return this.killed;
  }

  /** Runs `task` after every call queued before it; an abort while waiting cancels it. */
  private async enqueue<T>(signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
    const previous = this.queue;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.queue = previous.then(() => mine);
    try {
      await waitUnlessAborted(previous, signal);
      if (this.killed) {
        throw new AppError('NOT_FOUND', `Session "${this.id}" was killed.`, { details: { session_id: this.id } });
      }
      return await task();
    } finally {
      release();
    }
  }

  private async ensureShell(notices?: string[]): Promise<void> {
    if (this.current && !this.current.exit) return;
    if (this.current?.exit && this.restartReason === undefined) {
      this.restartReason = `the shell had ended (${describeExit(this.current.exit)})`;
    }
    let cwd = this.lastCwd;
    if (!isDirectory(cwd)) cwd = this.options.cwd;
    await this.spawnShell(cwd);
    if (this.restartReason !== undefined) {
      notices?.push(
        `Session "${this.id}" runs in a new shell because ${this.restartReason}. It started in ${cwd}; ` +
          'variables, functions and other state of the old shell are gone.',
      );
      this.restartReason = undefined;
    }
  }

  private async spawnShell(cwd: string): Promise<void> {
    const pty = await loadPty();
    // Killed while node-pty loaded (an emergency stop during a call's start): no shell starts
    // that `kill` could no longer see. From here to `this.current` nothing awaits.
    if (this.killed) {
      throw new AppError('NOT_FOUND', `Session "${this.id}" was killed.`, { details: { session_id: this.id } });
    }
    const launcher = this.options.launcher;
    // The launcher may refuse (the sandbox cannot start): then nothing starts at all.
    const start = launcher
      ? launcher.wrap({ file: this.shell.file, args: this.shell.args, env: this.options.env, cwd }, this.dir)
      : { file: this.shell.file, args: this.shell.args, env: this.options.env };
    let spawned: IPty;
    try {
      spawned = pty.spawn(start.file, start.args, {
        name: 'dumb',
        cols: 200,
        rows: 50,
        cwd,
        env: start.env,
      });
    } catch (error) {
      throw new AppError('UNAVAILABLE', `Couldn't start ${this.shell.file}: ${String(error)}`, { cause: error });
    }
    let resolveExit!: (exit: ShellExit) => void;
    const child: ShellProcess = {
      pty: spawned,
      pid: spawned.pid,
      leader: spawned.pid,
      exited: new Promise((resolve) => {
        resolveExit = resolve;
      }),
    };
    spawned.onData((data) => {
      this.terminalText = (this.terminalText + data).slice(-16_384);
      for (const watcher of [...this.terminalWatchers]) watcher();
    });
    spawned.onExit(({ exitCode, signal }) => {
      const exit = { exitCode, signal: signal || undefined };
      child.exit = exit;
      resolveExit(exit);
      if (!this.killed) this.afterShellExit(child);
    });
    this.current = child;
    this.lastCwd = cwd;
    this.calls.shellStarted();

    const ready = randomMarker('READY');
    const initFile = path.join(this.dir, this.calls.initFileName);
    fs.writeFileSync(initFile, this.calls.initScript(ready), { mode: 0o600 });
    this.resetTerminal();
    spawned.write(this.calls.sourceLine(initFile));
    const started = await Promise.race([this.waitForTerminal(ready, START_TIMEOUT_MS), child.exited.then(() => false)]);
    if (!started) {
      const output = this.terminalText.trim().slice(-500);
      await this.options.processes.killSession(child.leader).catch(() => undefined);
      spawned.kill();
      throw new AppError(
        'UNAVAILABLE',
        `The ${this.shell.name} shell did not start${launcher ? ' in the sandbox' : ''}${child.exit ? ` (${describeExit(child.exit)})` : ` within ${START_TIMEOUT_MS} ms`}.` +
          (output ? ` It printed: ${output}` : ''),
        { details: { shell: this.shell.file } },
      );
    }
    if (launcher) {
      // It answered, so it runs: the shell is the launcher's first process that is not its own.
      const shellPid = launcher.shellPid(child.leader);
      if (shellPid === undefined) {
        await this.options.processes.killSession(child.leader).catch(() => undefined);
        spawned.kill();
        throw new AppError(
          'UNAVAILABLE',
          `The ${this.shell.name} shell started in the sandbox, but its process could not be found.`,
        );
      }
      child.pid = shellPid;
    }
  }

  /** The shell ended by itself: nothing it started may outlive it (as when a terminal closes). */
  private afterShellExit(process: ShellProcess): void {
    this.options.processes.killSession(process.leader).catch((error: unknown) => {
      this.log.warn('could not end the processes of an ended shell', { session: this.id, error: String(error) });
    });
  }

  private resetTerminal(): void {
    this.terminalText = '';
  }

  /** Resolves true when `marker` appears on the pty, false after `ms`. */
  private async waitForTerminal(marker: string, ms: number): Promise<boolean> {
    return (await this.watchTerminal((text) => (text.includes(marker) ? true : undefined), ms)) ?? false;
  }

  /** Resolves with what `find` finds in the pty's text once it finds something, undefined after `ms`. */
  private watchTerminal<T>(find: (text: string) => T | undefined, ms: number): Promise<T | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        const found = find(this.terminalText);
        if (found !== undefined) settle(found);
      };
      const settle = (value: T | undefined) => {
        clearTimeout(timer);
        this.terminalWatchers.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => settle(undefined), ms);
      this.terminalWatchers.add(check);
      check();
    });
  }

  /**
   * Waits until the shell reads input again and resolves with its `$?`, or undefined when it does
   * not answer within RESYNC_MS. `interrupt` sends SIGINT first; `between` runs while waiting.
   * The line typed is a POSIX one: PowerShell runs on Windows only, whose process control cannot
   * spare the shell (keepsShell), so stopCall never resyncs a PowerShell session.
   */
  private async resync(
    shell: ShellProcess,
    options: { interrupt?: boolean; between?: () => Promise<void> } = {},
  ): Promise<number | undefined> {
    if (options.interrupt) interrupt(shell);
    const marker = randomMarker('SYNC');
    const answered = this.waitForStatus(shell, marker, RESYNC_MS).then((status) => ({ status }));
    let typedAt = Number.NEGATIVE_INFINITY;
    let copies = 0;
    let status: number | undefined;
    for (;;) {
      // A line that reaches the shell while it handles an interrupt is dropped with the input it
      // was reading, so the line is typed again until one copy is answered.
      if (!shell.exit && Date.now() - typedAt >= RESYNC_RETRY_MS) {
        shell.pty.write(posixResyncLine(marker));
        typedAt = Date.now();
        copies += 1;
      }
      await options.between?.();
      const answer = await Promise.race([answered, delay(RESYNC_SLICE_MS)]);
      if (answer) {
        status = answer.status;
        break;
      }
    }
    if (status === undefined) return undefined;
    // Other copies may still be waiting: a last marker lets them run now rather than during the
    // next call.
    const flush = randomMarker('SYNC');
    if (copies > 1 && !shell.exit) {
      shell.pty.write(posixResyncLine(flush));
      await this.waitForStatus(shell, flush, RESYNC_MS);
    }
    return status;
  }

  /** The status printed after `marker` by posixResyncLine, once it appears on the pty. */
  private async waitForStatus(shell: ShellProcess, marker: string, ms: number): Promise<number | undefined> {
    return Promise.race([this.watchTerminal(resyncStatusFinder(marker), ms), shell.exited.then(() => undefined)]);
  }

  /** Ends the shell and everything in its session (it did not respond). */
  private async endShell(shell: ShellProcess): Promise<void> {
    await this.options.processes.killSession(shell.leader).catch((error: unknown) => {
      this.log.warn('could not end every process of a terminal session', { session: this.id, error: String(error) });
    });
    shell.pty.kill();
    await Promise.race([shell.exited, delay(RESYNC_MS)]);
  }

  /**
   * Time-out or abort: Ctrl-C, then SIGKILL for whatever is left, again and again until the shell
   * reads input again (the resync line is answered).
   *
   * Before each kill, SIGINT goes to the job the shell waits for and to the shell. A program that
   * dies of SIGINT makes bash drop the rest of the call (it is sourcing a file); a default SIGINT
   * is fatal from the moment it is sent, so the SIGKILL right after does not change what the
   * shell sees. SIGINT to the shell ends a loop of builtins. Only a program that survives SIGINT
   * (it catches or ignores it) lets the shell go on with the next command of the call, which the
   * next round kills in turn. A shell that does not come back is ended with its session. Where
   * the process control cannot spare the shell (Windows), the session ends and the next call
   * restarts it.
   */
  private async stopCall(shell: ShellProcess, since: number, why: StopReason, timeoutMs: number): Promise<string[]> {
    const what = why === 'timeout' ? `did not finish within ${timeoutMs} ms` : 'was stopped (the call was cancelled)';
    const notices: string[] = [];
    const processes = this.options.processes;
    if (!processes.keepsShell) {
      await processes.killStartedSince(shell.leader, since);
      notices.push(`The command ${what}; it was killed with the shell of session "${this.id}".`);
      this.restartReason = 'the previous command had to be killed together with the old one';
      return notices;
    }
    const interruptAll = () => {
      processes.signalForeground?.(shell.pid, 'SIGINT');
      interrupt(shell);
    };
    // Everything the call started is in the terminal session the pty leads (sandbox helpers and
    // the shell itself started before the call, so they are spared).
    const killRound = async () => {
      await processes.killStartedSince(shell.leader, since, interruptAll);
    };
    // A look at every process costs milliseconds of this thread; with several sessions stopping at
    // once (emergency stop), looking at every slice would starve the very loop that waits.
    let lookedAt = 0;
    const killNowAndThen = async () => {
      if (Date.now() - lookedAt < KILL_AGAIN_MS) return;
      lookedAt = Date.now();
      await killRound();
    };
    interruptAll();
    const status = await this.resync(shell, { between: killNowAndThen });
    if (status !== undefined) {
      // Back at its prompt the shell starts nothing more: a last look finds what it started just before.
      await killRound();
      notices.push(
        `The command ${what}: it was interrupted and everything it started was killed; the output up to then ` +
          `is shown. Session "${this.id}" is still running.`,
      );
      return notices;
    }
    if (shell.exit) {
      notices.push(
        `The command ${what} and was killed; the shell of session "${this.id}" ended as well ` +
          `(${describeExit(shell.exit)}), so the next call starts a new shell.`,
      );
      this.restartReason = 'the old one ended when the previous command was stopped';
      return notices;
    }
    await this.endShell(shell);
    notices.push(
      `The command ${what}, and the shell of session "${this.id}" did not respond to an interrupt, ` +
        'so the session was ended; the next call starts a new shell.',
    );
    this.restartReason = 'the previous command could not be stopped without ending the old one';
    return notices;
  }
}

function isDirectory(candidate: string): boolean {
  try {
    return fs.statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

/** SIGINT to the shell; it may have exited meanwhile, which the resync that follows finds out. */
function interrupt(shell: ShellProcess): void {
  try {
    process.kill(shell.pid, 'SIGINT');
  } catch {
    // ESRCH: already gone.
  }
}

/** Waits for `previous`, or throws as soon as `signal` aborts. */
function waitUnlessAborted(previous: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return previous;
  const cancelled = () =>
    new AppError('EMERGENCY_STOPPED', 'The command was not run: the call was cancelled while it waited for its turn.');
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
