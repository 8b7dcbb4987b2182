import fs from 'node:fs';

import {
  applyEdits,
  createScanner,
  findNodeAtLocation,
  getNodeValue,
  modify,
  parseTree,
  printParseErrorCode,
  type Node,
  type ParseError,
} from 'jsonc-parser';

import { AppError, policyConfigSchema, type PolicyConfig } from '@nextai/shared';

/** config.json holds a few kilobytes of settings; a file past this is not one a person wrote. */
export const CONFIG_MAX_BYTES = 1024 * 1024;
/** The deepest setting is six levels in; past this the file is refused before anything walks it. */
export const CONFIG_MAX_DEPTH = 64;
/** Problems past this many are counted, not listed: a person fixes the first ones first. */
const MAX_PROBLEMS = 20;
const MIB_LIMIT = `${CONFIG_MAX_BYTES / 1024 / 1024} MiB`;

/** Opening a named pipe without it returns at once instead of waiting for a writer (0 on Windows, which has none in the file system). */
const NON_BLOCKING = (fs.constants as Partial<typeof fs.constants>).O_NONBLOCK ?? 0;

export type ConfigRead =
  | { kind: 'missing' }
  | { kind: 'refused'; problem: string }
  /** `bytes` as on disk (for fingerprints); `text` decoded as UTF-8. */
  | { kind: 'read'; text: string; bytes: Buffer };

/**
 * Reads config.json: the one way every part of the host reads it. Only a regular file (or a
 * symbolic link to one) of at most CONFIG_MAX_BYTES is read. A named pipe, a device, a socket or a
 * directory is refused without waiting on it — opened non-blocking and the opened descriptor
 * checked, so a file swapped after the first look is caught too — and so is a larger file. Never
 * throws: what is not read is refused with a sentence naming the file and what is wrong with it.
 */
export function readConfigFile(file: string): ConfigRead {
  let fd: number;
  try {
    const entry = fs.lstatSync(file);
    const viaLink = entry.isSymbolicLink();
    const wrong = unreadable(viaLink ? fs.statSync(file) : entry, viaLink);
    if (wrong) return refused(file, wrong);
    fd = fs.openSync(file, fs.constants.O_RDONLY | NON_BLOCKING);
  } catch (error) {
    // A symbolic link to nothing is a missing file, as it always was.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return refused(file, (error as Error).message);
  }
  try {
    const wrong = unreadable(fs.fstatSync(fd), false);
    if (wrong) return refused(file, wrong);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const count = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (count === 0) break;
      total += count;
      // The file grew after it was measured.
      if (total > CONFIG_MAX_BYTES)
        return refused(file, `it is larger than ${MIB_LIMIT}, the most config.json may be.`);
      chunks.push(chunk.subarray(0, count));
    }
    const bytes = Buffer.concat(chunks, total);
    return { kind: 'read', text: bytes.toString('utf8'), bytes };
  } catch (error) {
    return refused(file, (error as Error).message);
  } finally {
    fs.closeSync(fd);
  }
}

function refused(file: string, why: string): ConfigRead {
  return { kind: 'refused', problem: `${file}: not read: ${why}` };
}

/** What makes this file unfit to read as config.json, if anything. */
function unreadable(stat: fs.Stats, viaLink: boolean): string | undefined {
  if (stat.isFile()) {
    if (stat.size <= CONFIG_MAX_BYTES) return undefined;
    return `it is ${megabytes(stat.size)} (${stat.size} bytes), and config.json may be at most ${MIB_LIMIT}.`;
  }
  const kind = stat.isDirectory()
    ? 'a directory'
    : stat.isFIFO()
      ? 'a named pipe (FIFO)'
      : stat.isSocket()
        ? 'a socket'
        : stat.isCharacterDevice() || stat.isBlockDevice()
          ? 'a device'
          : 'not a regular file';
  return `it is ${viaLink ? 'a symbolic link to ' : ''}${kind}; config.json must be a regular file.`;
}

function megabytes(size: number): string {
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}

