import type { Platform } from '@nextai/shared';

import { shadowedCommand } from '../shell/commands/index.js';
import { normalizeProgramName, type ProgramResolver } from './program-path.js';
import { isTerminalEmulator, programKeys, shellQuote, terminalLaunch } from './terminals.js';

/**
 * What `app_launch` would start, so that it is judged as the command it is (docs/ARCHITECTURE.md, "Every
 * channel is judged"): `app_launch {name: "rm", args: ["-rf", "/"]}` is `rm -rf /`,
 * `xterm -e 'rm -rf ~'` is `rm -rf ~`, and `firefox https://example.com` is an app opening a page.
 */
export interface LaunchedProgram {
  /** The name as the launcher reads it (trimmed), for people. */
  given: string;
  /** The file it runs, symlinks followed, when it could be found. */
  real?: string | undefined;
  /** A path was given rather than a name looked up on PATH. */
  byPath: boolean;
  /** The name the analyser knows it by. */
  lookup: string;
  /** Every name it goes by, for the blocked-apps list. */
  names: string[];
}

export type LaunchPlan =
  /** A terminal emulator: `command` is what it runs instead of a shell, as shell text. */
  | { kind: 'terminal'; program: LaunchedProgram; command?: string | undefined; unknownOptions: string[] }
  /** A program the shell analyser has rules for (rm, dd, scp, bash, python3, env…), with its arguments. */
  | { kind: 'command'; program: LaunchedProgram; command: string }
  /** Anything else: an app. `command` (with its arguments) when it has any. */
  | { kind: 'app'; program: LaunchedProgram; command?: string | undefined; args: readonly string[] };

/**
 * Programs that are one file for many commands and pick by the name they were started as
 * (`/bin/rm` → busybox, `/snap/bin/firefox` → snap): the name given is the command.
 */
const MULTI_CALL = new Set(['busybox', 'toybox', 'coreutils', 'uutils', 'snap']);

/** Endings distributions give one build of a program among several (`vim.basic`, `vim.gtk3`). */
const BUILD_SUFFIX = /\.(?:basic|tiny|gtk|gtk2|gtk3|nox|athena|wrapper|real|bin)$/;

export function planLaunch(
  name: string,
  args: readonly string[],
  options: { platform: Platform; cwd: string; resolve?: ProgramResolver | undefined },
): LaunchPlan {
  const program = identify(name, options);
  if (isTerminalEmulator(program.lookup) || isTerminalEmulator(program.given)) {
    const launch = terminalLaunch(args);
    return { kind: 'terminal', program, command: launch.command, unknownOptions: launch.unknownOptions };
  }
  const command = [program.lookup, ...args].map(shellQuote).join(' ');
  if (knownCommand(program.lookup)) return { kind: 'command', program, command };
  return { kind: 'app', program, command: args.length > 0 ? command : undefined, args };
}

/**
 * Which program a name starts. The real file decides (a link `~/bin/ls` → `/bin/rm` is rm), but
 * a multi-call binary is the name it was called by, and where only the name given has rules
 * (`vi` → `vim.basic`), that name is the one judged.
 */
function identify(name: string, options: { platform: Platform; cwd: string; resolve?: ProgramResolver | undefined }) {
  const given = normalizeProgramName(name, options.platform);
  const byPath = /[\\/]/.test(given) || given.startsWith('~');
  const resolved = options.resolve?.(given, options.cwd);
  const givenName = baseName(given);
  const realName = resolved ? baseName(resolved.real).replace(BUILD_SUFFIX, '') : undefined;
  let lookup = givenName;
  if (realName !== undefined && realName !== '' && !programKeys(realName).some((key) => MULTI_CALL.has(key))) {
    lookup = knownCommand(realName) || !knownCommand(givenName) ? realName : givenName;
  }
  const names = [...new Set([given, givenName, ...(resolved ? [resolved.real] : []), lookup])].filter(Boolean);
  return { given, real: resolved?.real, byPath, lookup, names } satisfies LaunchedProgram;
}

function baseName(file: string): string {
  return file.split(/[\\/]/).pop() ?? '';
}

/** The shell analyser has rules for it (a builtin or a program it knows). */
function knownCommand(program: string): boolean {
  return program !== '' && !/[\\/]/.test(program) && shadowedCommand(program) !== undefined;
}
