import { say, type RiskLevel } from '@nextai/shared';

import { criticalVariable, storesCommandText } from '../environment.js';
import {
  RUNTIME_ARGS,
  changeDirectory,
  checkPath,
  joinedValue,
  report,
  runInner,
  runShellText,
  type Invocation,
} from '../invocation.js';
import { hasOption, optionValues, parseOptions, type OptionSpec, type ParsedArgs } from '../options.js';
import type { ShellPhrase } from '../phrases.js';
import type { AnalysisState } from '../state.js';
import { literalWord, type Word } from '../words.js';
import type { Handler } from './types.js';

interface WrapperRule extends OptionSpec {
  /** Operands before the command (timeout's duration, taskset's mask). */
  before?: number;
  /** The risk of the wrapper itself, whatever it runs. */
  risk?: RiskLevel;
  what?: ShellPhrase;
  /** Options that act on a running process instead of starting a command. */
  onProcess?: string[];
  /** Without a command the wrapper starts an interactive shell. */
  shellWithoutCommand?: boolean;
}

/** Options a wrapper does not know may take a value, so the command it runs cannot be found: fail closed. */
function unknownOptions(inv: Invocation, st: AnalysisState, parsed: ParsedArgs): void {
  if (parsed.unknown.length > 0) {
    const unknown = parsed.unknown.join(', ');
    report(
      st,
      inv,
      'critical',
      say(
        `uses ${inv.program} options the analyser does not know (${unknown})`,
        `使用了分析器不认识的 ${inv.program} 选项（${unknown}）`,
      ),
    );
  }
}

/** A program that runs another (`nice CMD`, `timeout 5 CMD`): the inner command is what matters. */
function wrapper(rule: WrapperRule): Handler {
  return (inv, st) => {
    const parsed = parseOptions(inv.args, { ...rule, stopAtOperand: true });
    if (rule.risk) {
      const what = rule.what ?? say(`runs a command through ${inv.program}`, `通过 ${inv.program} 运行命令`);
      report(st, inv, rule.risk, what);
    }
    unknownOptions(inv, st, parsed);
    if (rule.onProcess && hasOption(parsed, ...rule.onProcess)) {
      report(
        st,
        inv,
        'high',
        say(`changes a running process (${inv.program})`, `更改正在运行的进程（${inv.program}）`),
      );
      return;
    }
    const command = parsed.operands.slice(rule.before ?? 0);
    if (command.length === 0) {
      if (rule.shellWithoutCommand) {
        report(
          st,
          inv,
          'critical',
          say(`starts an interactive shell (${inv.program})`, `启动交互式 shell（${inv.program}）`),
        );
      }
      return;
    }
    runInner(st, inv, command);
  };
}

/** env: variables, -u, -C, -S and then the command; without a command it prints the environment. */
const env: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'uCS',
    flags: 'i0v',
    long: ['unset', 'chdir', 'split-string', 'block-signal', 'default-signal', 'ignore-signal'],
    longFlags: ['ignore-environment', 'null', 'debug', 'list-signal-handling', 'help', 'version'],
    stopAtOperand: true,
  });
  unknownOptions(inv, st, parsed);
  for (const dir of optionValues(parsed, '-C', '--chdir')) changeDirectory(inv, st, dir);
  const variables = new Map(inv.env);
  let operands = parsed.operands;
  if (operands[0]?.value === '-') operands = operands.slice(1);
  while (operands[0]?.value !== undefined && /^[A-Za-z_]\w*=/.test(operands[0].value)) {
    const text = operands[0].value;
    const name = text.slice(0, text.indexOf('='));
    const value = literalWord(text.slice(text.indexOf('=') + 1));
    const why = criticalVariable(name, value);
    if (why) report(st, inv, 'critical', why);
    if (storesCommandText(value)) report(st, inv, 'critical', 'stores command text that a later expansion could run');
    variables.set(name, value);
    operands = operands.slice(1);
  }
  const split = optionValues(parsed, '-S', '--split-string');
  if (split.length > 0) {
    runShellText(st, inv, joinedValue([...split, ...operands]), 'runs a command split from a string (env -S)');
    return;
  }
  if (operands.length > 0) runInner(st, inv, operands, { env: variables });
};

