import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { AppError } from '@nextai/shared';

import { closeMatches } from './close-matches.js';
import {
  applicationDirs,
  execToArgs,
  findDesktopEntry,
  readDesktopEntries,
  type DesktopEntry,
} from './desktop-entries.js';

/**
 * How `app_launch` turns the name it is given into a command: a path (an executable file or a
 * .desktop file), a program on PATH, or an installed app by its menu name or desktop id. Nothing
 * is started here; the Linux window adapter (windows.ts) runs the command.
 */

/** An executable on PATH (or the given PATH string), as an absolute path; null when there is none. */
export async function findExecutable(name: string, searchPath: string | undefined): Promise<string | null> {
  if (name.includes('/')) return (await isExecutableFile(name)) ? name : null;
  for (const dir of (searchPath ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stats = await fs.stat(file);
    if (!stats.isFile()) return false;
    await fs.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * What to run for `app_launch`: a path (which must be an executable file, or a .desktop file),
 * a program on PATH, or an installed app by its menu name (.desktop Name=, any language) or
 * desktop id. Unknown names are NOT_FOUND with the closest names installed.
 */
export async function resolveLaunchCommand(name: string, args: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const home = env.HOME || os.homedir();
  const trimmed = name.trim();
  if (trimmed.includes('/') || trimmed.startsWith('~')) {
    const file = path.resolve(home, trimmed.replace(/^~(?=$|\/)/u, home));
    let stats: Stats;
    try {
      stats = await fs.stat(file);
    } catch {
      throw new AppError('NOT_FOUND', `There is no file ${file} to launch.`);
    }
    if (file.endsWith('.desktop') && stats.isFile()) {
      const entries = await readDesktopEntries([path.dirname(file)]);
      const entry = entries.find((candidate) => candidate.file === file);
      if (!entry)
        throw new AppError('INVALID_INPUT', `${file} is not a launchable desktop entry (Type=Application with Exec=).`);
      return desktopCommand(entry, args, env);
    }
    if (!(await isExecutableFile(file))) {
      throw new AppError(
        'PERMISSION_DENIED',
        `${file} is not an executable program (${stats.isDirectory() ? 'it is a directory' : 'no execute permission'}).`,
      );
    }
    return [file, ...args];
  }
  const onPath = await findExecutable(trimmed, env.PATH);
  if (onPath) return [onPath, ...args];
  const entries = await readDesktopEntries(applicationDirs(env));
  const entry = findDesktopEntry(entries, trimmed);
  if (entry) return desktopCommand(entry, args, env);
  const suggestions = await closeMatches(trimmed, entries, env.PATH);
  throw new AppError(
    'NOT_FOUND',
    `No app called "${trimmed}" is installed (not a program on PATH nor an application menu entry).` +
      (suggestions.length > 0 ? ` Close matches: ${suggestions.join(', ')}.` : ''),
    { details: { suggestions } },
  );
}

async function desktopCommand(entry: DesktopEntry, args: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const command = execToArgs(entry.exec, entry, args);
  if (command.length === 0) throw new AppError('INVALID_INPUT', `${entry.file} has an empty Exec= line.`);
  const program = await findExecutable(command[0] as string, env.PATH);
  if (!program) {
    throw new AppError(
      'UNAVAILABLE',
      `"${entry.name}" (${entry.file}) runs \`${command[0]}\`, which is not installed.`,
    );
  }
  command[0] = program;
  if (!entry.terminal) return command;
  // Terminal=true apps (htop, vim…) need a terminal window around them.
  const terminal = (await findExecutable('x-terminal-emulator', env.PATH)) ?? (await findExecutable('xterm', env.PATH));
  if (!terminal)
    throw new AppError('UNAVAILABLE', `"${entry.name}" runs in a terminal, and no terminal emulator is installed.`);
  return [terminal, '-e', ...command];
}
