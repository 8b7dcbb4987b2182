import type { Node } from 'web-tree-sitter';

/** One shell word (a command name, an argument, a redirect target) as far as it can be known statically. */
export interface Word {
  /** The text as written in the command. */
  text: string;
  /** The value after quote removal when it is fixed text; undefined when the shell computes it at run time. */
  value: string | undefined;
  /** Unquoted glob or brace characters: the value is a pattern that may stand for many names. */
  pattern: boolean;
  /** A process substitution `<(…)`/`>(…)`: the shell passes a /dev/fd path to another command's output. */
  processSubstitution: boolean;
  /** Built from plain literal text (words, quotes, backslashes) — the only form accepted as a command name. */
  plain: boolean;
}

/** What the evaluation may assume about the shell's variables. */
export interface WordEnv {
  /** `$HOME` still holds the person's home folder (nothing in the command assigned it). */
  homeKnown: boolean;
  /** The person's home folder, for `$HOME` inside a word (`of=$HOME/x`). */
  homeDir: string;
  /** The working directory when it is known for certain (for `$PWD` and `$(pwd)`). */
  cwd: string | undefined;
}

/** `!` as bash's interactive history expansion reads it (not before a blank, `=`, `(` or `"`, nor escaped). */
export const HISTORY_EXPANSION = /(?<![\\$[])!(?![\s=("]|$)/;

export function literalWord(value: string): Word {
  return { text: value, value, pattern: false, processSubstitution: false, plain: true };
}

export function computedWord(text: string): Word {
  return { text, value: undefined, pattern: false, processSubstitution: false, plain: false };
}

/** Accumulates a word's characters with, for each, whether it was quoted (quoted glob characters are literal). */
class Builder {
  value = '';
  quotedMask = '';
  dynamic = false;
  plain = true;
  processSubstitution = false;

  add(text: string, quoted: boolean): void {
    this.value += text;
    this.quotedMask += (quoted ? '1' : '0').repeat(text.length);
  }
}

export function evaluateWord(node: Node, env: WordEnv): Word {
  const builder = new Builder();
  addNode(node, env, builder);
  const text = node.text;
  if (builder.dynamic) {
    return { text, value: undefined, pattern: false, processSubstitution: builder.processSubstitution, plain: false };
  }
  const pattern = hasUnquotedPattern(builder.value, builder.quotedMask);
  return { text, value: builder.value, pattern, processSubstitution: false, plain: builder.plain && !pattern };
}

function addNode(node: Node, env: WordEnv, builder: Builder): void {
  switch (node.type) {
    case 'word':
    case 'extglob_pattern':
    case 'regex':
    case 'brace_expression':
      addUnquoted(node.text, builder);
      return;
    case 'variable_name':
      builder.add(node.text, false);
      return;
    case 'number':
      if (node.namedChildCount > 0) builder.dynamic = true;
      else addUnquoted(node.text, builder);
      return;
    case 'raw_string':
      builder.add(node.text.slice(1, -1), true);
      return;
    case 'ansi_c_string':
      builder.add(decodeAnsiC(node.text.slice(2, -1)), true);
      builder.plain = false;
      return;
    case 'translated_string':
      for (const child of node.namedChildren) addNode(child, env, builder);
      builder.plain = false;
      return;
    case 'string':
      for (const child of node.children) {
        if (child.type === '"') continue;
        if (child.type === 'string_content') {
          // An interactive shell replaces `!word` even inside double quotes: the text is not fixed.
          if (HISTORY_EXPANSION.test(child.text)) builder.dynamic = true;
          builder.add(unescapeDoubleQuoted(child.text), true);
        } else if (child.type === '$') builder.add('$', true);
        else addExpansion(child, env, builder);
      }
      return;
    case 'concatenation':
      for (const child of node.children) {
        if (child.type === '$') addDollar(child.text, builder);
        else if (child.type === '``') builder.plain = false;
        else addNode(child, env, builder);
      }
      return;
    case '$':
      addDollar(node.text, builder);
      return;
    case 'process_substitution':
      builder.dynamic = true;
      builder.processSubstitution = true;
      return;
    default:
      addExpansion(node, env, builder);
  }
}

/**
 * An expansion is computed at run time, except `$HOME` and `$PWD`/`$(pwd)` at the start of a word
 * while the command has not reassigned them: knowing them lets `"$HOME/.bashrc"` be recognised.
 * `$HOME` later in a word (`of=$HOME/.bashrc`, `--file=$HOME/x`) is the home folder's path.
 */
function addExpansion(node: Node, env: WordEnv, builder: Builder): void {
  builder.plain = false;
  const atStart = builder.value.length === 0 && !builder.dynamic;
  const name = expansionVariable(node);
  if (name === 'HOME' && env.homeKnown) {
    if (atStart) builder.add('~', false);
    else builder.add(env.homeDir, true);
    return;
  }
  if (atStart && (name === 'PWD' || isPwdSubstitution(node)) && env.cwd !== undefined) {
    builder.add(env.cwd, true);
    return;
  }
  builder.dynamic = true;
}

/** `$NAME` or `${NAME}` with nothing else inside: the variable's name. */
function expansionVariable(node: Node): string | undefined {
  if (node.type === 'simple_expansion' && node.namedChildCount === 1) {
    const child = node.namedChild(0);
    return child?.type === 'variable_name' ? child.text : undefined;
  }
  if (node.type === 'expansion' && node.childCount === 3) {
    const child = node.child(1);
    return child?.type === 'variable_name' ? child.text : undefined;
  }
  return undefined;
}

function isPwdSubstitution(node: Node): boolean {
  if (node.type !== 'command_substitution' || node.namedChildCount !== 1) return false;
  const command = node.namedChild(0);
  return command?.type === 'command' && command.namedChildCount === 1 && command.text === 'pwd';
}

/**
 * A lone `$` is itself; the grammar also gives `$$` at the end of a word (`-$$`) as this token,
 * and that is the shell's process id, known only at run time.
 */
function addDollar(text: string, builder: Builder): void {
  if (text === '$') {
    addUnquoted('$', builder);
    return;
  }
  builder.plain = false;
  builder.dynamic = true;
}

function addUnquoted(text: string, builder: Builder): void {
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '\\' && index + 1 < text.length) {
      const next = text[index + 1] as string;
      // A backslash-newline is a line continuation: both characters disappear.
      if (next !== '\n') builder.add(next, true);
      index += 2;
      continue;
    }
    builder.add(char, false);
    index += 1;
  }
}

/** Inside double quotes a backslash only escapes `$`, a backquote, `"`, `\` and a newline. */
function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_match, char: string) => (char === '\n' ? '' : char));
}

