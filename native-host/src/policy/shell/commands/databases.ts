import { checkPath, joinedValue, report, type Invocation } from '../invocation.js';
import { optionValues, parseOptions, type OptionSpec } from '../options.js';
import type { ShellPhrase } from '../phrases.js';
import type { AnalysisState } from '../state.js';
import { sqlConcern, sqlOnlyReads } from '../text-programs.js';
import type { Word } from '../words.js';
import type { Handler } from './types.js';

interface Client {
  options: OptionSpec;
  /** Options whose value is database input (`psql -c`, `mysql -e`). */
  inline: string[];
  /** Options whose value is a file of database input. */
  files: string[];
  /** Options that only print information or list databases. */
  info: string[];
  /** How many operands come before database input given as operands (sqlite3 DB 'SQL'), or -1 when none is. */
  sqlOperandsFrom: number;
  /** Options whose value is a file the client writes. */
  outputs?: string[];
  /** Operands from this one on are script files (`mongosh DB script.js`). */
  fileOperandsFrom?: number;
}

/** Where database input the analyser cannot see comes from, and what is said about it. */
const UNSEEN_INPUT = {
  'from a file': 'runs database commands from a file, which the analyser cannot see',
  "from another command's output":
    "runs database commands from another command's output, which the analyser cannot see",
  'typed in later': 'runs database commands typed in later, which the analyser cannot see',
  'computed at run time': 'runs database commands computed at run time, which the analyser cannot see',
} as const satisfies Record<string, ShellPhrase>;
type InputSource = keyof typeof UNSEEN_INPUT;

/** Judges database input: destructive statements are critical, reads medium, other changes high. */
function judge(inv: Invocation, st: AnalysisState, sql: string | undefined, source: InputSource): void {
  if (sql === undefined) {
    report(st, inv, 'critical', UNSEEN_INPUT[source]);
    return;
  }
  const concern = sqlConcern(sql);
  if (concern) report(st, inv, 'critical', concern);
  else if (sqlOnlyReads(sql)) report(st, inv, 'medium', 'queries a database');
  else report(st, inv, 'high', 'changes a database');
}

function client(spec: Client): Handler {
  return (inv, st) => {
    const parsed = parseOptions(inv.args, spec.options);
    if (parsed.options.some((option) => spec.info.includes(option.name)) && parsed.operands.length <= 1) return;
    for (const output of optionValues(parsed, ...(spec.outputs ?? []))) checkPath(st, inv, output, 'write');
    const inline = optionValues(parsed, ...spec.inline);
    const files = [
      ...optionValues(parsed, ...spec.files),
      ...(spec.fileOperandsFrom === undefined ? [] : parsed.operands.slice(spec.fileOperandsFrom)),
    ];
    const operandSql = spec.sqlOperandsFrom >= 0 ? parsed.operands.slice(spec.sqlOperandsFrom) : [];
    for (const file of files) checkPath(st, inv, file, 'read');
    if (files.length > 0) judge(inv, st, undefined, 'from a file');
    if (inline.length > 0 || operandSql.length > 0) {
      for (const sql of inline) judge(inv, st, sql.value, 'computed at run time');
      if (operandSql.length > 0) judge(inv, st, joinedValue(operandSql), 'computed at run time');
      return;
    }
    if (files.length > 0) return;
    judge(inv, st, stdinText(inv), stdinSource(inv));
  };
}

function stdinText(inv: Invocation): string | undefined {
  if (inv.stdin.kind === 'text') return inv.stdin.text;
  if (inv.stdin.kind === 'pipe') return inv.stdin.text;
  return undefined;
}

function stdinSource(inv: Invocation): InputSource {
  switch (inv.stdin.kind) {
    case 'file':
      return 'from a file';
    case 'pipe':
      return "from another command's output";
    case 'terminal':
      return 'typed in later';
    default:
      return 'computed at run time';
  }
}

/** redis-cli: the operands are one command; without them it reads commands from its input. */
const redis: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'hpsanuiDrdcx',
    long: ['user', 'pass', 'askpass', 'tls', 'cacert', 'cert', 'key', 'sni', 'eval', 'pipe-timeout', 'rdb', 'functions-rdb', 'pattern'],
  }); // prettier-ignore
  if (parsed.options.some((option) => ['--version', '-v', '--help'].includes(option.name))) return;
  for (const output of optionValues(parsed, '--rdb', '--functions-rdb')) checkPath(st, inv, output, 'write');
  if (optionValues(parsed, '--eval').length > 0) {
    report(st, inv, 'critical', 'runs a Lua script inside Redis');
    return;
  }
  if (parsed.operands.length > 0) {
    judge(inv, st, joinedValue(parsed.operands), 'computed at run time');
    return;
  }
  judge(inv, st, stdinText(inv), stdinSource(inv));
};

