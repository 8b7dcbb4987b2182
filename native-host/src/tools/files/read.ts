import fs from 'node:fs';

import { AppError, type ToolInput, type ToolOutput } from '@nextai/shared';

import type { HostServices, ToolContext } from '../types.js';
import { fsError, locate, notFound, statOrUndefined } from './locate.js';
import { openFileForReading } from './pinned.js';
import { decode, formatSize, guessBinaryType, sniff, SNIFF_BYTES, splitLines, type Encoding } from './text.js';

/** Lines returned when no `limit` is given: enough for most files, not a whole log. */
export const DEFAULT_LINE_LIMIT = 2000;
/** Characters returned at most in one call, whatever the limit (a message to the model, not a download). */
export const MAX_CONTENT_CHARS = 256 * 1024;

/** What a text file is, once checked: not a folder, not a special file, not binary. */
export interface TextFile {
  real: string;
  stats: fs.Stats;
  encoding: Encoding;
  /**
   * The file itself, open (pinned.ts: no symlink followed, confirmed to be the file at `real`).
   * Read from this, not by name; the caller closes it.
   */
  handle: fs.promises.FileHandle;
}

/**
 * Opens `input` for reading as text, or throws the error that tells the model what to do instead:
 * NOT_FOUND, a folder (use file_search), a special file, a binary file (with its size and what it
 * looks like). The size limit is the caller's to apply, since reading a range of a large file is fine.
 * The path is judged again by the file guard first (locate), as `access` (file_edit: write).
 */
export async function inspectTextFile(
  services: HostServices,
  input: string,
  access: 'read' | 'write' = 'read',
): Promise<TextFile> {
  const { real } = locate(services, input, access, access === 'read' ? 'read' : 'changed');
  const named = await statOrUndefined(real);
  if (!named) throw notFound(real, input);
  if (named.isDirectory()) {
    throw new AppError(
      'INVALID_INPUT',
      `${real} is a directory, not a file. To see what is in it, use file_search with directory "${real}" and pattern "*".`,
      { details: { path: real } },
    );
  }
  if (!named.isFile()) {
    throw new AppError(
      'INVALID_INPUT',
      `${real} is a special file (a device, pipe or socket), not a regular file; reading it could wait forever.`,
      { details: { path: real } },
    );
  }
  const handle = await openFileForReading(real);
  try {
    // What is open is what counts (the name may have been given another file meanwhile).
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw new AppError('INVALID_INPUT', `${real} is not a regular file any more.`, { details: { path: real } });
    }
    const head = await readHead(handle, Math.min(SNIFF_BYTES, stats.size));
    const verdict = sniff(head, stats.size <= SNIFF_BYTES);
    if (verdict.binary) {
      throw new AppError(
        'INVALID_INPUT',
        `${real} is a binary file (${guessBinaryType(head)}, ${formatSize(stats.size)}), not text, so it cannot be read as lines. ` +
          'Use a program that understands its format (for example through bash_execute).',
        { details: { path: real, size: stats.size, type: guessBinaryType(head) } },
      );
    }
    return { real, stats, encoding: verdict.encoding, handle };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

async function readHead(handle: fs.promises.FileHandle, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, 0);
  return buffer.subarray(0, bytesRead);
}

export async function fileRead(
  services: HostServices,
  input: ToolInput<'file_read'>,
  context: Pick<ToolContext, 'signal'>,
): Promise<ToolOutput<'file_read'>> {
  const file = await inspectTextFile(services, input.path);
  try {
    return await readText(services, file, input, context.signal);
  } finally {
    await file.handle.close();
  }
}

