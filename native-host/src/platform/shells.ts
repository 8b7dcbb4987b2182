import fs from 'node:fs';
import path from 'node:path';

import { AppError, type Platform } from '@nextai/shared';
import { posixQuote } from '../core/posix-quote.js';

/**
 * The shells a session can run and the exact text the host types into them. Everything here is
 * pure string building (plus a PATH lookup), so the Windows and macOS forms are unit-tested on
 * any machine.
 *
 * POSIX protocol, one call:
 *   - the command text is written to a file in the session's private 0700 directory and sourced
 *     with `.`, so it reaches the shell byte for byte (quotes, heredocs, several lines — nothing
 *     is re-interpreted by the host);
 *   - it runs as `{ . file ; } >&3 2>&4 3>&- 4>&- </dev/null` inside a group whose fds 3 and 4 are
 *     two FIFOs the host reads: stdout and stderr stay apart (the pty would merge them), nothing
 *     is written to disk, and a command that reads stdin gets end-of-file instead of waiting;
 *   - then the shell writes a random per-call marker to each FIFO — on stdout followed by the exit
 *     status and `$PWD` — so the host knows where the command's output ends. The marker is only
 *     in the call file, never typed, so neither the terminal's echo nor a command printing
 *     marker-like text can fake it;
 *   - `$?` is set back to the command's status, as at a terminal's next prompt.
 * The pty itself only carries the lines the host types (`. '<call file>'`) and whatever a
 * program writes to /dev/tty directly (a password prompt), which is reported as such.
 */

export type ShellKind = 'posix' | 'powershell';

export interface ShellSpec {
  /** The name sessions report (`bash`, `dash`, `powershell`…). */
  name: string;
  kind: ShellKind;
  /** Absolute path of the program. */
  file: string;
  args: string[];
}

const POSIX_SHELLS: Record<string, string[]> = {
  // The person's rc files must not run: they may print, prompt, start agents or hang, and a
  // socket on stdin would make bash read ~/.bashrc even without a tty. --noediting: no
  // readline, so the lines typed are read as they are.
  bash: ['--norc', '--noprofile', '--noediting'],
  // sh/dash read only $ENV when interactive, and the inherited environment has no ENV.
  sh: [],
  dash: [],
};

const WINDOWS_SHELLS: Record<string, { program: string; name: string }> = {
  // `bash` is the catalog's default; on Windows the default session is PowerShell.
  bash: { program: 'powershell.exe', name: 'powershell' },
  powershell: { program: 'powershell.exe', name: 'powershell' },
  pwsh: { program: 'pwsh.exe', name: 'pwsh' },
};

const POWERSHELL_ARGS = ['-NoLogo', '-NoProfile', '-NoExit'];

/** The shells `bash_session create` accepts on a platform. */
export function supportedShells(platform: Platform): string[] {
  return platform === 'windows' ? Object.keys(WINDOWS_SHELLS) : Object.keys(POSIX_SHELLS);
}

/**
 * The program and arguments for a shell name, found on the PATH the session will have.
 * Unknown names (fish and zsh included: their syntax or startup differs from what the protocol
 * needs, and they have not been tried) are INVALID_INPUT; a known shell that is not installed
 * is NOT_FOUND.
 */
export function shellSpec(requested: string, platform: Platform, searchPath: string | undefined): ShellSpec {
  const name = requested.trim();
  if (platform === 'windows') {
    const entry = WINDOWS_SHELLS[name.toLowerCase()];
    if (!entry) throw unsupported(requested, platform);
    const file = findExecutable(entry.program, searchPath, platform);
    if (!file) {
      throw new AppError('NOT_FOUND', `Couldn't find ${entry.program} on the PATH.`, {
        details: { shell: entry.name },
      });
    }
    return { name: entry.name, kind: 'powershell', file, args: POWERSHELL_ARGS };
  }
  const args = POSIX_SHELLS[name];
  if (!args) throw unsupported(requested, platform);
  const file = findExecutable(name, searchPath, platform);
  if (!file) {
    throw new AppError(
      'NOT_FOUND',
      `Couldn't find the \`${name}\` shell on the PATH. On Debian/Ubuntu: sudo apt install ${name}`,
      {
        details: { shell: name },
      },
    );
  }
  return { name, kind: 'posix', file, args: [...args] };
}

