import { say } from '@nextai/shared';

import { arithmeticText, assignsVariable } from '../arithmetic-text.js';
import {
  changeDirectory,
  checkPath,
  joinedValue,
  noteWrittenFile,
  report,
  resolvedTargets,
  runShellText,
  type Invocation,
} from '../invocation.js';
import { hasOption, optionValues, parseOptions, type OptionSpec } from '../options.js';
import type { AnalysisState } from '../state.js';
import { literalWord } from '../words.js';
import { checkOperands, simple, type Handler } from './types.js';

/** Names a function may not take: replacing them changes what later commands run. */
export const SHELL_BUILTINS = new Set([
  '.', ':', '[', 'alias', 'bg', 'bind', 'break', 'builtin', 'caller', 'cd', 'command', 'compgen', 'complete',
  'compopt', 'continue', 'declare', 'dirs', 'disown', 'echo', 'enable', 'eval', 'exec', 'exit', 'export', 'false',
  'fc', 'fg', 'getopts', 'hash', 'help', 'history', 'jobs', 'kill', 'let', 'local', 'logout', 'mapfile', 'popd',
  'printf', 'pushd', 'pwd', 'read', 'readarray', 'readonly', 'return', 'set', 'shift', 'shopt', 'source', 'suspend',
  'test', 'times', 'trap', 'true', 'type', 'typeset', 'ulimit', 'umask', 'unalias', 'unset', 'wait', 'time', 'if',
  'then', 'else', 'elif', 'fi', 'case', 'esac', 'for', 'while', 'until', 'do', 'done', 'select', 'function',
]); // prettier-ignore

const harmless = simple({ risk: 'low' });
const reads = (options?: OptionSpec): Handler =>
  simple({ risk: 'low', paths: 'read', ...(options ? { options } : {}) });
const lists = (options?: OptionSpec): Handler =>
  simple({ risk: 'low', paths: 'list', ...(options ? { options } : {}) });

const GREP_OPTIONS: OptionSpec = {
  short: 'efmABCdD',
  long: [
    'regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'label', 'include', 'exclude',
    'exclude-dir', 'exclude-from', 'binary-files', 'devices', 'directories', 'group-separator',
  ],
}; // prettier-ignore

/** grep: the first operand is the pattern unless -e/-f gave it; -r reads whole folders. */
const grep: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, GREP_OPTIONS);
  for (const file of optionValues(parsed, '-f', '--file', '--exclude-from')) checkPath(st, inv, file, 'read');
  const patternGiven = hasOption(parsed, '-e', '--regexp', '-f', '--file');
  const recursive = inv.program === 'rgrep' || hasOption(parsed, '-r', '-R', '--recursive', '--dereference-recursive');
  const files = parsed.operands.slice(patternGiven ? 0 : 1);
  const role = recursive ? 'readTree' : 'read';
  for (const file of files) checkPath(st, inv, file, role);
  if (recursive && files.length === 0) checkPath(st, inv, literalWord('.'), 'readTree');
};

const RG_OPTIONS: OptionSpec = {
  short: 'efgtTmABCjMErd',
  long: [
    'regexp', 'file', 'glob', 'iglob', 'type', 'type-not', 'type-add', 'type-clear', 'max-count', 'max-depth',
    'max-filesize', 'context', 'after-context', 'before-context', 'threads', 'max-columns', 'encoding', 'engine',
    'sort', 'sortr', 'colors', 'color', 'pre', 'pre-glob', 'replace', 'path-separator', 'context-separator',
    'field-match-separator', 'field-context-separator', 'hostname-bin', 'hyperlink-format', 'ignore-file',
    'dfa-size-limit', 'regex-size-limit', 'pager',
  ],
}; // prettier-ignore

/** ripgrep, ag and ack search folders recursively; some can run a program per file or as a pager. */
const searchTool: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, RG_OPTIONS);
  if (hasOption(parsed, '--pre', '--hostname-bin', '--pager')) {
    report(st, inv, 'critical', say(`makes ${inv.program} run another program`, `让 ${inv.program} 运行另一个程序`));
  }
  for (const file of optionValues(parsed, '-f', '--file', '--ignore-file')) checkPath(st, inv, file, 'read');
  const patternGiven = hasOption(parsed, '-e', '--regexp', '-f', '--file');
  const files = parsed.operands.slice(patternGiven ? 0 : 1);
  for (const file of files) checkPath(st, inv, file, 'readTree');
  if (files.length === 0 && !hasOption(parsed, '--files', '--type-list', '--version', '-V', '--help', '-h')) {
    checkPath(st, inv, literalWord('.'), 'readTree');
  }
};

