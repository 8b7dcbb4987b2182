import { say, type Localized } from '@nextai/shared';

/**
 * The command line being composed in a terminal, as far as NextAI can follow it from the keys
 * the agent sends: text typed there accumulates, the key that submits it runs it.
 *
 * Shells differ (ctrl+u kills to the start in bash, the whole line in zsh, nothing in cmd.exe),
 * and some keys bring in text NextAI cannot see (the Up arrow recalls history, Tab completes).
 * So the line is a small set of *candidates*, every way it may read now; a key applies to each,
 * and submitting judges them all. A candidate whose text is not known is unknown: submitting it
 * is the worst case. Pure: the tracker (terminal-input.ts) keeps one set per terminal window.
 */
export type Candidate = KnownLine | UnknownLine;

export interface KnownLine {
  text: string;
  /** Where the next character goes (UTF-16 index into `text`). */
  cursor: number;
  /** After Escape in a readline shell: the next key is read as alt+key (the meta prefix). */
  meta?: boolean | undefined;
  /** After ctrl+v in a POSIX shell: the next key is inserted as it is (quoted insert). */
  literal?: boolean | undefined;
}

export interface UnknownLine {
  unknown: Localized;
}

/** What one key does to one candidate: the lines it may run, and how the line may read after. */
export interface Step {
  runs: Candidate[];
  next: Candidate[];
}

export type LineOp = (line: KnownLine) => Step;

/** Every way the line may read after some input, and each submission on the way with its candidates. */
export interface Applied {
  lines: Candidate[];
  submitted: Candidate[][];
}

/** More ways the line may read than this, and it counts as unknown. */
const MAX_CANDIDATES = 12;

export const EMPTY_LINE: readonly Candidate[] = Object.freeze([{ text: '', cursor: 0 }]);

export function isUnknown(candidate: Candidate): candidate is UnknownLine {
  return 'unknown' in candidate;
}

export function unknownLine(why: Localized): UnknownLine {
  return { unknown: why };
}

export const WHY = {
  completion: say('Tab completed it with text NextAI cannot see', 'Tab 键用 NextAI 看不到的文字补全了它'),
  control: say(
    'a control character was typed into it, which NextAI does not follow',
    '向其中输入了 NextAI 无法跟踪的控制字符',
  ),
  meta: say(
    'Escape made the next key a shell command NextAI does not follow',
    'Esc 键让下一个键成为 NextAI 无法跟踪的 shell 命令',
  ),
  quoted: say('ctrl+v inserted the next key as a raw control character', 'ctrl+v 把下一个键作为原始控制字符插入'),
  tooMany: say('the keys sent leave too many ways the line may read', '发送的按键让这一行可能有太多种内容'),
} satisfies Record<string, Localized>;

/**
 * Applies one key to every candidate. An unknown line stays unknown unless the key leaves the
 * line the same whatever it held (`resets`: Enter starts a new prompt, ctrl+c abandons the line).
 */
export function applyOp(lines: readonly Candidate[], op: LineOp, options: { resets?: boolean } = {}): Applied {
  const runs: Candidate[] = [];
  const next: Candidate[] = [];
  for (const line of lines) {
    if (isUnknown(line)) {
      // What the key does to some line: whether it runs it, and what it leaves.
      const step = op({ text: '', cursor: 0 });
      if (step.runs.length > 0) runs.push(line);
      if (options.resets) next.push(...step.next);
      else next.push(line);
      continue;
    }
    const step = op(line);
    runs.push(...step.runs);
    next.push(...step.next);
  }
  return { lines: bounded(next), submitted: runs.length > 0 ? [dedupe(runs)] : [] };
}

/**
 * Text typed into the terminal: each line break submits the line composed so far (xdotool and
 * SendInput type it as Return); a tab completes (unknown text); other control characters are not
 * followed. `prefixed` reads the first character after a pending Escape or ctrl+v.
 */
