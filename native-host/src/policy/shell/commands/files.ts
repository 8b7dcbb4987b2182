import path from 'node:path';

import { say } from '@nextai/shared';

import {
  RUNTIME_ARGS,
  checkPath,
  noteDestroyed,
  noteWrittenFile,
  report,
  resolvedTargets,
  runInner,
  type Invocation,
  type PathRole,
} from '../invocation.js';
import { hasOption, optionValues, parseOptions, type OptionSpec, type ParsedArgs } from '../options.js';
import { isDiskDevice } from '../paths.js';
import type { AnalysisState } from '../state.js';
import { computedWord, literalWord, type Word } from '../words.js';
import { checkOperands, hasFlag, simple, type Handler } from './types.js';

/** `rm` of these names deletes far more than the person could mean. */
const SWEEPING = new Set(['/', '/*', '~', '~/', '~/*', '.', './', '..', '../', '*', '.*', './*', '../*']);

const rm: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    flags: 'firRdvI',
    longFlags: ['force', 'interactive', 'recursive', 'dir', 'verbose', 'one-file-system', 'no-preserve-root',
      'preserve-root', 'help', 'version'],
  }); // prettier-ignore
  const recursive = hasFlag(parsed, 'r', 'recursive') || hasFlag(parsed, 'R');
  const force = hasFlag(parsed, 'f', 'force');
  if (parsed.operands.length === 0) return;
  if (hasOption(parsed, '--no-preserve-root'))
    report(st, inv, 'critical', 'deletes without protecting / (--no-preserve-root)');
  if (recursive) report(st, inv, 'critical', 'deletes files recursively');
  else report(st, inv, 'high', 'deletes files');
  if (parsed.computedOption) report(st, inv, 'critical', 'deletes with options computed at run time');
  for (const operand of parsed.operands) {
    const value = operand.value;
    if (value !== undefined && (SWEEPING.has(value) || /^(?:\.\.\/)+\.?\.?\/?$/.test(value))) {
      report(st, inv, 'critical', 'deletes a top-level, home, current or parent folder');
    }
    if (operand.pattern && force) report(st, inv, 'critical', 'force-deletes every file a pattern matches');
    if (isFoundFiles(operand)) report(st, inv, 'critical', 'deletes every file find finds');
    checkPath(st, inv, operand, recursive ? 'writeTree' : 'delete');
    // Without -r it deletes files, not folders: part of what the folder holds.
    noteDestroyed(st, inv, operand, recursive ? 'tree' : 'part', say('deletes', '删除'));
  }
};

const COPY_SPEC: OptionSpec = {
  short: 'tS',
  flags: 'abdfHilLnPprRsTuvxZ',
  long: ['target-directory', 'suffix', 'sparse', 'reflink', 'preserve', 'no-preserve', 'context', 'backup',
    'update', 'debug'],
}; // prettier-ignore

/** Where `cp`/`mv`/`ln`/`install` write: the target, and the target folder plus each source's name. */
function copyTargets(
  inv: Invocation,
  st: AnalysisState,
  parsed: ParsedArgs,
  sourceRole: PathRole,
  recursive: boolean,
): void {
  const targetOption = optionValues(parsed, '-t', '--target-directory')[0];
  const operands = parsed.operands;
  const target = targetOption ?? (operands.length > 1 ? operands[operands.length - 1] : undefined);
  const sources = targetOption ? operands : operands.slice(0, -1);
  for (const source of sources) {
    if (sourceRole === 'writeTree' && source.value !== undefined && SWEEPING.has(source.value)) {
      report(st, inv, 'critical', 'moves away a top-level, home, current or parent folder');
    }
    checkPath(st, inv, source, sourceRole);
    // Moved into the sandbox's own /tmp (gone with it), to /dev/null or somewhere unknown: lost.
    if (sourceRole === 'writeTree' && movesOutOfReach(st, target)) {
      noteDestroyed(st, inv, source, 'tree', say('moves away', '移走'));
    }
  }
  if (!target) return;
  checkPath(st, inv, target, recursive ? 'writeTree' : 'write');
  if (target.value === undefined) return;
  for (const source of sources) {
    if (source.value === undefined || source.pattern) continue;
    const inside = {
      ...literalWord(path.posix.join(target.value, path.posix.basename(source.value))),
      pattern: target.pattern,
    };
    checkPath(st, inv, inside, recursive ? 'writeTree' : 'write');
    carryOver(st, source, [target, inside]);
  }
}

