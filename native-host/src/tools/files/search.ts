import fs from 'node:fs';

import { AppError, type Platform, type ToolInput, type ToolOutput } from '@nextai/shared';
import picomatch from 'picomatch';

import { pathApiFor } from '../../policy/guards/paths.js';
import type { HostServices, ToolContext } from '../types.js';
import { fsError, locate, notFound, statOrUndefined } from './locate.js';
import { openFileForReading, PinnedFolder } from './pinned.js';
import { sniff, SNIFF_BYTES } from './text.js';

/**
 * Folders a search (and a recursive watch) does not go into, below the folder asked for: version
 * control data and installed dependencies — large, generated, and never what a person means by
 * "my files". Build outputs (dist, build, target) are not listed by name, because a folder of
 * that name may well be the person's own; caches that say so are skipped by their marker file
 * (CACHEDIR.TAG, as Rust's target/ has), and Python virtual environments by pyvenv.cfg. A folder
 * named in the pattern itself (`node_modules/**`) is searched.
 */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  '.bzr',
  '_darcs',
  'node_modules',
  'bower_components',
  'jspm_packages',
  '.pnpm-store',
  '__pycache__',
  '.venv',
  '.tox',
  '.nox',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.gradle',
]);

/** Marker files that make a folder skipped wherever it is: a cache directory tag, a Python venv. */
const SKIP_MARKERS = ['CACHEDIR.TAG', 'pyvenv.cfg'];

/** Kernel interfaces, not files: reading some of them blocks, and /proc alone is endless. */
const PSEUDO_FILE_SYSTEMS: Record<Platform, string[]> = {
  linux: ['/proc', '/sys', '/dev', '/run'],
  macos: ['/dev', '/System/Volumes'],
  windows: [],
};

export interface SearchBudget {
  /** Wall-clock limit of one search. */
  timeMs: number;
  /** Directory entries looked at. */
  entries: number;
  /** Bytes read for content search, all files together. */
  contentBytes: number;
  /** Files larger than this are not searched by content. */
  fileBytes: number;
}

export const DEFAULT_SEARCH_BUDGET: SearchBudget = {
  timeMs: 15_000,
  entries: 500_000,
  contentBytes: 1024 * 1024 * 1024,
  fileBytes: 20 * 1024 * 1024,
};

/** A line is matched on its first characters only: bounds what a pathological regex can cost per line. */
const MATCHED_LINE_CHARS = 10_000;
/** Characters of a matching line given back. */
const SHOWN_LINE_CHARS = 300;

type SearchResult = ToolOutput<'file_search'>['results'][number];

/**
 * `file_search`: breadth-first from the folder (shallow matches first, so a truncated result is
 * still the useful part), names sorted within each folder. Names: a glob without a slash matches
 * a name at any depth (`*.ts`, like find -name); with a slash, the path relative to the folder
 * (`src/**\/*.ts`). Content: a JavaScript regular expression per line (a leading `(?i)` makes it
 * case-insensitive). Symbolic links are listed by name but never followed — no loops, and no
 * way out of the folder the policy allowed. Binary files and files over the per-file budget are
 * skipped by content search. A time, entry and byte budget (and the call's signal) end a search
 * early; the result says so.
 */
export async function fileSearch(
  services: HostServices,
  input: ToolInput<'file_search'>,
  context: Pick<ToolContext, 'signal'>,
  budget: SearchBudget = DEFAULT_SEARCH_BUDGET,
): Promise<ToolOutput<'file_search'>> {
  const { real: root } = locate(services, input.directory, 'read', 'read');
  const rootStats = await statOrUndefined(root);
  if (!rootStats) throw notFound(root, input.directory);
  if (!rootStats.isDirectory()) {
    return searchOneFile(services, input, root, budget, context);
  }
  // The folder judged, held open: the walk starts from it even if its path is re-pointed meanwhile.
  const pinned = PinnedFolder.open(root, 'read');
  try {
    return await searchFolder(services, input, root, pinned.base(), budget, context);
  } finally {
    pinned.close();
  }
}