export function applyText(
  lines: readonly Candidate[],
  text: string,
  prefixed: (line: KnownLine, character: string) => Step,
): Applied {
  let current: Candidate[] = [...lines];
  const submitted: Candidate[][] = [];
  const apply = (op: LineOp, options?: { resets?: boolean }) => {
    const applied = applyOp(current, op, options);
    current = applied.lines;
    submitted.push(...applied.submitted);
  };
  for (const piece of textPieces(text)) {
    if (piece === '\r\n' || piece === '\n' || piece === '\r') {
      apply(withPrefixes(submit, prefixed, '\r'), { resets: true });
    } else if (piece === '\t') {
      apply(withPrefixes(becomesUnknown(WHY.completion), prefixed, '\t'));
    } else if (isControl(piece)) {
      apply(becomesUnknown(WHY.control));
    } else {
      const first = String.fromCodePoint(piece.codePointAt(0) as number);
      apply((line) => {
        if (!line.meta && !line.literal) return insert(piece)(line);
        // The first character completes the pending prefix; the rest is typed after it.
        const step = prefixed(line, first);
        return {
          runs: step.runs,
          next: step.next.map((after) =>
            isUnknown(after) ? after : insert(piece.slice(first.length))(after).next[0]!,
          ),
        };
      });
    }
  }
  return { lines: current, submitted };
}

