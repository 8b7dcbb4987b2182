import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AppError } from '@nextai/shared';
import {
  findExecutable,
  posixCallScript,
  posixInitScript,
  posixResyncLine,
  powershellCallScript,
  powershellQuote,
  shellSpec,
  supportedShells,
} from './shells.js';
import { posixQuote } from '../core/posix-quote.js';

let bin: string;

beforeAll(() => {
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-shells-'));
  for (const name of ['bash', 'dash']) {
    fs.writeFileSync(path.join(bin, name), '', { mode: 0o755 });
  }
  fs.writeFileSync(path.join(bin, 'sh'), '', { mode: 0o644 });
});
afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('Expected an error.');
}

describe('shellSpec', () => {
  it('finds POSIX shells on the PATH with arguments that skip rc files', () => {
    expect(shellSpec('bash', 'linux', `/nonexistent:${bin}`)).toEqual({
      name: 'bash',
      kind: 'posix',
      file: path.join(bin, 'bash'),
      args: ['--norc', '--noprofile', '--noediting'],
    });
    expect(shellSpec('dash', 'macos', bin).file).toBe(path.join(bin, 'dash'));
  });

  it('maps bash to PowerShell on Windows', () => {
    // The Windows PATH lookup cannot find anything on this machine: the error tells which program it wanted.
    const missing = failure(() => shellSpec('bash', 'windows', 'C:\\Windows\\System32'));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain('powershell.exe');
    expect(missing.details).toEqual({ shell: 'powershell' });
    expect(supportedShells('windows')).toEqual(['bash', 'powershell', 'pwsh']);
  });

  it('says which shells exist when one is unknown, and how to install a missing one', () => {
    const unknown = failure(() => shellSpec('fish', 'linux', bin));
    expect(unknown.code).toBe('INVALID_INPUT');
    expect(unknown.message).toContain('Use one of: bash, sh, dash');
    // Present but not executable: not found.
    const missing = failure(() => shellSpec('sh', 'linux', bin));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain('apt install sh');
    expect(failure(() => shellSpec('pwsh', 'windows', bin)).code).toBe('NOT_FOUND');
  });

  it('looks executables up per platform', () => {
    expect(findExecutable('bash', `${bin}:/usr/bin`, 'linux')).toBe(path.join(bin, 'bash'));
    expect(findExecutable('nope', bin, 'linux')).toBeUndefined();
    expect(findExecutable('bash', undefined, 'linux')).toBeUndefined();
  });
});

describe('scripts', () => {
  it('quotes words for POSIX shells and PowerShell', () => {
    expect(posixQuote(`it's "x" $HOME`)).toBe(`'it'\\''s "x" $HOME'`);
    expect(powershellQuote("it’s o'k")).toBe("'it’’s o''k'");
  });

  it('never types a marker whole, so the echo of a typed line cannot fake it', () => {
    const marker = '__NEXTAI_SYNC_0123456789abcdef__';
    expect(posixResyncLine(marker)).not.toContain(marker);
    expect(posixResyncLine(marker)).toContain('"$?"');
    expect(posixInitScript('bash', marker)).not.toContain(marker);
  });

  it('guards options some shells lack, so the init file is not aborted half-way', () => {
    const dash = posixInitScript('sh', 'READY');
    // An unknown `set -o` option aborts a sourced file in an interactive dash; `command` prevents that.
    expect(dash).toContain('command set +o history');
    expect(dash).not.toContain('set +H');
    expect(posixInitScript('bash', 'READY')).toContain('set +H');
  });

  it('runs the command file with separate streams and stdin from /dev/null, then the markers', () => {
    const script = posixCallScript({
      commandFile: '/t/command.sh',
      stdoutFifo: '/t/out',
      stderrFifo: '/t/err',
      workingDir: "/w/it's",
      marker: 'M',
    });
    expect(script).toContain(`{ cd -P -- '/w/it'\\''s' && . '/t/command.sh'\n} >&3 2>&4 3>&- 4>&- </dev/null`);
    expect(script).toContain(`} 3>'/t/out' 4>'/t/err'`);
    expect(script.indexOf("printf '%s%d;%s\\000' 'M'")).toBeGreaterThan(script.indexOf('__nextai_s=$?'));
  });

  it('with exactDir, runs nothing when the folder became a link to somewhere else', () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nx-exact-')));
    try {
      const folder = path.join(root, 'project');
      fs.mkdirSync(folder);
      fs.writeFileSync(path.join(root, 'command.sh'), 'echo ran in "$PWD"\n');
      const run = (workingDir: string) => {
        const script = posixCallScript({
          commandFile: path.join(root, 'command.sh'),
          stdoutFifo: '/dev/null',
          stderrFifo: '/dev/null',
          workingDir,
          exactDir: true,
          marker: 'M',
        });
        // Only the line that runs the command, with the streams left as they are.
        const line = (script.split('\n')[1] ?? '').replace('{ ', '');
        return spawnSync('bash', ['-c', line], { encoding: 'utf8' });
      };
      expect(run(folder).stdout).toBe(`ran in ${folder}\n`);
      // A sandboxed command moved the folder aside and put a link to elsewhere in its place.
      fs.renameSync(folder, `${folder}-moved`);
      fs.symlinkSync(root, folder);
      const swapped = run(folder);
      expect(swapped.stdout).toBe('');
      expect(swapped.stderr).toContain('is no longer the folder the command was checked in; it did not run.');
      expect(swapped.status).not.toBe(0);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('builds the PowerShell call with files for the streams and the status', () => {
    const script = powershellCallScript({
      commandFile: 'C:\\t\\command.ps1',
      stdoutFile: 'C:\\t\\out.txt',
      stderrFile: 'C:\\t\\err.txt',
      statusFile: 'C:\\t\\status.txt',
      workingDir: 'C:\\Users\\me',
      marker: 'MARKER',
    });
    expect(script).toContain("Set-Location -LiteralPath 'C:\\Users\\me' -ErrorAction Stop");
    expect(script).toContain("> 'C:\\t\\out.txt' 2> 'C:\\t\\err.txt'");
    expect(script).not.toContain('MARKER');
    expect(script.split('\r\n').length).toBeGreaterThan(5);
  });
});