/** A single file: its name is matched, or its content searched (read from the file judged). */
async function searchOneFile(
  services: HostServices,
  input: ToolInput<'file_search'>,
  root: string,
  budget: SearchBudget,
  context: Pick<ToolContext, 'signal'>,
): Promise<ToolOutput<'file_search'>> {
  const api = pathApiFor(services.platform);
  const matcher = input.type === 'name' ? nameMatcher(input.pattern, services.platform) : contentMatcher(input.pattern);
  if (matcher.kind === 'name') {
    return finish(matcher.test(api.basename(root)) ? [{ path: root }] : [], input.max_results, undefined, {
      binary: 0,
      large: 0,
      unreadable: 0,
    });
  }
  const handle = await openFileForReading(root);
  try {
    const size = (await handle.stat()).size;
    const fileBytes = Math.min(budget.fileBytes, services.security().max_file_size);
    const skipped = { binary: 0, large: 0, unreadable: 0 };
    const results: SearchResult[] = [];
    if (size > fileBytes) skipped.large += 1;
    else
      matchLines(await handle.readFile({ signal: context.signal }), root, matcher, results, skipped, input.max_results);
    return finish(results, input.max_results, undefined, skipped);
  } finally {
    await handle.close();
  }
}

/**
 * Breadth-first from `walkRoot` (the pinned folder's own path, /proc/self/fd/<n> on Linux); the
 * paths given back are under `root`, the folder's real path.
 */
async function searchFolder(
  services: HostServices,
  input: ToolInput<'file_search'>,
  root: string,
  walkRoot: string,
  budget: SearchBudget,
  context: Pick<ToolContext, 'signal'>,
): Promise<ToolOutput<'file_search'>> {
  const api = pathApiFor(services.platform);
  const fileBytes = Math.min(budget.fileBytes, services.security().max_file_size);
  const matcher = input.type === 'name' ? nameMatcher(input.pattern, services.platform) : contentMatcher(input.pattern);
  const explicitlyNamed = new Set(
    input.type === 'name' ? input.pattern.split(/[\\/]/).filter((part) => SKIPPED_DIRECTORIES.has(part)) : [],
  );
  const pseudo = new Set(PSEUDO_FILE_SYSTEMS[services.platform]);

  const results: SearchResult[] = [];
  const started = Date.now();
  let entries = 0;
  let bytesRead = 0;
  const skipped = { binary: 0, large: 0, unreadable: 0 };
  let stopped: string | undefined;
  const full = () => results.length > input.max_results;

  const relative = (file: string) => {
    const value = api.relative(walkRoot, file);
    return services.platform === 'windows' ? value.replaceAll('\\', '/') : value;
  };
  /** Where a file found in the walk really is. */
  const shown = (file: string) => api.join(root, api.relative(walkRoot, file));

  const searchContent = async (file: string, size: number) => {
    if (matcher.kind !== 'content') return;
    if (size > fileBytes) {
      skipped.large += 1;
      return;
    }
    if (bytesRead + size > budget.contentBytes) {
      stopped = `it read the ${Math.round(budget.contentBytes / 1024 / 1024)} MiB a content search may read`;
      return;
    }
    let data: Buffer;
    try {
      data = await fs.promises.readFile(file, { signal: context.signal });
    } catch {
      context.signal.throwIfAborted();
      skipped.unreadable += 1;
      return;
    }
    bytesRead += data.length;
    matchLines(data, shown(file), matcher, results, skipped, input.max_results);
  };

  const queue: string[] = [walkRoot];
  outer: while (queue.length > 0) {
    const directory = queue.shift() as string;
    context.signal.throwIfAborted();
    let names: fs.Dirent[];
    try {
      names = await fs.promises.readdir(directory, { withFileTypes: true });
    } catch (error) {
      if (directory === walkRoot) throw fsError(error, root, 'list');
      skipped.unreadable += 1;
      continue;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of names) {
      entries += 1;
      if (entries > budget.entries) {
        stopped = `it looked at ${budget.entries} entries`;
        break outer;
      }
      if (Date.now() - started > budget.timeMs) {
        stopped = `it ran for ${Math.round(budget.timeMs / 1000)} seconds`;
        break outer;
      }
      const file = api.join(directory, entry.name);
      if (entry.isDirectory()) {
        if (pseudo.has(shown(file))) continue;
        if (SKIPPED_DIRECTORIES.has(entry.name) && !explicitlyNamed.has(entry.name)) continue;
        if (await hasSkipMarker(file, api)) continue;
        if (matcher.kind === 'name' && matcher.test(relative(file))) results.push({ path: shown(file) });
        queue.push(file);
      } else if (matcher.kind === 'name') {
        if (matcher.test(relative(file))) results.push({ path: shown(file) });
      } else if (entry.isFile()) {
        const stats = await statOrUndefined(file, false).catch(() => undefined);
        if (stats?.isFile()) await searchContent(file, stats.size);
      }
      if (full() || stopped) break outer;
      context.signal.throwIfAborted();
    }
  }
  return finish(results, input.max_results, stopped, skipped);
}