/** Where a move would take files out of the person's reach: computed, /tmp or /dev/null. */
function movesOutOfReach(st: AnalysisState, target: Word | undefined): boolean {
  if (target === undefined) return false;
  if (target.value === undefined) return true;
  const places = resolvedTargets(st, target);
  return (
    places.length === 0 ||
    places.some((place) => place === '/dev/null' || place === '/tmp' || place.startsWith('/tmp/'))
  );
}

/** A copy of a downloaded or freshly written file is one too. */
function carryOver(st: AnalysisState, source: Word, copies: Word[]): void {
  for (const from of resolvedTargets(st, source)) {
    for (const copy of copies) {
      if (st.downloads.has(from)) for (const target of resolvedTargets(st, copy)) st.downloads.add(target);
      if (st.written.has(from)) noteWrittenFile(st, copy, st.written.get(from));
    }
  }
}

const cp: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, COPY_SPEC);
  const recursive = hasFlag(parsed, 'r', 'recursive') || hasFlag(parsed, 'R') || hasFlag(parsed, 'a', 'archive');
  report(st, inv, 'medium', 'copies files');
  copyTargets(inv, st, parsed, recursive ? 'readTree' : 'read', recursive);
};

const mv: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, COPY_SPEC);
  report(st, inv, 'medium', 'moves files');
  // Moving a file or folder away deletes it, and everything in it, where it was.
  copyTargets(inv, st, parsed, 'writeTree', false);
};

const ln: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { ...COPY_SPEC, flags: 'bdfFinPrsTv' });
  report(st, inv, 'medium', 'creates links');
  const targetOption = optionValues(parsed, '-t', '--target-directory')[0];
  if (!targetOption && parsed.operands.length === 1) {
    // `ln -s TARGET` makes a link named after the target in the current folder.
    const only = parsed.operands[0] as Word;
    checkPath(st, inv, only, 'link');
    if (only.value !== undefined) checkPath(st, inv, literalWord(path.posix.basename(only.value)), 'write');
    return;
  }
  // A link to a credential store or start-up file lets later commands read or write it under an innocent name.
  copyTargets(inv, st, parsed, 'link', false);
};

const install: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'mogStT',
    flags: 'bcCdDpsvZ',
    long: ['mode', 'owner', 'group', 'suffix', 'target-directory', 'backup', 'strip-program', 'context'],
  });
  report(st, inv, 'medium', 'installs files');
  for (const mode of optionValues(parsed, '-m', '--mode')) judgeMode(inv, st, mode);
  for (const owner of optionValues(parsed, '-o', '--owner', '-g', '--group')) judgeOwner(inv, st, owner.value);
  if (hasOption(parsed, '--strip-program')) report(st, inv, 'critical', 'makes install run another program');
  if (hasFlag(parsed, 'd', 'directory')) checkOperands(inv, st, parsed, 'create');
  else copyTargets(inv, st, parsed, 'read', false);
};

/**
 * A mode that sets the setuid or setgid bit: the file then runs with its owner's rights. GNU
 * chmod also takes octal digits after an operator (`=4755`, `+4000`); `-4000` only clears them.
 */
function setsSpecialBits(mode: string): boolean {
  const octal = /^([-+=]?)([0-7]+)$/.exec(mode);
  if (octal) {
    const [, operator = '', digits = ''] = octal;
    return operator !== '-' && (operator !== '' || digits.length >= 4) && (parseInt(digits, 8) & 0o6000) !== 0;
  }
  return mode.split(',').some((clause) => /[+=][rwxXt]*s/.test(clause));
}

function judgeMode(inv: Invocation, st: AnalysisState, mode: Word): void {
  if (mode.value === undefined) report(st, inv, 'critical', 'sets permissions computed at run time');
  else if (setsSpecialBits(mode.value))
    report(st, inv, 'critical', 'sets the setuid/setgid bit (runs with raised rights)');
}