export type ParsedJson =
  | {
      ok: true;
      value: unknown;
      /** "line 3, column 5" of the value at `path`, or of the nearest enclosing one that exists. */
      locate: (path: (string | number)[]) => string;
    }
  | { ok: false; problems: string[] };

/**
 * Parses config.json's text: JSON with comments and trailing commas, as most editors' settings
 * files are. Refuses, naming the line and the column, a text longer than CONFIG_MAX_BYTES and one
 * nested deeper than CONFIG_MAX_DEPTH — checked first, without recursion, so the parser and every
 * walk over the value after it stay shallow whatever the file holds.
 */
export function parseConfigJson(text: string, file: string): ParsedJson {
  const lines = lineStarts(text);
  const limit = sizeProblem(text, file, lines) ?? depthProblem(text, file, lines);
  if (limit) return { ok: false, problems: [limit] };
  const errors: ParseError[] = [];
  // Comments and trailing commas are allowed, as in most editors' JSON-with-comments settings.
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || tree === undefined) {
    // The parser often reports several errors at one spot; the first says what is wrong there.
    const offsets = new Set<number>();
    const firstAtEachOffset = errors.filter((error) => {
      if (offsets.has(error.offset)) return false;
      offsets.add(error.offset);
      return true;
    });
    const problems = listed(
      firstAtEachOffset,
      (error) => `${file} ${where(lines, error.offset)}: ${describeParseError(printParseErrorCode(error.error))}`,
    );
    return { ok: false, problems: problems.length > 0 ? problems : [`${file}: the file is empty or not JSON.`] };
  }
  return {
    ok: true,
    value: getNodeValue(tree),
    locate: (path) => where(lines, nearestNode(tree, path)?.offset ?? 0),
  };
}

export type ParsedPolicy = { ok: true; config: PolicyConfig } | { ok: false; problems: string[] };

/**
 * Parses and validates the policy sections of config.json. Every problem names the line, the
 * column and the field, so a person can fix the file; nothing is guessed or repaired.
 */
export function parsePolicyConfig(text: string, file: string): ParsedPolicy {
  const json = parseConfigJson(text, file);
  if (!json.ok) return json;
  const parsed = policyConfigSchema.safeParse(json.value);
  if (parsed.success) return { ok: true, config: parsed.data };
  return {
    ok: false,
    problems: listed(parsed.error.issues, (issue) => {
      const field = issue.path.map(String).join('.') || '(top level)';
      const location = json.locate(issue.path.map((part) => (typeof part === 'number' ? part : String(part))));
      return `${file} ${location}: ${field}: ${issue.message}`;
    }),
  };
}

/**
 * Writes `value` at `path` into the JSON text, keeping the rest of the file as the person wrote it.
 * A text past the size or nesting limits is refused (CONFIG_INVALID) before the editor parses it.
 */
export function editJson(text: string, path: (string | number)[], value: unknown, file = 'config.json'): string {
  const base = text.trim() === '' ? '{}' : text;
  const lines = lineStarts(base);
  const limit = sizeProblem(base, file, lines) ?? depthProblem(base, file, lines);
  if (limit) throw new AppError('CONFIG_INVALID', `${limit}\nFix config.json first.`);
  const edits = modify(base, path, value, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
  });
  return applyEdits(base, edits);
}

/** The first MAX_PROBLEMS items described, and how many more there are. */
function listed<T>(items: readonly T[], describe: (item: T) => string): string[] {
  const shown = items.slice(0, MAX_PROBLEMS).map(describe);
  if (items.length > MAX_PROBLEMS) shown.push(`… and ${items.length - MAX_PROBLEMS} more problems.`);
  return shown;
}

function sizeProblem(text: string, file: string, lines: number[]): string | undefined {
  const size = Buffer.byteLength(text, 'utf8');
  if (size <= CONFIG_MAX_BYTES) return undefined;
  // Where the limit falls, in characters (a character cut in two counts as one).
  const offset = Buffer.from(text, 'utf8').subarray(0, CONFIG_MAX_BYTES).toString('utf8').length;
  return `${file} ${where(lines, offset)}: the file goes past ${MIB_LIMIT} here (it is ${megabytes(size)}); config.json may be at most ${MIB_LIMIT}.`;
}

