import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AppError, type Platform } from '@nextai/shared';
import type * as NodePty from 'node-pty';
import type { IPty } from 'node-pty';

import type { Logger } from '../../core/logger.js';
import { runCommand } from '../../core/subprocess.js';
import { FifoReader } from './fifo.js';
import { OutputCollector, withoutByteOrderMark, type CapturedText } from './output.js';
import type { ProcessControl } from './processes.js';
import {
  posixCallScript,
  posixInitScript,
  posixResyncLine,
  posixSourceLine,
  powershellCallScript,
  powershellInitScript,
  powershellSourceLine,
  type ShellSpec,
} from '../../platform/shells.js';

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

interface ShellProcess {
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

interface ShellExit {
  exitCode: number;
  signal?: number;
}

/**
 * How a call ended: its end markers came (`done`), the shell exited, the time ran out, the call
 * was cancelled, or the shell left the call file without writing its markers (`abandoned`: it
 * was interrupted, e.g. by `kill -INT $$`, and went back to reading input).
 */
type Outcome =
  { kind: 'done' } | { kind: 'exit' } | { kind: 'timeout' } | { kind: 'abort' } | { kind: 'abandoned'; status: number };

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
/** After the end markers, how long the FIFOs may stay open before a background job is assumed. */
const EOF_GRACE_MS = 25;
/** After the shell exited, how long the streams may take to drain. */
const EXIT_DRAIN_MS = 200;
/** Characters kept of what programs wrote straight to the terminal. */
const TERMINAL_TEXT_CAP = 2_000;

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

const randomMarker = (label: string) => `__NEXTAI_${label}_${randomBytes(16).toString('hex')}__`;

/**
 * One persistent shell on a pty. Calls are serialised; each runs through the protocol described
 * in shells.ts. When the shell ends (a command ran `exit`, or it had to be killed) the next call
 * starts a new one in the last known directory and says so.
 */
export class ShellSession {
  readonly id: string;
  readonly shell: ShellSpec;
  readonly createdAt = new Date();
  private readonly dir: string;
  private readonly log: Logger;
  private current: ShellProcess | undefined;
  private lastCwd: string;
  private queue: Promise<void> = Promise.resolve();
  private killed = false;
  /** Why the next call runs in a new shell, told once to that call. */
  private restartReason: string | undefined;
  /** Text the shell wrote to the pty since `resetTerminal`. */
  private terminalText = '';
  private readonly terminalWatchers = new Set<() => void>();
  /** POSIX: the FIFO pair the next call uses, when no background job still holds it. */
  private fifos: { stdout: string; stderr: string } | undefined;
  private fifoGeneration = 0;
  /** Readers still draining FIFOs that background jobs hold open. */
  private readonly lingering = new Set<FifoReader>();