const PRIVILEGED = /^(?:root|0|wheel|sudo|admin|adm|shadow|disk|docker)$/;

function judgeOwner(inv: Invocation, st: AnalysisState, owner: string | undefined): void {
  if (owner === undefined) {
    report(st, inv, 'critical', 'changes the owner to one computed at run time');
    return;
  }
  const [user = '', group = ''] = owner.split(/[:.]/);
  if (PRIVILEGED.test(user) || PRIVILEGED.test(group)) {
    report(st, inv, 'critical', 'gives files to root or a privileged group');
  }
}

/** chmod accepts modes such as `-x` that look like options, so its arguments are read by hand. */
const chmod: Handler = (inv, st) => {
  let recursive = false;
  let reference = false;
  const rest: Word[] = [];
  let optionsDone = false;
  for (const arg of inv.args) {
    const value = arg.value;
    if (!optionsDone && value === '--') optionsDone = true;
    else if (!optionsDone && (value === '-R' || value === '--recursive')) recursive = true;
    else if (!optionsDone && value !== undefined && /^--reference=/.test(value)) reference = true;
    else if (!optionsDone && value !== undefined && /^-(?:[cfv]+|-\w[\w-]*)$/.test(value)) continue;
    else rest.push(arg);
  }
  report(st, inv, 'high', 'changes file permissions');
  // The reference file's mode is copied whole, setuid and setgid bits included.
  if (reference) report(st, inv, 'critical', "copies another file's permissions, setuid and setgid bits included");
  const mode = reference ? undefined : rest[0];
  const files = reference ? rest : rest.slice(1);
  if (mode) judgeMode(inv, st, mode);
  for (const file of files) checkPath(st, inv, file, recursive ? 'writeTree' : 'write');
};

const chown: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    flags: 'cfvhHLPR',
    long: ['from', 'reference'],
    longFlags: ['recursive', 'dereference', 'no-dereference', 'preserve-root', 'no-preserve-root', 'changes', 'silent', 'quiet', 'verbose'],
  }); // prettier-ignore
  const recursive = hasFlag(parsed, 'R', 'recursive');
  report(st, inv, 'high', 'changes who owns files');
  const reference = hasOption(parsed, '--reference');
  const owner = reference ? undefined : parsed.operands[0];
  const files = reference ? parsed.operands : parsed.operands.slice(1);
  if (owner)
    judgeOwner(inv, st, inv.program === 'chgrp' && owner.value !== undefined ? `:${owner.value}` : owner.value);
  for (const file of files) checkPath(st, inv, file, recursive ? 'writeTree' : 'write');
};

const dd: Handler = (inv, st) => {
  report(st, inv, 'medium', 'copies raw data');
  let input: Word | undefined;
  let output: Word | undefined;
  for (const arg of inv.args) {
    const value = arg.value;
    if (value === undefined) {
      report(st, inv, 'critical', 'copies raw data with settings computed at run time');
      continue;
    }
    const [key, ...rest] = value.split('=');
    const operand = literalWord(rest.join('='));
    if (key === 'if') {
      if (isDiskDevice(operand.value ?? '')) report(st, inv, 'critical', 'reads a whole disk or memory device');
      checkPath(st, inv, operand, 'read');
      input = operand;
    } else if (key === 'of') {
      checkPath(st, inv, operand, 'write');
      output = operand;
    }
  }
  // Without if=, dd copies its input into the file: running that file later runs this input.
  if (output && !input) {
    const stdin = inv.stdin;
    noteWrittenFile(st, output, stdin.kind === 'text' || stdin.kind === 'pipe' ? stdin.text : undefined);
  } else if (output && input) {
    carryOver(st, input, [output]);
  }
};

const truncate: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'sr', flags: 'co', long: ['size', 'reference'] });
  const files = parsed.operands;
  if (files.length > 1 || files.some((file) => file.pattern || file.value === undefined)) {
    report(st, inv, 'critical', 'empties several files at once');
  } else {
    report(st, inv, 'high', 'cuts a file to a size, losing what was there');
  }
  for (const file of files) {
    checkPath(st, inv, file, 'delete');
    noteDestroyed(st, inv, file, 'part', say('empties', '清空'));
  }
};