// The token kinds of jsonc-parser's scanner (its SyntaxKind is a const enum, out of reach here).
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const COMMA = 5;
const STRING = 10;
const EOF = 17;

/**
 * The first place the text nests deeper than CONFIG_MAX_DEPTH, if any: one pass over the tokens
 * with a stack of its own, no recursion. Every `{` and `[` counts, closed only by its own kind of
 * bracket, so the count is never below the depth the parser would recurse to (the parser opens a
 * level only at a `{` or `[` and leaves it only at the matching bracket).
 */
function depthProblem(text: string, file: string, lines: number[]): string | undefined {
  const scanner = createScanner(text, true);
  // Per open level: the bracket that closes it, and the key or index being read in it.
  const levels: { close: number; at: string | number | undefined }[] = [];
  let previous = EOF;
  for (let token: number = scanner.scan(); token !== EOF; token = scanner.scan()) {
    const top = levels.at(-1);
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      if (levels.length >= CONFIG_MAX_DEPTH) {
        const field = fieldPath(levels.map((level) => level.at ?? '?'));
        return `${file} ${where(lines, scanner.getTokenOffset())}: ${field}: nested more than ${CONFIG_MAX_DEPTH} levels deep; config.json may nest at most ${CONFIG_MAX_DEPTH}.`;
      }
      levels.push(token === OPEN_BRACE ? { close: CLOSE_BRACE, at: undefined } : { close: CLOSE_BRACKET, at: 0 });
    } else if (token === CLOSE_BRACE || token === CLOSE_BRACKET) {
      if (top?.close === token) levels.pop();
    } else if (token === COMMA && top) {
      top.at = typeof top.at === 'number' ? top.at + 1 : undefined;
    } else if (token === STRING && top?.close === CLOSE_BRACE && (previous === OPEN_BRACE || previous === COMMA)) {
      top.at = scanner.getTokenValue();
    }
    previous = token;
  }
  return undefined;
}

/** `a.b.0.c`, shortened in the middle when it is long. */
function fieldPath(parts: (string | number)[]): string {
  if (parts.length === 0) return '(top level)';
  const shown = parts.length > 8 ? [...parts.slice(0, 4), `…(${parts.length - 6} more)…`, ...parts.slice(-2)] : parts;
  return shown.map(String).join('.');
}

/** The deepest node that exists along `path` (a missing key points at its parent object). */
function nearestNode(tree: Node, path: (string | number)[]): Node | undefined {
  for (let length = path.length; length >= 0; length--) {
    const node = findNodeAtLocation(tree, path.slice(0, length));
    if (node) return node.parent?.type === 'property' ? node.parent : node;
  }
  return tree;
}

/** The offset at which each line starts. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}

/** "line 3, column 5" (both from 1) of an offset. */
function where(starts: number[], offset: number): string {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((starts[middle] ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return `line ${low + 1}, column ${offset - (starts[low] ?? 0) + 1}`;
}

function describeParseError(code: string): string {
  const words: Record<string, string> = {
    InvalidSymbol: 'unexpected character',
    InvalidNumberFormat: 'invalid number',
    PropertyNameExpected: 'expected a property name in double quotes',
    ValueExpected: 'expected a value',
    ColonExpected: 'expected ":"',
    CommaExpected: 'expected ","',
    CloseBraceExpected: 'expected "}"',
    CloseBracketExpected: 'expected "]"',
    EndOfFileExpected: 'unexpected text after the end',
    InvalidCommentToken: 'invalid comment',
    UnexpectedEndOfComment: 'unterminated comment',
    UnexpectedEndOfString: 'unterminated string',
    UnexpectedEndOfNumber: 'unterminated number',
    InvalidUnicode: 'invalid unicode escape',
    InvalidEscapeCharacter: 'invalid escape character',
    InvalidCharacter: 'invalid character',
  };
  return words[code] ?? code;
}