const sqlite: Handler = (inv, st) => {
  // sqlite3 options are single-dash words (`-cmd`, `-header`), so they are read by hand.
  const operands: Word[] = [];
  const inline: Word[] = [];
  for (let index = 0; index < inv.args.length; index++) {
    const arg = inv.args[index] as Word;
    const value = arg.value;
    if (value === '-version' || value === '-help' || value === '--version' || value === '--help') return;
    if (value === '-cmd') {
      const next = inv.args[index + 1];
      if (next) inline.push(next);
      index += 1;
      continue;
    }
    if (value === '-init') {
      const next = inv.args[index + 1];
      if (next) checkPath(st, inv, next, 'read');
      judge(inv, st, undefined, 'from a file');
      index += 1;
      continue;
    }
    if (
      value !== undefined &&
      /^-(?:separator|newline|nullvalue|mmap|vfs|lookaside|pagecache|heap|maxsize|escape)$/.test(value)
    ) {
      index += 1;
      continue;
    }
    if (value !== undefined && value.startsWith('-')) continue;
    operands.push(arg);
  }
  const [database, ...sql] = operands;
  if (database) {
    checkPath(st, inv, database, 'read');
    checkPath(st, inv, database, 'write');
  }
  for (const command of inline) judge(inv, st, command.value, 'computed at run time');
  if (sql.length > 0) judge(inv, st, joinedValue(sql), 'computed at run time');
  else if (inline.length === 0) judge(inv, st, stdinText(inv), stdinSource(inv));
};

export const DATABASE_HANDLERS: Record<string, Handler> = {
  sqlite3: sqlite,
  sqlite: sqlite,
  duckdb: sqlite,
  psql: client({
    options: {
      short: 'cdfhpUvoLFPRTs',
      flags: 'aAbeEHlnqSxXwW0z1?',
      long: ['command', 'dbname', 'file', 'host', 'port', 'username', 'variable', 'set', 'output', 'log-file',
        'field-separator', 'pset', 'record-separator', 'table-attr'],
    }, // prettier-ignore
    inline: ['-c', '--command'],
    files: ['-f', '--file'],
    info: ['-l', '--list', '-V', '--version', '-?', '--help'],
    sqlOperandsFrom: -1,
    outputs: ['-o', '--output', '-L', '--log-file'],
  }),
  mysql: client({
    options: {
      short: 'eDhPuSO',
      attached: 'p',
      long: ['execute', 'database', 'host', 'port', 'user', 'socket', 'password', 'init-command', 'tee',
        'defaults-file', 'defaults-extra-file', 'login-path', 'default-character-set'],
    }, // prettier-ignore
    inline: ['-e', '--execute', '--init-command'],
    files: ['--defaults-file', '--defaults-extra-file'],
    info: ['-V', '--version', '-?', '--help'],
    sqlOperandsFrom: -1,
    outputs: ['--tee'],
  }),
  mariadb: client({
    options: {
      short: 'eDhPuSO',
      attached: 'p',
      long: ['execute', 'database', 'host', 'port', 'user', 'socket', 'password', 'init-command', 'tee'],
    },
    inline: ['-e', '--execute', '--init-command'],
    files: [],
    info: ['-V', '--version', '-?', '--help'],
    sqlOperandsFrom: -1,
    outputs: ['--tee'],
  }),
  mongo: client({
    options: { short: 'uph', long: ['eval', 'host', 'port', 'username', 'password', 'authenticationDatabase', 'file'] },
    inline: ['--eval'],
    files: ['--file', '-f'],
    info: ['--version', '--help', '-h'],
    sqlOperandsFrom: -1,
    fileOperandsFrom: 1,
  }),
  mongosh: client({
    options: {
      short: 'uphf',
      long: ['eval', 'host', 'port', 'username', 'password', 'authenticationDatabase', 'file'],
    },
    inline: ['--eval'],
    files: ['--file', '-f'],
    info: ['--version', '--help', '-h'],
    sqlOperandsFrom: -1,
    fileOperandsFrom: 1,
  }),
  'redis-cli': redis,
  'valkey-cli': redis,
  'clickhouse-client': client({
    options: { short: 'qhudp', long: ['query', 'host', 'user', 'database', 'password', 'port', 'queries-file'] },
    inline: ['-q', '--query'],
    files: ['--queries-file'],
    info: ['--version', '--help', '-V'],
    sqlOperandsFrom: -1,
  }),
  sqlcmd: client({
    options: { short: 'QqiSUPdo' },
    inline: ['-Q', '-q'],
    files: ['-i'],
    info: ['-?'],
    sqlOperandsFrom: -1,
    outputs: ['-o'],
  }),
};
