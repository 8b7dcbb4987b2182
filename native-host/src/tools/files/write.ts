import { AppError, type ToolInput, type ToolOutput } from '@nextai/shared';

import type { HostServices } from '../types.js';
import { writeFileAtomic, type PathLocks } from './atomic-write.js';
import { locate, statOrUndefined } from './locate.js';
import { openFileForReading } from './pinned.js';
import { inspectTextFile } from './read.js';
import { decode, encode, formatSize, lineAt } from './text.js';

/**
 * `file_write`: the whole content, written atomically (see writeFileAtomic) to where the path
 * really leads — through a symlink, the link stays and its target gets the content. Missing
 * folders above the file are created, as editors do when saving to a new place. The path is
 * judged again by the file guard as the call runs (locate), and the write happens in the folder
 * that was judged (pinned.ts).
 */
export async function fileWrite(
  services: HostServices,
  locks: PathLocks,
  input: ToolInput<'file_write'>,
): Promise<ToolOutput<'file_write'>> {
  const data = Buffer.from(input.content, 'utf8');
  const maxSize = services.security().max_file_size;
  if (data.length > maxSize) {
    throw new AppError(
      'INVALID_INPUT',
      `The content is ${formatSize(data.length)}, more than the ${formatSize(maxSize)} file size limit (security.max_file_size).`,
    );
  }
  const { real } = locate(services, input.path, 'write', 'written');
  const stats = await statOrUndefined(real);
  if (stats?.isDirectory()) {
    throw new AppError('INVALID_INPUT', `${real} is a directory; give the path of a file inside it.`, {
      details: { path: real },
    });
  }
  if (stats && !stats.isFile()) {
    throw new AppError(
      'INVALID_INPUT',
      `${real} is a special file (a device, pipe or socket); file_write writes regular files.`,
    );
  }
  await locks.run(real, () => writeFileAtomic(real, data, { createParents: true }));
  return { success: true, path: real, bytes_written: data.length };
}

/** How many match positions an error names. */
const LISTED_MATCHES = 10;

/**
 * `file_edit`: replaces the one occurrence of `old_string`. None or several is an error that
 * says which (with line numbers, and for none, the nearest thing that does exist). A file whose
 * lines end in CRLF keeps CRLF: the strings' bare newlines are taken as the file's line ending.
 * The file's encoding and byte-order mark are kept.
 */
export async function fileEdit(
  services: HostServices,
  locks: PathLocks,
  input: ToolInput<'file_edit'>,
): Promise<ToolOutput<'file_edit'>> {
  if (input.old_string === input.new_string) {
    throw new AppError('INVALID_INPUT', 'old_string and new_string are the same; there is nothing to change.');
  }
  const file = await inspectTextFile(services, input.path, 'write');
  await file.handle.close();
  return locks.run(file.real, async () => {
    const maxSize = services.security().max_file_size;
    // Read again under the lock (an edit before this one may have replaced the file), from the
    // file at the path that was judged, never through a link put there since.
    const handle = await openFileForReading(file.real);
    let bytes: Buffer;
    try {
      const stats = await handle.stat();
      if (stats.size > maxSize) {
        throw new AppError(
          'INVALID_INPUT',
          `${file.real} is ${formatSize(stats.size)}, more than the ${formatSize(maxSize)} a file may have to be edited (security.max_file_size).`,
        );
      }
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
    const text = decode(bytes, file.encoding);
    const crlf = usesCrlf(text);
    const candidates: [string, string][] = [];
    if (crlf) candidates.push([toCrlf(input.old_string), toCrlf(input.new_string)]);
    candidates.push([input.old_string, input.new_string]);

    let chosen: { old: string; replacement: string; positions: number[] } | undefined;
    for (const [old, replacement] of candidates) {
      const positions = occurrences(text, old);
      if (positions.length > 0) {
        chosen = { old, replacement, positions };
        break;
      }
    }
    if (!chosen) throw noMatch(file.real, text, input.old_string);
    if (chosen.positions.length > 1) {
      const lines = chosen.positions.slice(0, LISTED_MATCHES).map((position) => lineAt(text, position));
      const more = chosen.positions.length > LISTED_MATCHES ? ', …' : '';
      throw new AppError(
        'INVALID_INPUT',
        `old_string occurs ${chosen.positions.length} times in ${file.real} (at lines ${lines.join(', ')}${more}); ` +
          'it must occur exactly once. Include more of the surrounding text so it matches only the place to change.',
        { details: { path: file.real, matches: chosen.positions.length, lines } },
      );
    }
    const position = chosen.positions[0] as number;
    const updated = text.slice(0, position) + chosen.replacement + text.slice(position + chosen.old.length);
    await writeFileAtomic(file.real, encode(updated, file.encoding));
    return { success: true, path: file.real, replacements: 1 };
  });
}

/** Start offsets of every occurrence, overlapping ones included ("aa" is twice in "aaa": ambiguous). */
export function occurrences(text: string, search: string): number[] {
  const positions: number[] = [];
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + 1)) {
    positions.push(index);
  }
  return positions;
}

