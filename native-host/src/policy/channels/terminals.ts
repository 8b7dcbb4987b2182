/**
 * Terminal emulators: the windows where typed text is a command line (every channel that can run a command
 * is judged as one), and the programs that, launched with a command, run that command.
 */

import { posixQuote } from '../../core/posix-quote.js';

/**
 * Terminal emulators and console hosts, by the names their windows and processes carry (process
 * name, WM_CLASS, bundle or app id), folded by `programKeys`.
 */
const EMULATORS = new Set([
  // X11 and Wayland.
  'xterm', 'uxterm', 'lxterm', 'koi8rxterm', 'x-terminal-emulator', 'gnome-terminal', 'gnome-console', 'kgx',
  'console', 'konsole', 'xfce4-terminal', 'mate-terminal', 'lxterminal', 'qterminal', 'terminology', 'alacritty',
  'kitty', 'tilix', 'terminator', 'urxvt', 'urxvtc', 'rxvt', 'rxvt-unicode', 'st', 'st-256color', 'wezterm', 'foot',
  'footclient', 'sakura', 'guake', 'tilda', 'yakuake', 'cool-retro-term', 'eterm', 'aterm', 'deepin-terminal',
  'ptyxis', 'blackbox', 'contour', 'rio', 'ghostty', 'hyper', 'tabby', 'warp', 'termite', 'zutty', 'mlterm',
  'kterm', 'cutefish-terminal', 'pantheon-terminal', 'io.elementary.terminal',
  // macOS.
  'terminal', 'iterm', 'iterm2', 'com.apple.terminal', 'com.googlecode.iterm2',
  // Windows.
  'windowsterminal', 'wt', 'openconsole', 'conhost', 'mintty', 'putty', 'conemu', 'conemu64', 'cmder',
  'fluentterminal', 'wsl', 'powershell_ise',
]); // prettier-ignore

/** Shells: some adapters report a console window by the program running in it. */
const CONSOLE_PROGRAMS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'nu', 'elvish',
  'xonsh', 'cmd', 'powershell', 'pwsh']); // prettier-ignore

/**
 * The name a program, process or window class is known by here: its last path part, lower case,
 * without the endings packagers add (`gnome-terminal-server`, `wezterm-gui`, `firefox.exe`,
 * `iTerm.app`, `gnome-terminal.wrapper`), and for a reverse-DNS id (`org.wezfurlong.wezterm`) its
 * last part as well.
 */
export function programKeys(name: string): string[] {
  const base = (name.trim().split(/[\\/]/).pop() ?? '').toLowerCase().replace(/[. ]+$/, '');
  const bare = base.replace(/\.(?:exe|app|wrapper|real|bin)$/, '').replace(/-(?:server|gui|bin)$/, '');
  const keys = new Set([base, bare]);
  if (/^[a-z0-9-]+(?:\.[a-z0-9-]+){2,}$/.test(bare)) keys.add(bare.slice(bare.lastIndexOf('.') + 1));
  return [...keys].filter((key) => key.length > 0);
}

/** A terminal emulator: launched with arguments, it may be told a command to run (`terminalLaunch`). */
export function isTerminalEmulator(name: string): boolean {
  return programKeys(name).some((key) => EMULATORS.has(key));
}

/** A window the desktop reports, as far as recognising a terminal goes. */
export interface WindowIdentity {
  /** Process name, or the window class when the process is unknown. */
  app: string;
  /** WM_CLASS (instance and class), where the platform has it. */
  classes?: readonly string[] | undefined;
}

/**
 * Whether typing into this window composes a command line. Either name counts: a terminal run
 * under another process name still says what it is in its class, and the other way round.
 */
export function isTerminalWindow(window: WindowIdentity): boolean {
  return [window.app, ...(window.classes ?? [])].some((name) =>
    programKeys(name).some((key) => EMULATORS.has(key) || CONSOLE_PROGRAMS.has(key)),
  );
}