/** `command -v NAME` only looks a name up; `command NAME …` runs it. */
const command: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { flags: 'pvV', stopAtOperand: true });
  unknownOptions(inv, st, parsed);
  if (hasOption(parsed, '-v', '-V')) return;
  runInner(st, inv, parsed.operands);
};

const builtin: Handler = (inv, st) => runInner(st, inv, inv.args);

const watch: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'nq',
    attached: 'd',
    flags: 'tbegcxpwrC',
    long: ['interval', 'differences'],
    longFlags: ['no-title', 'beep', 'errexit', 'chgexit', 'color', 'no-color', 'exec', 'precise', 'no-wrap', 'no-rerun'],
    stopAtOperand: true,
  }); // prettier-ignore
  unknownOptions(inv, st, parsed);
  if (parsed.operands.length === 0) return;
  // Without -x, watch hands the words, joined by spaces, to `sh -c`.
  if (hasOption(parsed, '-x', '--exec')) runInner(st, inv, parsed.operands);
  else runShellText(st, inv, joinedValue(parsed.operands), 'runs a command through watch');
};

/** xargs runs a command with arguments read from its input; those arguments are unknown. */
const xargs: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'adEILnPs',
    attached: 'eil',
    flags: '0oprtx',
    long: ['arg-file', 'delimiter', 'eof', 'replace', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    longFlags: ['null', 'interactive', 'no-run-if-empty', 'verbose', 'exit', 'open-tty', 'show-limits', 'help', 'version'],
    stopAtOperand: true,
  }); // prettier-ignore
  unknownOptions(inv, st, parsed);
  for (const file of optionValues(parsed, '-a', '--arg-file')) checkPath(st, inv, file, 'read');
  const replace = [...optionValues(parsed, '-I', '--replace'), ...optionValues(parsed, '-i')].at(-1);
  const replaceText = replace === undefined ? (hasOption(parsed, '-i') ? '{}' : undefined) : replace.value;
  const words = parsed.operands.length > 0 ? parsed.operands : [literalWord('echo')];
  const stdin = hasOption(parsed, '-o', '--open-tty') ? { kind: 'terminal' as const } : { kind: 'none' as const };
  if (replaceText !== undefined) {
    const replaced = words.map((word) =>
      word.value === undefined || word.value.includes(replaceText) ? RUNTIME_ARGS : word,
    );
    runInner(st, inv, replaced, { stdin });
  } else {
    const given = hasOption(parsed, '-a', '--arg-file', '-0', '--null', '-d', '--delimiter', '-E', '-e', '--eof')
      ? undefined
      : fixedInput(inv);
    runInner(st, inv, [...words, ...(given ?? [RUNTIME_ARGS])], { stdin });
  }
};

/**
 * The arguments xargs reads when its input is fixed text (`echo -1 | xargs kill`): the words of
 * that text. Quotes and backslashes, which xargs interprets, leave them unknown.
 */
function fixedInput(inv: Invocation): Word[] | undefined {
  const text = inv.stdin.kind === 'pipe' || inv.stdin.kind === 'text' ? inv.stdin.text : undefined;
  if (text === undefined || /["'\\]/.test(text)) return undefined;
  return text
    .split(/\s+/)
    .filter((word) => word !== '')
    .map(literalWord);
}

const tracer: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'eoupsSaEIOPXbAUn',
    long: ['output', 'attach', 'user', 'string-limit', 'summary-columns', 'trace', 'signal', 'status', 'env', 'trace-path'],
    stopAtOperand: true,
  }); // prettier-ignore
  report(st, inv, 'high', 'traces a program');
  unknownOptions(inv, st, parsed);
  if (hasOption(parsed, '-p', '--attach', '-u', '--user')) {
    report(st, inv, 'critical', 'attaches to a running process or runs as another user, and can read its secrets');
  }
  for (const output of optionValues(parsed, '-o', '--output')) checkPath(st, inv, output, 'write');
  runInner(st, inv, parsed.operands);
};