function unsupported(requested: string, platform: Platform): AppError {
  const names = supportedShells(platform);
  return new AppError(
    'INVALID_INPUT',
    `Shell "${requested}" is not supported on ${platform}. Use one of: ${names.join(', ')}.`,
    { details: { shell: requested, supported: names } },
  );
}

/** The first executable `name` on `searchPath` (PATHEXT-style lookup on Windows). */
export function findExecutable(name: string, searchPath: string | undefined, platform: Platform): string | undefined {
  const api = platform === 'windows' ? path.win32 : path.posix;
  const directories = (searchPath ?? '').split(platform === 'windows' ? ';' : ':').filter((entry) => entry !== '');
  for (const directory of directories) {
    const candidate = api.join(directory, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here (or not executable): the next directory.
      continue;
    }
  }
  return undefined;
}

/** `value` as a PowerShell single-quoted string (a quote is doubled; curly quotes count too). */
export function powershellQuote(value: string): string {
  return `'${value.replace(/['\u2018\u2019\u201A\u201B]/g, '$&$&')}'`;
}

/**
 * A text that is printed as `first + second` but typed as two pieces, so a terminal echoing the
 * typed line never shows the printed marker.
 */
function splitMarker(marker: string): [string, string] {
  const half = Math.floor(marker.length / 2);
  return [marker.slice(0, half), marker.slice(half)];
}

/** Makes the interactive shell quiet and predictable, then prints `ready`. Sourced once. */
export function posixInitScript(shell: string, ready: string): string {
  const [first, second] = splitMarker(ready);
  const lines = [
    // No prompt, no history file written into the person's home, no `!` expansion.
    `PS1='' PS2='' PS4='+ '`,
    'unset PROMPT_COMMAND HISTFILE MAILCHECK 2>/dev/null',
    // `command`: an unknown option to the special builtin `set` (dash has no `history`) would
    // otherwise abort the whole sourced file in an interactive shell, ready marker included.
    'command set +o history 2>/dev/null',
    shell === 'bash' ? 'set +H' : '',
    // Each command its own process group (job control), as at a terminal.
    'command set -m 2>/dev/null',
    // The typed lines are not echoed back (they would only be noise in the terminal output).
    'stty -echo 2>/dev/null',
    // Puts `$?` back to the command's status at the end of each call.
    '__nextai_status() { unset __nextai_s; return "$1"; }',
    `printf '%s%s\\n' ${posixQuote(first)} ${posixQuote(second)}`,
  ];
  return `${lines.filter((line) => line !== '').join('\n')}\n`;
}

export interface PosixCall {
  commandFile: string;
  stdoutFifo: string;
  stderrFifo: string;
  /** Absolute, already checked: the call `cd`s there first, and the session stays there. */
  workingDir?: string;
  /**
   * The folder must be exactly `workingDir` once there, no link on the way: the command was judged
   * in that folder, and a folder swapped for a link meanwhile would put it somewhere else.
   */
  exactDir?: boolean;
  marker: string;
}

/** The call file: runs the command file with separate streams, then the end markers. */
export function posixCallScript(call: PosixCall): string {
  const dir = call.workingDir === undefined ? '' : posixQuote(call.workingDir);
  const check = call.exactDir
    ? ` && { [ "$PWD" = ${dir} ] || { printf '%s\\n' ${posixQuote(`NextAI: ${call.workingDir ?? ''} is no longer the folder the command was checked in; it did not run.`)} >&2; false; }; }`
    : '';
  const run = call.workingDir
    ? `cd -P -- ${dir}${check} && . ${posixQuote(call.commandFile)}`
    : `. ${posixQuote(call.commandFile)}`;
  const marker = posixQuote(call.marker);
  return [
    '{',
    `{ ${run}\n} >&3 2>&4 3>&- 4>&- </dev/null`,
    '__nextai_s=$?',
    `printf '%s%d;%s\\000' ${marker} "$__nextai_s" "$PWD" >&3`,
    `printf '%s' ${marker} >&4`,
    `} 3>${posixQuote(call.stdoutFifo)} 4>${posixQuote(call.stderrFifo)}`,
    '__nextai_status "$__nextai_s"',
    '',
  ].join('\n');
}