const shred: Handler = (inv, st) => {
  report(st, inv, 'critical', 'destroys file contents beyond recovery');
  // -z (add a last pass of zeros) and --remove take no value (`--remove=HOW` only attached): a
  // value-taking -z would swallow the file it destroys.
  const parsed = parseOptions(inv.args, {
    short: 'ns',
    flags: 'fuvxz',
    long: ['iterations', 'size', 'random-source'],
    longFlags: ['remove', 'force', 'verbose', 'exact', 'zero', 'help', 'version'],
  });
  checkOperands(inv, st, parsed, 'delete');
  for (const file of parsed.operands) noteDestroyed(st, inv, file, 'part', say('destroys', '销毁'));
};

const FIND_VALUE = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-type', '-xtype', '-size',
  '-perm', '-user', '-group', '-uid', '-gid', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-newer',
  '-anewer', '-cnewer', '-maxdepth', '-mindepth', '-links', '-inum', '-samefile', '-used', '-fstype', '-context',
  '-printf', '-regextype', '-lname', '-ilname',
]); // prettier-ignore
const FIND_FLAGS = new Set([
  '-print', '-print0', '-ls', '-prune', '-quit', '-depth', '-d', '-follow', '-xdev', '-mount', '-noleaf',
  '-ignore_readdir_race', '-noignore_readdir_race', '-daystart', '-true', '-false', '-empty', '-executable',
  '-readable', '-writable', '-nouser', '-nogroup', '-a', '-and', '-o', '-or', '-not', '!', '(', ')', ',', '-help',
  '--help', '-version', '--version', '-nowarn', '-warn',
]); // prettier-ignore
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_WRITE = new Map([
  ['-fprint', 1],
  ['-fprint0', 1],
  ['-fls', 1],
  ['-fprintf', 2],
]);

/** find: every primary is known, or the analysis fails closed; -exec runs a command per file. */
const find: Handler = (inv, st) => {
  const args = inv.args;
  let index = 0;
  let follows = false;
  // Leading options: -H -L -P, -D debugopts, -Olevel.
  while (index < args.length) {
    const value = args[index]?.value;
    if (value === '-H' || value === '-P') index += 1;
    else if (value === '-L') {
      follows = true;
      index += 1;
    } else if (value === '-D') index += 2;
    else if (value !== undefined && /^-O\d$/.test(value)) index += 1;
    else break;
  }
  const starts: Word[] = [];
  while (index < args.length) {
    const word = args[index] as Word;
    if (word.value !== undefined && /^[-(!),]/.test(word.value) && word.value !== '-') break;
    // A computed start folder may turn out to be an expression such as -delete.
    if (word.value === undefined)
      report(
        st,
        inv,
        'critical',
        'has a find start folder computed at run time (it could be an expression such as -delete)',
      );
    starts.push(word);
    index += 1;
  }
  if (starts.length === 0) starts.push(literalWord('.'));
  for (const start of starts) checkPath(st, inv, start, 'list');
  const placeholder = () => foundNames(starts, follows);
  // Whether it deletes what it finds, and whether a test narrows what that is (`-name '*.pyc'`).
  let destroysFound = false;
  let filtered = false;
  while (index < args.length) {
    const word = args[index] as Word;
    const value = word.value;
    index += 1;
    if (value === undefined) {
      report(st, inv, 'critical', 'has a find expression computed at run time');
      continue;
    }
    if (value === '-follow') follows = true;
    if (FIND_FLAGS.has(value)) continue;
    if (FIND_VALUE.has(value) || /^-newer[aBcmt][aBcmt]$/.test(value)) {
      if (FIND_TESTS.test(value)) filtered = true;
      index += 1;
      continue;
    }
    if (value === '-delete') {
      report(st, inv, 'critical', 'deletes every file it finds (find -delete)');
      destroysFound = true;
      continue;
    }
    if (value === '-files0-from') {
      const list = args[index];
      if (list) checkPath(st, inv, list, 'read');
      index += 1;
      continue;
    }
    const writes = FIND_WRITE.get(value);
    if (writes !== undefined) {
      const file = args[index];
      report(st, inv, 'medium', 'writes the list of files it finds to a file');
      if (file) checkPath(st, inv, file, 'write');
      index += writes;
      continue;
    }
    if (FIND_EXEC.has(value)) {
      const command: Word[] = [];
      let closed = false;
      let afterPlaceholder = false;
      while (index < args.length) {
        const part = args[index] as Word;
        index += 1;
        if (part.value === ';' || (part.value === '+' && afterPlaceholder)) {
          closed = true;
          break;
        }
        afterPlaceholder = part.value === '{}';
        if (part.value === '{}') command.push(placeholder());
        // A name pasted into a larger word (`sh -c 'cat {}'`) lets a file name inject commands.
        else if (part.value?.includes('{}')) command.push(computedWord(part.text));
        else command.push(part);
      }
      if (!closed) {
        report(
          st,
          inv,
          'critical',
          say(
            `has a ${value} the analyser cannot delimit (fails closed)`,
            `分析器找不到 ${value} 的结尾（无法确认安全，按最危险处理）`,
          ),
        );
      }
      runInner(st, inv, command, { stdin: inv.stdin });
      // `find … -exec rm {} +` deletes whatever it finds, as -delete does.
      const runs = command[0]?.value?.split('/').pop();
      if (runs !== undefined && ['rm', 'unlink', 'shred', 'srm', 'wipe', 'rmdir'].includes(runs)) destroysFound = true;
      continue;
    }
    report(
      st,
      inv,
      'critical',
      say(
        `uses a find primary the analyser does not know (${value}; fails closed)`,
        `使用了分析器不认识的 find 表达式（${value}；无法确认安全，按最危险处理）`,
      ),
    );
  }
  if (destroysFound) {
    const how = say('deletes what find finds in', '删除 find 找到的文件，位于');
    for (const start of starts) noteDestroyed(st, inv, start, filtered ? 'part' : 'tree', how);
  }
};