const chroot: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    long: ['userspec', 'groups'],
    longFlags: ['skip-chdir'],
    stopAtOperand: true,
  });
  report(st, inv, 'high', 'runs a program inside another root folder');
  unknownOptions(inv, st, parsed);
  const [, ...command] = parsed.operands;
  if (command.length === 0) report(st, inv, 'critical', 'starts an interactive shell (chroot)');
  else runInner(st, inv, command);
};

const script: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'cEIOTmB',
    attached: 't',
    flags: 'aefqh',
    long: ['command', 'echo', 'log-in', 'log-out', 'log-timing', 'logging-format', 'log-io', 'output-limit'],
  }); // prettier-ignore
  const commands = optionValues(parsed, '-c', '--command');
  for (const file of parsed.operands) checkPath(st, inv, file, 'write');
  if (commands.length === 0) {
    report(st, inv, 'critical', 'starts an interactive shell (script)');
    return;
  }
  for (const text of commands) runShellText(st, inv, text.value, 'runs a command through script');
};

const SUDO_SPEC: OptionSpec = {
  short: 'ugCDhprtTU',
  flags: 'AbEeHiKklnPSsVvB',
  long: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user'],
  longFlags: ['preserve-env', 'login', 'shell', 'edit', 'list', 'non-interactive', 'stdin', 'askpass', 'background',
    'bell', 'reset-timestamp', 'remove-timestamp', 'validate', 'version', 'help', 'preserve-groups', 'set-home'],
  stopAtOperand: true,
}; // prettier-ignore

/** Any privilege change is critical; the inner command is still analysed so its own findings show. */
const sudo: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, SUDO_SPEC);
  const harmless =
    parsed.operands.length === 0 &&
    parsed.options.every((option) =>
      ['-k', '-K', '-V', '-h', '--version', '--help', '--reset-timestamp', '--remove-timestamp'].includes(option.name),
    );
  if (harmless && parsed.options.length > 0) return;
  report(
    st,
    inv,
    'critical',
    say(`runs a command with raised privileges (${inv.program})`, `以提升的权限运行命令（${inv.program}）`),
  );
  runInner(st, inv, parsed.operands);
};

const su: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'cCsgGw',
    flags: 'lmpPfh',
    long: ['command', 'session-command', 'shell', 'group', 'supp-group', 'whitelist-environment', 'user'],
    longFlags: ['login', 'preserve-environment', 'pty', 'fast', 'help', 'version'],
  }); // prettier-ignore
  report(st, inv, 'critical', say(`switches to another user (${inv.program})`, `切换到另一个用户（${inv.program}）`));
  for (const text of optionValues(parsed, '-c', '--command', '-C', '--session-command')) {
    runShellText(st, inv, text.value, 'runs a command as another user');
  }
  if (inv.program === 'runuser' && !hasOption(parsed, '-c', '--command')) {
    const operands = parsed.operands.filter((operand) => operand.value !== '-');
    runInner(st, inv, hasOption(parsed, '-u', '--user') ? operands : operands.slice(1));
  }
};

const doas: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'Cu', flags: 'Lns', stopAtOperand: true });
  report(st, inv, 'critical', 'runs a command with raised privileges (doas)');
  runInner(st, inv, parsed.operands);
};

const pkexec: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    long: ['user'],
    longFlags: ['keep-cwd', 'disable-internal-agent', 'version', 'help'],
    stopAtOperand: true,
  });
  report(st, inv, 'critical', 'runs a command with raised privileges (pkexec)');
  runInner(st, inv, parsed.operands);
};

