import fs from 'node:fs';

import { AppError, type Platform } from '@nextai/shared';

import { joinedPath, lexicalAbsolute, pathApiFor, splitAbsolute } from './paths.js';

export interface ResolvedPath {
  /** The path as the tool call gave it. */
  input: string;
  /** Lexical: `~`, the working directory and `..` resolved as text. */
  absolute: string;
  /** Physical: every symlink on the way followed, as the kernel would when the path is opened. */
  real: string;
  exists: boolean;
}

export interface ResolveOptions {
  /**
   * false: the last name is not followed when it is a symlink (lstat, not stat): `real` is where
   * the link itself is, for operations on the name (delete, trash). The folders above it are still
   * resolved and `..` is handled as always. Trailing `.` names do not make a name non-final, as
   * the file tools drop them. Default true.
   */
  followFinal?: boolean | undefined;
}

/** Linux's MAXSYMLINKS; macOS allows 32, so anything that resolves here resolves there too or fails. */
export const MAX_SYMLINK_HOPS = 40;

/** lstat errors after which the rest of the path can be taken as text: nothing there can be a symlink. */
const ABSENT = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG']);

/**
 * Resolves a path the way the kernel would open it, including paths that do not exist yet.
 *
 * The walk goes one name at a time from the root: a symlink is replaced by its target (relative
 * targets from the link's real directory, so a dangling link still says where a write would
 * land), and `..` goes to the parent of what has been resolved so far — `link/..` is the parent
 * of the link's target, not the folder holding the link. Once a name is missing, the names after
 * it are taken as text (a later `..` may climb back into existing folders, which are walked again).
 * Node's fs.realpathSync is not used: it resolves `..` as text first, and it fails on missing paths.
 */
export function resolvePath(
  input: unknown,
  cwd: string,
  homeDir: string,
  platform: Platform,
  options: ResolveOptions = {},
): ResolvedPath {
  const absolute = lexicalAbsolute(input, cwd, homeDir, platform);
  const joined = joinedPath(input, cwd, homeDir, platform);
  const { real, exists } = walk(joined, platform, options.followFinal ?? true);
  return { input: input as string, absolute, real, exists };
}

function walk(joined: string, platform: Platform, followFinal: boolean): { real: string; exists: boolean } {
  const api = pathApiFor(platform);
  const start = splitAbsolute(joined, platform);
  let root = start.root;
  const pending = start.segments.reverse();
  const resolved: string[] = [];
  // Index in `resolved` of the first name that does not exist; names after it are not looked up.
  let missingFrom: number | undefined;
  let hops = 0;
  // Set when the last name is a symlink kept as it is (followFinal false).
  let keptLink = false;

  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name === '.') continue;
    if (name === '..') {
      resolved.pop();
      if (missingFrom !== undefined && resolved.length <= missingFrom) missingFrom = undefined;
      continue;
    }
    if (missingFrom !== undefined) {
      resolved.push(name);
      continue;
    }
    const candidate = root + resolved.concat(name).join(api.sep);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(candidate);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (!ABSENT.has(code)) {
        // EACCES and the like: we cannot see whether a symlink is there, so nothing may be assumed.
        throw new AppError('PERMISSION_DENIED', `Cannot look at ${candidate} (${code || 'unknown error'}).`, {
          cause: error,
          details: { path: candidate, code },
        });
      }
      missingFrom = resolved.length;
      resolved.push(name);
      continue;
    }
    if (!stat.isSymbolicLink()) {
      resolved.push(name);
      continue;
    }
    if (!followFinal && pending.every((rest) => rest === '.')) {
      resolved.push(name);
      keptLink = true;
      continue;
    }
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `${joined} goes through more than ${MAX_SYMLINK_HOPS} symbolic links (a loop?); the system would refuse to open it.`,
        { details: { path: joined, code: 'ELOOP' } },
      );
    }
    const target = readTarget(candidate, platform);
    const next = splitAbsolute(api.isAbsolute(target) ? target : `${api.sep}${target}`, platform);
    if (api.isAbsolute(target)) {
      root = rootOfTarget(target, root, platform);
      resolved.length = 0;
    }
    for (let index = next.segments.length - 1; index >= 0; index -= 1) pending.push(next.segments[index] as string);
  }

  let real = root + resolved.join(api.sep);
  const exists = missingFrom === undefined;
  if (platform === 'windows' && exists) {
    // Win32 short names (PROGRA~1) and junction spellings are only canonicalised by the OS.
    // realpath would follow a kept link: only the folder holding it is canonicalised then.
    real = keptLink ? api.join(canonicalWindows(api.dirname(real)), api.basename(real)) : canonicalWindows(real);
  }
  return { real, exists };
}

function readTarget(link: string, platform: Platform): string {
  try {
    const target = fs.readlinkSync(link);
    return platform === 'windows' ? target.replace(/^\\\\\?\\(?=[a-zA-Z]:\\)/, '') : target;
  } catch (error) {
    // The link was replaced between lstat and readlink; checking a moving target proves nothing.
    throw new AppError('PERMISSION_DENIED', `Cannot read the symbolic link ${link}.`, {
      cause: error,
      details: { path: link },
    });
  }
}

/** A Windows target like `\x` keeps the drive it is on; anything else brings its own root. */
function rootOfTarget(target: string, currentRoot: string, platform: Platform): string {
  if (platform === 'windows' && /^[\\/](?![\\/])/.test(target)) return currentRoot.slice(0, 2) + '\\';
  return splitAbsolute(target, platform).root;
}

function canonicalWindows(real: string): string {
  try {
    return fs.realpathSync.native(real);
  } catch {
    // Vanished since the walk: keep the walked spelling, which the comparisons already normalise.
    return real;
  }
}