/** find tests that pick some files by name, age or size (what `-delete` then deletes is a part). */
const FIND_TESTS = /^-(?:i?name|i?path|i?wholename|i?regex|newer.*|[acm](?:time|min)|size|empty|i?lname)$/;

/**
 * What `{}` stands for: files under the start folders. When every start is a fixed relative
 * folder and links are not followed, that is a pattern confined like `dir/*`; otherwise unknown.
 */
function foundNames(starts: readonly Word[], follows: boolean): Word {
  const first = starts[0];
  if (follows || !first || starts.some((start) => start.value === undefined || start.pattern)) {
    return computedWord('{}');
  }
  const texts = new Set(starts.map((start) => (start.value as string).replace(/\/+$/, '')));
  const base = texts.size === 1 ? [...texts][0] : starts.some((start) => /^[~/]/.test(start.value ?? '')) ? '/' : '.';
  // find goes into every sub-folder, dot-folders included: `**` makes the pattern checks treat it so.
  return {
    text: '{}',
    value: `${base === '' ? '/' : base}/**`,
    pattern: true,
    processSubstitution: false,
    plain: false,
  };
}

/** The `{}` of `find -exec`: every file find finds. */
function isFoundFiles(word: Word): boolean {
  return word.pattern && word.text === '{}';
}

const FD_OPTIONS: OptionSpec = {
  short: 'etEdScjxX',
  long: ['extension', 'type', 'exclude', 'max-depth', 'min-depth', 'exact-depth', 'size', 'color', 'threads',
    'exec', 'exec-batch', 'changed-within', 'changed-before', 'owner', 'format', 'batch-size', 'path-separator',
    'ignore-file', 'base-directory', 'search-path', 'max-results', 'and'],
}; // prettier-ignore

