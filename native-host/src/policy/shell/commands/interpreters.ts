import { say, type Localized } from '@nextai/shared';

import {
  checkPath,
  checkProgramArguments,
  checkUrlArguments,
  joinedValue,
  report,
  runInner,
  runShellText,
  runsWrittenFile,
  type Invocation,
} from '../invocation.js';
import { hasOption, optionValues, parseOptions } from '../options.js';
import { joinZh, type ShellPhrase } from '../phrases.js';
import { noteUnseenCode } from '../sandbox-needs.js';
import type { AnalysisState } from '../state.js';
import { awkProgramConcern, sedScriptConcern } from '../text-programs.js';
import type { Word } from '../words.js';
import { checkOperands, type Handler } from './types.js';

/** Language names as the Chinese text writes them; the rest are written as in English. */
const LANGUAGE_ZH: Record<string, string> = { 'Java script engine': 'Java 脚本引擎' };

function inChinese(language: string): string {
  return LANGUAGE_ZH[language] ?? language;
}

/** A program reading code from its input: a download piped in gets its own, clearer reason. */
function readsCodeFromInput(inv: Invocation, st: AnalysisState, language: string): void {
  const zh = inChinese(language);
  noteUnseenCode(inv, st);
  if (inv.stdin.kind === 'pipe' && inv.stdin.download) {
    report(st, inv, 'critical', say(`runs a download as ${language} code`, joinZh('把下载的内容当作', zh, '代码运行')));
    st.effects.runsDownload ??= { excerpt: inv.excerpt };
  } else {
    report(
      st,
      inv,
      'critical',
      say(
        `runs ${language} code it reads from its input, which cannot be checked`,
        joinZh('运行从输入读取的', zh, '代码，这些代码无法检查'),
      ),
    );
  }
}

function runsScript(
  inv: Invocation,
  st: AnalysisState,
  script: Word,
  language: string,
  args: readonly Word[] = [],
): void {
  const zh = inChinese(language);
  if (script.processSubstitution) {
    report(
      st,
      inv,
      'critical',
      say(`runs the output of another command as ${language} code`, joinZh('把另一个命令的输出当作', zh, '代码运行')),
    );
    return;
  }
  if (
    script.value === '/dev/stdin' ||
    script.value === '-' ||
    /^\/dev\/fd\/\d+$|^\/proc\/(?:self|\d+)\/fd\/\d+$/.test(script.value ?? '')
  ) {
    readsCodeFromInput(inv, st, language);
    return;
  }
  report(st, inv, 'high', say(`runs a ${language} script`, joinZh('运行', zh, '脚本')));
  // A script file NextAI does not read (`source x.sh`, `awk -f x.awk`): it must not leave the sandbox unseen.
  noteUnseenCode(inv, st);
  checkPath(st, inv, script, 'exec');
  runsWrittenFile(st, inv, script, language);
  checkProgramArguments(st, inv, args, say(`a ${language} script`, joinZh(zh, '脚本')));
}

const SHELL_LONG_VALUE = [
  'rcfile',
  'init-file',
  'init-command',
  'command',
  'profile',
  'debug',
  'features',
  'debug-output',
];
const SHELL_LONG_FLAGS = [
  'login', 'noprofile', 'norc', 'posix', 'restricted', 'verbose', 'debugger', 'dump-strings', 'dump-po-strings',
  'noediting', 'pretty-print', 'interactive', 'no-config', 'no-execute', 'private', 'print-rusage-self',
]; // prettier-ignore
const SHELL_INFO = new Set(['--version', '--help', '-version', '-help']);

