import path from 'node:path';

import { AppError, type Platform } from '@nextai/shared';

/**
 * Pure path arithmetic for the guards: validation, `~` expansion, lexical resolution and the
 * comparisons. Nothing here touches the file system, so every platform's rules can be tested on
 * any host (the Windows rules with path.win32).
 */

export function pathApiFor(platform: Platform): path.PlatformPath {
  return platform === 'windows' ? path.win32 : path.posix;
}

/** APFS/HFS+ and NTFS compare names without case by default; Linux file systems do not. */
export function caseInsensitive(platform: Platform): boolean {
  return platform !== 'linux';
}

/** Refuses what cannot be a path: non-strings, the empty string and NUL bytes. */
export function assertPathInput(value: unknown, what = 'path'): asserts value is string {
  if (typeof value !== 'string') {
    throw new AppError('INVALID_INPUT', `The ${what} must be a string, not ${value === null ? 'null' : typeof value}.`);
  }
  if (value.length === 0) throw new AppError('INVALID_INPUT', `The ${what} is empty.`);
  if (value.includes('\0')) {
    // The kernel would cut the path at the NUL, so what was checked is not what would be opened.
    throw new AppError('INVALID_INPUT', `The ${what} contains a NUL byte, which no file name may contain.`, {
      details: { path: value.replaceAll('\0', '\\0') },
    });
  }
}

/** `~` and `~/…` become the home directory; `~name` is refused rather than guessed. */
export function expandHome(value: string, homeDir: string, platform: Platform): string {
  if (!value.startsWith('~')) return value;
  if (value === '~') return homeDir;
  const rest = value.slice(1);
  // Concatenated, not path.join: joining would resolve `..` as text before symlinks are seen.
  if (rest.startsWith('/') || (platform === 'windows' && rest.startsWith('\\'))) return `${homeDir}${rest}`;
  throw new AppError(
    'INVALID_INPUT',
    `"${value}" refers to another user's home folder (~name), which NextAI does not resolve. Write the full path instead.`,
    { details: { path: value } },
  );
}

/**
 * Windows spellings that the lexical rules below would misread: `\\?\C:\x` is `C:\x`;
 * `\\?\UNC\server\share` is `\\server\share`; device paths (`\\.\PhysicalDrive0`) and
 * drive-relative paths (`C:foo`, taken from a per-drive working directory we cannot see) are refused.
 */
function windowsPreflight(value: string, what: string): string {
  let result = value;
  if (/^[\\/]{2}[?.][\\/]/.test(result)) {
    const rest = result.slice(4);
    if (/^[a-zA-Z]:[\\/]/.test(rest)) result = rest;
    else if (/^UNC[\\/]/i.test(rest)) result = `\\\\${rest.slice(4)}`;
    else throw new AppError('INVALID_INPUT', `The ${what} "${value}" is a device path; give a file path instead.`);
  }
  if (/^[a-zA-Z]:(?![\\/])/.test(result)) {
    throw new AppError(
      'INVALID_INPUT',
      `The ${what} "${value}" is relative to a drive's current folder; write it in full (for example C:\\Users\\…).`,
    );
  }
  return result;
}

/** An absolute working directory, `~` expanded. */
export function absoluteCwd(cwd: unknown, homeDir: string, platform: Platform): string {
  assertPathInput(cwd, 'working directory');
  let value = expandHome(cwd, homeDir, platform);
  if (platform === 'windows') {
    value = windowsPreflight(value, 'working directory');
    // A root-relative cwd (`\x`) would pick up the daemon's own drive.
    if (!/^(?:[a-zA-Z]:[\\/]|[\\/]{2}[^\\/])/.test(value)) {
      throw new AppError('INVALID_INPUT', `The working directory "${cwd}" must start with a drive or a server share.`);
    }
  } else if (!value.startsWith('/')) {
    throw new AppError('INVALID_INPUT', `The working directory "${cwd}" must be an absolute path.`);
  }
  return value;
}

/**
 * The path as typed, with `~` expanded and joined to the working directory — but with `.`, `..`
 * and repeated separators still in place, because whether `link/..` is the link's parent or its
 * target's parent is only known when symlinks are followed.
 */
