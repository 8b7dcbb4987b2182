import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { posixCallScript, posixInitScript, posixSourceLine } from '../../platform/shells.js';
import { describeTerminalText, PosixCalls, posixCallFiles } from './posix-session.js';
import type { SessionContext } from './session-common.js';

const dir = path.join('/tmp', 'nextai-terminal-test');
const fifos = { stdout: path.join(dir, 'stdout-1'), stderr: path.join(dir, 'stderr-1') };

describe('posixCallFiles', () => {
  it('puts the command and call files in the private directory, the command ending its line', () => {
    const files = posixCallFiles(dir, fifos, { command: 'echo hi' }, '__M__');
    expect(files.commandFile).toBe(path.join(dir, 'command.sh'));
    expect(files.callFile).toBe(path.join(dir, 'call.sh'));
    expect(files.command).toBe('echo hi\n');
    expect(files.call).toBe(
      posixCallScript({
        commandFile: files.commandFile,
        stdoutFifo: fifos.stdout,
        stderrFifo: fifos.stderr,
        marker: '__M__',
      }),
    );
  });

  it('passes the folder, and whether it must be exactly that one, to the call script', () => {
    const request = { command: 'ls', workingDir: '/srv/site', exactDir: true };
    const files = posixCallFiles(dir, fifos, request, '__M__');
    expect(files.call).toBe(
      posixCallScript({
        commandFile: files.commandFile,
        stdoutFifo: fifos.stdout,
        stderrFifo: fifos.stderr,
        workingDir: '/srv/site',
        exactDir: true,
        marker: '__M__',
      }),
    );
    expect(files.call).toContain("cd -P -- '/srv/site'");
  });
});

describe('describeTerminalText', () => {
  const typed = posixSourceLine('/tmp/x/call.sh');

  it('is nothing when the pty only carried the line the host typed', () => {
    expect(describeTerminalText('', typed)).toBeUndefined();
    expect(describeTerminalText(`${typed.trimEnd()}\r\n`, typed)).toBeUndefined();
  });

  it('reports what a program wrote to the terminal itself, without carriage returns', () => {
    const notice = describeTerminalText(`${typed.trimEnd()}\r\nPassword: \r\n`, typed);
    expect(notice).toMatch(/^Something wrote to the terminal directly, not to stdout or stderr/);
    expect(notice?.endsWith('stdin is empty): Password:')).toBe(true);
  });

  it('keeps only the last 2000 characters of a long text', () => {
    const notice = describeTerminalText(`${'a'.repeat(3_000)}END`, typed) ?? '';
    const shown = notice.slice(notice.indexOf('): ') + 3);
    expect(shown).toBe(`…${'a'.repeat(1_997)}END`);
  });
});

describe('PosixCalls', () => {
  it('starts the shell with the POSIX init script for its name, sourced by a typed line', () => {
    const calls = new PosixCalls({ dir } as SessionContext, 'dash');
    expect(calls.initFileName).toBe('init.sh');
    expect(calls.initScript('__READY__')).toBe(posixInitScript('dash', '__READY__'));
    expect(calls.sourceLine('/tmp/x/init.sh')).toBe(posixSourceLine('/tmp/x/init.sh'));
  });
});