/** sh, bash, zsh, fish, …: `-c 'text'` is analysed as shell; a script is project code; input is unknown. */
const shell: Handler = (inv, st) => {
  const args = inv.args;
  let command: boolean | string = false;
  let interactive = false;
  let index = 0;
  for (; index < args.length; index++) {
    const word = args[index] as Word;
    const value = word.value;
    if (value === undefined) break;
    if (SHELL_INFO.has(value)) return;
    if (value === '--' || value === '-') {
      index += 1;
      break;
    }
    if (value.startsWith('--')) {
      const name = value.slice(2).split('=')[0] ?? '';
      if (name === 'command') command = 'next';
      else if (name === 'rcfile' || name === 'init-file' || name === 'profile') {
        const file = value.includes('=') ? { ...word, value: value.slice(value.indexOf('=') + 1) } : args[++index];
        if (file && name !== 'profile') runsScript(inv, st, file, 'shell');
      } else if (name === 'init-command') {
        const text = value.includes('=') ? value.slice(value.indexOf('=') + 1) : args[++index]?.value;
        runShellText(st, inv, text, 'a shell start-up command');
      } else if (name === 'interactive') interactive = true;
      else if (SHELL_LONG_VALUE.includes(name) && !value.includes('=')) index += 1;
      else if (!SHELL_LONG_FLAGS.includes(name) && !SHELL_LONG_VALUE.includes(name)) {
        report(
          st,
          inv,
          'critical',
          say(
            `starts a shell with an option the analyser does not know (${value})`,
            `用分析器不认识的选项启动 shell（${value}）`,
          ),
        );
      }
      continue;
    }
    if (!/^[-+]/.test(value)) break;
    for (const letter of value.slice(1)) {
      if (letter === 'c') command = 'next';
      else if (letter === 'i' || letter === 's') interactive = true;
      else if (letter === 'o' || letter === 'O') index += 1;
      else if (letter === 'C' && inv.program === 'fish') {
        runShellText(st, inv, args[++index]?.value, 'a shell start-up command');
      }
    }
  }
  const operand = args[index];
  if (command) {
    runShellText(st, inv, operand?.value, 'runs a shell command');
    return;
  }
  if (operand && !interactive) {
    runsScript(inv, st, operand, 'shell', args.slice(index + 1));
    return;
  }
  if (inv.stdin.kind === 'text' && !interactive) {
    runShellText(st, inv, inv.stdin.text, 'runs shell commands from a heredoc', { kind: 'terminal' });
    return;
  }
  readsCodeFromInput(inv, st, 'shell');
};

interface Language {
  name: string;
  /** Options whose value is code to run. */
  inline: string[];
  /** Short option letters that take a value (the next word or the rest of the cluster). */
  valueLetters: string;
  /** Long options (with `--`) that take the next word as value. */
  longValue?: string[];
  /** Options that only print information. */
  info: string[];
  /** Options that run a named module or file instead of a script operand. */
  module?: string[];
  /** Options that keep reading code from the input after the script. */
  interactive?: string[];
}

/** A handler for an interpreter: inline code is critical, a script file is project code, input is unknown. */
function interpreter(language: Language): Handler {
  const zh = inChinese(language.name);
  const inline: Localized = say(`runs inline ${language.name} code`, joinZh('运行直接写在命令行里的', zh, '代码'));
  return (inv, st) => {
    const args = inv.args;
    if (args.length === 1 && args[0]?.value !== undefined && language.info.includes(args[0].value)) return;
    let index = 0;
    for (; index < args.length; index++) {
      const word = args[index] as Word;
      const value = word.value;
      if (value === undefined) {
        if (word.text.startsWith('-')) {
          report(
            st,
            inv,
            'critical',
            say(`starts ${language.name} with options computed at run time`, joinZh('用运行时才确定的选项启动', zh)),
          );
          return;
        }
        break;
      }
      if (language.info.includes(value)) return;
      if (value === '--') {
        index += 1;
        break;
      }
      if (value === '-') {
        readsCodeFromInput(inv, st, language.name);
        return;
      }
      const name = value.split('=')[0] ?? value;
      if (language.inline.includes(name)) {
        report(st, inv, 'critical', inline);
        return;
      }
      if (language.module?.includes(name)) {
        const moduleName = args[index + 1]?.text ?? '';
        report(
          st,
          inv,
          'high',
          say(
            `runs the ${language.name} module ${moduleName}`.trimEnd(),
            `${joinZh('运行', zh, '模块')} ${moduleName}`.trimEnd(),
          ),
        );
        checkProgramArguments(st, inv, args.slice(index + 2), say(`a ${language.name} module`, joinZh(zh, '模块')));
        return;
      }
      if (language.interactive?.includes(name)) {
        readsCodeFromInput(inv, st, language.name);
        return;
      }
      if (value.startsWith('--')) {
        if (language.longValue?.includes(name) && !value.includes('=')) index += 1;
        continue;
      }
      if (!value.startsWith('-') || value.length === 1) break;
      // A cluster such as perl's `-pie` or python's `-Bc`: letters up to one that takes a value.
      let consumed = false;
      for (const letter of value.slice(1)) {
        if (language.inline.includes(`-${letter}`)) {
          report(st, inv, 'critical', inline);
          return;
        }
        if (language.module?.includes(`-${letter}`)) {
          report(st, inv, 'high', say(`runs a ${language.name} module`, joinZh('运行', zh, '模块')));
          return;
        }
        if (language.interactive?.includes(`-${letter}`)) {
          readsCodeFromInput(inv, st, language.name);
          return;
        }
        if (language.valueLetters.includes(letter)) {
          consumed = value.endsWith(letter);
          break;
        }
      }
      // Never take code-running options for a value: `perl -pi -e CODE` must still be seen as inline code.
      const next = args[index + 1]?.value?.split('=')[0] ?? '';
      if (consumed && !language.inline.includes(next) && !language.interactive?.includes(next)) index += 1;
    }
    const script = args[index];
    if (script) runsScript(inv, st, script, language.name, args.slice(index + 1));
    else readsCodeFromInput(inv, st, language.name);
  };
}