export function joinedPath(value: unknown, cwd: string, homeDir: string, platform: Platform): string {
  assertPathInput(value);
  const api = pathApiFor(platform);
  const base = absoluteCwd(cwd, homeDir, platform);
  let expanded = expandHome(value, homeDir, platform);
  if (platform === 'windows') expanded = windowsPreflight(expanded, 'path');
  if (!api.isAbsolute(expanded)) return `${base}${api.sep}${expanded}`;
  // Windows `\x` is absolute but has no drive: it is on the working directory's drive.
  if (platform === 'windows' && /^[\\/](?![\\/])/.test(expanded)) return `${api.parse(base).root}${expanded.slice(1)}`;
  return expanded;
}

/** The lexical absolute path: `~`, cwd, `.`, `..`, duplicate and trailing separators resolved. */
export function lexicalAbsolute(value: unknown, cwd: string, homeDir: string, platform: Platform): string {
  // joinedPath is always absolute (with its drive on Windows), so resolve never consults the
  // daemon's own working directory here.
  return pathApiFor(platform).resolve(joinedPath(value, cwd, homeDir, platform));
}

/** Splits an absolute path into its root (`/`, `C:\`, `\\server\share\`) and its name segments. */
export function splitAbsolute(absolute: string, platform: Platform): { root: string; segments: string[] } {
  const api = pathApiFor(platform);
  const root = api.parse(absolute).root;
  const separators = platform === 'windows' ? /[\\/]+/ : /\/+/;
  return {
    root,
    segments: absolute
      .slice(root.length)
      .split(separators)
      .filter((part) => part.length > 0),
  };
}

/**
 * The form two paths are compared in. On Windows: backslashes, no `\\?\`, no alternate data
 * stream suffix (`config.json:x` is config.json's data) and no trailing dots or spaces on names
 * (Win32 drops them), lower case. On macOS: NFC (APFS ignores normalisation) and lower case.
 * Case folding uses toLowerCase, which agrees with the file systems' tables for every script
 * people name folders in, if not for every code point.
 */
export function comparablePath(value: string, platform: Platform): string {
  if (platform === 'linux') return stripTrailingSeparator(value, '/');
  if (platform === 'macos') return stripTrailingSeparator(value.normalize('NFC').toLowerCase(), '/');
  let result = value.replaceAll('/', '\\');
  if (/^\\\\[?.]\\[a-zA-Z]:\\/.test(result)) result = result.slice(4);
  const { root, segments } = splitAbsolute(result, 'windows');
  const names = segments.map((name) => {
    const stream = name.indexOf(':');
    const base = stream >= 0 ? name.slice(0, stream) : name;
    const trimmed = base.replace(/[. ]+$/, '');
    // `.` and `..` are already resolved in absolute paths; keep a name that would trim to nothing.
    return trimmed.length > 0 ? trimmed : base;
  });
  return stripTrailingSeparator(`${root.replaceAll('/', '\\')}${names.join('\\')}`, '\\').toLowerCase();
}

function stripTrailingSeparator(value: string, sep: string): string {
  let result = value;
  while (result.length > 1 && result.endsWith(sep) && !/^[a-zA-Z]:\\$/.test(result)) result = result.slice(0, -1);
  return result;
}

/** Whether `child` is `parent` or inside it (both absolute), by the platform's comparison rules. */
export function isPathInside(child: string, parent: string, platform: Platform): boolean {
  const sep = platform === 'windows' ? '\\' : '/';
  const c = comparablePath(child, platform);
  const p = comparablePath(parent, platform);
  if (c === p) return true;
  return c.startsWith(p.endsWith(sep) ? p : `${p}${sep}`);
}

/** Picomatch works on forward slashes; Windows paths and patterns are turned into that form. */
export function globForm(value: string, platform: Platform): string {
  if (platform === 'windows') return value.replaceAll('\\', '/');
  if (platform === 'macos') return value.normalize('NFC');
  return value;
}

/**
 * A path in the form glob patterns are matched against: forward slashes, and on Windows the
 * comparison spelling (no `\\?\`, stream suffix or trailing dots), so `C:\Users\me\.ssh.\id_rsa`
 * meets `~/.ssh/*`.
 */
export function globSubject(value: string, platform: Platform): string {
  if (platform === 'windows') return comparablePath(value, platform).replaceAll('\\', '/');
  return globForm(value, platform);
}

/** The path and each of its ancestors up to the root, nearest first. */
export function selfAndAncestors(absolute: string, platform: Platform): string[] {
  const api = pathApiFor(platform);
  const result = [absolute];
  let current = absolute;
  for (;;) {
    const parent = api.dirname(current);
    if (parent === current) return result;
    result.push(parent);
    current = parent;
  }
}
