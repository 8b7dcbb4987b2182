/**
 * sed and awk programs are small languages of their own. These readers do not run them; they
 * look for the parts that reach outside plain text transformation — running commands, reading
 * or writing files — and return why the program is critical. Anything they cannot read counts
 * as critical too.
 */
import { say, type Localized } from '@nextai/shared';

import type { ShellPhrase } from './phrases.js';

const SED_SIMPLE = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'q', 'Q']);

/** Why a sed script is critical (it runs commands or touches files), or undefined for plain editing. */
export function sedScriptConcern(script: string): ShellPhrase | Localized | undefined {
  const reader = new Reader(script);
  while (!reader.done()) {
    reader.skip(/[\s;]/);
    if (reader.done()) break;
    if (reader.peek() === '#') {
      reader.untilLineEnd();
      continue;
    }
    if (!sedAddress(reader)) return 'has a sed address the analyser cannot read';
    reader.skip(/\s/);
    if (reader.peek() === ',') {
      reader.next();
      reader.skip(/\s/);
      if (!sedAddress(reader)) return 'has a sed address the analyser cannot read';
    }
    reader.skip(/[\s!]/);
    const command = reader.next();
    if (command === undefined) return 'ends a sed script after an address';
    if (command === '{' || command === '}') continue;
    if (SED_SIMPLE.has(command)) {
      reader.skip(/[ \t]/);
      reader.skip(/\d/);
      continue;
    }
    switch (command) {
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v':
        reader.until(/[;\n]/);
        continue;
      case 'a':
      case 'i':
      case 'c':
        reader.untilLineEnd(true);
        continue;
      case 's': {
        const delimiter = reader.next();
        if (delimiter === undefined || delimiter === '\n' || delimiter === '\\')
          return 'has a sed s command the analyser cannot read';
        if (!reader.delimited(delimiter) || !reader.delimited(delimiter)) return 'has an unfinished sed s command';
        const flags = reader.until(/[;\n}]/);
        if (/^[gpiImM\d\s]*e/.test(flags)) return 'runs the result as a command (sed s///e)';
        if (/^[gpiImMe\d\s]*w/.test(flags)) return 'writes to a file named in the sed script (s///w)';
        if (!/^[gpiImM\d\s]*$/.test(flags)) return 'has sed s flags the analyser does not know';
        continue;
      }
      case 'y': {
        const delimiter = reader.next();
        if (delimiter === undefined || !reader.delimited(delimiter) || !reader.delimited(delimiter)) {
          return 'has a sed y command the analyser cannot read';
        }
        continue;
      }
      case 'e':
        return 'runs a command (sed e)';
      case 'r':
      case 'R':
      case 'w':
      case 'W':
        return say(
          `reads or writes a file named in the sed script (sed ${command})`,
          `读取或写入 sed 脚本中指定的文件（sed ${command}）`,
        );
      default:
        return say(
          `uses a sed command the analyser does not know (${command})`,
          `使用了分析器不认识的 sed 命令（${command}）`,
        );
    }
  }
  return undefined;
}

function sedAddress(reader: Reader): boolean {
  const char = reader.peek();
  if (char === undefined) return true;
  if (/[\d$+~]/.test(char)) {
    reader.skip(/[\d$+~]/);
    return true;
  }
  if (char === '/' || char === '\\') {
    reader.next();
    const delimiter = char === '\\' ? reader.next() : '/';
    if (delimiter === undefined || !reader.delimited(delimiter)) return false;
    reader.skip(/[IM]/);
  }
  return true;
}

/** A cursor over program text. */
class Reader {
  private at = 0;
  constructor(private readonly text: string) {}

  done(): boolean {
    return this.at >= this.text.length;
  }
  peek(offset = 0): string | undefined {
    return this.text[this.at + offset];
  }
  next(): string | undefined {
    const char = this.text[this.at];
    this.at += 1;
    return char;
  }
  skip(pattern: RegExp): void {
    while (!this.done() && pattern.test(this.text[this.at] as string)) this.at += 1;
  }
  /** Consumes up to (not including) the first character matching `stop`; returns what it consumed. */
  until(stop: RegExp): string {
    const start = this.at;
    while (!this.done() && !stop.test(this.text[this.at] as string)) this.at += 1;
    return this.text.slice(start, this.at);
  }
  /** To the end of the line; with `continued`, lines ending in a backslash go on. */
  untilLineEnd(continued = false): void {
    while (!this.done()) {
      const char = this.next();
      if (char === '\\' && continued) this.next();
      else if (char === '\n') return;
    }
  }
  /** Consumes text up to an unescaped `delimiter` and the delimiter; false if there is none. */
  delimited(delimiter: string): boolean {
    while (!this.done()) {
      const char = this.next();
      if (char === '\\') this.next();
      else if (char === delimiter) return true;
    }
    return false;
  }
}

/** Tokens after which a `/` starts a regular expression rather than a division. */
const REGEX_CAN_FOLLOW = new Set(['', '(', ',', '{', '}', ';', '\n', '!', '~', '&', '|', '?', ':', '=', '<', '>']);