const python = interpreter({
  name: 'python',
  inline: ['-c'],
  valueLetters: 'WX',
  longValue: ['--check-hash-based-pycs'],
  info: ['-V', '--version', '-h', '--help', '-VV'],
  module: ['-m'],
  interactive: ['-i'],
});

const NODE_VALUE = ['--require', '--import', '--loader', '--experimental-loader', '--conditions', '--input-type',
  '--inspect-port', '--title', '--env-file', '--watch-path', '--test-reporter', '--test-reporter-destination',
  '--test-name-pattern', '--redirect-warnings', '--icu-data-dir', '--openssl-config', '--cpu-prof-dir',
  '--heap-prof-dir', '--diagnostic-dir', '--report-dir', '--secure-heap', '--stack-trace-limit']; // prettier-ignore

const nodeLanguage = interpreter({
  name: 'JavaScript',
  inline: ['-e', '--eval', '-p', '--print'],
  valueLetters: 'rC',
  longValue: NODE_VALUE,
  info: ['-v', '--version', '-h', '--help', '--v8-options'],
  interactive: ['-i', '--interactive'],
});

/** `node --test` with no file runs the project's tests; otherwise node is an interpreter. */
const node: Handler = (inv, st) => {
  if (
    inv.args.some((arg) => arg.value === '--test') &&
    !inv.args.some((arg) => /^-(?:e|p|-eval|-print)$/.test(arg.value ?? ''))
  ) {
    report(st, inv, 'high', "runs the project's tests");
    for (const arg of inv.args)
      if (arg.value !== undefined && !arg.value.startsWith('-')) checkPath(st, inv, arg, 'exec');
    return;
  }
  nodeLanguage(inv, st);
};

const ruby = interpreter({
  name: 'ruby',
  inline: ['-e'],
  valueLetters: 'IrCEFx',
  info: ['-v', '--version', '-h', '--help'],
  interactive: [],
});

/** perl's -i, -l, -0, -I, -M, -m, -C, -D, -x take attached values; -e/-E take the next word as code. */
const perl = interpreter({
  name: 'perl',
  inline: ['-e', '-E'],
  valueLetters: 'IMmilCDx0',
  info: ['-v', '--version', '-h', '--help', '-V'],
});

const php = interpreter({
  name: 'PHP',
  inline: ['-r', '-B', '-R', '-F', '-E'],
  valueLetters: 'cdzt',
  info: ['-v', '--version', '-h', '--help', '-i', '--info', '-m', '--modules', '-l', '--syntax-check'],
  interactive: ['-a', '--interactive'],
});

const lua = interpreter({ name: 'Lua', inline: ['-e'], valueLetters: 'l', info: ['-v'], interactive: ['-i'] });
const rscript = interpreter({ name: 'R', inline: ['-e', '--expr'], valueLetters: '', info: ['--version', '--help'] });
const osascript = interpreter({ name: 'AppleScript', inline: ['-e'], valueLetters: 'lsi', info: [] });
const julia = interpreter({
  name: 'Julia',
  inline: ['-e', '-E', '--eval', '--print'],
  valueLetters: 'LJCOtpH',
  info: ['-v', '--version', '-h', '--help'],
  interactive: ['-i'],
});
const groovy = interpreter({ name: 'Groovy', inline: ['-e'], valueLetters: 'cD', info: ['-v', '--version'] });
const expect = interpreter({ name: 'expect', inline: ['-c'], valueLetters: 'f', info: ['-v'], interactive: ['-i'] });
const jrunscript = interpreter({
  name: 'Java script engine',
  inline: ['-e'],
  valueLetters: 'lf',
  info: ['-help', '-q'],
});
const tcl = interpreter({ name: 'Tcl', inline: [], valueLetters: '', info: [] });
const repl =
  (name: string): Handler =>
  (inv, st) =>
    readsCodeFromInput(inv, st, name);