  constructor(private readonly options: SessionOptions) {
    this.id = options.id;
    this.shell = options.shell;
    this.lastCwd = options.cwd;
    this.log = options.log;
    this.dir = fs.mkdtempSync(path.join(options.tmpRoot ?? os.tmpdir(), 'nextai-terminal-'));
    fs.chmodSync(this.dir, 0o700);
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
      const result = this.shell.kind === 'posix' ? await this.runPosix(request) : await this.runPowerShell(request);
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
    for (const reader of this.lingering) reader.close();
    this.lingering.clear();
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
    this.fifos = undefined;

    const ready = randomMarker('READY');
    const initFile = path.join(this.dir, this.shell.kind === 'posix' ? 'init.sh' : 'init.ps1');
    const init = this.shell.kind === 'posix' ? posixInitScript(this.shell.name, ready) : powershellInitScript(ready);
    fs.writeFileSync(initFile, init, { mode: 0o600 });
    this.resetTerminal();
    spawned.write(this.shell.kind === 'posix' ? posixSourceLine(initFile) : powershellSourceLine(initFile));
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

  private async fifoPair(): Promise<{ stdout: string; stderr: string }> {
    if (this.fifos) return this.fifos;
    this.fifoGeneration += 1;
    const pair = {
      stdout: path.join(this.dir, `stdout-${this.fifoGeneration}`),
      stderr: path.join(this.dir, `stderr-${this.fifoGeneration}`),
    };
    await runCommand('mkfifo', ['-m', '600', pair.stdout, pair.stderr], {
      timeoutMs: 5_000,
      installHint: 'It is part of coreutils.',
    });
    this.fifos = pair;
    return pair;
  }

  private async runPosix(request: CallRequest): Promise<CallResult> {
    const shell = this.current as ShellProcess;
    const fifos = await this.fifoPair();
    const marker = randomMarker('END');
    const commandFile = path.join(this.dir, 'command.sh');
    const callFile = path.join(this.dir, 'call.sh');
    fs.writeFileSync(commandFile, `${request.command}\n`, { mode: 0o600 });
    fs.writeFileSync(
      callFile,
      posixCallScript({
        commandFile,
        stdoutFifo: fifos.stdout,
        stderrFifo: fifos.stderr,
        workingDir: request.workingDir,
        exactDir: request.exactDir,
        marker,
      }),
      { mode: 0o600 },
    );
    const stdout = new FifoReader(fifos.stdout, marker, true, this.options.outputCap);
    const stderr = new FifoReader(fifos.stderr, marker, false, this.options.outputCap);
    const done = Promise.all([stdout.marked, stderr.marked]).then(([trailer]) => trailer);
    const since = this.options.processes.callStart();
    this.resetTerminal();
    shell.pty.write(posixSourceLine(callFile));

    const notices: string[] = [];
    // Both streams at end-of-file without their markers: the shell closed them by leaving the call
    // file early. Linux only: there a FIFO reports no end-of-file before its first writer came.
    const bothEnded =
      this.options.platform === 'linux' ? Promise.all([stdout.ended, stderr.ended]).then(() => undefined) : undefined;
    let outcome = await waitForOutcome(done, shell.exited, request, bothEnded);
    // Taken now: what follows (an interrupt, a resync marker) is the host's own doing.
    const terminal = this.terminalText;
    if (outcome.kind === 'abandoned') {
      outcome = await this.afterAbandoned(shell, stdout, stderr, notices);
    }
    if (isStop(outcome)) {
      notices.push(...(await this.stopCall(shell, since, outcome.kind, request.timeoutMs)));
    }
    // After a stop, the shell may still have finished the call file: its directory is known then.
    const trailer = stdout.hasMarker && stderr.hasMarker ? await done : undefined;
    if (this.killed) {
      await Promise.race([Promise.all([stdout.ended, stderr.ended]), delay(EXIT_DRAIN_MS)]);
      notices.push(`Session "${this.id}" was killed while the command ran.`);
    } else if (shell.exit) {
      // The streams end when the shell's last writer is gone; background jobs may hold them.
      await Promise.race([Promise.all([stdout.ended, stderr.ended]), delay(EXIT_DRAIN_MS)]);
      if (!isStop(outcome)) {
        notices.push(
          `The command ended the shell of session "${this.id}" (${describeExit(shell.exit)}); ` +
            'the next call in this session starts a new shell.',
        );
        this.restartReason = 'the previous command ended the old one';
      }
    } else {
      await Promise.race([Promise.all([stdout.ended, stderr.ended]), delay(EOF_GRACE_MS)]);
    }
    stdout.flush();
    stderr.flush();
    this.releaseFifos(stdout, stderr);
    if (trailer) this.lastCwd = trailer.cwd;
    else this.lastCwd = this.cwd() ?? this.lastCwd;

    const terminalNotice = describeTerminalText(terminal, posixSourceLine(callFile));
    if (terminalNotice) notices.push(terminalNotice);
    let exitCode: number | null = null;
    if (outcome.kind === 'abandoned') exitCode = outcome.status;
    else if (trailer) exitCode = trailer.status;
    else if (shell.exit) exitCode = exitStatus(shell.exit);
    return finish(outcome, stdout.collector.result(), stderr.collector.result(), { exitCode, notices });
  }

  /**
   * The shell closed the call's streams without writing the end markers. Either they came after
   * all (a race with end-of-file), or the shell is exiting, or it was interrupted and is reading
   * input again: then its `$?` is the command's status (130 after SIGINT).
   */
  private async afterAbandoned(
    shell: ShellProcess,
    stdout: FifoReader,
    stderr: FifoReader,
    notices: string[],
  ): Promise<Outcome> {
    if (stdout.hasMarker && stderr.hasMarker) return { kind: 'done' };
    const status = await this.resync(shell);
    if (shell.exit) return { kind: 'exit' };
    if (status !== undefined) {
      notices.push(
        `The shell stopped running the command before its end (status ${status}; an interrupt such as ` +
          `\`kill -INT $$\` does this), so output written after that point is not shown. Session "${this.id}" is still running.`,
      );
      return { kind: 'abandoned', status };
    }
    await this.endShell(shell);
    notices.push(
      `The shell of session "${this.id}" stopped running the command before its end and then did not respond, ` +
        'so the session was ended; the next call starts a new shell.',
    );
    this.restartReason = 'the old one stopped responding';
    return { kind: 'exit' };
  }

  /**
   * Waits until the shell reads input again and resolves with its `$?`, or undefined when it does
   * not answer within RESYNC_MS. `interrupt` sends SIGINT first; `between` runs while waiting.
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
    const pattern = new RegExp(`${marker}(\\d+)\r?\n`);
    const found = await Promise.race([
      this.watchTerminal((text) => pattern.exec(text)?.[1], ms),
      shell.exited.then(() => undefined),
    ]);
    return found === undefined ? undefined : Number(found);
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
  private async stopCall(
    shell: ShellProcess,
    since: number,
    why: 'timeout' | 'abort',
    timeoutMs: number,
  ): Promise<string[]> {
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

  /** FIFOs that reached end-of-file are reused; others keep draining and the next call gets a new pair. */
  private releaseFifos(...readers: FifoReader[]): void {
    let clean = true;
    for (const reader of readers) {
      if (reader.hasEnded) continue;
      clean = false;
      this.lingering.add(reader);
      void reader.ended.then(() => this.lingering.delete(reader));
    }
    if (!clean && this.fifos) {
      // Unlinked now; the readers and the background jobs keep their open ends.
      for (const fifo of [this.fifos.stdout, this.fifos.stderr]) fs.rmSync(fifo, { force: true });
      this.fifos = undefined;
    }
  }

  private async runPowerShell(request: CallRequest): Promise<CallResult> {
    const shell = this.current as ShellProcess;
    const marker = randomMarker('END');
    const files = {
      commandFile: path.join(this.dir, 'command.ps1'),
      stdoutFile: path.join(this.dir, 'stdout.txt'),
      stderrFile: path.join(this.dir, 'stderr.txt'),
      statusFile: path.join(this.dir, 'status.txt'),
    };
    const callFile = path.join(this.dir, 'call.ps1');
    for (const file of [files.stdoutFile, files.stderrFile, files.statusFile]) fs.rmSync(file, { force: true });
    fs.writeFileSync(files.commandFile, `${request.command}\r\n`, { mode: 0o600 });
    fs.writeFileSync(callFile, powershellCallScript({ ...files, workingDir: request.workingDir, marker }), {
      mode: 0o600,
    });
    const since = this.options.processes.callStart();
    this.resetTerminal();
    shell.pty.write(powershellSourceLine(callFile));
    const done = this.waitForTerminal(marker, request.timeoutMs + 1).then((seen) => {
      if (!seen) return new Promise<never>(() => undefined);
    });
    const outcome = await waitForOutcome(done, shell.exited, request);
    const notices: string[] = [];
    if (isStop(outcome)) {
      notices.push(...(await this.stopCall(shell, since, outcome.kind as 'timeout' | 'abort', request.timeoutMs)));
    } else if (outcome.kind === 'exit') {
      notices.push(
        `The command ended the shell of session "${this.id}" (${describeExit(shell.exit as ShellExit)}); ` +
          'the next call in this session starts a new shell.',
      );
      this.restartReason = 'the previous command ended the old one';
    }
    let exitCode: number | null = null;
    if (outcome.kind === 'done') {
      const [code, ...cwd] = readText(files.statusFile).split('\n');
      exitCode = Number.parseInt(code ?? '', 10);
      if (cwd.length > 0) this.lastCwd = cwd.join('\n').trim();
    } else if (outcome.kind === 'exit') {
      exitCode = exitStatus(shell.exit as ShellExit);
    }
    return finish(
      outcome,
      readCapped(files.stdoutFile, this.options.outputCap),
      readCapped(files.stderrFile, this.options.outputCap),
      {
        exitCode: Number.isNaN(exitCode) ? null : exitCode,
        notices,
      },
    );
  }
}

function waitForOutcome(
  done: Promise<unknown>,
  exited: Promise<unknown>,
  request: CallRequest,
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
    // The status is asked from the shell afterwards (afterAbandoned).
    void abandoned?.then(() => settle({ kind: 'abandoned', status: -1 }));
  });
}

