import { say, type Localized } from '@nextai/shared';

import { extend, type ShellPhrase } from './phrases.js';
import type { Word } from './words.js';

/** Variables that decide which program runs, what it loads, or how the shell parses and expands. */
const CRITICAL_VARIABLES: Record<string, ShellPhrase> = {
  PATH: 'changes where programs are looked up',
  CDPATH: 'changes where cd goes',
  BASH_ENV: 'makes every shell script run a file first',
  ENV: 'makes every shell run a file first',
  ZDOTDIR: 'makes zsh read start-up files from another folder',
  HOME: 'changes the home folder, and with it which start-up and settings files programs read',
  XDG_CONFIG_HOME: 'changes where programs read their settings (git config, for one)',
  PROMPT_COMMAND: 'runs a command before every prompt',
  IFS: 'changes how the shell splits words',
  SHELLOPTS: 'changes shell options for every script',
  BASHOPTS: 'changes shell options for every script',
  GLOBIGNORE: 'changes how the shell expands patterns',
  EXECIGNORE: 'changes how the shell finds programs',
  FPATH: 'changes where zsh loads functions from',
  INPUTRC: 'changes key bindings, which can run commands',
  SHELL: 'changes the shell other programs start',
  EDITOR: 'sets a program that others start as the editor',
  VISUAL: 'sets a program that others start as the editor',
  PAGER: 'sets a program that others start as the pager',
  MANPAGER: 'sets the program man starts',
  BROWSER: 'sets a program that others start as the browser',
  LESS: 'sets less options, which can run commands',
  LESSOPEN: 'makes less run a command on every file',
  LESSCLOSE: 'makes less run a command on every file',
  LESSKEY: 'sets less key bindings, which can run commands',
  LESSKEYIN: 'sets less key bindings, which can run commands',
  SYSTEMD_PAGER: 'sets the program systemctl and journalctl start',
  SYSTEMD_EDITOR: 'sets the program systemctl starts as the editor',
  SYSTEMD_PAGERSECURE: 'turns off the safe pager mode of systemd tools',
  SUDO_ASKPASS: 'sets a program sudo runs',
  SSH_ASKPASS: 'sets a program ssh runs',
  HISTFILE: 'hides or redirects the shell history',
  HISTSIZE: 'hides or clears the shell history',
  HISTFILESIZE: 'hides or clears the shell history',
  HISTCONTROL: 'hides commands from the shell history',
  HISTIGNORE: 'hides commands from the shell history',
  BASH_XTRACEFD: 'redirects the shell trace',
  BASH_LOADABLES_PATH: 'changes where the shell loads builtins from',
  PYTHONSTARTUP: 'makes python run a file first',
  PYTHONHOME: 'changes which python library runs',
  PYTHONINSPECT: 'makes python read commands after the script',
  PERL5OPT: 'adds perl options, which can run code',
  PERL5LIB: 'changes which perl modules load',
  PERLLIB: 'changes which perl modules load',
  PERL5DB: 'makes perl run debugger code',
  RUBYOPT: 'adds ruby options, which can load code',
  RUBYLIB: 'changes which ruby libraries load',
  JAVA_TOOL_OPTIONS: 'adds Java options, which can load agents',
  _JAVA_OPTIONS: 'adds Java options, which can load agents',
  JDK_JAVA_OPTIONS: 'adds Java options, which can load agents',
  GCONV_PATH: 'makes the C library load code',
  MAKEFLAGS: 'adds make options, which can run code',
  MFLAGS: 'adds make options, which can run code',
  GNUMAKEFLAGS: 'adds make options, which can run code',
  MAKESHELL: 'changes the shell make uses',
  RUSTC_WRAPPER: 'sets a program cargo runs',
  RUSTC: 'sets the program cargo runs as the compiler',
  CARGO_BUILD_RUSTC_WRAPPER: 'sets a program cargo runs',
  ELECTRON_RUN_AS_NODE: 'turns an app into a script interpreter',
  NODE_PATH: 'changes which node modules load',
};