/** What the host types to run a call file. */
export function posixSourceLine(callFile: string): string {
  return `. ${posixQuote(callFile)}\n`;
}

/** Typed after an interrupt: prints `marker` and `$?` once the shell reads input again. */
export function posixResyncLine(marker: string): string {
  const [first, second] = splitMarker(marker);
  return `printf '%s%s%d\\n' ${posixQuote(first)} ${posixQuote(second)} "$?"\n`;
}

/** Same job as posixInitScript for PowerShell: no prompt, UTF-8 files, then `ready`. */
export function powershellInitScript(ready: string): string {
  const [first, second] = splitMarker(ready);
  return [
    'function global:prompt { "" }',
    "$PSDefaultParameterValues['Out-File:Encoding'] = 'utf8'",
    "$PSDefaultParameterValues['*:Encoding'] = 'utf8'",
    '[Console]::OutputEncoding = [System.Text.Encoding]::UTF8',
    '$ProgressPreference = "SilentlyContinue"',
    'try { Set-PSReadLineOption -HistorySaveStyle SaveNothing } catch { }',
    `Write-Host (${powershellQuote(first)} + ${powershellQuote(second)})`,
    '',
  ].join('\r\n');
}

export interface PowerShellCall {
  commandFile: string;
  stdoutFile: string;
  stderrFile: string;
  statusFile: string;
  workingDir?: string;
  marker: string;
}

/**
 * The PowerShell call file. PowerShell has no FIFOs to offer, so the streams go to files the
 * host reads by head and tail; the status file holds the exit code and the location; the marker
 * goes to the console when everything is written. Commands are run from script blocks made from
 * the files' text, so the execution policy (which governs .ps1 files) does not apply.
 */
export function powershellCallScript(call: PowerShellCall): string {
  const run = `. ([ScriptBlock]::Create([IO.File]::ReadAllText(${powershellQuote(call.commandFile)})))`;
  const [first, second] = splitMarker(call.marker);
  return [
    '$global:LASTEXITCODE = 0',
    '$__nextai_ok = $true',
    'try {',
    call.workingDir ? `  Set-Location -LiteralPath ${powershellQuote(call.workingDir)} -ErrorAction Stop` : '',
    `  ${run} > ${powershellQuote(call.stdoutFile)} 2> ${powershellQuote(call.stderrFile)}`,
    '  $__nextai_ok = $?',
    '} catch {',
    `  $_ | Out-String | Add-Content -LiteralPath ${powershellQuote(call.stderrFile)} -Encoding utf8`,
    '  $__nextai_ok = $false',
    '}',
    '$__nextai_code = if ($LASTEXITCODE -ne 0) { $LASTEXITCODE } elseif ($__nextai_ok) { 0 } else { 1 }',
    `[IO.File]::WriteAllText(${powershellQuote(call.statusFile)}, "$__nextai_code\`n$((Get-Location).ProviderPath)")`,
    `Write-Host (${powershellQuote(first)} + ${powershellQuote(second)})`,
    '',
  ]
    .filter((line, index, lines) => line !== '' || index === lines.length - 1)
    .join('\r\n');
}

/** What the host types to run a PowerShell call file (in the session's own scope). */
export function powershellSourceLine(callFile: string): string {
  return `. ([ScriptBlock]::Create([IO.File]::ReadAllText(${powershellQuote(callFile)})))\r`;
}