/** less, more and man can run commands: `+!cmd`, key files, pager and preprocessor options. */
const pager: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'PkopxyzbhjTtDM', long: ['lesskey-file', 'prompt', 'log-file'] });
  if (hasOption(parsed, '-P', '-k', '--lesskey-file', '--prompt')) {
    report(
      st,
      inv,
      'critical',
      say(
        `gives ${inv.program} commands or key bindings, which can run programs`,
        `给 ${inv.program} 设置命令或按键绑定，它们可以运行程序`,
      ),
    );
  }
  for (const log of optionValues(parsed, '-o', '--log-file')) checkPath(st, inv, log, 'write');
  for (const operand of parsed.operands) {
    if (operand.value === undefined || (operand.value.startsWith('+') && /[!|]/.test(operand.value))) {
      report(
        st,
        inv,
        'critical',
        say(
          `gives ${inv.program} a start-up command that can run programs`,
          `给 ${inv.program} 一条可以运行程序的启动命令`,
        ),
      );
    } else if (!operand.value.startsWith('+')) {
      checkPath(st, inv, operand, 'read');
    }
  }
};

const man: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'CMPSmpLeERr',
    attached: 'HXT',
    long: ['pager', 'config-file', 'manpath', 'preprocessor', 'html', 'locale', 'systems', 'sections', 'encoding',
      'extension', 'prompt', 'recode'],
  }); // prettier-ignore
  if (
    hasOption(parsed, '-P', '--pager', '-H', '--html', '-C', '--config-file', '-p', '--preprocessor', '-r', '--prompt')
  ) {
    report(st, inv, 'critical', 'makes man run another program (a pager, browser or preprocessor)');
  }
  if (hasOption(parsed, '-l', '--local-file')) checkOperands(inv, st, parsed, 'read');
};

/** echo prints fixed text when its words are fixed and it interprets no escapes. */
const echo: Handler = (inv) => {
  const flags = new Set<string>();
  let index = 0;
  for (; index < inv.args.length && /^-[neE]+$/.test(inv.args[index]?.value ?? ''); index++) {
    for (const letter of (inv.args[index]?.value ?? '').slice(1)) flags.add(letter);
  }
  const text = joinedValue(inv.args.slice(index));
  // Some shells' echo interprets backslash escapes even without -e, so text with one is not known.
  if (text !== undefined && !text.includes('\\')) {
    inv.output.text = flags.has('n') ? text : `${text}\n`;
  }
};

const printf: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'v', stopAtOperand: true });
  for (const name of optionValues(parsed, '-v')) assignsVariable(name.value, st, inv.excerpt);
  const [format, ...rest] = parsed.operands;
  // Only a format without escapes or conversions other than %s is known text.
  const fixed = format?.value;
  const values = rest.map((word) => word.value);
  if (
    fixed !== undefined &&
    !fixed.includes('\\') &&
    !/%(?!s|%)/.test(fixed.replace(/%%/g, '')) &&
    values.every((value) => value !== undefined)
  ) {
    inv.output.text = formatText(fixed, values as string[]);
  }
};

/** printf with only %s and %% conversions: the format is reused until the arguments run out. */
function formatText(format: string, values: string[]): string {
  let out = '';
  let next = 0;
  do {
    out += format.replace(/%%|%s/g, (match) => (match === '%%' ? '%' : (values[next++] ?? '')));
  } while (next < values.length && format.includes('%s'));
  return out;
}

/** cat passes its input on: a heredoc into cat into a database client is still fixed text. */
const cat: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {});
  checkOperands(inv, st, parsed, 'read');
  if (parsed.operands.length === 0 && inv.stdin.kind === 'text') inv.output.text = inv.stdin.text;
  if (parsed.operands.length === 0 && inv.stdin.kind === 'pipe') inv.output.text = inv.stdin.text;
};

const read: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'adinNptu', flags: 'ers' });
  for (const name of [...optionValues(parsed, '-a'), ...parsed.operands]) assignsVariable(name.value, st, inv.excerpt);
};