const PWSH_INLINE = /^[-/](?:c|command|ec|e|encodedcommand|commandwithargs|cwa)$/i;

const powershell: Handler = (inv, st) => {
  for (let index = 0; index < inv.args.length; index++) {
    const value = inv.args[index]?.value;
    if (value === undefined) {
      report(st, inv, 'critical', 'starts PowerShell with arguments computed at run time');
      return;
    }
    if (/^[-/](?:v|version|\?|help)$/i.test(value)) return;
    if (PWSH_INLINE.test(value)) {
      report(st, inv, 'critical', 'runs inline PowerShell code');
      return;
    }
    if (/^[-/](?:f|file)$/i.test(value)) {
      const script = inv.args[index + 1];
      if (script) runsScript(inv, st, script, 'PowerShell');
      return;
    }
    if (!value.startsWith('-') && !value.startsWith('/')) {
      // A bare argument is a script (`build.ps1`) or, for Windows PowerShell, a command.
      if (/\.ps1$/i.test(value)) runsScript(inv, st, inv.args[index] as Word, 'PowerShell');
      else report(st, inv, 'critical', 'runs PowerShell code the analyser cannot read');
      return;
    }
  }
  readsCodeFromInput(inv, st, 'PowerShell');
};

const windowsShell: Handler = (inv, st) => {
  report(st, inv, 'critical', 'runs a Windows command line, which the analyser cannot read');
};

/** deno and bun: subcommands run project code; eval and the REPL run code the analyser cannot see. */
const jsRuntime: Handler = (inv, st) => {
  const [first] = inv.args;
  const value = first?.value;
  if (value === undefined) {
    if (first) {
      report(
        st,
        inv,
        'critical',
        say(`starts ${inv.program} with arguments computed at run time`, `用运行时才确定的参数启动 ${inv.program}`),
      );
    } else readsCodeFromInput(inv, st, 'JavaScript');
    return;
  }
  if (['-v', '-V', '--version', '-h', '--help', 'help', 'completions', 'types'].includes(value)) return;
  if (['eval', 'repl', '-e', '--eval', '-p', '--print'].includes(value)) {
    report(
      st,
      inv,
      'critical',
      say(
        `runs inline JavaScript code (${inv.program} ${value})`,
        `运行直接写在命令行里的 JavaScript 代码（${inv.program} ${value}）`,
      ),
    );
    return;
  }
  if (value === 'x' || value === 'dlx') {
    report(st, inv, 'high', 'downloads and runs a package');
    return;
  }
  if (inv.args.some((arg) => arg.value === '-')) {
    readsCodeFromInput(inv, st, 'JavaScript');
    return;
  }
  if (inv.args.some((arg) => arg.value !== undefined && /^https?:\/\//i.test(arg.value))) {
    checkUrlArguments(st, inv, inv.args);
    report(st, inv, 'critical', 'runs code straight from the network');
    return;
  }
  report(
    st,
    inv,
    'high',
    say(`runs project code or packages (${inv.program} ${value})`, `运行项目代码或软件包（${inv.program} ${value}）`),
  );
  if (!value.startsWith('-') && /\.[cm]?[jt]sx?$/.test(value)) checkPath(st, inv, first as Word, 'exec');
};

/** eval joins its arguments and runs them as shell: fixed text is analysed, anything else fails closed. */
const evalCommand: Handler = (inv, st) => {
  runShellText(st, inv, joinedValue(inv.args), 'evaluates shell text');
};

/** `source FILE` / `. FILE` runs a file in this shell. */
const source: Handler = (inv, st) => {
  const [script] = inv.args;
  if (!script) return;
  if (script.value === undefined) {
    report(
      st,
      inv,
      'critical',
      script.processSubstitution
        ? 'runs the output of another command in this shell'
        : 'runs a file whose name is computed at run time in this shell',
    );
    return;
  }
  runsScript(inv, st, script, 'shell');
};

/** `exec CMD` replaces the shell with CMD; `exec` with only redirects changes the shell's files. */
const exec: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'a', flags: 'cl', stopAtOperand: true });
  if (parsed.unknown.length > 0) report(st, inv, 'critical', 'uses exec options the analyser does not know');
  if (parsed.operands.length === 0) return;
  runInner(st, inv, parsed.operands);
};

