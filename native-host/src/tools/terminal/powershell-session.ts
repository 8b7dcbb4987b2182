import fs from 'node:fs';
import path from 'node:path';

import { OutputCollector, withoutByteOrderMark, type CapturedText } from './output.js';
import {
  describeExit,
  exitStatus,
  finish,
  isStop,
  randomMarker,
  waitForOutcome,
  type CallRequest,
  type CallResult,
  type SessionContext,
  type ShellCalls,
  type ShellExit,
  type ShellProcess,
} from './session-common.js';
import {
  powershellCallScript,
  powershellInitScript,
  powershellSourceLine,
  type PowerShellCall,
} from '../../platform/shells.js';

/** A PowerShell call's files in the session's private directory, and the text the host writes. */
export function powershellCallFiles(
  dir: string,
  request: Pick<CallRequest, 'command' | 'workingDir'>,
  marker: string,
): {
  files: Omit<PowerShellCall, 'workingDir' | 'marker'>;
  callFile: string;
  command: string;
  call: string;
} {
  const files = {
    commandFile: path.join(dir, 'command.ps1'),
    stdoutFile: path.join(dir, 'stdout.txt'),
    stderrFile: path.join(dir, 'stderr.txt'),
    statusFile: path.join(dir, 'status.txt'),
  };
  return {
    files,
    callFile: path.join(dir, 'call.ps1'),
    command: `${request.command}\r\n`,
    call: powershellCallScript({ ...files, workingDir: request.workingDir, marker }),
  };
}

/**
 * The status file a PowerShell call wrote: the exit code on the first line (null when it is not a
 * number), then the location it ended in (undefined when there is no second line).
 */
export function parsePowerShellStatus(text: string): { exitCode: number | null; cwd: string | undefined } {
  const [code, ...cwd] = text.split('\n');
  const exitCode = Number.parseInt(code ?? '', 10);
  return {
    exitCode: Number.isNaN(exitCode) ? null : exitCode,
    cwd: cwd.length > 0 ? cwd.join('\n').trim() : undefined,
  };
}

/**
 * Calls in PowerShell (Windows): the call file sends the streams to files and writes the status
 * file, then prints the end marker on the console (shells.ts, powershellCallScript).
 */
export class PowerShellCalls implements ShellCalls {
  readonly initFileName = 'init.ps1';

  constructor(private readonly session: SessionContext) {}

  initScript(ready: string): string {
    return powershellInitScript(ready);
  }

  sourceLine(file: string): string {
    return powershellSourceLine(file);
  }

  shellStarted(): void {
    // Nothing belongs to one shell: every call writes its files anew.
  }

  close(): void {
    // Nothing stays open between calls.
  }

  async run(shell: ShellProcess, request: CallRequest): Promise<CallResult> {
    const session = this.session;
    const marker = randomMarker('END');
    const { files, callFile, command, call } = powershellCallFiles(session.dir, request, marker);
    for (const file of [files.stdoutFile, files.stderrFile, files.statusFile]) fs.rmSync(file, { force: true });
    fs.writeFileSync(files.commandFile, command, { mode: 0o600 });
    fs.writeFileSync(callFile, call, { mode: 0o600 });
    const since = session.processes.callStart();
    session.resetTerminal();
    shell.pty.write(powershellSourceLine(callFile));
    const done = session.waitForTerminal(marker, request.timeoutMs + 1).then((seen) => {
      if (!seen) return new Promise<never>(() => undefined);
    });
    const outcome = await waitForOutcome(done, shell.exited, request);
    const notices: string[] = [];
    if (isStop(outcome)) {
      notices.push(...(await session.stopCall(shell, since, outcome.kind, request.timeoutMs)));
    } else if (outcome.kind === 'exit') {
      notices.push(
        `The command ended the shell of session "${session.id}" (${describeExit(shell.exit as ShellExit)}); ` +
          'the next call in this session starts a new shell.',
      );
      session.setRestartReason('the previous command ended the old one');
    }
    let exitCode: number | null = null;
    if (outcome.kind === 'done') {
      const status = parsePowerShellStatus(readText(files.statusFile));
      exitCode = status.exitCode;
      if (status.cwd !== undefined) session.setLastCwd(status.cwd);
    } else if (outcome.kind === 'exit') {
      exitCode = exitStatus(shell.exit as ShellExit);
    }
    return finish(
      outcome,
      readCapped(files.stdoutFile, session.outputCap),
      readCapped(files.stderrFile, session.outputCap),
      { exitCode, notices },
    );
  }
}

/** A file's text, without a byte order mark; empty when it cannot be read. */
export function readText(file: string): string {
  try {
    return withoutByteOrderMark(fs.readFileSync(file, 'utf8'));
  } catch {
    return '';
  }
}

/** A file's text by its head and tail only, however large it is. */
export function readCapped(file: string, cap: number | undefined): CapturedText {
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