const mapfile: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'dnOsuCc', flags: 't' });
  if (hasOption(parsed, '-C')) report(st, inv, 'critical', 'runs a callback command for the lines it reads (-C)');
  for (const name of parsed.operands) assignsVariable(name.value, st, inv.excerpt);
};

const getopts: Handler = (inv, st) => {
  assignsVariable(inv.args[1]?.value, st, inv.excerpt);
};

const test: Handler = (inv, st) => {
  for (let index = 0; index < inv.args.length; index++) {
    if (inv.args[index]?.value !== '-v') continue;
    const name = inv.args[index + 1];
    if (name?.value === undefined) report(st, inv, 'critical', 'tests a variable whose name is computed at run time');
    else if (name.value.includes('[')) assignsVariableCheckOnly(name.value, st, inv);
  }
};

function assignsVariableCheckOnly(name: string, st: AnalysisState, inv: Invocation): void {
  // `test -v 'a[$(cmd)]'` evaluates the index like an assignment would.
  const saved = new Set(st.numericVars);
  assignsVariable(name, st, inv.excerpt);
  st.numericVars = saved;
}

const letCommand: Handler = (inv, st) => {
  for (const arg of inv.args) {
    if (arg.value === undefined) report(st, inv, 'critical', 'evaluates arithmetic computed at run time (let)');
    else arithmeticText(arg.value, st, inv.excerpt);
  }
};

const cd: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { flags: 'LPe@' });
  changeDirectory(inv, st, parsed.operands[0]);
};

const pushd: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { flags: 'n' });
  const target = parsed.operands[0];
  if (!target || /^[+-]\d+$/.test(target.value ?? '')) st.cwds = undefined;
  else changeDirectory(inv, st, target);
};

const popd: Handler = (_inv, st) => {
  st.cwds = undefined;
};

/** `set` options that keep the shell's parsing, expansion and history as they are. */
const SAFE_SET_LETTERS = new Set(['e', 'u', 'x', 'v', 'E', 'C', 'a', 'h', 'm', 'b', 'n', 'P', 't']);
const SAFE_SET_NAMES = new Set([
  'errexit', 'nounset', 'pipefail', 'xtrace', 'verbose', 'errtrace', 'noclobber', 'allexport', 'hashall',
  'monitor', 'notify', 'noexec', 'physical', 'ignoreeof', 'emacs', 'vi', 'onecmd',
]); // prettier-ignore

const set: Handler = (inv, st) => {
  const args = inv.args;
  for (let index = 0; index < args.length; index++) {
    const value = args[index]?.value;
    if (value === undefined) {
      report(st, inv, 'critical', 'changes shell options computed at run time');
      return;
    }
    if (value === '--' || value === '-') return;
    if (!/^[-+]/.test(value)) return;
    const on = value.startsWith('-');
    for (const letter of value.slice(1)) {
      if (letter === 'o') {
        const option = args[index + 1]?.value;
        index += 1;
        if (option === undefined) continue;
        const safe = SAFE_SET_NAMES.has(option) || (!on && option === 'histexpand') || (on && option === 'braceexpand');
        if (!safe) {
          const flag = `set ${on ? '-' : '+'}o ${option}`;
          report(st, inv, 'critical', say(`changes how the shell behaves (${flag})`, `改变 shell 的行为（${flag}）`));
        }
        continue;
      }
      const safe =
        SAFE_SET_LETTERS.has(letter) || (on && letter === 'B') || (!on && (letter === 'H' || letter === 'f'));
      if (!safe) {
        report(
          st,
          inv,
          'critical',
          say(`changes how the shell behaves (set ${value})`, `改变 shell 的行为（set ${value}）`),
        );
      }
    }
  }
};

const shopt: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { flags: 'psuqo' });
  if (hasOption(parsed, '-s', '-u'))
    report(st, inv, 'critical', 'changes how the shell expands and runs commands (shopt)');
};

const trap: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { flags: 'lp', stopAtOperand: true });
  const [action, ...signals] = parsed.operands;
  if (!action || hasOption(parsed, '-l', '-p') || signals.length === 0) return;
  if (action.value === '' || action.value === '-') return;
  report(st, inv, 'critical', 'sets a command that runs later, on a signal or when the shell exits (trap)');
  runShellText(st, inv, action.value, 'a trap command');
};

const alias: Handler = (inv, st) => {
  for (const arg of inv.args) {
    if (arg.value === undefined || arg.value.includes('=')) {
      report(st, inv, 'critical', 'defines an alias, which changes what a command name runs');
      return;
    }
  }
};

