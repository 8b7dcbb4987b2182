import { say, verbatim, type Localized } from '@nextai/shared';

import { checkPath, checkProgramArguments, report, runsWrittenFile, type Invocation } from '../invocation.js';
import { noteSandboxNeeds, noteUnseenCode } from '../sandbox-needs.js';
import type { AnalysisState } from '../state.js';
import { BASIC_HANDLERS, SHELL_BUILTINS } from './basic.js';
import { DATABASE_HANDLERS } from './databases.js';
import { DEV_HANDLERS } from './dev.js';
import { FILE_HANDLERS } from './files.js';
import { GIT_HANDLERS } from './git.js';
import { INTERPRETER_HANDLERS } from './interpreters.js';
import { MACHINE_HANDLERS } from './machines.js';
import { NETWORK_HANDLERS } from './network.js';
import { SYSTEM_HANDLERS } from './system.js';
import type { Handler } from './types.js';
import { WRAPPER_HANDLERS } from './wrappers.js';

const HANDLERS = new Map<string, Handler>(
  Object.entries({
    ...BASIC_HANDLERS,
    ...FILE_HANDLERS,
    ...INTERPRETER_HANDLERS,
    ...WRAPPER_HANDLERS,
    ...GIT_HANDLERS,
    ...NETWORK_HANDLERS,
    ...SYSTEM_HANDLERS,
    ...DEV_HANDLERS,
    ...MACHINE_HANDLERS,
    ...DATABASE_HANDLERS,
  }),
);

/** Words the shell reads as syntax, never as a program name. */
const RESERVED = new Set(['{', '}', '!', '[[', ']]', 'if', 'then', 'elif', 'else', 'fi', 'do', 'done', 'while', 'until',
  'for', 'in', 'case', 'esac', 'select', 'function']); // prettier-ignore

/** Folders whose programs are the system's own: running `/usr/bin/ls` is running ls. */
const SYSTEM_BIN = /^\/(?:usr\/(?:local\/)?)?s?bin\/[^/]+$|^\/opt\/homebrew\/s?bin\/[^/]+$/;

/** Interpreters are often called with their version (`python3.12`, `pip3`, `lua5.4`). */
const VERSIONED =
  /^(python|pip|pypy|perl|ruby|php|lua|luajit|node|tclsh|wish|idle|gcc|g\+\+|clang|clang\+\+)[0-9][0-9.]*$/;

/**
 * The name a program is looked up by: its file name, lower-cased (a case-insensitive file
 * system runs `RM` as rm), without `.exe` or a version suffix.
 */
function programName(name: string): string {
  let base = name.slice(name.lastIndexOf('/') + 1).toLowerCase();
  if (base.endsWith('.exe')) base = base.slice(0, -4);
  if (base.startsWith('mkfs.') || base.startsWith('fsck.')) return base.slice(0, 4);
  if (base.startsWith('qemu-system-')) return 'qemu-system';
  return VERSIONED.exec(base)?.[1] ?? base;
}

/** What a function with this name would replace, for the "function shadows a command" rule. */
export function shadowedCommand(name: string): Localized | undefined {
  if (name.includes('/')) return say(`the program at ${name}`, `位于 ${name} 的程序`);
  const program = programName(name);
  if (SHELL_BUILTINS.has(name) || HANDLERS.has(program) || name === 'command_not_found_handle') {
    return say(`the command "${name}"`, `命令“${name}”`);
  }
  return undefined;
}

/** Analyses one program start: the name, then the handler that knows the program. */
export function runInvocation(inv: Invocation, st: AnalysisState): void {
  st.tick();
  const name = inv.name;
  if (name.value === undefined || !name.plain) {
    st.commands.add(name.text);
    report(st, inv, 'critical', 'the command to run is computed at run time');
    noteUnseenCode(inv, st);
    return;
  }
  if (name.value === '') return;
  if (RESERVED.has(name.value) || /^\{\w*\}$/.test(name.value)) {
    // Only a misparse puts a reserved word here (`time { …; }`, `exec {fd}>…`): the grammar did
    // not follow the real structure, so nothing about the command can be trusted.
    st.commands.add(name.value);
    report(
      st,
      inv,
      'critical',
      say(
        `uses shell syntax the analyser does not follow ("${name.value}" where a command was expected; fails closed)`,
        `使用了分析器无法理解的 shell 语法（本该是命令的位置出现了“${name.value}”；无法确认安全，按最危险处理）`,
      ),
    );
    return;
  }
  const program = programName(name.value);
  st.commands.add(program);
  if (name.value.includes('/') || name.value.startsWith('~')) {
    checkPath(st, inv, name, 'exec');
    runsWrittenFile(st, inv, name, 'shell');
    if (!SYSTEM_BIN.test(name.value)) {
      report(st, inv, 'high', say(`runs the program file ${name.value}`, `运行程序文件 ${name.value}`));
      noteUnseenCode({ ...inv, program: name.value }, st);
    }
  } else if (st.functions.has(name.value)) {
    if (st.defining.includes(name.value)) {
      report(
        st,
        inv,
        'critical',
        say(
          `makes the function ${name.value} call itself (a fork bomb when piped or backgrounded)`,
          `让函数 ${name.value} 调用自身（放进管道或后台运行时就是 fork 炸弹）`,
        ),
      );
    }
    // The body was analysed where the function was defined.
    return;
  }
  const handler = HANDLERS.get(program);
  inv.program = program;
  noteSandboxNeeds(inv, st);
  if (handler) handler(inv, st);
  else unknownProgram(inv, st);
}

/** A program NextAI has no rules for: it runs code nobody has looked at. */
function unknownProgram(inv: Invocation, st: AnalysisState): void {
  noteUnseenCode(inv, st);
  report(
    st,
    inv,
    'high',
    say(`runs ${inv.program}, a program NextAI has no rules for`, `运行 ${inv.program}，NextAI 没有针对这个程序的规则`),
  );
  checkProgramArguments(st, inv, inv.args, verbatim(inv.program));
}