async function readText(
  services: HostServices,
  file: TextFile,
  input: ToolInput<'file_read'>,
  signal: AbortSignal,
): Promise<ToolOutput<'file_read'>> {
  const maxSize = services.security().max_file_size;
  const ranged = input.offset !== undefined || input.limit !== undefined;
  if (file.stats.size > maxSize && !ranged) {
    throw new AppError(
      'INVALID_INPUT',
      `${file.real} is ${formatSize(file.stats.size)}, more than the ${formatSize(maxSize)} a file may have to be read whole ` +
        '(security.max_file_size). Read part of it with offset and limit (for example offset 1, limit 200), ' +
        'or find the lines you need with file_search (type "content").',
      { details: { path: file.real, size: file.stats.size, max_file_size: maxSize } },
    );
  }
  const first = input.offset ?? 1;
  const limit = input.limit ?? DEFAULT_LINE_LIMIT;
  if (file.encoding !== 'utf8' && file.stats.size > maxSize) {
    throw new AppError(
      'INVALID_INPUT',
      `${file.real} is UTF-16 text of ${formatSize(file.stats.size)}; only UTF-8 files larger than ${formatSize(maxSize)} can be read in parts.`,
    );
  }
  const { lines, total, endsWithNewline } =
    file.encoding === 'utf8'
      ? await streamLines(file, first, limit, signal)
      : selectLines(decode(await file.handle.readFile(), file.encoding), first, limit);
  if (first > Math.max(total, 1)) {
    throw new AppError(
      'INVALID_INPUT',
      `${file.real} has ${total} line${total === 1 ? '' : 's'}; offset ${first} is past its end.`,
      { details: { path: file.real, total_lines: total } },
    );
  }
  if (first === 1 && lines[0]?.startsWith('\uFEFF')) lines[0] = lines[0].slice(1);
  let content = '';
  let truncated = first - 1 + lines.length < total;
  for (const [index, line] of lines.entries()) {
    const lastOfFile = first + index === total;
    const piece = lastOfFile && !endsWithNewline ? line : `${line}\n`;
    if (content.length + piece.length > MAX_CONTENT_CHARS) {
      // Whole lines only, unless a single line is longer than the budget.
      if (index === 0) content = piece.slice(0, MAX_CONTENT_CHARS);
      truncated = true;
      break;
    }
    content += piece;
  }
  return { content, total_lines: total, truncated };
}

interface LineRange {
  lines: string[];
  total: number;
  /** Whether the file's last line has its newline (then every line returned gets one back). */
  endsWithNewline: boolean;
}

function selectLines(text: string, first: number, limit: number): LineRange {
  const all = splitLines(text);
  return { lines: all.slice(first - 1, first - 1 + limit), total: all.length, endsWithNewline: text.endsWith('\n') };
}

/**
 * Reads the file once in chunks: counts every line, keeps only lines first…first+limit-1 (as
 * bytes, decoded at the end, so a character split across chunks stays whole). Memory stays at
 * one chunk plus the lines asked for, whatever the file's size.
 */
async function streamLines(opened: TextFile, first: number, limit: number, signal: AbortSignal): Promise<LineRange> {
  const file = opened.real;
  const last = first + limit - 1;
  const kept: Buffer[] = [];
  let current: Buffer[] = [];
  let keptBytes = 0;
  let line = 1;
  let lastByte: number | undefined;
  // From the open file, from its start; the handle stays open (the caller closes it).
  const stream = fs.createReadStream(file, {
    fd: opened.handle,
    start: 0,
    autoClose: false,
    highWaterMark: 1024 * 1024,
    signal,
  });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
        if (line >= first && line <= last && keptBytes < MAX_CONTENT_CHARS * 4) {
          current.push(chunk.subarray(start, newline));
          const whole = Buffer.concat(current);
          kept.push(whole);
          keptBytes += whole.length;
        }
        current = [];
        line += 1;
        start = newline + 1;
      }
      if (start < chunk.length && line >= first && line <= last && keptBytes < MAX_CONTENT_CHARS * 4) {
        current.push(chunk.subarray(start));
      }
      if (chunk.length > 0) lastByte = chunk[chunk.length - 1];
    }
  } catch (error) {
    if (signal.aborted) throw new AppError('TIMEOUT', `Reading ${file} was cancelled.`, { cause: error });
    throw fsError(error, file, 'read');
  }
  const unterminated = lastByte !== undefined && lastByte !== 0x0a;
  if (unterminated && current.length > 0) kept.push(Buffer.concat(current));
  const total = unterminated ? line : line - 1;
  const lines = kept.map((bytes) => bytes.toString('utf8'));
  return { lines, total, endsWithNewline: !unterminated };
}
