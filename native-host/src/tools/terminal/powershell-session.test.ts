import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { powershellCallScript, powershellInitScript, powershellSourceLine } from '../../platform/shells.js';
import {
  parsePowerShellStatus,
  PowerShellCalls,
  powershellCallFiles,
  readCapped,
  readText,
} from './powershell-session.js';
import type { SessionContext } from './session-common.js';

let scratch: string;

beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-powershell-session-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('powershellCallFiles', () => {
  it('puts the command, output, status and call files in the private directory', () => {
    const call = powershellCallFiles(scratch, { command: 'Get-Date' }, '__M__');
    expect(call.files).toEqual({
      commandFile: path.join(scratch, 'command.ps1'),
      stdoutFile: path.join(scratch, 'stdout.txt'),
      stderrFile: path.join(scratch, 'stderr.txt'),
      statusFile: path.join(scratch, 'status.txt'),
    });
    expect(call.callFile).toBe(path.join(scratch, 'call.ps1'));
  });

  it('ends the command with CR LF and builds the call script from the files, folder and marker', () => {
    const call = powershellCallFiles(scratch, { command: 'Get-Date', workingDir: 'C:\\work' }, '__M__');
    expect(call.command).toBe('Get-Date\r\n');
    expect(call.call).toBe(powershellCallScript({ ...call.files, workingDir: 'C:\\work', marker: '__M__' }));
    expect(call.call).toContain("Set-Location -LiteralPath 'C:\\work'");
  });
});

describe('parsePowerShellStatus', () => {
  it('reads the exit code and the location the call ended in', () => {
    expect(parsePowerShellStatus('0\nC:\\work')).toEqual({ exitCode: 0, cwd: 'C:\\work' });
    expect(parsePowerShellStatus('3\r\nC:\\Users\\me\r\n')).toEqual({ exitCode: 3, cwd: 'C:\\Users\\me' });
  });

  it('has no exit code when the first line is not a number, and no location without a second line', () => {
    expect(parsePowerShellStatus('')).toEqual({ exitCode: null, cwd: undefined });
    expect(parsePowerShellStatus('7')).toEqual({ exitCode: 7, cwd: undefined });
    expect(parsePowerShellStatus('oops\nC:\\x')).toEqual({ exitCode: null, cwd: 'C:\\x' });
  });
});

describe('readText and readCapped', () => {
  it('read a file without its byte order mark, and nothing when it is missing', () => {
    const file = path.join(scratch, 'bom.txt');
    fs.writeFileSync(file, '\uFEFFhello');
    expect(readText(file)).toBe('hello');
    expect(readCapped(file, undefined)).toEqual({ text: 'hello', truncated: false, totalBytes: 8 });
    const missing = path.join(scratch, 'missing.txt');
    expect(readText(missing)).toBe('');
    expect(readCapped(missing, undefined)).toEqual({ text: '', truncated: false, totalBytes: 0 });
  });

  it('keep only the head and the tail of a file larger than the cap', () => {
    const file = path.join(scratch, 'large.txt');
    fs.writeFileSync(file, `HEAD${'x'.repeat(1_000)}TAIL`);
    const result = readCapped(file, 8);
    expect(result.truncated).toBe(true);
    expect(result.totalBytes).toBe(1_008);
    expect(result.text.startsWith('HEAD')).toBe(true);
    expect(result.text.endsWith('TAIL')).toBe(true);
  });
});

describe('PowerShellCalls', () => {
  it('starts PowerShell with its init script, dot-sourced from a script block', () => {
    const calls = new PowerShellCalls({ dir: scratch } as SessionContext);
    expect(calls.initFileName).toBe('init.ps1');
    expect(calls.initScript('__READY__')).toBe(powershellInitScript('__READY__'));
    expect(calls.sourceLine('C:\\t\\init.ps1')).toBe(powershellSourceLine('C:\\t\\init.ps1'));
  });
});