/** run0 (systemd): sudo's replacement, through the service manager. */
const run0: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'ugDpM',
    long: ['user', 'group', 'chdir', 'nice', 'setenv', 'unit', 'property', 'description', 'slice', 'machine',
      'shell-prompt-prefix', 'background'],
    longFlags: ['no-ask-password', 'slice-inherit', 'pty', 'pipe', 'via-shell', 'help', 'version'],
    stopAtOperand: true,
  }); // prettier-ignore
  report(
    st,
    inv,
    'critical',
    say(`runs a command with raised privileges (${inv.program})`, `以提升的权限运行命令（${inv.program}）`),
  );
  unknownOptions(inv, st, parsed);
  runInner(st, inv, parsed.operands);
};

/** please (a sudo alternative): `please [-t user] [-d dir] command`; pleaseedit edits files as root. */
const please: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'cdrtua',
    flags: 'hlnpvw',
    long: ['check', 'dir', 'reason', 'target', 'user', 'allowenv'],
    longFlags: ['help', 'list', 'noprompt', 'purge', 'version', 'warm'],
    stopAtOperand: true,
  }); // prettier-ignore
  report(
    st,
    inv,
    'critical',
    say(`runs a command with raised privileges (${inv.program})`, `以提升的权限运行命令（${inv.program}）`),
  );
  unknownOptions(inv, st, parsed);
  if (inv.program === 'please') runInner(st, inv, parsed.operands);
};

/**
 * Graphical and Kerberos front ends of su and sudo (gksudo, kdesu, lxqt-sudo, ksu…): a command
 * given with -c is shell text; otherwise the operands name it.
 */
const suFrontEnd: Handler = (inv, st) => {
  report(
    st,
    inv,
    'critical',
    say(`runs a command as another user (${inv.program})`, `以另一个用户的身份运行命令（${inv.program}）`),
  );
  const at = inv.args.findIndex((arg) => arg.value === '-c' || arg.value === '--command' || arg.value === '-e');
  if (at >= 0) {
    const rest = inv.args.slice(at + 1);
    if (inv.args[at]?.value === '-e') runInner(st, inv, rest);
    else runShellText(st, inv, joinedValue(rest), 'runs a command as another user');
    return;
  }
  const command = inv.args.findIndex((arg) => arg.value === undefined || !arg.value.startsWith('-'));
  if (command >= 0) runInner(st, inv, inv.args.slice(command));
};

/** machinectl: looking is harmless; `shell`/`login` open a shell, even root's on the host (`root@.host`). */
const machinectl: Handler = (inv, st) => {
  const verb = inv.args.find((arg) => arg.value === undefined || !arg.value.startsWith('-'));
  if (
    verb?.value !== undefined &&
    /^(?:list|list-images|list-transfers|status|show|show-image|image-status)$/.test(verb.value)
  )
    return;
  report(
    st,
    inv,
    'critical',
    say(
      `opens a shell or changes containers and machines through systemd (machinectl ${verb?.text ?? ''})`,
      `通过 systemd 打开 shell 或更改容器和虚拟机（machinectl ${verb?.text ?? ''}）`,
    ),
  );
};

const sg: Handler = (inv, st) => {
  report(st, inv, 'critical', 'runs a command as another group (sg)');
  const words = inv.args.filter((arg) => arg.value !== '-c').slice(1);
  runShellText(st, inv, joinedValue(words), 'runs a command as another group');
};

/** busybox and toybox run the tool named by their first argument. */
const multiCall: Handler = (inv, st) => {
  const first = inv.args[0]?.value;
  if (first === undefined && inv.args.length > 0) {
    report(
      st,
      inv,
      'critical',
      say(
        `runs a ${inv.program} tool whose name is computed at run time`,
        `运行 ${inv.program} 里一个名字在运行时才确定的工具`,
      ),
    );
    return;
  }
  if (first === undefined || first.startsWith('-')) return;
  runInner(st, inv, inv.args);
};