const isStop = (outcome: Outcome) => outcome.kind === 'timeout' || outcome.kind === 'abort';

function finish(
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
function exitStatus(exit: ShellExit): number {
  return exit.signal ? 128 + exit.signal : exit.exitCode;
}

function describeExit(exit: ShellExit): string {
  return exit.signal ? `killed by signal ${exit.signal}` : `exit code ${exit.exitCode}`;
}

/** What a program wrote to /dev/tty itself, as a notice (the host's own typed line removed). */
function describeTerminalText(text: string, typedLine: string): string | undefined {
  const cleaned = text
    .replaceAll('\r', '')
    .split('\n')
    .filter((line) => line !== typedLine.trimEnd())
    .join('\n')
    .trim();
  if (cleaned === '') return undefined;
  const shown = cleaned.length > TERMINAL_TEXT_CAP ? `…${cleaned.slice(-TERMINAL_TEXT_CAP)}` : cleaned;
  return (
    'Something wrote to the terminal directly, not to stdout or stderr (a program asking for a password or ' +
    `a confirmation does this; it cannot be answered here, stdin is empty): ${shown}`
  );
}

function readText(file: string): string {
  try {
    return withoutByteOrderMark(fs.readFileSync(file, 'utf8'));
  } catch {
    return '';
  }
}

/** A file's text by its head and tail only, however large it is. */
function readCapped(file: string, cap: number | undefined): CapturedText {
  const collector = new OutputCollector(cap);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return collector.result();
  }
  try {
    const size = fs.fstatSync(fd).size;
    const read = (length: number, position: number) => {
      const buffer = Buffer.alloc(length);
      const count = fs.readSync(fd, buffer, 0, length, position);
      return buffer.subarray(0, count);
    };
    if (size <= collector.cap) {
      collector.push(read(size, 0));
    } else {
      collector.pushHeadAndTail(read(collector.headCap, 0), read(collector.tailCap, size - collector.tailCap), size);
    }
  } finally {
    fs.closeSync(fd);
  }
  const result = collector.result();
  return { ...result, text: withoutByteOrderMark(result.text) };
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

function delay(ms: number): Promise<false> {
  return new Promise((resolve) => setTimeout(() => resolve(false), ms));
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
