import fs from 'node:fs';
import path from 'node:path';

import { runCommand } from '../../core/subprocess.js';
import { FifoReader } from './fifo.js';
import {
  delay,
  describeExit,
  exitStatus,
  finish,
  isStop,
  randomMarker,
  waitForOutcome,
  type CallRequest,
  type CallResult,
  type Outcome,
  type SessionContext,
  type ShellCalls,
  type ShellProcess,
} from './session-common.js';
import { posixCallScript, posixInitScript, posixSourceLine } from '../../platform/shells.js';

/** After the end markers, how long the FIFOs may stay open before a background job is assumed. */
const EOF_GRACE_MS = 25;
/** After the shell exited, how long the streams may take to drain. */
const EXIT_DRAIN_MS = 200;
/** Characters kept of what programs wrote straight to the terminal. */
const TERMINAL_TEXT_CAP = 2_000;

/** The FIFO pair a POSIX call writes its stdout and stderr to. */
export interface FifoPair {
  stdout: string;
  stderr: string;
}

/** A POSIX call's files in the session's private directory, and the text each one gets. */
export function posixCallFiles(
  dir: string,
  fifos: FifoPair,
  request: Pick<CallRequest, 'command' | 'workingDir' | 'exactDir'>,
  marker: string,
): { commandFile: string; callFile: string; command: string; call: string } {
  const commandFile = path.join(dir, 'command.sh');
  const callFile = path.join(dir, 'call.sh');
  return {
    commandFile,
    callFile,
    command: `${request.command}\n`,
    call: posixCallScript({
      commandFile,
      stdoutFifo: fifos.stdout,
      stderrFifo: fifos.stderr,
      workingDir: request.workingDir,
      exactDir: request.exactDir,
      marker,
    }),
  };
}

