import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import type { SandboxPlacement } from '../types.js';
import { TerminalSession } from './lanes.js';
import type { CallRequest, CallResult, ShellSession } from './session.js';
import { shellSpec } from '../../platform/shells.js';

/**
 * A shell that answers each call with its own number, one call at a time as ShellSession does
 * (a call whose turn comes after a kill is refused), and can hold a call until it is killed.
 */
class FakeShell {
  killed = false;
  private queue: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;
  constructor(
    readonly number: number,
    private readonly hold = false,
  ) {}
  get isKilled(): boolean {
    return this.killed;
  }
  cwd(): string {
    return '/home/u';
  }
  async start(): Promise<void> {}
  async run(request: CallRequest): Promise<CallResult> {
    const previous = this.queue;
    let done!: () => void;
    this.queue = new Promise((resolve) => (done = resolve));
    try {
      await previous;
      if (this.killed) throw new AppError('NOT_FOUND', `Session "s" was killed.`);
      if (this.hold) await new Promise<void>((resolve) => (this.release = resolve));
      return {
        stdout: `shell ${this.number}: ${request.command}`,
        stderr: '',
        exitCode: this.killed ? 137 : 0,
        timedOut: false,
        aborted: false,
        truncated: false,
        notices: [],
      };
    } finally {
      done();
    }
  }
  async kill(): Promise<void> {
    this.killed = true;
    this.release?.();
  }
}

const confined: SandboxPlacement = { mode: 'confined', network: 'none' };
const network: SandboxPlacement = { mode: 'confined', network: 'full' };
const call = (command: string): CallRequest => ({ command, timeoutMs: 1_000 });

function session(options: { hold?: (number: number) => boolean } = {}) {
  const shells: FakeShell[] = [];
  const terminal = new TerminalSession('s', shellSpec('bash', 'linux', '/usr/bin:/bin'), '/home/u', () => {
    const shell = new FakeShell(shells.length + 1, options.hold?.(shells.length + 1) ?? false);
    shells.push(shell);
    return shell as unknown as ShellSession;
  });
  const endFirst = (reason: string) => (shell: ShellSession) =>
    (shell as unknown as FakeShell).number === 1 ? reason : undefined;
  return { terminal, shells, endFirst };
}

describe('TerminalSession.endShells (the policy no longer allows what a shell reaches)', () => {
  it('ends the shells named at once; the next call runs in a new shell and says why, once', async () => {
    const { terminal, shells, endFirst } = session();
    await terminal.run(call('export A=1'), confined);
    await terminal.run(call('curl x'), network);
    const ended = await terminal.endShells(endFirst('~/Projects/b is no longer writable'));
    expect(ended).toEqual([{ lane: 'confined', reason: '~/Projects/b is no longer writable' }]);
    expect(shells.map((shell) => shell.killed)).toEqual([true, false]);

    const next = await terminal.run(call('touch ~/Projects/b/x'), confined);
    expect(next.stdout).toBe('shell 3: touch ~/Projects/b/x');
    expect(next.notices[0]).toBe(
      'The shell of terminal session "s" (in the sandbox, without the network) was closed because the person ' +
        'narrowed what the sandbox may reach (~/Projects/b is no longer writable); their setting applies to ' +
        "commands already running too. Commands that ran there now run in a new shell: the old one's variables, " +
        'functions and background jobs are gone.',
    );
    expect((await terminal.run(call('true'), confined)).notices).toEqual([]);
  });

  it('a shell that keeps what it reaches is left alone, and nothing is said', async () => {
    const { terminal, shells } = session();
    await terminal.run(call('export A=1'), confined);
    expect(await terminal.endShells(() => undefined)).toEqual([]);
    const next = await terminal.run(call('echo $A'), confined);
    expect(next.stdout).toBe('shell 1: echo $A');
    expect(next.notices).toEqual([]);
    expect(shells).toHaveLength(1);
  });

  it('a command running in the shell ended: its result says so, and the next call does not repeat it', async () => {
    const { terminal, endFirst } = session({ hold: (number) => number === 1 });
    const running = terminal.run(call('sleep 60'), confined);
    await new Promise((resolve) => setImmediate(resolve));
    await terminal.endShells(endFirst('~/Desktop is no longer writable'));
    const result = await running;
    expect(result.notices).toHaveLength(1);
    expect(result.notices[0]).toMatch(
      /^The shell of terminal session "s" .* \(~\/Desktop is no longer writable\).* It was ended while this command ran, so the command may not have finished; the next command starts a new shell\.$/,
    );
    const next = await terminal.run(call('true'), confined);
    expect(next.stdout).toBe('shell 2: true');
    expect(next.notices).toEqual([]);
  });

  it('a command that waited for its turn in the shell ended was not run, and says to run it again', async () => {
    const { terminal, endFirst } = session({ hold: (number) => number === 1 });
    const running = terminal.run(call('sleep 60'), confined);
    const queued = terminal.run(call('touch ~/Desktop/x'), confined);
    await new Promise((resolve) => setImmediate(resolve));
    await terminal.endShells(endFirst('~/Desktop is no longer writable'));
    await running;
    const error = await queued.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect((error as AppError).message).toMatch(
      /^The command was not run: The shell of terminal session "s" .*\(~\/Desktop is no longer writable\).* Run it again; it will start a new shell\.$/,
    );
    expect((await terminal.run(call('touch ~/Desktop/x'), confined)).stdout).toBe('shell 2: touch ~/Desktop/x');
  });
});