/** Terminal options that only set how it looks or where it starts; the value-taking ones listed apart. */
const HARMLESS_FLAGS = new Set([
  '-hold', '--hold', '-ls', '+ls', '--login', '-l', '--maximize', '--maximized', '--fullscreen', '-fullscreen',
  '--full-screen', '--window', '--tab', '--new-tab', '--new-window', '--show-menubar', '--hide-menubar', '-iconic',
  '--single-instance', '--disable-factory', '-ut', '+ut', '-rv', '+rv', '-sb', '+sb', '-u8', '--start-as=maximized',
]); // prettier-ignore

const HARMLESS_WITH_VALUE = new Set([
  '-title', '-t', '-T', '--title', '-geometry', '-g', '--geometry', '-fg', '-bg', '-fn', '-fa', '-fs', '-cr',
  '--working-directory', '--workdir', '--cwd', '--directory', '-d', '-class', '--class', '-name', '--name',
  '--zoom', '--font', '-font', '-bd', '-bw', '-sl', '--role', '--app-id',
]); // prettier-ignore

/** Options after which everything is the command to run. */
const COMMAND_MARKERS = new Set(['--', '-x', '--execute', '-e', '--command', '--exec']);

/** Subcommands before the command (`wt new-tab -- cmd`, `wezterm start -- cmd`). */
const SUBCOMMANDS = new Set(['new-tab', 'nt', 'split-pane', 'sp', 'start']);

export interface TerminalLaunch {
  /** The command the terminal runs instead of a plain shell, as shell text; undefined: a shell. */
  command?: string | undefined;
  /** Options NextAI does not know: any of them may load settings or name a command to run. */
  unknownOptions: string[];
}

/**
 * What a terminal started with these arguments runs. `xterm -e rm -rf ~`, `gnome-terminal -- rm
 * -rf ~`, `xfce4-terminal -e 'rm -rf ~'` and `kitty rm -rf ~` all run `rm -rf ~`. Terminals
 * differ on whether the word after `-e` is a program or a whole command line, so it is read as a
 * command line, the worst of the two; the words after it are its arguments.
 */
export function terminalLaunch(args: readonly string[]): TerminalLaunch {
  const unknownOptions: string[] = [];
  let positional = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const [option, inlineValue] = splitOption(arg);
    if (COMMAND_MARKERS.has(option)) {
      // `--command=TEXT`, `-e TEXT …`, `-- cmd args…`.
      const rest = inlineValue !== undefined ? [inlineValue, ...args.slice(index + 1)] : args.slice(index + 1);
      return { command: commandText(rest), unknownOptions };
    }
    if (!positional && SUBCOMMANDS.has(arg)) {
      positional = true;
      continue;
    }
    if (HARMLESS_FLAGS.has(arg)) continue;
    if (HARMLESS_WITH_VALUE.has(option)) {
      if (inlineValue === undefined) index += 1;
      continue;
    }
    if (/^[-+/]/.test(arg) && arg.length > 1) {
      unknownOptions.push(arg);
      continue;
    }
    // kitty, foot, st and Windows Terminal take the command as their first plain argument.
    return { command: commandText(args.slice(index)), unknownOptions };
  }
  return { unknownOptions };
}

function splitOption(arg: string): [string, string | undefined] {
  const equals = arg.indexOf('=');
  return arg.startsWith('-') && equals > 0 ? [arg.slice(0, equals), arg.slice(equals + 1)] : [arg, undefined];
}

/** The first word as the terminal may read it (a command line), the rest as its literal arguments. */
function commandText(words: readonly string[]): string | undefined {
  const [first, ...rest] = words;
  if (first === undefined || first.trim() === '') return undefined;
  return [first, ...rest.map(shellQuote)].join(' ');
}

/**
 * A word of an argument list as shell text for the analyser: quoted, so it is read back as that
 * one word — but a leading `~` stays a home folder. The program gets it unexpanded, yet many
 * expand it themselves and the model means the home folder: judged as the worse reading.
 */
export function shellQuote(value: string): string {
  // The slash stays unquoted too: bash expands `~/'a b'`, not `~'/a b'`.
  const home = /^~[A-Za-z0-9._-]*(?:\/|$)/.exec(value)?.[0];
  if (home !== undefined) return home + (value.length > home.length ? quoteWord(value.slice(home.length)) : '');
  return quoteWord(value);
}

function quoteWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : posixQuote(value);
}