/** What a program wrote to /dev/tty itself, as a notice (the host's own typed line removed). */
export function describeTerminalText(text: string, typedLine: string): string | undefined {
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

/**
 * Calls in a POSIX shell (bash, sh, dash), as the protocol in shells.ts describes: the command
 * file is sourced with its stdout and stderr going to two FIFOs the host reads until the end
 * markers; a shell that leaves the call file early is asked for its status.
 */
export class PosixCalls implements ShellCalls {
  readonly initFileName = 'init.sh';
  /** The FIFO pair the next call uses, when no background job still holds it. */
  private fifos: FifoPair | undefined;
  private fifoGeneration = 0;
  /** Readers still draining FIFOs that background jobs hold open. */
  private readonly lingering = new Set<FifoReader>();

  constructor(
    private readonly session: SessionContext,
    /** The shell's name (`bash`, `sh`, `dash`): the start-up file differs a little. */
    private readonly shellName: string,
  ) {}

  initScript(ready: string): string {
    return posixInitScript(this.shellName, ready);
  }

  sourceLine(file: string): string {
    return posixSourceLine(file);
  }

  shellStarted(): void {
    this.fifos = undefined;
  }

  close(): void {
    for (const reader of this.lingering) reader.close();
    this.lingering.clear();
  }

  async run(shell: ShellProcess, request: CallRequest): Promise<CallResult> {
    const session = this.session;
    const fifos = await this.fifoPair();
    const marker = randomMarker('END');
    const files = posixCallFiles(session.dir, fifos, request, marker);
    fs.writeFileSync(files.commandFile, files.command, { mode: 0o600 });
    fs.writeFileSync(files.callFile, files.call, { mode: 0o600 });
    const stdout = new FifoReader(fifos.stdout, marker, true, session.outputCap);
    const stderr = new FifoReader(fifos.stderr, marker, false, session.outputCap);
    const done = Promise.all([stdout.marked, stderr.marked]).then(([trailer]) => trailer);
    const since = session.processes.callStart();
    session.resetTerminal();
    shell.pty.write(posixSourceLine(files.callFile));

    const notices: string[] = [];
    // Both streams at end-of-file without their markers: the shell closed them by leaving the call
    // file early. Linux only: there a FIFO reports no end-of-file before its first writer came.
    const bothEnded =
      session.platform === 'linux' ? Promise.all([stdout.ended, stderr.ended]).then(() => undefined) : undefined;
    let outcome = await waitForOutcome(done, shell.exited, request, bothEnded);
    // Taken now: what follows (an interrupt, a resync marker) is the host's own doing.
    const terminal = session.terminalText();
    if (outcome.kind === 'abandoned') {
      outcome = await this.afterAbandoned(shell, stdout, stderr, notices);
    }
    if (isStop(outcome)) {
      notices.push(...(await session.stopCall(shell, since, outcome.kind, request.timeoutMs)));
    }
    // After a stop, the shell may still have finished the call file: its directory is known then.
    const trailer = stdout.hasMarker && stderr.hasMarker ? await done : undefined;
    if (session.isKilled()) {
      await Promise.race([Promise.all([stdout.ended, stderr.ended]), delay(EXIT_DRAIN_MS)]);
      notices.push(`Session "${session.id}" was killed while the command ran.`);
    } else if (shell.exit) {
      // The streams end when the shell's last writer is gone; background jobs may hold them.
      await Promise.race([Promise.all([stdout.ended, stderr.ended]), delay(EXIT_DRAIN_MS)]);
      if (!isStop(outcome)) {
        notices.push(
          `The command ended the shell of session "${session.id}" (${describeExit(shell.exit)}); ` +
            'the next call in this session starts a new shell.',
        );
        session.setRestartReason('the previous command ended the old one');
      }
    } else {
      await Promise.race([Promise.all([stdout.ended, stderr.ended]), delay(EOF_GRACE_MS)]);
    }
    stdout.flush();
    stderr.flush();
    this.releaseFifos(stdout, stderr);
    if (trailer) session.setLastCwd(trailer.cwd);
    else {
      const cwd = session.cwd();
      if (cwd !== undefined) session.setLastCwd(cwd);
    }

    const terminalNotice = describeTerminalText(terminal, posixSourceLine(files.callFile));
    if (terminalNotice) notices.push(terminalNotice);
    let exitCode: number | null = null;
    if (outcome.kind === 'abandoned') exitCode = outcome.status;
    else if (trailer) exitCode = trailer.status;
    else if (shell.exit) exitCode = exitStatus(shell.exit);
    return finish(outcome, stdout.collector.result(), stderr.collector.result(), { exitCode, notices });
  }

  private async fifoPair(): Promise<FifoPair> {
    if (this.fifos) return this.fifos;
    this.fifoGeneration += 1;
    const pair = {
      stdout: path.join(this.session.dir, `stdout-${this.fifoGeneration}`),
      stderr: path.join(this.session.dir, `stderr-${this.fifoGeneration}`),
    };
    await runCommand('mkfifo', ['-m', '600', pair.stdout, pair.stderr], {
      timeoutMs: 5_000,
      installHint: 'It is part of coreutils.',
    });
    this.fifos = pair;
    return pair;
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
    const session = this.session;
    if (stdout.hasMarker && stderr.hasMarker) return { kind: 'done' };
    const status = await session.resync(shell);
    if (shell.exit) return { kind: 'exit' };
    if (status !== undefined) {
      notices.push(
        `The shell stopped running the command before its end (status ${status}; an interrupt such as ` +
          `\`kill -INT $$\` does this), so output written after that point is not shown. Session "${session.id}" is still running.`,
      );
      return { kind: 'abandoned', status };
    }
    await session.endShell(shell);
    notices.push(
      `The shell of session "${session.id}" stopped running the command before its end and then did not respond, ` +
        'so the session was ended; the next call starts a new shell.',
    );
    session.setRestartReason('the old one stopped responding');
    return { kind: 'exit' };
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
}