/** CRLF when most line breaks are CRLF. */
export function usesCrlf(text: string): boolean {
  const crlf = text.split('\r\n').length - 1;
  const all = text.split('\n').length - 1;
  return crlf > 0 && crlf * 2 >= all;
}

function toCrlf(value: string): string {
  return value.replace(/\r?\n/g, '\r\n');
}

/** The error for an absent old_string, with the best hint we can give about where it might be. */
function noMatch(file: string, text: string, old: string): AppError {
  const base = `old_string does not occur in ${file}.`;
  const loose = looseMatchLines(text, old);
  if (loose.length > 0) {
    return new AppError(
      'INVALID_INPUT',
      `${base} It does when spaces, tabs and line breaks are compared loosely — at line ${loose.join(', ')}. ` +
        'Copy the text exactly as file_read shows it (same indentation and line breaks) and try again.',
      { details: { path: file, loose_match_lines: loose } },
    );
  }
  const closest = closestLine(text, old);
  if (closest) {
    return new AppError(
      'INVALID_INPUT',
      `${base} The most similar line is line ${closest.line}: ${JSON.stringify(closest.text)}. ` +
        'Read the file again (file_read) and copy the exact text to replace.',
      { details: { path: file, closest_line: closest.line } },
    );
  }
  return new AppError(
    'INVALID_INPUT',
    `${base} Nothing similar was found either; read the file (file_read) to see its current content.`,
    { details: { path: file } },
  );
}

/** Lines where `old` matches with every run of whitespace (line breaks included) counted as one space. */
function looseMatchLines(text: string, old: string): number[] {
  const needle = old.trim().replace(/\s+/g, ' ');
  if (needle.length === 0) return [];
  // The loose form of the text, and for each of its characters the offset it came from.
  let loose = '';
  const origin: number[] = [];
  for (const match of text.matchAll(/\s+|\S+/g)) {
    if (/^\s/.test(match[0])) {
      loose += ' ';
      origin.push(match.index);
    } else {
      loose += match[0];
      for (let index = 0; index < match[0].length; index += 1) origin.push(match.index + index);
    }
  }
  return occurrences(loose, needle)
    .slice(0, LISTED_MATCHES)
    .map((position) => lineAt(text, origin[position] ?? 0));
}

/** Lines compared at most, so a hint never costs more than the edit. */
const CLOSEST_SCAN_LINES = 100_000;

/** The line most like old_string's first non-blank line (bigram Dice similarity ≥ 0.5). */
function closestLine(text: string, old: string): { line: number; text: string } | undefined {
  const probe = old
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.length > 0);
  if (!probe) return undefined;
  const probeGrams = bigrams(probe);
  let best: { line: number; text: string; score: number } | undefined;
  const lines = text.split('\n', CLOSEST_SCAN_LINES);
  for (const [index, raw] of lines.entries()) {
    const candidate = raw.trim();
    if (candidate.length === 0) continue;
    const score = dice(probeGrams, bigrams(candidate));
    if (!best || score > best.score) best = { line: index + 1, text: candidate, score };
  }
  return best && best.score >= 0.5 ? { line: best.line, text: best.text.slice(0, 200) } : undefined;
}

function bigrams(value: string): Map<string, number> {
  const grams = new Map<string, number>();
  const lower = value.toLowerCase();
  for (let index = 0; index < lower.length - 1; index += 1) {
    const gram = lower.slice(index, index + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

function dice(a: Map<string, number>, b: Map<string, number>): number {
  let total = 0;
  let common = 0;
  for (const count of a.values()) total += count;
  for (const [gram, count] of b) {
    total += count;
    common += Math.min(count, a.get(gram) ?? 0);
  }
  return total === 0 ? 0 : (2 * common) / total;
}