/** fd can run a command for every match (-x/-X): everything after is that command. */
const fd: Handler = (inv, st) => {
  const execAt = inv.args.findIndex((arg) => ['-x', '-X', '--exec', '--exec-batch'].includes(arg.value ?? ''));
  const own = execAt >= 0 ? inv.args.slice(0, execAt) : inv.args;
  const parsed = parseOptions(own, FD_OPTIONS);
  for (const dir of [...optionValues(parsed, '--search-path', '--base-directory'), ...parsed.operands.slice(1)]) {
    checkPath(st, inv, dir, 'list');
  }
  if (execAt < 0) return;
  const command = inv.args.slice(execAt + 1);
  const end = command.findIndex((part) => part.value === ';');
  const words = (end >= 0 ? command.slice(0, end) : command).map((part) =>
    part.value !== undefined && /\{[/.]*\}/.test(part.value) ? RUNTIME_ARGS : part,
  );
  runInner(st, inv, [...words, RUNTIME_ARGS], { stdin: inv.stdin });
};

const TAR_VALUE_LETTERS = 'fCTXIFgKNVbHL';
const TAR_LONG = [
  'file', 'directory', 'files-from', 'exclude-from', 'use-compress-program', 'info-script', 'new-volume-script',
  'listed-incremental', 'starting-file', 'newer', 'after-date', 'newer-mtime', 'label', 'blocking-factor', 'format',
  'tape-length', 'checkpoint-action', 'to-command', 'rsh-command', 'exclude', 'transform', 'xform', 'owner',
  'group', 'mode', 'mtime', 'strip-components', 'record-size', 'volno-file', 'suffix', 'pax-option', 'quoting-style',
  'sort', 'warning', 'level', 'owner-map', 'group-map', 'exclude-tag', 'exclude-tag-under', 'exclude-tag-all',
  'add-file', 'index-file', 'hole-detection', 'occurrence', 'checkpoint', 'backup', 'atime-preserve', 'one-top-level',
  'numeric-owner', 'totals', 'to-stdout',
]; // prettier-ignore
const TAR_LONG_FLAGS = [
  'create', 'extract', 'get', 'list', 'append', 'update', 'concatenate', 'catenate', 'delete', 'diff', 'compare',
  'absolute-names', 'gzip', 'bzip2', 'xz', 'zstd', 'lzma', 'lzip', 'lzop', 'compress', 'auto-compress', 'verbose',
  'keep-old-files', 'overwrite', 'unlink-first', 'recursive-unlink', 'preserve-permissions', 'same-permissions',
  'same-owner', 'no-same-owner', 'dereference', 'hard-dereference', 'ignore-zeros', 'wildcards', 'no-recursion',
  'recursion', 'verify', 'force-local', 'sparse', 'null', 'help', 'version', 'show-transformed-names', 'utc',
]; // prettier-ignore
const TAR_DANGEROUS = ['--checkpoint-action', '--to-command', '--use-compress-program', '-I', '--rsh-command',
  '--info-script', '--new-volume-script', '-F']; // prettier-ignore

/** tar, including the old form `tar czf out.tgz dir` whose letters take their values from the words after. */
const tar: Handler = (inv, st) => {
  let args = inv.args;
  const first = args[0]?.value;
  if (first !== undefined && /^[A-Za-z]+$/.test(first)) {
    const expanded: Word[] = [];
    let next = 1;
    for (const letter of first) {
      expanded.push(literalWord(`-${letter}`));
      if (TAR_VALUE_LETTERS.includes(letter) && args[next]) {
        expanded.push(args[next] as Word);
        next += 1;
      }
    }
    args = [...expanded, ...args.slice(next)];
  }
  const parsed = parseOptions(args, { short: TAR_VALUE_LETTERS, long: TAR_LONG, longFlags: TAR_LONG_FLAGS });
  report(st, inv, 'medium', 'packs or unpacks an archive');
  if (hasOption(parsed, ...TAR_DANGEROUS)) report(st, inv, 'critical', 'makes tar run another program');
  if (parsed.unknown.some((name) => name.startsWith('--'))) {
    const unknown = parsed.unknown.join(', ');
    report(
      st,
      inv,
      'critical',
      say(`uses tar options the analyser does not know (${unknown})`, `使用了分析器不认识的 tar 选项（${unknown}）`),
    );
  }
  const creates = hasOption(
    parsed,
    '-c',
    '--create',
    '-r',
    '--append',
    '-u',
    '--update',
    '-A',
    '--concatenate',
    '--catenate',
  );
  const extracts = hasOption(parsed, '-x', '--extract', '--get');
  const toStdout = hasOption(parsed, '-O', '--to-stdout');
  const archives = optionValues(parsed, '-f', '--file');
  const directory = optionValues(parsed, '-C', '--directory').at(-1);
  for (const archive of archives) checkPath(st, inv, archive, creates ? 'write' : 'read');
  if (creates) {
    if (hasOption(parsed, '-T', '--files-from')) {
      report(st, inv, 'critical', 'archives files listed in a file, which the analyser cannot see');
    }
    for (const source of parsed.operands) checkPath(st, inv, within(directory, source), 'readTree');
  }
  if (extracts && !toStdout) {
    if (hasOption(parsed, '-P', '--absolute-names')) {
      report(st, inv, 'critical', 'unpacks an archive with absolute paths, which can write anywhere');
    }
    checkPath(st, inv, directory ?? literalWord('.'), 'writeTree');
  }
};