/** Control characters one by one (`\r\n` as one line break), the text between them in one piece. */
function textPieces(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    if (!isControl(text[index] as string)) continue;
    if (index > start) pieces.push(text.slice(start, index));
    const width = text.startsWith('\r\n', index) ? 2 : 1;
    pieces.push(text.slice(index, index + width));
    index += width - 1;
    start = index + 1;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

/** A C0 control character or DEL (a line break, a tab, an escape…). */
function isControl(piece: string): boolean {
  const code = piece.charCodeAt(0);
  return piece.length === 1 && (code < 0x20 || code === 0x7f);
}

/**
 * Pasted text is typed text: a line break in it submits, as when typed (bracketed paste is not
 * assumed), and a pending Escape takes its first character, as the shell reads it.
 */
export function applyPaste(
  lines: readonly Candidate[],
  text: string | undefined,
  why: Localized,
  prefixed: (line: KnownLine, character: string) => Step,
): Applied {
  if (text !== undefined) return applyText(lines, text, prefixed);
  // Text NextAI cannot read may hold a line break: the paste itself may run the line.
  return applyOp(lines, () => ({ runs: [unknownLine(why)], next: [unknownLine(why)] }));
}

/** A key read as itself, or — after Escape or ctrl+v — as `prefixed` says. */
function withPrefixes(op: LineOp, prefixed: (line: KnownLine, character: string) => Step, key: string): LineOp {
  return (line) => (line.meta || line.literal ? prefixed(line, key) : op(line));
}

/** Inserts text at the cursor. */
export function insert(text: string): LineOp {
  return (line) => {
    const before = line.text.slice(0, line.cursor);
    const after = line.text.slice(line.cursor);
    return { runs: [], next: [{ text: before + text + after, cursor: line.cursor + text.length }] };
  };
}

/** Enter: runs the line; the next prompt starts empty. */
export const submit: LineOp = (line) => ({ runs: [plain(line)], next: [...EMPTY_LINE] });

/** A key whose effect on the line NextAI does not follow: it may even run the line. */
export function unmodelled(why: Localized): LineOp {
  return (line) => ({ runs: [plain(line)], next: [unknownLine(why)] });
}

/** A key that brings in text NextAI cannot see (history, completion, the kill ring). */
export function becomesUnknown(why: Localized): LineOp {
  return () => ({ runs: [], next: [unknownLine(why)] });
}

/** Changes the text or the cursor of the line, each way a shell may do it. */
export function edit(...variants: ((line: KnownLine) => KnownLine)[]): LineOp {
  return (line) => ({ runs: [], next: variants.map((variant) => variant(plain(line))) });
}

/** A pending prefix for the next key. */
export function prefix(kind: 'meta' | 'literal'): (line: KnownLine) => KnownLine {
  return (line) => ({ ...plain(line), [kind]: true });
}

/** Several readings of one key, all kept (a shortcut in some terminals, a control key in others). */
export function either(...ops: LineOp[]): LineOp {
  return (line) => {
    const steps = ops.map((op) => op(line));
    return { runs: steps.flatMap((step) => step.runs), next: steps.flatMap((step) => step.next) };
  };
}

export const unchanged = (line: KnownLine): KnownLine => line;
export const cleared = (): KnownLine => ({ text: '', cursor: 0 });
export const toStart = (line: KnownLine): KnownLine => ({ ...line, cursor: 0 });
export const toEnd = (line: KnownLine): KnownLine => ({ ...line, cursor: line.text.length });
export const back = (line: KnownLine): KnownLine => ({ ...line, cursor: Math.max(0, line.cursor - 1) });
export const forward = (line: KnownLine): KnownLine => ({
  ...line,
  cursor: Math.min(line.text.length, line.cursor + 1),
});
export const deleteBefore = (line: KnownLine): KnownLine =>
  line.cursor === 0
    ? line
    : { text: line.text.slice(0, line.cursor - 1) + line.text.slice(line.cursor), cursor: line.cursor - 1 };
export const deleteAt = (line: KnownLine): KnownLine => ({
  text: line.text.slice(0, line.cursor) + line.text.slice(line.cursor + 1),
  cursor: line.cursor,
});
export const killToStart = (line: KnownLine): KnownLine => ({ text: line.text.slice(line.cursor), cursor: 0 });
export const killToEnd = (line: KnownLine): KnownLine => ({
  text: line.text.slice(0, line.cursor),
  cursor: line.cursor,
});

/**
 * What a "word" is differs: bash's ctrl+w stops at spaces, readline's alt+b at anything but
 * letters and digits, zsh and fish also at `/`. Each is a reading a key is applied with.
 */
export type WordKind = 'spaces' | 'alnum' | 'path';
export const WORD_KINDS: readonly WordKind[] = ['spaces', 'alnum', 'path'];

const IN_WORD: Record<WordKind, RegExp> = {
  spaces: /\S/u,
  alnum: /[\p{L}\p{N}]/u,
  path: /[^\s/]/u,
};

export function wordStart(text: string, cursor: number, kind: WordKind): number {
  let index = cursor;
  while (index > 0 && !IN_WORD[kind].test(text[index - 1] as string)) index--;
  while (index > 0 && IN_WORD[kind].test(text[index - 1] as string)) index--;
  return index;
}

export function wordEnd(text: string, cursor: number, kind: WordKind): number {
  let index = cursor;
  while (index < text.length && !IN_WORD[kind].test(text[index] as string)) index++;
  while (index < text.length && IN_WORD[kind].test(text[index] as string)) index++;
  return index;
}

export const wordBack =
  (kind: WordKind) =>
  (line: KnownLine): KnownLine => ({
    ...line,
    cursor: wordStart(line.text, line.cursor, kind),
  });
export const wordForward =
  (kind: WordKind) =>
  (line: KnownLine): KnownLine => ({
    ...line,
    cursor: wordEnd(line.text, line.cursor, kind),
  });
export const killWordBack =
  (kind: WordKind) =>
  (line: KnownLine): KnownLine => {
    const start = wordStart(line.text, line.cursor, kind);
    return { text: line.text.slice(0, start) + line.text.slice(line.cursor), cursor: start };
  };
export const killWordForward =
  (kind: WordKind) =>
  (line: KnownLine): KnownLine => {
    const end = wordEnd(line.text, line.cursor, kind);
    return { text: line.text.slice(0, line.cursor) + line.text.slice(end), cursor: line.cursor };
  };

/** A line without a pending prefix. */
export function plain(line: KnownLine): KnownLine {
  return { text: line.text, cursor: line.cursor };
}

/** Every way the line may read, each once; too many, and it is unknown. */
export function bounded(lines: readonly Candidate[]): Candidate[] {
  const unique = dedupe(lines);
  if (unique.length <= MAX_CANDIDATES) return unique;
  return [unknownLine(WHY.tooMany)];
}

function dedupe(lines: readonly Candidate[]): Candidate[] {
  const seen = new Set<string>();
  const unique: Candidate[] = [];
  let unknown: UnknownLine | undefined;
  for (const line of lines) {
    if (isUnknown(line)) {
      unknown ??= line;
      continue;
    }
    const key = JSON.stringify([line.text, line.cursor, line.meta === true, line.literal === true]);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(line);
  }
  return unknown ? [...unique, unknown] : unique;
}
