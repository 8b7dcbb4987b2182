import { say, type Localized, type RiskLevel } from '@nextai/shared';

import {
  criticalDelete,
  criticalPatternRead,
  criticalRead,
  criticalTreeRead,
  criticalTreeWrite,
  criticalWrite,
  isBroadDirectory,
  resolveShellPath,
} from './paths.js';
import { extend, joinZh, localized, type ShellPhrase } from './phrases.js';
import type { AnalysisState } from './state.js';
import { computedWord, type Word } from './words.js';

/** What a command reads on standard input. */
export type Stdin =
  /** The session's own input: in a terminal session, whatever is typed next. */
  | { kind: 'terminal' }
  /** Nothing (xargs gives its commands /dev/null). */
  | { kind: 'none' }
  /** Another command's output; `download` when it comes from the network, `text` when it is fixed. */
  | { kind: 'pipe'; download: boolean; text?: string | undefined }
  | { kind: 'file'; word: Word }
  /** A heredoc or herestring; `text` is undefined when it contains expansions. */
  | { kind: 'text'; text: string | undefined };

export interface Output {
  /** The output is (or passes on) something downloaded from the network. */
  download: boolean;
  /** The output is this fixed text (`echo 'SELECT 1'`), as far as the analysis can tell. */
  text?: string | undefined;
}

/** One program about to run, with everything known about how it is called. */
export interface Invocation {
  /** The command name as written. */
  name: Word;
  /** The program, normalised for lookup: lower case, no directory, no `.exe`, no version suffix. */
  program: string;
  args: Word[];
  stdin: Stdin;
  /** Variables set for this command only (`FOO=1 cmd`). */
  env: ReadonlyMap<string, Word>;
  /** The text shown in findings. */
  excerpt: string;
  output: Output;
}

/**
 * How a command uses a path: `read` shows the file's content; `list` only names or sizes;
 * `exec` runs it; `create` makes an empty file or folder; `write` and `delete` change it; the
 * `Tree` forms do so for everything below a folder.
 */
export type PathRole =
  | 'read'
  | 'list'
  | 'exec'
  | 'create'
  | 'write'
  | 'delete'
  | 'readTree'
  | 'writeTree'
  /** Handed to a program NextAI does not know, which may read or change it. */
  | 'unknown'
  /** The target of a new link: later reads and writes through the link reach it. */
  | 'link';

/** Where a finding comes from: an invocation, or a redirect of a statement. */
export type Place = Pick<Invocation, 'excerpt'>;

const READS: ReadonlySet<PathRole> = new Set(['read', 'list', 'exec', 'readTree', 'unknown', 'link']);

export function report(st: AnalysisState, inv: Invocation, risk: RiskLevel, what: ShellPhrase | Localized): void {
  st.raise(risk, what, inv.excerpt);
}

/** A stand-in for arguments only known at run time (what xargs reads, what fd fills in). */
export const RUNTIME_ARGS = computedWord('<arguments supplied at run time>');

/**
 * Asks the guard about a path the command uses and applies what is known about sensitive
 * places. Whatever cannot be pinned down counts as the riskiest place it could name.
 */
export function checkPath(st: AnalysisState, inv: Place, word: Word, role: PathRole): void {
  if (word.processSubstitution) return;
  const value = word.value;
  if (value === undefined) {
    st.effects.path({ role, excerpt: inv.excerpt });
    computedPath(st, inv, role);
    return;
  }
  if (value === '') return;
  const relative = !value.startsWith('/') && !value.startsWith('~');
  const cwds = relative ? st.cwds : [st.startDir];
  if (cwds === undefined) {
    st.effects.path({ role, excerpt: inv.excerpt });
    computedPath(
      st,
      inv,
      role,
      say(
        `uses the relative path "${value}" in a folder that cannot be known`,
        `在无法确定的文件夹中使用相对路径“${value}”`,
      ),
    );
    return;
  }
  const access = READS.has(role) ? 'read' : 'write';
  for (const cwd of cwds) st.verdict(st.guards.checkPath(value, access, cwd), inv.excerpt);
  if (word.pattern) {
    for (const cwd of cwds) {
      const pattern = resolveShellPath(value, cwd, st.homeDir);
      st.effects.path({ pattern, role, excerpt: inv.excerpt });
    }
    checkPattern(st, inv, value, role, cwds);
    return;
  }
  for (const cwd of cwds) {
    const target = resolveShellPath(value, cwd, st.homeDir);
    st.effects.path({ target, role, excerpt: inv.excerpt });
    if (target === undefined) {
      computedPath(st, inv, role);
      return;
    }
    const why = pathConcern(st, target, role);
    if (why) st.raise('critical', why, inv.excerpt);
    if (role === 'exec' && st.downloads.has(target)) {
      st.raise('critical', 'runs a file downloaded earlier in the same command', inv.excerpt);
      st.effects.runsDownload ??= { excerpt: inv.excerpt };
    }
  }
}