/** sed is a text editor language: plain substitutions are fine; e, w, r and friends are not. */
const sed: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'efl',
    attached: 'i',
    flags: 'nrEsuzb',
    long: ['expression', 'file', 'line-length'],
    longFlags: ['in-place', 'quiet', 'silent', 'regexp-extended', 'separate', 'unbuffered', 'null-data', 'posix',
      'debug', 'sandbox', 'follow-symlinks', 'binary', 'help', 'version'],
  }); // prettier-ignore
  const scripts = optionValues(parsed, '-e', '--expression');
  const files = optionValues(parsed, '-f', '--file');
  let operands = parsed.operands;
  if (scripts.length === 0 && files.length === 0) {
    const [script, ...rest] = operands;
    if (script) scripts.push(script);
    operands = rest;
  }
  for (const file of files) runsScript(inv, st, file, 'sed');
  for (const script of scripts) {
    const concern: ShellPhrase | Localized | undefined =
      script.value === undefined ? 'runs a sed script computed at run time' : sedScriptConcern(script.value);
    if (concern) report(st, inv, 'critical', concern);
  }
  const inPlace = hasOption(parsed, '-i', '--in-place');
  if (inPlace) report(st, inv, 'medium', 'edits files in place');
  for (const operand of operands) checkPath(st, inv, operand, inPlace ? 'write' : 'read');
};

/** awk: a program that only transforms text is fine; system(), pipes, getline < and print > are not. */
const awk: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'FvfeEilo',
    attached: 'dDLpo',
    flags: 'bcCghMnNOPrsStV',
    long: ['field-separator', 'assign', 'file', 'source', 'exec', 'include', 'load', 'pretty-print', 'dump-variables',
      'profile', 'lint'],
  }); // prettier-ignore
  if (hasOption(parsed, '-l', '--load')) report(st, inv, 'critical', 'loads a compiled awk extension');
  for (const output of optionValues(parsed, '-o', '--pretty-print', '-p', '--profile', '-d', '--dump-variables')) {
    checkPath(st, inv, output, 'write');
  }
  const programFiles = optionValues(parsed, '-f', '--file', '-E', '--exec', '-i', '--include');
  for (const file of programFiles) runsScript(inv, st, file, 'awk');
  const programs = optionValues(parsed, '-e', '--source');
  let operands = parsed.operands;
  if (programFiles.length === 0 && programs.length === 0) {
    const [program, ...rest] = operands;
    if (program) programs.push(program);
    operands = rest;
  }
  for (const program of programs) {
    const concern: ShellPhrase | Localized | undefined =
      program.value === undefined ? 'runs an awk program computed at run time' : awkProgramConcern(program.value);
    if (concern) report(st, inv, 'critical', concern);
  }
  for (const operand of operands) {
    // `var=value` operands assign variables; the rest are input files.
    if (operand.value !== undefined && /^[A-Za-z_]\w*=/.test(operand.value)) continue;
    checkPath(st, inv, operand, 'read');
  }
};

/** A vim command that only moves the cursor (`+42`, `+/pattern`) is harmless; others can run shell commands. */
function harmlessVimCommand(command: string): boolean {
  return /^(?:\d*|\/[^|!]*|\$|set\s+[\w=]+|wq?|q!?|x)$/.test(command.trim());
}

const vim: Handler = (inv, st) => {
  report(st, inv, 'high', 'opens an editor');
  for (let index = 0; index < inv.args.length; index++) {
    const value = inv.args[index]?.value;
    if (value === undefined) {
      report(st, inv, 'critical', 'starts an editor with arguments computed at run time');
      continue;
    }
    if (value === '-c' || value === '--cmd' || value.startsWith('+')) {
      const command = value.startsWith('+') ? value.slice(1) : inv.args[++index]?.value;
      if (command === undefined || !harmlessVimCommand(command)) {
        report(st, inv, 'critical', 'gives the editor commands to run, which can run shell commands');
        // Code nobody saw: on the display (app_launch) it could type into the person's windows.
        noteUnseenCode(inv, st);
      }
    } else if (/^-[^-]*[SuU]$/.test(value)) {
      // `-S file`, `-u file`, also combined with flags before them (`-Nu file`).
      const file = inv.args[++index];
      if (file?.value !== 'NONE') {
        report(st, inv, 'critical', 'makes the editor run a script file');
        noteUnseenCode(inv, st);
      }
    } else if (/^-[^-]*[esE]/.test(value) && !value.startsWith('--')) {
      report(st, inv, 'critical', 'runs the editor in batch mode, reading commands from its input');
      noteUnseenCode(inv, st);
    } else if (!value.startsWith('-')) {
      checkPath(st, inv, inv.args[index] as Word, 'write');
    }
  }
};