function within(directory: Word | undefined, source: Word): Word {
  if (!directory || source.value === undefined || /^[/~]/.test(source.value)) return source;
  if (directory.value === undefined) return computedWord(source.text);
  return { ...source, value: path.posix.join(directory.value, source.value) };
}

const zip: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'bnOPstxiZ',
    long: ['temp-path', 'suffixes', 'output-file', 'password', 'split-size', 'unzip-command', 'exclude', 'include',
      'compression-method', 'from-date', 'before-date'],
  }); // prettier-ignore
  report(st, inv, 'medium', 'packs files into a zip archive');
  if (inv.args.some((arg) => arg.value === '-TT' || arg.value?.startsWith('--unzip-command'))) {
    report(st, inv, 'critical', 'makes zip run another program (-TT / --unzip-command)');
  }
  if (hasOption(parsed, '-@') || inv.args.some((arg) => arg.value === '-@')) {
    report(st, inv, 'critical', 'archives files whose names it reads from its input');
  }
  const recursive = hasFlag(parsed, 'r', 'recurse-paths') || hasFlag(parsed, 'R', 'recurse-patterns');
  const [archive, ...sources] = parsed.operands;
  if (archive) checkPath(st, inv, archive, 'write');
  const moves = hasFlag(parsed, 'm', 'move');
  if (moves) report(st, inv, 'high', 'deletes the files it archives (zip -m)');
  for (const source of sources) checkPath(st, inv, source, moves ? 'delete' : recursive ? 'readTree' : 'read');
};

const unzip: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, { short: 'dxP', flags: 'acfhjlnopqtuvzCDKLMNTVWXZ' });
  const [archive] = parsed.operands;
  if (archive) checkPath(st, inv, archive, 'read');
  if (inv.args.some((arg) => arg.value === '-:' || arg.value === '-^')) {
    report(st, inv, 'critical', 'unpacks entries with ../ paths, which can write anywhere');
  }
  if (hasOption(parsed, '-l', '-t', '-v', '-Z', '-z', '-p', '-c')) return;
  report(st, inv, 'medium', 'unpacks an archive');
  checkPath(st, inv, optionValues(parsed, '-d').at(-1) ?? literalWord('.'), 'writeTree');
};

const sevenZip: Handler = (inv, st) => {
  const command = inv.args[0]?.value;
  const rest = inv.args.slice(1);
  const output = rest.find((arg) => arg.value?.startsWith('-o'));
  const operands = rest.filter((arg) => !arg.value?.startsWith('-'));
  if (command === 'l' || command === 't' || command === 'h' || command === 'i') return;
  report(st, inv, 'medium', 'packs or unpacks an archive');
  if (command === 'x' || command === 'e') {
    const [archive] = operands;
    if (archive) checkPath(st, inv, archive, 'read');
    if (!rest.some((arg) => arg.value === '-so')) {
      const target =
        output?.value === undefined ? output && computedWord(output.text) : literalWord(output.value.slice(2));
      checkPath(st, inv, target ?? literalWord('.'), 'writeTree');
    }
    return;
  }
  const [archive, ...sources] = operands;
  if (archive) checkPath(st, inv, archive, 'write');
  for (const source of sources) checkPath(st, inv, source, 'readTree');
};