function pathConcern(st: AnalysisState, target: string, role: PathRole): ShellPhrase | Localized | undefined {
  switch (role) {
    case 'read':
      return criticalRead(target, st.rules);
    case 'readTree':
      return criticalTreeRead(target, st.rules);
    case 'list':
    case 'exec':
      return undefined;
    case 'writeTree':
      return criticalTreeWrite(target, st.rules);
    case 'delete':
      return criticalDelete(target, st.rules);
    case 'unknown':
      return criticalRead(target, st.rules) ?? criticalWrite(target, st.rules, false);
    case 'link':
      return (
        criticalRead(target, st.rules) ??
        criticalWrite(target, st.rules, false) ??
        (/^\/(?:etc|var\/spool|root)(?:\/|$)/.test(target) ? 'links to system configuration' : undefined)
      );
    default:
      return criticalWrite(target, st.rules);
  }
}

function computedPath(st: AnalysisState, inv: Place, role: PathRole, why?: ShellPhrase | Localized): void {
  if (role === 'list') return;
  if (role === 'create') {
    st.raise('medium', why ?? 'creates a path computed at run time', inv.excerpt);
  } else if (role === 'exec') {
    st.raise('critical', why ?? 'runs a file whose name is computed at run time', inv.excerpt);
  } else if (READS.has(role)) {
    st.raise('critical', why ?? 'reads a file whose name is computed at run time', inv.excerpt);
  } else {
    st.raise('critical', why ?? 'changes a file whose name is computed at run time', inv.excerpt);
  }
}

/**
 * A glob or brace pattern is harmless when it stays inside the working folder: relative, no
 * `..`, and the folder itself is neither the home folder nor a sensitive place. Otherwise a
 * read is judged by the fixed folder the pattern starts from, and a change is critical.
 */