const CRITICAL_PREFIXES: [RegExp, ShellPhrase][] = [
  [/^LD_/, 'changes how programs load libraries'],
  [/^DYLD_/, 'changes how programs load libraries'],
  [/^BASH_FUNC_/, 'defines a function for child shells'],
  [/^CARGO_TARGET_\w+_RUNNER$/, 'sets a program cargo runs'],
];

/** Git variables that only label or trace: the rest can point git at commands or other config. */
const SAFE_GIT_VARIABLES =
  /^GIT_(?:AUTHOR_(?:NAME|EMAIL|DATE)|COMMITTER_(?:NAME|EMAIL|DATE)|TERMINAL_PROMPT|TRACE\w*|CURL_VERBOSE|FLUSH|OPTIONAL_LOCKS|MERGE_AUTOEDIT|ADVICE|DEFAULT_HASH|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM|NO_REPLACE_OBJECTS|LITERAL_PATHSPECS|GLOB_PATHSPECS|NOGLOB_PATHSPECS|ICASE_PATHSPECS|LFS_SKIP_SMUDGE|PROGRESS_DELAY|REDACT_COOKIES)$/;

/** npm settings that name programs npm runs. */
const NPM_PROGRAM_SETTINGS =
  /^npm_config_(?:script_shell|shell|node_options|git|editor|browser|viewer|onload_script|userconfig|globalconfig|init_module|prefix)$/i;

const NODE_CODE_OPTIONS =
  /(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader|-e|--eval|-p|--print|--inspect\S*|--env-file\S*)(?:[\s=]|$)/;

/**
 * Why giving `name` the value `value` is critical, or undefined when it is an ordinary variable.
 * Used for `NAME=value cmd`, plain assignments, export and declare alike.
 */
export function criticalVariable(name: string, value: Word | undefined): ShellPhrase | Localized | undefined {
  const fixed = CRITICAL_VARIABLES[name];
  if (fixed) return extend(fixed, ` (${name})`, `（${name}）`);
  for (const [pattern, why] of CRITICAL_PREFIXES) {
    if (pattern.test(name)) return extend(why, ` (${name})`, `（${name}）`);
  }
  if (name.startsWith('GIT_') && !SAFE_GIT_VARIABLES.test(name)) {
    return say(`points git at other commands or settings (${name})`, `让 git 改用其他命令或设置（${name}）`);
  }
  if (NPM_PROGRAM_SETTINGS.test(name)) {
    return say(`sets a program npm runs (${name})`, `设置 npm 会运行的程序（${name}）`);
  }
  const text = value?.value;
  if (/^(?:PS[0-4]|PROMPT|RPROMPT|PROMPT[234])$/.test(name)) {
    if (text === undefined || /\$\(|`|\$\{|\$\[/.test(text)) {
      return say(
        `sets a prompt that runs commands when it is shown (${name})`,
        `设置一个显示时会运行命令的提示符（${name}）`,
      );
    }
    return undefined;
  }
  if (name === 'NODE_OPTIONS') {
    if (text === undefined || NODE_CODE_OPTIONS.test(text)) return 'makes node load code first (NODE_OPTIONS)';
    return undefined;
  }
  if (name === 'PYTHONPATH') {
    // Pointing python at folders of the project is everyday work; anything else may shadow modules.
    if (text === undefined) return 'changes which python modules load (PYTHONPATH)';
    const parts = text.split(':');
    if (parts.some((part) => part.startsWith('/') || part.startsWith('~') || part.split('/').includes('..'))) {
      return 'makes python load modules from outside the project (PYTHONPATH)';
    }
  }
  return undefined;
}

/** Assigned text that a later expansion or arithmetic would run (`x='a[$(id)]'`). */
export function storesCommandText(value: Word | undefined): boolean {
  const text = value?.value;
  return text !== undefined && /\$\(|`/.test(text);
}