/** ed reads editing commands from its input; `!` among them runs shell commands. */
const ed: Handler = (inv, st) => {
  const text = inv.stdin.kind === 'text' ? inv.stdin.text : undefined;
  if (inv.program !== 'red' && (text === undefined || text.includes('!'))) {
    report(st, inv, 'critical', 'runs editor commands that can run shell commands (ed)');
  } else {
    report(st, inv, 'medium', 'edits files with ed');
  }
  checkOperands(inv, st, parseOptions(inv.args, { short: 'p', flags: 'GlrsvE' }), 'write');
};

const emacs: Handler = (inv, st) => {
  const risky = inv.args.some(
    (arg) =>
      arg.value === undefined || /^--?(?:eval|execute|load|l|funcall|f|batch|script|x|daemon)(?:=|$)/.test(arg.value),
  );
  report(st, inv, risky ? 'critical' : 'high', risky ? 'makes the editor run Lisp code' : 'opens an editor');
  if (risky) noteUnseenCode(inv, st);
};

/** gdb takes its long options with one dash as well as two (`-eval-command=…`). */
const DEBUGGER_COMMANDS =
  /^(?:-ex|-iex|--?eval-command|-x|-ix|--?command|--?init-command|--?init-eval-command|--?batch|-p|--?pid|-o|-O|-k|-K|-s|-S|--?one-line|--?one-line-before-file|--?source|--?source-before-file|--?attach-pid)(?:=|$)/;

const debuggerHandler: Handler = (inv, st) => {
  if (inv.args.some((arg) => arg.value === undefined || DEBUGGER_COMMANDS.test(arg.value))) {
    report(st, inv, 'critical', 'gives a debugger commands, or attaches it to a running process');
    noteUnseenCode(inv, st);
  } else {
    report(st, inv, 'high', 'runs a program under a debugger');
  }
};

const dc: Handler = (inv, st) => {
  if (inv.args.length === 1 && /^-(?:V|-version|h|-help)$/.test(inv.args[0]?.value ?? '')) return;
  report(st, inv, 'critical', 'runs a dc program, which can run shell commands (!)');
};

export const INTERPRETER_HANDLERS: Record<string, Handler> = {
  sh: shell,
  bash: shell,
  rbash: shell,
  zsh: shell,
  dash: shell,
  ash: shell,
  ksh: shell,
  ksh93: shell,
  mksh: shell,
  pdksh: shell,
  yash: shell,
  posh: shell,
  fish: shell,
  csh: shell,
  tcsh: shell,
  python: python,
  pypy: python,
  node,
  nodejs: node,
  ruby,
  perl,
  php,
  lua,
  luajit: lua,
  rscript,
  r: interpreter({ name: 'R', inline: ['-e'], valueLetters: 'f', info: ['--version', '--help'], interactive: [] }),
  osascript,
  julia,
  groovy,
  expect,
  jrunscript,
  tclsh: tcl,
  wish: tcl,
  jshell: repl('Java'),
  irb: repl('ruby'),
  pry: repl('ruby'),
  ipython: interpreter({
    name: 'python',
    inline: ['-c'],
    valueLetters: '',
    info: ['--version', '-h', '--help'],
    module: ['-m'],
  }),
  pwsh: powershell,
  powershell,
  cmd: windowsShell,
  wsl: windowsShell,
  deno: jsRuntime,
  bun: jsRuntime,
  eval: evalCommand,
  source,
  '.': source,
  exec,
  sed,
  gsed: sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  vim,
  vi: vim,
  nvim: vim,
  view: vim,
  vimdiff: vim,
  gvim: vim,
  rvim: vim,
  ex: (inv, st) => report(st, inv, 'critical', 'runs editor commands that can run shell commands (ex)'),
  ed,
  red: ed,
  emacs,
  nano: (inv, st) => report(st, inv, 'medium', 'opens an editor'),
  gdb: debuggerHandler,
  lldb: debuggerHandler,
  dc,
};