const flock: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'wEc',
    flags: 'sxunoF',
    long: ['timeout', 'wait', 'conflict-exit-code', 'command'],
    longFlags: ['shared', 'exclusive', 'unlock', 'nonblock', 'nb', 'close', 'no-fork', 'verbose', 'help', 'version'],
    stopAtOperand: true,
  }); // prettier-ignore
  const [lockFile, ...rest] = parsed.operands;
  const commands = optionValues(parsed, '-c', '--command');
  // `flock FILE -c 'cmd'`: the option may also follow the lock file.
  if (rest[0]?.value === '-c' || rest[0]?.value === '--command') commands.push(...rest.slice(1, 2));
  if (lockFile && (commands.length > 0 || rest.length > 0)) checkPath(st, inv, lockFile, 'create');
  if (commands.length > 0) {
    for (const text of commands) runShellText(st, inv, text.value, 'runs a command under a lock');
    return;
  }
  runInner(st, inv, rest);
};

/** tmux and screen can type into or start commands in other terminals; only listing is harmless. */
const terminalMultiplexer: Handler = (inv, st) => {
  const words = inv.args.filter((arg) => !/^-[LSfcT]$/.test(arg.value ?? ''));
  const first = words.find((arg) => !(arg.value ?? '').startsWith('-'))?.value;
  const listing = /^(?:ls|list-\w+|has-session|has|display-message|display|show-\w+|info|-V|-ls|-list|-v)$/;
  if (
    inv.args.every((arg) => listing.test(arg.value ?? '') || /^-[LSf]$/.test(arg.value ?? '')) ||
    (first !== undefined && listing.test(first))
  ) {
    return;
  }
  if (first !== undefined && /^kill-\w+|detach(?:-client)?$/.test(first)) {
    report(st, inv, 'medium', say(`closes ${inv.program} sessions`, `关闭 ${inv.program} 会话`));
    return;
  }
  report(
    st,
    inv,
    'critical',
    say(
      `starts or types commands in another terminal (${inv.program})`,
      `在另一个终端里启动命令或输入命令（${inv.program}）`,
    ),
  );
};

const hyperfine: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'wmMrpcsSLPDnNuio',
    long: ['warmup', 'min-runs', 'max-runs', 'runs', 'prepare', 'setup', 'cleanup', 'conclude', 'shell',
      'parameter-list', 'parameter-scan', 'parameter-step-size', 'command-name', 'time-unit', 'style', 'sort',
      'export-asciidoc', 'export-csv', 'export-json', 'export-markdown', 'export-orgmode', 'output', 'input'],
  }); // prettier-ignore
  report(st, inv, 'high', 'benchmarks commands');
  if (hasOption(parsed, '-P', '--parameter-scan', '-L', '--parameter-list', '-S', '--shell')) {
    report(st, inv, 'critical', 'benchmarks commands filled in at run time or run by another shell');
  }
  const texts: Word[] = [
    ...optionValues(parsed, '-p', '--prepare', '-s', '--setup', '-c', '--cleanup', '--conclude'),
    ...parsed.operands,
  ];
  for (const text of texts) runShellText(st, inv, text.value, 'benchmarks a command');
};

const entr: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { flags: 'acdnprsz', stopAtOperand: true });
  if (hasOption(parsed, '-s')) runShellText(st, inv, parsed.operands[0]?.value, 'runs a command when files change');
  else runInner(st, inv, parsed.operands, { stdin: { kind: 'none' } });
};

const perf: Handler = (inv, st) => {
  const [sub, ...rest] = inv.args;
  report(st, inv, 'high', 'profiles a program');
  if (rest.some((arg) => arg.value === undefined || /^(?:-p|--pid|-a|--all-cpus|-u|--uid)(?:=|$)/.test(arg.value))) {
    report(st, inv, 'critical', 'profiles running processes, which can reveal their secrets');
  }
  if (!sub || !['stat', 'record', 'trace', 'mem', 'c2c', 'kvm', 'sched', 'lock'].includes(sub.value ?? '')) return;
  const parsed = parseOptions(rest, {
    short: 'eoCGctjFrmTpIx',
    long: ['event', 'output', 'cpu', 'cgroup', 'repeat'],
    stopAtOperand: true,
  });
  runInner(st, inv, parsed.operands);
};

const timeout = wrapper({
  short: 'sk',
  flags: 'v',
  long: ['signal', 'kill-after'],
  longFlags: ['preserve-status', 'foreground', 'verbose', 'help', 'version'],
  before: 1,
});