function hasUnquotedPattern(value: string, mask: string): boolean {
  let braceOpen = -1;
  let bracketOpen = false;
  for (let index = 0; index < value.length; index++) {
    if (mask[index] === '1') continue;
    const char = value[index];
    if (char === '*' || char === '?') return true;
    if (char === '[') bracketOpen = true;
    else if (char === ']' && bracketOpen) return true;
    else if (char === '{') braceOpen = index;
    else if (char === '}' && braceOpen >= 0) {
      const inner = value.slice(braceOpen + 1, index);
      const innerMask = mask.slice(braceOpen + 1, index);
      for (let at = 0; at < inner.length; at++) {
        if (innerMask[at] === '0' && (inner[at] === ',' || inner.startsWith('..', at))) return true;
      }
    }
  }
  return false;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Decodes the body of a `$'…'` string the way bash does. */
function decodeAnsiC(body: string): string {
  let out = '';
  let index = 0;
  while (index < body.length) {
    const char = body[index] as string;
    if (char !== '\\' || index + 1 >= body.length) {
      out += char;
      index += 1;
      continue;
    }
    const next = body[index + 1] as string;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      out += simple;
      index += 2;
      continue;
    }
    const numeric = /^(?:x([0-9a-fA-F]{1,2})|u([0-9a-fA-F]{1,4})|U([0-9a-fA-F]{1,8})|([0-7]{1,3}))/.exec(
      body.slice(index + 1),
    );
    if (numeric) {
      const [whole, hex, u4, u8, octal] = numeric;
      const code = hex ? parseInt(hex, 16) : u4 ? parseInt(u4, 16) : u8 ? parseInt(u8, 16) : parseInt(octal ?? '0', 8);
      out += code <= 0x10ffff ? String.fromCodePoint(code) : '';
      index += 1 + whole.length;
      continue;
    }
    if (next === 'c' && index + 2 < body.length) {
      out += String.fromCharCode((body.charCodeAt(index + 2) & 0x1f) >>> 0);
      index += 3;
      continue;
    }
    out += char + next;
    index += 2;
  }
  return out;
}