/** Lines of a UTF-8 text that match, as results; binary or UTF-16 data is counted as skipped. */
function matchLines(
  data: Buffer,
  file: string,
  matcher: Matcher,
  results: SearchResult[],
  skipped: { binary: number },
  max: number,
): void {
  const verdict = sniff(data.subarray(0, SNIFF_BYTES), data.length <= SNIFF_BYTES);
  if (verdict.binary || verdict.encoding !== 'utf8') {
    skipped.binary += 1;
    return;
  }
  const lines = data.toString('utf8').split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (matcher.test(line.length > MATCHED_LINE_CHARS ? line.slice(0, MATCHED_LINE_CHARS) : line)) {
      results.push({ path: file, line: index + 1, text: line.trim().slice(0, SHOWN_LINE_CHARS) });
      if (results.length > max) return;
    }
  }
}

function finish(
  results: SearchResult[],
  max: number,
  stopped: string | undefined,
  skipped: { binary: number; large: number; unreadable: number },
): ToolOutput<'file_search'> {
  const truncated = results.length > max || stopped !== undefined;
  const notes: string[] = [];
  if (results.length > max)
    notes.push(`More than ${max} results; only the first ${max} are listed (raise max_results or narrow the pattern).`);
  if (stopped) notes.push(`The search stopped early because ${stopped}; search a smaller folder for complete results.`);
  const skips = [
    skipped.binary > 0 ? `${skipped.binary} binary` : '',
    skipped.large > 0 ? `${skipped.large} too large` : '',
    skipped.unreadable > 0 ? `${skipped.unreadable} unreadable` : '',
  ].filter(Boolean);
  if (skips.length > 0) notes.push(`Skipped files/folders: ${skips.join(', ')}.`);
  return {
    results: results.slice(0, max),
    truncated,
    ...(notes.length > 0 ? { message: notes.join(' ') } : {}),
  };
}

type Matcher = { kind: 'name' | 'content'; test: (subject: string) => boolean };

function nameMatcher(pattern: string, platform: Platform): Matcher {
  const form = platform === 'windows' ? pattern.replaceAll('\\', '/') : pattern;
  let test: (subject: string) => boolean;
  try {
    test = picomatch(form, { dot: true, basename: !form.includes('/'), nocase: platform !== 'linux' });
  } catch (error) {
    throw new AppError('INVALID_INPUT', `"${pattern}" is not a valid glob pattern: ${(error as Error).message}`);
  }
  return { kind: 'name', test };
}

function contentMatcher(pattern: string): Matcher {
  let source = pattern;
  let flags = 'u';
  if (source.startsWith('(?i)')) {
    source = source.slice(4);
    flags += 'i';
  }
  let expression: RegExp;
  try {
    expression = new RegExp(source, flags);
  } catch (unicodeError) {
    // Patterns written for other engines often escape characters the u flag refuses (\-, \').
    try {
      expression = new RegExp(source, flags.replace('u', ''));
    } catch {
      throw new AppError(
        'INVALID_INPUT',
        `"${pattern}" is not a valid regular expression: ${(unicodeError as Error).message}. ` +
          'Escape special characters with a backslash (\\. \\( \\[), or search by name with type "name".',
      );
    }
  }
  return { kind: 'content', test: (line) => expression.test(line) };
}

/** Whether a folder carries a marker that says it is a cache or a virtual environment. */
export async function hasSkipMarker(directory: string, api: { join(...parts: string[]): string }): Promise<boolean> {
  for (const marker of SKIP_MARKERS) {
    try {
      await fs.promises.access(api.join(directory, marker));
      return true;
    } catch {
      // Absent (or unreadable, which means the same here): keep looking.
    }
  }
  return false;
}