export const WRAPPER_HANDLERS: Record<string, Handler> = {
  env,
  command,
  builtin,
  nice: wrapper({ short: 'n', long: ['adjustment'], longFlags: ['help', 'version'], numericFlags: true }),
  nohup: wrapper({ longFlags: ['help', 'version'], flags: '' }),
  timeout,
  gtimeout: timeout,
  time: (inv, st) => {
    const parsed = parseOptions(inv.args, {
      short: 'fo',
      flags: 'paqv',
      long: ['format', 'output'],
      longFlags: ['append', 'verbose', 'quiet', 'portability', 'help', 'version'],
      stopAtOperand: true,
    });
    unknownOptions(inv, st, parsed);
    for (const output of optionValues(parsed, '-o', '--output')) checkPath(st, inv, output, 'write');
    runInner(st, inv, parsed.operands);
  },
  stdbuf: wrapper({ short: 'ioe', long: ['input', 'output', 'error'], longFlags: ['help', 'version'] }),
  ionice: wrapper({ short: 'cnpPu', flags: 't', long: ['class', 'classdata', 'pid', 'pgid', 'uid'], longFlags: ['ignore', 'help', 'version'], onProcess: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'] }),
  taskset: (inv, st) => {
    const parsed = parseOptions(inv.args, { flags: 'acp', longFlags: ['all-tasks', 'cpu-list', 'pid', 'help', 'version'], stopAtOperand: true });
    if (hasOption(parsed, '-p', '--pid')) {
      report(st, inv, 'high', 'changes a running process (taskset)');
      return;
    }
    runInner(st, inv, parsed.operands.slice(1));
  },
  chrt: (inv, st) => {
    const parsed = parseOptions(inv.args, {
      short: 'TPD',
      flags: 'abdfiormpvRhV',
      long: ['sched-runtime', 'sched-period', 'sched-deadline'],
      longFlags: ['all-tasks', 'batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'max', 'pid', 'verbose', 'reset-on-fork', 'help', 'version'],
      stopAtOperand: true,
    }); // prettier-ignore
    if (hasOption(parsed, '-p', '--pid') || hasOption(parsed, '-m', '--max')) {
      report(st, inv, 'high', 'changes a running process (chrt)');
      return;
    }
    report(st, inv, 'high', 'changes how the system schedules a program');
    runInner(st, inv, parsed.operands.slice(1));
  },
  setsid: wrapper({ flags: 'cfw', longFlags: ['ctty', 'fork', 'wait', 'help', 'version'] }),
  setarch: (inv, st) => {
    const [arch, ...rest] = inv.args;
    if (!arch || arch.value?.startsWith('-')) return;
    wrapper({
      flags: 'RFZLXBIST3v',
      longFlags: ['addr-no-randomize', 'fdpic-funcptrs', 'mmap-page-zero', 'addr-compat-layout', 'read-implies-exec',
        '32bit', 'short-inode', 'whole-seconds', 'sticky-timeouts', '3gb', '4gb', 'uname-2.6', 'verbose', 'list'],
      shellWithoutCommand: true,
    })({ ...inv, args: rest }, st); // prettier-ignore
  },
  unshare: wrapper({
    short: 'RwSGl',
    flags: 'muinpUCTrcfVh',
    long: ['root', 'wd', 'setuid', 'setgid', 'propagation', 'setgroups', 'map-user', 'map-group', 'map-users',
      'map-groups', 'load-interp', 'monotonic', 'boottime'],
    longFlags: ['mount', 'uts', 'ipc', 'net', 'pid', 'user', 'cgroup', 'time', 'fork', 'mount-proc', 'map-root-user',
      'map-current-user', 'map-auto', 'kill-child', 'keep-caps', 'help', 'version'],
    risk: 'high',
    what: 'runs a program in new namespaces',
    shellWithoutCommand: true,
  }), // prettier-ignore
  flock,
  cpulimit: wrapper({ short: 'lpe', flags: 'zivkqcm', long: ['limit', 'pid', 'exe', 'cpu'], longFlags: ['lazy', 'include-children', 'verbose', 'kill', 'quiet', 'monitor-forks', 'help'], onProcess: ['-p', '--pid', '-e', '--exe'] }),
  rlwrap: wrapper({
    short: 'abfHlpPsSwqtMCDgeOoz',
    flags: 'AcEhimnNrRUvWX',
    long: ['break-chars', 'file', 'history-filename', 'logfile', 'prompt-colour', 'pre-given', 'histsize',
      'substitute-prompt', 'wait-before-prompt', 'quote-characters', 'set-term-name', 'multi-line-ext', 'command-name',
      'polling', 'forget-matching', 'extra-char-after-completion', 'only-cook', 'one-shot', 'filter'],
  }), // prettier-ignore
  watch,
  xargs,
  strace: tracer,
  ltrace: tracer,
  chroot,
  nsenter: (inv, st) => {
    report(st, inv, 'critical', "enters another process's namespaces (nsenter)");
    const parsed = parseOptions(inv.args, { short: 'tSGwr', attached: 'muinpUCT', long: ['target', 'setuid', 'setgid', 'wd', 'root'], stopAtOperand: true });
    runInner(st, inv, parsed.operands);
  },
  script,
  sudo,
  'sudo-rs': sudo,
  'sudoedit-rs': (inv, st) => report(st, inv, 'critical', 'edits files with raised privileges (sudoedit)'),
  run0,
  please,
  pleaseedit: please,
  gksu: suFrontEnd,
  gksudo: suFrontEnd,
  kdesu: suFrontEnd,
  kdesudo: suFrontEnd,
  'lxqt-sudo': suFrontEnd,
  lxsudo: suFrontEnd,
  ksu: suFrontEnd,
  beesu: suFrontEnd,
  machinectl,
  sudoedit: (inv, st) => report(st, inv, 'critical', 'edits files with raised privileges (sudoedit)'),
  su,
  runuser: su,
  doas,
  pkexec,
  sg,
  busybox: multiCall,
  toybox: multiCall,
  parallel: (inv, st) => report(st, inv, 'critical', 'runs commands assembled at run time (parallel)'),
  tmux: terminalMultiplexer,
  screen: terminalMultiplexer,
  coproc: (inv, st) => report(st, inv, 'critical', 'starts a coprocess the analyser cannot follow (coproc)'),
  'systemd-run': (inv, st) => report(st, inv, 'critical', 'runs a command as a system service (systemd-run)'),
  hyperfine,
  entr,
  perf,
  caffeinate: wrapper({ short: 'tw', flags: 'dimsu' }),
  'xvfb-run': wrapper({ short: 'efnlpsw', flags: 'a', long: ['error-file', 'auth-file', 'server-num', 'xauth-protocol', 'server-args', 'wait'], longFlags: ['auto-servernum', 'listen-tcp', 'help'] }),
  firejail: (inv, st) => {
    // firejail's options all look like --name or --name=value.
    const at = inv.args.findIndex((arg) => !(arg.value ?? '').startsWith('--'));
    if (at >= 0) runInner(st, inv, inv.args.slice(at));
  },
  proxychains: wrapper({ short: 'f', flags: 'q' }),
  proxychains4: wrapper({ short: 'f', flags: 'q' }),
  torsocks: wrapper({ short: 'uPa', flags: 'iqdh6', long: ['user', 'pass', 'address', 'port'], longFlags: ['isolate', 'quiet', 'debug', 'help', 'version', 'shell'] }),
  valgrind: (inv, st) => {
    const at = inv.args.findIndex((arg) => !(arg.value ?? '-').startsWith('-'));
    report(st, inv, 'high', 'runs a program under valgrind');
    if (at >= 0) runInner(st, inv, inv.args.slice(at));
  },
  catchsegv: wrapper({}),
  'dbus-run-session': wrapper({ long: ['config-file', 'dbus-daemon'], longFlags: ['help', 'version'] }),
}; // prettier-ignore