function checkPattern(st: AnalysisState, inv: Place, value: string, role: PathRole, cwds: string[]): void {
  const reads = READS.has(role);
  const relativeOnly = !value.startsWith('/') && !value.startsWith('~') && !value.includes('..');
  const noAbsoluteAlternative = !/[{,]\s*[/~]/.test(value);
  const confined =
    relativeOnly &&
    noAbsoluteAlternative &&
    cwds.every((cwd) => {
      if (isBroadDirectory(cwd, st.rules)) return false;
      return reads ? !criticalTreeRead(cwd, st.rules) : !criticalTreeWrite(cwd, st.rules);
    });
  if (confined || role === 'list') return;
  const glob = value.search(/[*?[{]/);
  const fixed = value.slice(0, glob).replace(/[^/]*$/, '');
  if (role === 'create') {
    // `mkdir -p /tmp/out/{a,b}` only adds entries: it matters only when the fixed folder is sensitive.
    for (const cwd of cwds) {
      const base = resolveShellPath(fixed || '.', cwd, st.homeDir);
      const why: ShellPhrase | Localized | undefined =
        base === undefined ? 'creates files for another user' : criticalTreeWrite(base, st.rules);
      if (why) st.raise('critical', extend(why, ' (through a pattern)', '（通过通配模式）'), inv.excerpt);
    }
    return;
  }
  if (!reads) {
    st.raise('critical', 'changes files matched by a pattern that can reach outside the project', inv.excerpt);
    return;
  }
  for (const cwd of cwds) {
    const base = resolveShellPath(fixed || '.', cwd, st.homeDir);
    const why: ShellPhrase | Localized | undefined =
      base === undefined
        ? 'reads files of another user'
        : criticalPatternRead(`${base.replace(/\/$/, '')}/${value.slice(fixed.length)}`, st.rules, role === 'readTree');
    if (why) st.raise('critical', extend(why, ' (through a pattern)', '（通过通配模式）'), inv.excerpt);
  }
}

/**
 * Records that the command destroys what `word` names (a whole tree, or a work tree's uncommitted
 * changes), for the sandbox to judge against the writable folders: see effects.ts.
 */
export function noteDestroyed(st: AnalysisState, inv: Place, word: Word, scope: 'tree' | 'part', how: Localized): void {
  const value = word.value;
  const relative = value !== undefined && !value.startsWith('/') && !value.startsWith('~');
  const cwds = value === undefined ? undefined : relative ? st.cwds : [st.startDir];
  if (value === undefined || cwds === undefined) {
    st.effects.destroy({ scope, how, excerpt: inv.excerpt });
    return;
  }
  for (const cwd of cwds) {
    const resolved = resolveShellPath(value, cwd, st.homeDir);
    st.effects.destroy(
      word.pattern
        ? { pattern: resolved, scope, how, excerpt: inv.excerpt }
        : { target: resolved, scope, how, excerpt: inv.excerpt },
    );
  }
}

/** Asks the network guard about a URL or host the command connects to. */
export function checkUrl(st: AnalysisState, inv: Place, word: Word, scheme = 'http'): void {
  const value = word.value;
  if (value === undefined) {
    st.raise('critical', 'connects to an address computed at run time', inv.excerpt);
    st.effects.needsNetwork(say('connects to an address computed at run time', '连接运行时才确定的地址'), inv.excerpt);
    return;
  }
  if (value === '') return;
  const file = /^file:\/\/(?:localhost)?(\/.*)$/i.exec(value);
  if (file) {
    checkPath(st, inv, { ...word, value: decodeURIComponentSafe(file[1] as string) }, 'read');
    return;
  }
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `${scheme}://${value}`;
  const host = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^/:?#]*)/i.exec(url)?.[1] || value;
  st.effects.needsNetwork(say(`connects to ${host}`, `连接 ${host}`), inv.excerpt);
  st.verdict(st.guards.checkUrl(url), inv.excerpt);
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch (error) {
    // A malformed escape is passed to the program as written; check the path as written.
    if (error instanceof URIError) return text;
    throw error;
  }
}

/** `[user@]host:path` or `[user@]host` → host, for scp/rsync/ssh targets. */
export function remoteHost(value: string): string | undefined {
  const match = /^(?:[^@/:]+@)?(\[[^\]]+\]|[^:/]+):/.exec(value);
  return match?.[1];
}

/** Runs the analysis of a command that this one starts (`nice CMD`, `find -exec CMD`, `xargs CMD`). */
export function runInner(
  st: AnalysisState,
  inv: Invocation,
  words: readonly Word[],
  options: { stdin?: Stdin; env?: ReadonlyMap<string, Word> } = {},
): void {
  const [name, ...args] = words;
  if (!name) return;
  st.invoke({
    name,
    program: '',
    args,
    stdin: options.stdin ?? inv.stdin,
    env: options.env ?? inv.env,
    excerpt: inv.excerpt,
    output: inv.output,
  });
}

/**
 * Analyses shell text that this command runs (`sh -c '…'`, `eval …`, `watch '…'`); computed text
 * fails closed, reported as `what` "with text computed at run time".
 */
export function runShellText(
  st: AnalysisState,
  inv: Invocation,
  text: string | undefined,
  what: ShellPhrase,
  stdin: Stdin = inv.stdin,
): void {
  if (text === undefined) {
    const computed = extend(what, ' with text computed at run time', '，其内容在运行时才确定');
    report(st, inv, 'critical', computed);
    st.effects.runsUnseenCode(localized(computed), inv.excerpt);
    return;
  }
  st.analyzeText(text, inv.excerpt, stdin);
}

/** The words as one string when all of them are fixed text (eval and `watch` join their arguments). */
export function joinedValue(words: readonly Word[]): string | undefined {
  const values: string[] = [];
  for (const word of words) {
    if (word.value === undefined || word.pattern) return undefined;
    values.push(word.value);
  }
  return values.join(' ');
}

const MAX_CWDS = 8;

/** cd changes where later relative paths point; the analysis follows every folder it may be in. */
export function changeDirectory(inv: Invocation, st: AnalysisState, target: Word | undefined): void {
  if (target !== undefined && (target.value === undefined || target.pattern || target.value === '-')) {
    st.cwds = undefined;
    return;
  }
  if (target) checkPath(st, inv, target, 'list');
  if (st.cwds === undefined) return;
  const next = new Set(st.cwds);
  const targets = new Set<string>();
  for (const cwd of st.cwds) {
    const resolved = target === undefined ? st.homeDir : resolveShellPath(target.value as string, cwd, st.homeDir);
    if (resolved === undefined) {
      st.cwds = undefined;
      return;
    }
    next.add(resolved);
    targets.add(resolved);
  }
  st.cwds = next.size > MAX_CWDS ? undefined : [...next];
  st.lastCd = { targets: [...targets] };
}

/** Where a fixed path points from each folder the command may be in. */
export function resolvedTargets(st: AnalysisState, word: Word): string[] {
  const value = word.value;
  if (value === undefined) return [];
  const cwds = /^[/~]/.test(value) ? [st.startDir] : (st.cwds ?? []);
  return cwds.flatMap((cwd) => resolveShellPath(value, cwd, st.homeDir) ?? []);
}

/**
 * Running a file this same command wrote: its content is analysed when it is fixed shell text
 * (`cat > x.sh <<EOF … EOF; bash x.sh`), and fails closed otherwise.
 */
export function runsWrittenFile(st: AnalysisState, inv: Invocation, script: Word, language: string): void {
  for (const target of resolvedTargets(st, script)) {
    if (!st.written.has(target)) continue;
    const text = st.written.get(target);
    const shebang = text === undefined ? undefined : /^#!\s*(\S+)(?:\s+(\S+))?/.exec(text);
    const runner = shebang ? (shebang[1]?.endsWith('/env') ? shebang[2] : shebang[1]?.split('/').pop()) : 'sh';
    if (text === undefined || language !== 'shell' || !/^(?:sh|bash|dash|zsh|ksh)$/.test(runner ?? '')) {
      st.raise('critical', 'runs a file this command wrote, whose content the analyser cannot check', inv.excerpt);
    } else {
      st.analyzeText(text, inv.excerpt, inv.stdin);
    }
  }
}

/**
 * A program that runs what a build or package file says (make's Makefile, npm's package.json):
 * when this same command wrote that file, the code it runs is the command's own, unread.
 */
export function readsWrittenBuildFile(st: AnalysisState, inv: Invocation, files: readonly Word[]): void {
  if (files.some((file) => resolvedTargets(st, file).some((target) => st.written.has(target)))) {
    st.raise(
      'critical',
      'runs what a build or package file this command wrote says, which the analyser does not read',
      inv.excerpt,
    );
  }
}

/**
 * A settings file a program changes itself (`npm config set` writes ~/.npmrc): recorded for the
 * sandbox, which must see the write; how risky the setting is, the program's handler judges.
 */
export function notesSettingsFile(st: AnalysisState, inv: Invocation, file: string): void {
  st.effects.path({ target: resolveShellPath(file, st.startDir, st.homeDir), role: 'write', excerpt: inv.excerpt });
}

/** Records what a command wrote to a file (fixed text, or undefined when unknown). */
export function noteWrittenFile(st: AnalysisState, file: Word, text: string | undefined): void {
  for (const target of resolvedTargets(st, file)) st.written.set(target, text);
}

/** URL arguments (`https://…`, also `--registry=https://…`) of programs that may fetch them. */
export function checkUrlArguments(st: AnalysisState, inv: Invocation, args: readonly Word[]): void {
  for (const arg of args) {
    const value = arg.value?.replace(/^--?[\w-]+=/, '');
    if (value !== undefined && /^[a-z][a-z0-9+.-]*:\/\/[^/\s]/i.test(value) && !/^file:/i.test(value)) {
      checkUrl(st, inv, { ...arg, value });
    }
  }
}

/**
 * The arguments of a program nobody has rules for (an unknown tool, a project script): paths
 * are checked as if it may read or change them, addresses are asked of the network guard, and
 * arguments computed at run time fail closed.
 */
export function checkProgramArguments(
  st: AnalysisState,
  inv: Invocation,
  args: readonly Word[],
  program: Localized,
): void {
  checkUrlArguments(st, inv, args);
  for (const arg of args) {
    if (arg.value === undefined) {
      st.raise(
        'critical',
        say(
          `passes arguments computed at run time to ${program.en}, which NextAI has no rules for`,
          joinZh('把运行时才确定的参数传给', program['zh-CN'], '，而 NextAI 没有针对它的规则'),
        ),
        inv.excerpt,
      );
      return;
    }
    // `--config=~/.bashrc` names a path too.
    const value = arg.value.startsWith('-') ? arg.value.slice(arg.value.indexOf('=') + 1) : arg.value;
    if (value !== arg.value && !arg.value.includes('=')) continue;
    if (/^[~./]|\//.test(value) && !value.includes('://')) checkPath(st, inv, { ...arg, value }, 'unknown');
  }
}