const hash: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'p', flags: 'rdtl' });
  if (hasOption(parsed, '-p')) report(st, inv, 'critical', 'points a command name at another program (hash -p)');
};

const enable: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'f', flags: 'adnps' });
  const listing = parsed.operands.length === 0 && !hasOption(parsed, '-f', '-d');
  if (!listing) report(st, inv, 'critical', 'loads or switches off shell builtins (enable)');
};

const bind: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'mqurfx', flags: 'lpsvPSVX' });
  if (parsed.operands.length > 0 || hasOption(parsed, '-x', '-f', '-r', '-u', '-q')) {
    report(st, inv, 'critical', 'changes key bindings, which can run commands (bind)');
  }
};

const completion: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'oAGWFCXPSabcdefgjksuv', flags: 'prDEI' });
  if (hasOption(parsed, '-C', '-F')) report(st, inv, 'critical', 'makes completion run a command or function');
};

const fc: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'e', flags: 'lnrs' });
  if (!hasOption(parsed, '-l')) report(st, inv, 'critical', 'runs commands again from the history (fc)');
};

const history: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'd', flags: 'canrwps' });
  if (hasOption(parsed, '-c', '-d', '-s')) {
    report(st, inv, 'critical', 'clears or rewrites the shell history');
  } else if (hasOption(parsed, '-a', '-n', '-r', '-w')) {
    report(st, inv, 'medium', 'reads or writes the history file');
  }
};

const umask: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { flags: 'pS' });
  if (parsed.operands.length > 0) report(st, inv, 'medium', 'changes the permissions new files get (umask)');
};

const date: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'dfrs',
    attached: 'I',
    long: ['date', 'file', 'reference', 'set', 'iso-8601'],
  });
  if (hasOption(parsed, '-s', '--set') || parsed.operands.some((operand) => /^\d{6,}/.test(operand.value ?? ''))) {
    report(st, inv, 'critical', 'changes the system clock');
  }
  // date -f prints each line of the file it cannot read as a date.
  for (const file of optionValues(parsed, '-f', '--file', '-r', '--reference')) checkPath(st, inv, file, 'read');
};

const hostname: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'F', flags: 'aAbdfiIsy' });
  if (parsed.operands.length > 0 || hasOption(parsed, '-F', '-b')) {
    report(st, inv, 'critical', "changes the machine's name");
  }
};

const tee: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: '', flags: 'aip' });
  report(st, inv, 'medium', 'writes its input to files');
  checkOperands(inv, st, parsed, 'write');
  const text = inv.stdin.kind === 'text' || inv.stdin.kind === 'pipe' ? inv.stdin.text : undefined;
  const download = inv.stdin.kind === 'pipe' && inv.stdin.download;
  for (const file of parsed.operands) {
    noteWrittenFile(st, file, hasOption(parsed, '-a') ? undefined : text);
    if (download) for (const target of resolvedTargets(st, file)) st.downloads.add(target);
  }
  if (inv.stdin.kind === 'pipe' || inv.stdin.kind === 'text') inv.output.text = text;
};

const SORT_OPTIONS: OptionSpec = {
  short: 'kotTS',
  long: [
    'key', 'output', 'field-separator', 'temporary-directory', 'buffer-size', 'compress-program', 'files0-from',
    'parallel', 'batch-size', 'sort', 'random-source',
  ],
}; // prettier-ignore

const sort: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, SORT_OPTIONS);
  if (hasOption(parsed, '--compress-program')) {
    report(st, inv, 'critical', 'makes sort run another program (--compress-program)');
  }
  for (const output of optionValues(parsed, '-o', '--output')) {
    report(st, inv, 'medium', 'writes the sorted result to a file');
    checkPath(st, inv, output, 'write');
  }
  for (const list of optionValues(parsed, '--files0-from', '--random-source')) checkPath(st, inv, list, 'read');
  checkOperands(inv, st, parsed, 'read');
};

/** `uniq IN OUT` and `xxd IN OUT` write their second operand. */
const inputOutput =
  (options: OptionSpec): Handler =>
  (inv, st) => {
    const parsed = parseOptions(inv.args, options);
    const [input, output] = parsed.operands;
    if (input) checkPath(st, inv, input, 'read');
    if (output) {
      report(st, inv, 'medium', `writes its result to a file`);
      checkPath(st, inv, output, 'write');
    }
  };

