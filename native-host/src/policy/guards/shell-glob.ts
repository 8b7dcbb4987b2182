import fs from 'node:fs';

import type { Platform } from '@nextai/shared';
import picomatch from 'picomatch';

import { caseInsensitive, comparablePath, globForm, pathApiFor, splitAbsolute } from './paths.js';

/**
 * Shell globs in paths found in shell commands, matched name by name as bash matches them
 * (without `dotglob` or `globstar`): whether a path is a glob, what a glob could ever reach
 * (globReach, pure) and what it matches on disk right now (expandGlob). Braces are not handled
 * here: bash expands them first (brace-expansion.ts).
 */

/** An absolute path split into its root and names (see splitAbsolute). */
export interface SplitPath {
  root: string;
  segments: string[];
}

/** Shell glob characters: `*`, `?`, `[…]` and extglobs (braces are expanded before, as bash does). */
export function isGlob(value: string): boolean {
  return /[*?]|\[[^\]]*\]|[+@!]\(/.test(value);
}

/** Beyond these, a glob counts as unknown rather than being checked match by match. */
export const MAX_GLOB_MATCHES = 1000;
const MAX_GLOB_FOLDERS = 256;

export interface GlobMatch {
  path: string;
  /** Every name after the (resolved) base came from a directory listing and is not a symlink. */
  plain: boolean;
}

/**
 * What a glob matches right now, as the shell would expand it (without `dotglob`; `**` as `*`,
 * as bash does without `globstar`). Undefined when there are too many folders or matches.
 */
export function expandGlob(base: string, rest: readonly string[], platform: Platform): GlobMatch[] | undefined {
  const api = pathApiFor(platform);
  let current: GlobMatch[] = [{ path: base, plain: true }];
  let foldersRead = 0;
  for (const segment of rest) {
    if (!isGlob(segment)) {
      // A literal name may itself be a symlink: such matches are resolved in full.
      current = current.map((match) => ({ path: api.join(match.path, segment), plain: false }));
      continue;
    }
    const next: GlobMatch[] = [];
    for (const match of current) {
      foldersRead += 1;
      if (foldersRead > MAX_GLOB_FOLDERS) return undefined;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(match.path, { withFileTypes: true });
      } catch {
        // Not a folder, missing or unreadable: the shell finds no match there either.
        continue;
      }
      for (const entry of entries) {
        if (!segmentMatches(segment.replaceAll('**', '*'), entry.name, platform)) continue;
        next.push({ path: api.join(match.path, entry.name), plain: match.plain && !entry.isSymbolicLink() });
        if (next.length > MAX_GLOB_MATCHES) return undefined;
      }
    }
    current = next;
  }
  // The shell only expands to names that exist; a literal tail may not.
  return current.filter((match) => match.plain || lstatOrUndefined(match.path) !== undefined);
}

/**
 * Whether a glob (absolute, matched name by name as a shell does) could match `target` or
 * something inside it ('inside'), or only a folder above it ('ancestor'). `**` could match
 * anything below, so it counts as 'inside'. Like bash without `dotglob`, `*` does not match a
 * leading dot.
 */
export function globReach(
  glob: string | SplitPath,
  target: string | SplitPath,
  platform: Platform,
): 'inside' | 'ancestor' | undefined {
  const g = typeof glob === 'string' ? splitAbsolute(glob, platform) : glob;
  const t = typeof target === 'string' ? splitAbsolute(target, platform) : target;
  if (g.root !== t.root && comparablePath(g.root, platform) !== comparablePath(t.root, platform)) return undefined;
  const shared = Math.min(g.segments.length, t.segments.length);
  for (let index = 0; index < shared; index += 1) {
    const pattern = g.segments[index] as string;
    const name = t.segments[index] as string;
    if (pattern.includes('**')) return 'inside';
    if (!segmentMatches(pattern, name, platform)) return undefined;
  }
  return g.segments.length >= t.segments.length ? 'inside' : 'ancestor';
}

/** Compiled one-name glob matchers; a shell command repeats the same few patterns. */
const segmentMatchers = new Map<string, (name: string) => boolean>();

function segmentMatches(pattern: string, name: string, platform: Platform): boolean {
  if (!isGlob(pattern)) return comparablePath(`/${pattern}`, platform) === comparablePath(`/${name}`, platform);
  const key = `${platform}\0${pattern}`;
  let matcher = segmentMatchers.get(key);
  if (!matcher) {
    // posix: `[!x]` is "any character but x", as the shell reads it (picomatch's own default reads
    // `!` there as a character of the set, so `~/.ss[!x]` would not be seen to reach `~/.ssh`).
    matcher = picomatch(globForm(pattern, platform), { dot: false, nocase: caseInsensitive(platform), posix: true });
    if (segmentMatchers.size >= 512) segmentMatchers.clear();
    segmentMatchers.set(key, matcher);
  }
  return matcher(globForm(name, platform));
}

function lstatOrUndefined(location: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(location);
  } catch {
    // Missing (or unreadable, which the shell could not expand either).
    return undefined;
  }
}