/** gzip and friends replace each file with its (de)compressed form unless told to write to stdout. */
const compressor: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'bSpT',
    long: ['suffix', 'processes', 'threads', 'memlimit', 'level'],
  });
  const toStdout = hasOption(parsed, '-c', '--stdout', '--to-stdout', '-l', '--list', '-t', '--test');
  if (!toStdout) report(st, inv, 'medium', 'replaces files with their (de)compressed form');
  checkOperands(inv, st, parsed, toStdout ? 'read' : 'write');
};

const cpio: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'HFOIMECRs',
    long: ['rsh-command', 'file', 'format', 'owner', 'directory'],
  });
  report(st, inv, 'high', 'packs or unpacks a cpio archive');
  if (hasOption(parsed, '--rsh-command', '-M')) report(st, inv, 'critical', 'makes cpio run another program');
  if (hasOption(parsed, '-o', '--create', '-p', '--pass-through')) {
    report(st, inv, 'critical', 'archives or copies files whose names it reads from its input');
  }
};

const patch: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'BdDFioprVYzg',
    long: ['prefix', 'directory', 'ifdef', 'fuzz', 'input', 'output', 'strip', 'reject-file', 'version-control',
      'basename-prefix', 'suffix', 'get', 'quoting-style', 'merge', 'backup-if-mismatch', 'read-only'],
  }); // prettier-ignore
  report(st, inv, 'medium', 'applies a patch to files');
  for (const input of optionValues(parsed, '-i', '--input')) checkPath(st, inv, input, 'read');
  for (const output of optionValues(parsed, '-o', '--output', '-r', '--reject-file'))
    checkPath(st, inv, output, 'write');
  const [original, patchFile] = parsed.operands;
  if (original) checkPath(st, inv, original, 'write');
  if (patchFile) checkPath(st, inv, patchFile, 'read');
};

const setfacl: Handler = (inv, st) => {
  const parsed = parseOptions(inv.args, {
    short: 'mMxX',
    long: ['modify', 'modify-file', 'remove', 'remove-file', 'set', 'set-file'],
  });
  report(st, inv, 'high', 'changes who may use files');
  checkOperands(inv, st, parsed, hasFlag(parsed, 'R', 'recursive') ? 'writeTree' : 'write');
};

const chattr: Handler = (inv, st) => {
  report(st, inv, 'high', 'changes file attributes');
  for (const arg of inv.args) {
    if (arg.value !== undefined && /^[-+=]/.test(arg.value)) continue;
    checkPath(st, inv, arg, 'write');
  }
};

export const FILE_HANDLERS: Record<string, Handler> = {
  rm,
  unlink: simple({ risk: 'high', what: 'deletes a file', paths: 'delete' }),
  cp,
  mv,
  ln,
  install,
  chmod,
  chown,
  chgrp: chown,
  dd,
  truncate,
  shred,
  wipe: shred,
  srm: shred,
  scrub: shred,
  find,
  fd,
  fdfind: fd,
  tar,
  bsdtar: tar,
  gtar: tar,
  zip,
  unzip,
  '7z': sevenZip,
  '7za': sevenZip,
  '7zr': sevenZip,
  '7zz': sevenZip,
  gzip: compressor,
  gunzip: compressor,
  bzip2: compressor,
  bunzip2: compressor,
  xz: compressor,
  unxz: compressor,
  lzma: compressor,
  unlzma: compressor,
  zstd: compressor,
  unzstd: compressor,
  lz4: compressor,
  pigz: compressor,
  unpigz: compressor,
  brotli: compressor,
  compress: compressor,
  uncompress: compressor,
  zcat: simple({ risk: 'low', paths: 'read' }),
  bzcat: simple({ risk: 'low', paths: 'read' }),
  xzcat: simple({ risk: 'low', paths: 'read' }),
  zstdcat: simple({ risk: 'low', paths: 'read' }),
  cpio,
  ar: simple({ risk: 'medium', what: 'packs or unpacks an ar archive' }),
  patch,
  setfacl,
  chattr,
  getfacl: simple({ risk: 'low', paths: 'list' }),
};