const jq: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'fL',
    long: ['from-file', 'indent', 'arg', 'argjson', 'slurpfile', 'rawfile', 'args', 'jsonargs'],
  });
  for (const option of parsed.options) {
    if (option.name === '-f' || option.name === '--from-file') {
      if (option.value) checkPath(st, inv, option.value, 'read');
    }
  }
  // --slurpfile/--rawfile take a name and then a file: the file is the operand after the name.
  const fileOptions = parsed.options.filter((option) => option.name === '--slurpfile' || option.name === '--rawfile');
  const files = parsed.operands.slice(hasOption(parsed, '-f', '--from-file') ? 0 : 1);
  for (const file of files.slice(fileOptions.length)) checkPath(st, inv, file, 'read');
  for (const file of files.slice(0, fileOptions.length)) checkPath(st, inv, file, 'read');
};

const yq: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'oIpe', flags: 'iPMCrnN', longFlags: ['inplace'] });
  const inPlace = hasOption(parsed, '-i', '--inplace');
  if (inPlace) report(st, inv, 'medium', 'edits files in place');
  checkOperands(inv, st, parsed, inPlace ? 'write' : 'read', 1);
};

const inPlaceConverter = simple({ risk: 'medium', what: 'rewrites files in place', paths: 'write' });

export const BASIC_HANDLERS: Record<string, Handler> = {
  echo,
  printf,
  pwd: harmless,
  true: harmless,
  false: harmless,
  ':': harmless,
  which: harmless,
  whereis: harmless,
  type: harmless,
  whoami: harmless,
  id: harmless,
  groups: harmless,
  users: harmless,
  who: harmless,
  w: harmless,
  uname: harmless,
  uptime: harmless,
  nproc: harmless,
  free: harmless,
  ps: harmless,
  pgrep: harmless,
  pidof: harmless,
  lsof: harmless,
  seq: harmless,
  yes: harmless,
  sleep: harmless,
  tty: harmless,
  locale: harmless,
  getconf: harmless,
  arch: harmless,
  lsb_release: harmless,
  sw_vers: harmless,
  cal: harmless,
  expr: harmless,
  clear: harmless,
  reset: harmless,
  tput: harmless,
  help: harmless,
  jobs: harmless,
  wait: harmless,
  fg: harmless,
  bg: harmless,
  times: harmless,
  dirs: harmless,
  shift: harmless,
  break: harmless,
  continue: harmless,
  return: harmless,
  exit: harmless,
  logout: harmless,
  disown: harmless,
  suspend: harmless,
  caller: harmless,
  basename: harmless,
  dirname: harmless,
  printenv: harmless,
  bc: harmless,
  factor: harmless,
  numfmt: harmless,
  mktemp: harmless,
  top: harmless,
  htop: harmless,
  vmstat: harmless,
  iostat: harmless,
  lscpu: harmless,
  lsusb: harmless,
  lspci: harmless,
  lsblk: harmless,
  blkid: harmless,
  findmnt: harmless,
  df: harmless,
  sensors: harmless,
  stty: harmless,
  unalias: harmless,
  compopt: harmless,
  ulimit: harmless,
  cut: reads({ short: 'bcdf', long: ['bytes', 'characters', 'delimiter', 'fields', 'output-delimiter'] }),
  tr: harmless,
  cat,
  tac: reads({ short: 's', long: ['separator'] }),
  head: reads({ short: 'nc', long: ['lines', 'bytes'] }),
  tail: reads({ short: 'ncs', long: ['lines', 'bytes', 'sleep-interval', 'pid', 'max-unchanged-stats'] }),
  nl: reads({ short: 'bdfhilnsvw' }),
  fold: reads({ short: 'w' }),
  fmt: reads({ short: 'wpg' }),
  paste: reads({ short: 'd' }),
  join: reads({ short: 'aejot12' }),
  comm: reads(),
  diff: reads({ short: 'CUFILSDxX', long: ['label', 'exclude', 'exclude-from', 'ignore-matching-lines', 'from-file', 'to-file'] }),
  cmp: reads({ short: 'in' }),
  md5sum: reads(),
  sha1sum: reads(),
  sha224sum: reads(),
  sha256sum: reads(),
  sha384sum: reads(),
  sha512sum: reads(),
  b2sum: reads(),
  shasum: reads({ short: 'a' }),
  cksum: reads(),
  sum: reads(),
  // macOS base64 names its input and output files with -i and -o.
  base64: (inv, st) => {
    const parsed = parseOptions(inv.args, { short: 'wbio', long: ['wrap', 'break', 'input', 'output'] });
    for (const input of optionValues(parsed, '-i', '--input')) checkPath(st, inv, input, 'read');
    for (const output of optionValues(parsed, '-o', '--output')) checkPath(st, inv, output, 'write');
    checkOperands(inv, st, parsed, 'read');
  },
  base32: reads({ short: 'w' }),
  basenc: reads({ short: 'w' }),
  od: reads({ short: 'AjNtSw' }),
  hexdump: reads({ short: 'eEfnsC' }),
  hd: reads({ short: 'eEfns' }),
  strings: reads({ short: 'nteTo' }),
  column: reads({ short: 'cstoRNEHOWdlL' }),
  expand: reads({ short: 't' }),
  unexpand: reads({ short: 't' }),
  rev: reads(),
  look: reads(),
  iconv: inputOutput({ short: 'fto', long: ['from-code', 'to-code', 'output'] }),
  grep,
  egrep: grep,
  fgrep: grep,
  rgrep: grep,
  zgrep: grep,
  rg: searchTool,
  ag: searchTool,
  ack: searchTool,
  less: pager,
  more: pager,
  most: pager,
  man,
  wc: lists({ long: ['files0-from'] }),
  file: lists({ short: 'mfFeP' }),
  stat: lists({ short: 'fc', long: ['format', 'printf'] }),
  du: lists({ short: 'BdtX', long: ['block-size', 'max-depth', 'threshold', 'exclude', 'exclude-from', 'time-style', 'files0-from'] }),
  ls: lists({ short: 'ITw', long: ['block-size', 'format', 'hide', 'ignore', 'indicator-style', 'quoting-style', 'sort', 'time', 'time-style', 'tabsize', 'width', 'color', 'hyperlink'] }),
  dir: lists(),
  tree: (inv, st) => {
    const parsed = parseOptions(inv.args, { short: 'LPIo', long: ['filelimit', 'timefmt', 'charset', 'sort'] });
    for (const output of optionValues(parsed, '-o')) checkPath(st, inv, output, 'write');
    checkOperands(inv, st, parsed, 'list');
  },
  realpath: lists(),
  readlink: lists(),
  read,
  mapfile,
  readarray: mapfile,
  getopts,
  test,
  '[': test,
  let: letCommand,
  cd,
  pushd,
  popd,
  set,
  shopt,
  trap,
  alias,
  hash,
  enable,
  bind,
  complete: completion,
  compgen: completion,
  fc,
  history,
  umask,
  date,
  hostname,
  tee,
  sort,
  uniq: inputOutput({ short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars', 'group', 'all-repeated'] }),
  xxd: inputOutput({ short: 'cglosn', long: ['cols', 'groupsize', 'len', 'seek', 'name'] }),
  jq,
  yq,
  mkdir: simple({ risk: 'medium', what: 'creates folders', paths: 'create', options: { short: 'mZ', long: ['mode', 'context'] } }),
  touch: (inv, st) => {
    const parsed = parseOptions(inv.args, { short: 'drt', long: ['date', 'reference', 'time'] });
    report(st, inv, 'medium', 'creates files or changes their times');
    for (const reference of optionValues(parsed, '-r', '--reference')) checkPath(st, inv, reference, 'list');
    checkOperands(inv, st, parsed, 'create');
  },
  rmdir: simple({ risk: 'medium', what: 'removes empty folders', paths: 'delete' }),
  dos2unix: inPlaceConverter,
  unix2dos: inPlaceConverter,
  split: (inv, st) => {
    const parsed = parseOptions(inv.args, { short: 'abCdlnt', long: ['suffix-length', 'additional-suffix', 'bytes', 'line-bytes', 'lines', 'number', 'separator', 'filter'] });
    report(st, inv, 'medium', 'splits a file into pieces');
    for (const filter of optionValues(parsed, '--filter')) runShellText(st, inv, filter.value, 'a split --filter command');
    const [input, prefix] = parsed.operands;
    if (input) checkPath(st, inv, input, 'read');
    if (prefix) checkPath(st, inv, prefix, 'write');
  },
}; // prettier-ignore