/** Why an awk program is critical (it runs commands, reads or writes files), or undefined for text work. */
export function awkProgramConcern(program: string): ShellPhrase | Localized | undefined {
  let index = 0;
  let last = '';
  let depth = 0;
  let printDepth: number | undefined;
  const length = program.length;
  while (index < length) {
    const char = program[index] as string;
    if (char === ' ' || char === '\t') {
      index += 1;
      continue;
    }
    if (char === '\\' && program[index + 1] === '\n') {
      index += 2;
      continue;
    }
    if (char === '#') {
      while (index < length && program[index] !== '\n') index += 1;
      continue;
    }
    if (char === '"') {
      index = skipQuoted(program, index, '"');
      last = 'value';
      continue;
    }
    if (char === '/' && REGEX_CAN_FOLLOW.has(last)) {
      index = skipRegex(program, index);
      last = 'value';
      continue;
    }
    if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_]\w*/.exec(program.slice(index))?.[0] ?? char;
      index += word.length;
      if (word === 'system') return 'runs a command (awk system())';
      if (word === 'getline' && /^\s*(?:\$?\w+(?:\[[^\]]*\])?\s*)?</.test(program.slice(index))) {
        return 'reads a file named in the awk program (getline <)';
      }
      if (word === 'print' || word === 'printf') printDepth = depth;
      last = 'value';
      continue;
    }
    if (char === '@') return 'loads awk extensions or files (@load/@include)';
    index += 1;
    switch (char) {
      case '|':
        if (program[index] === '|') {
          index += 1;
          last = '|';
          continue;
        }
        return 'pipes to or from a command (awk |)';
      case '>':
        if (printDepth !== undefined && depth === printDepth) {
          const target = /^>?\s*"(\/dev\/std(?:out|err))"/.exec(program.slice(index));
          if (!target) return 'writes to a file from awk (print >)';
        }
        break;
      case '(':
        depth += 1;
        break;
      case ')':
        depth = Math.max(0, depth - 1);
        break;
      case ';':
      case '\n':
      case '{':
      case '}':
        printDepth = undefined;
        break;
      default:
        break;
    }
    last = /[0-9.\]]/.test(char) ? 'value' : char === ')' ? 'value' : char;
  }
  return undefined;
}

function skipQuoted(text: string, start: number, quote: string): number {
  let index = start + 1;
  while (index < text.length) {
    const char = text[index];
    if (char === '\\') index += 2;
    else if (char === quote) return index + 1;
    else index += 1;
  }
  return index;
}

function skipRegex(text: string, start: number): number {
  let index = start + 1;
  let bracket = false;
  while (index < text.length) {
    const char = text[index];
    if (char === '\\') index += 2;
    else if (char === '[') {
      bracket = true;
      index += 1;
    } else if (char === ']') {
      bracket = false;
      index += 1;
    } else if (char === '/' && !bracket) return index + 1;
    else if (char === '\n') return index;
    else index += 1;
  }
  return index;
}

/** SQL and database-client commands that destroy data, run commands or touch files. */
const DESTRUCTIVE_SQL: [RegExp, ShellPhrase][] = [
  [
    /\bdrop\s+(?:table|database|schema|collection|user|role|index|view|keyspace)\b/i,
    'drops a table, database or schema',
  ],
  [/\btruncate\b/i, 'empties a table (TRUNCATE)'],
  [/\balter\s+table\b[^;]*\bdrop\b/i, 'drops columns from a table'],
  [/\b(?:flushall|flushdb)\b/i, 'erases a whole Redis database'],
  [/\.drop(?:Database)?\s*\(/i, 'drops a MongoDB collection or database'],
  [/\.(?:deleteMany|remove)\s*\(\s*\{\s*\}\s*\)/i, 'deletes every document in a collection'],
  [/\bconfig\s+set\s+(?:dir|dbfilename)\b/i, 'points Redis at another file (a known way to write ssh keys)'],
  [/(?:^|\n)\s*\.(?:shell|system)\b/i, 'runs shell commands from sqlite (.shell/.system)'],
  [
    /(?:^|\n)\s*\.(?:output|once|save|backup|excel|log|load|open|read|import)\b/i,
    'makes sqlite read, write or load other files',
  ],
  [/(?:^|[\n;])\s*(?:\\!|system\s)/i, 'runs shell commands from the database client (\\! or system)'],
  [/(?:^|[\n;])\s*\\(?:o|w|i|ir|copy|g|gexec|setenv)\b/i, 'makes psql run queries from, or write to, files'],
  [/\bcopy\b[^;]*\b(?:to|from)\s+program\b/i, 'runs a program from the database server (COPY … PROGRAM)'],
  [/\b(?:into\s+(?:out|dump)file|load_file\s*\()/i, 'reads or writes server files from SQL'],
];

/** Why this database input is critical, or undefined. */
export function sqlConcern(sql: string): ShellPhrase | Localized | undefined {
  const text = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ');
  for (const [pattern, why] of DESTRUCTIVE_SQL) {
    if (pattern.test(text)) return why;
  }
  for (const statement of text.split(';')) {
    if (/^\s*delete\s+from\b/i.test(statement) && !/\bwhere\b/i.test(statement)) {
      return 'deletes every row of a table (DELETE without WHERE)';
    }
    if (/^\s*update\b/i.test(statement) && !/\bwhere\b/i.test(statement)) {
      return 'changes every row of a table (UPDATE without WHERE)';
    }
  }
  return undefined;
}

/** True when the database input only reads (SELECT, SHOW, meta commands). */
export function sqlOnlyReads(sql: string): boolean {
  return sql
    .split(/[;\n]/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0)
    .every((statement) =>
      /^(?:select|show|explain|describe|desc|with|pragma|\.(?:tables|schema|headers|mode|indexes)|\\[dlx]|get|keys|scan|info|exists|ttl|type|llen|hget|hgetall|smembers|zrange|db\.\w+\.find)/i.test(
        statement,
      ),
    );
}
