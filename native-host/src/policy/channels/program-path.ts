import fs from 'node:fs';
import path from 'node:path';

import type { Platform } from '@nextai/shared';

/** Where a program name leads: the file found (on PATH, or the path given) and its real path. */
export interface ResolvedProgram {
  path: string;
  /** Symlinks followed: `/usr/bin/python3` → `/usr/bin/python3.11`, `/usr/bin/sh` → `/usr/bin/dash`. */
  real: string;
}

export type ProgramResolver = (name: string, cwd: string) => ResolvedProgram | undefined;

/**
 * Finds programs the way `app_launch` starts them: a path as given (`~` is the home folder), a
 * bare name on PATH (with PATHEXT on Windows). Synchronous, like the rest of an assessment: a
 * few `stat` calls per PATH folder.
 */
export function programResolver(options: {
  platform: Platform;
  homeDir: string;
  searchPath: string | undefined;
  pathExt?: string | undefined;
}): ProgramResolver {
  const paths = options.platform === 'windows' ? path.win32 : path.posix;
  const folders = (options.searchPath ?? '').split(options.platform === 'windows' ? ';' : ':').filter(Boolean);
  const extensions =
    options.platform === 'windows'
      ? ['', ...(options.pathExt ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)]
      : [''];
  const runnable = (file: string): boolean => {
    try {
      if (!fs.statSync(file).isFile()) return false;
      if (options.platform !== 'windows') fs.accessSync(file, fs.constants.X_OK);
      return true;
    } catch {
      return false; // Not there, or not a program: the next candidate is tried.
    }
  };
  const found = (file: string): ResolvedProgram | undefined => {
    for (const extension of extensions) {
      const candidate = file + extension;
      if (!runnable(candidate)) continue;
      try {
        return { path: candidate, real: fs.realpathSync.native(candidate) };
      } catch {
        return { path: candidate, real: candidate }; // Gone since the stat: judged by what was asked.
      }
    }
    return undefined;
  };
  return (name, cwd) => {
    const trimmed = normalizeProgramName(name, options.platform);
    if (trimmed === '' || trimmed.includes('\0')) return undefined;
    if (/[\\/]/.test(trimmed) || trimmed.startsWith('~')) {
      const expanded = trimmed.replace(/^~(?=$|[\\/])/, options.homeDir);
      return found(paths.resolve(cwd, expanded));
    }
    for (const folder of folders) {
      const hit = found(paths.join(folder, trimmed));
      if (hit) return hit;
    }
    return undefined;
  };
}

/**
 * A program name as the system reads it: surrounding spaces dropped (`"bash "` is bash: the
 * launcher trims it), and on Windows the trailing dots and spaces Win32 drops too (`"cmd. "`).
 */
export function normalizeProgramName(name: string, platform: Platform): string {
  const trimmed = name.trim();
  return platform === 'windows' ? trimmed.replace(/[. ]+$/, '') : trimmed;
}
