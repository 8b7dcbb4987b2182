import { say, type Localized, type RiskLevel } from '@nextai/shared';

import { inside } from '../../sandbox/places.js';
import type { ShellAnalysisLike } from '../assess.js';
import { ShellEffects } from '../shell/effects.js';
import { ESCAPE_REASONS, launchedProgramEscape } from '../shell/sandbox-needs.js';
import type { LaunchPlan } from './launch.js';

/** Installed programs, whoever could write them is not the agent: `/usr/bin/gedit`, `/opt/app/bin/app`. */
const SYSTEM_PROGRAM = /^\/(?:usr\/(?:local\/)?)?s?bin\/|^\/(?:opt|snap|Applications|System)\//;

/** What the assessment does with an `app_launch` (assess.ts applies it to the sandbox plan). */
export interface LaunchJudgement {
  /** What it runs, analysed as `bash_execute` would; undefined for a bare app or terminal. */
  analysis?: ShellAnalysisLike | undefined;
  /** For a bare app or terminal, what the sandbox plan is built from. */
  effects: ShellEffects;
  /** An app gets the network; a terminal or a command only what it needs. */
  app: boolean;
  /** What it needs beyond an app's sandbox (xdotool acts on the person's windows). */
  escape?: Localized | undefined;
  /** Code nobody checked that gets the display, each a reason for people. */
  onDisplay: Localized[];
  /** Findings besides the analysis's own. */
  findings: { risk: RiskLevel; reason: Localized }[];
}

/**
 * Judges a launch as the command it is. A known program (rm, dd, scp, bash, python3, env…) with
 * its arguments, and the command a terminal is told to run, are analysed exactly as
 * `bash_execute` would analyse them. An app is judged by its arguments (the paths and addresses
 * they name) but its own code is not held against it in the sandbox: that is what the sandbox is
 * for. Outside it, an app with arguments is code NextAI cannot check, the worst case
 * (planCommand makes leaving with it critical).
 */
export function judgeLaunch(
  launch: LaunchPlan,
  hasArgs: boolean,
  tools: { shell(command: string): ShellAnalysisLike; writable?: readonly string[] | undefined },
): LaunchJudgement {
  const { program } = launch;
  const findings: LaunchJudgement['findings'] = [];
  const onDisplay: Localized[] = [];
  const unchecked = uncheckedFile(program, tools.writable);
  const escape = launchedProgramEscape(program.lookup);
  let analysis: ShellAnalysisLike | undefined;
  if (launch.command !== undefined) analysis = tools.shell(launch.command);
  if (launch.kind === 'terminal' && launch.unknownOptions.length > 0) {
    // `--config-file`, `-o shell=…`, `--session`: a terminal's own settings can name a command.
    const options = launch.unknownOptions.join(' ');
    const why = say(
      `starts ${program.given} with options NextAI does not know (${options}), which may load settings or run a command`,
      `以 NextAI 不认识的选项（${options}）启动 ${program.given}，这些选项可能加载设置或运行命令`,
    );
    findings.push({ risk: 'high', reason: why });
    analysis ??= { risk: 'low', findings: [], effects: new ShellEffects() };
    // Said first: what follows an option NextAI does not know may be its value, not a command.
    if (analysis.effects) analysis.effects.unseenCode = { why, excerpt: `${program.given} ${options}` };
  }
  const effects = analysis?.effects ?? new ShellEffects();
  // Opening a browser or an editor is what app_launch is for: its own use of the desktop is the
  // display every app gets, not an escape (sandbox-needs.ts keeps xdotool and the like as one).
  const desktopApp = launch.kind !== 'terminal' && !escape && dropOwnDesktopNeed(effects, program.lookup);
  if (unchecked) {
    effects.runsUnseenCode(unchecked, program.given);
    onDisplay.push(unchecked);
  }
  if (launch.kind !== 'app' && analysis && hasArgs && effects.unseenCode && effects.unseenCode.why !== unchecked) {
    onDisplay.push(effects.unseenCode.why);
  }
  // Whatever the analyser rates critical in what a launch runs (`ex -c '!…'`, `less +!…`,
  // `man -P`, `sqlite3 -cmd .shell`) has the person's display, where it can type into their other
  // windows — their own terminal among them. In the sandbox that is not held back.
  const critical = analysis?.findings.find((finding) => finding.risk === 'critical');
  if (hasArgs && critical && onDisplay.length === 0) onDisplay.push(critical.reason);
  // An app's own options can name a program or settings it runs (`--renderer-cmd-prefix=…`,
  // `--config-file`, `--script`): code nobody saw, with the display.
  const runsOption = launch.kind === 'app' ? programOptions(launch.args) : undefined;
  if (runsOption && onDisplay.length === 0) {
    onDisplay.push(
      say(
        `starts ${program.given} with ${runsOption}, an option that can name a program, script or settings it runs`,
        `以 ${runsOption} 启动 ${program.given}，这个选项可以指定它要运行的程序、脚本或设置`,
      ),
    );
  }
  return { analysis, effects, app: launch.kind === 'app' || desktopApp, escape: escape?.why, onDisplay, findings };
}

/**
 * A program file NextAI cannot vouch for: a path outside the system's program folders, or a
 * name found on PATH in a folder the agent may write to.
 */
function uncheckedFile(program: LaunchPlan['program'], writable: readonly string[] | undefined): Localized | undefined {
  const real = program.real;
  const file = program.byPath
    ? [program.given, real].find((candidate) => candidate !== undefined && !SYSTEM_PROGRAM.test(candidate))
    : real !== undefined && (writable ?? []).some((folder) => inside(real, folder))
      ? real
      : undefined;
  if (file === undefined) return undefined;
  return say(`runs the program file ${file}, which NextAI cannot check`, `运行程序文件 ${file}，NextAI 无法检查它`);
}

/**
 * The analyser notes a browser or an editor (`code`, `firefox`) as using the desktop; launched as
 * an app, it simply is on it. True when it was such a program.
 */
function dropOwnDesktopNeed(effects: ShellEffects, program: string): boolean {
  const name = program.toLowerCase().replace(/\.exe$/, '');
  const own = ESCAPE_REASONS.desktop(name).en;
  const index = effects.needs.findIndex((need) => need.kind === 'desktop' && need.why.en === own);
  if (index >= 0) effects.needs.splice(index, 1);
  return index >= 0;
}

/** Option names that point an app at a program, a script or settings of its own choosing. */
const PROGRAM_OPTION =
  /^--?[\w-]*(?:cmd|command|launcher|prefix|script|exec|program|plugin|config|init|eval|load|extension|profile|rc|macro|action)[\w-]*(?:=|$)/i;

/** The first of an app's arguments that is such an option, or undefined. */
function programOptions(args: readonly string[] | undefined): string | undefined {
  return args?.find((arg) => PROGRAM_OPTION.test(arg))?.split('=')[0];
}
