import { say, type Localized } from '@nextai/shared';

import {
  checkPath,
  checkUrl,
  joinedValue,
  noteDestroyed,
  report,
  runInner,
  runShellText,
  type Invocation,
} from '../invocation.js';
import type { AnalysisState } from '../state.js';
import { literalWord, type Word } from '../words.js';
import type { Handler } from './types.js';

/** Config keys that name a program git runs, or point git at other settings, hooks or credentials. */
const COMMAND_KEYS: RegExp[] = [
  /^core\.(?:pager|editor|sshcommand|fsmonitor|hookspath|gitproxy|askpass|worktree)$/,
  /^sequence\.editor$/,
  /^diff\.external$/,
  /^diff\..+\.(?:command|textconv)$/,
  /^merge\..+\.driver$/,
  /^filter\..+\.(?:clean|smudge|process)$/,
  /^credential\.(?:.+\.)?helper$/,
  /^gpg\.(?:.+\.)?program$/,
  /^pager\./,
  /^alias\./,
  /^uploadpack\./,
  /^receive\./,
  /^include\.path$/,
  /^includeif\./,
  /^remote\..+\.(?:uploadpack|receivepack|proxy|vcs)$/,
  /^protocol\./,
  /^web\.browser$/,
  /^browser\./,
  /^man\./,
  /^instaweb\./,
  /^(?:merge|diff)tool\./,
  /^sendemail\./,
  /^submodule\..+\.update$/,
  /^ssh\.variant$/,
  /^safe\.directory$/,
  /^init\.templatedir$/,
  /^url\./,
  /^http\.(?:.+\.)?proxy$/,
  /^core\.(?:sshcommand|editor)$/,
];

/** Why setting `key` is critical: it makes git run a command or trust other settings. */
function dangerousKey(key: string): boolean {
  const lower = key.toLowerCase();
  return COMMAND_KEYS.some((pattern) => pattern.test(lower));
}

function judgeConfigPair(inv: Invocation, st: AnalysisState, pair: Word | undefined): void {
  const value = pair?.value;
  if (value === undefined) {
    report(st, inv, 'critical', 'sets git configuration computed at run time');
    return;
  }
  const key = value.split('=')[0] ?? '';
  if (dangerousKey(key)) {
    report(
      st,
      inv,
      'critical',
      say(
        `sets git configuration that runs commands or trusts other settings (${key})`,
        `设置会运行命令或信任其他设置的 git 配置（${key}）`,
      ),
    );
  }
}

/** `ext::` URLs make git run a command as the transport. */
function gitUrl(inv: Invocation, st: AnalysisState, word: Word): void {
  const value = word.value;
  if (value === undefined) {
    report(st, inv, 'critical', 'uses a git remote computed at run time');
    return;
  }
  if (/^ext::/i.test(value) || /^fd::/i.test(value)) {
    report(st, inv, 'critical', 'uses a git transport that runs a command (ext::)');
    return;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    if (!/^file:/i.test(value)) checkUrl(st, inv, word);
    return;
  }
  const host = /^(?:[^@/:]+@)?([^:/]+):(?!\/\/)/.exec(value)?.[1];
  if (host && host.length > 1) checkUrl(st, inv, { ...word, value: `ssh://${host}` });
}

interface Parsed {
  sub: string | undefined;
  args: Word[];
  /** Where the repository is: `-C dir` (the last one), else the current folder. */
  here: Word;
}

const GLOBAL_VALUE = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--list-cmds',
  '--attr-source',
]);
const GLOBAL_FLAGS = new Set([
  '-p', '--paginate', '-P', '--no-pager', '--bare', '--no-replace-objects', '--literal-pathspecs', '--glob-pathspecs',
  '--noglob-pathspecs', '--icase-pathspecs', '--no-optional-locks', '--no-advice', '--version', '-v', '--help', '-h',
  '--html-path', '--man-path', '--info-path', '--exec-path',
]); // prettier-ignore

function globalOptions(inv: Invocation, st: AnalysisState): Parsed | undefined {
  const args = inv.args;
  let index = 0;
  let here: Word = literalWord('.');
  while (index < args.length) {
    const word = args[index] as Word;
    const value = word.value;
    if (value === undefined) {
      report(st, inv, 'critical', 'runs git with options computed at run time');
      return undefined;
    }
    if (!value.startsWith('-')) break;
    const [name = '', attached] = value.startsWith('--') ? splitOnce(value, '=') : [value, undefined];
    if (name === '--config-env' || (name === '--exec-path' && attached !== undefined)) {
      report(st, inv, 'critical', say(`points git at other programs (${name})`, `让 git 改用其他程序（${name}）`));
      index += 1;
      continue;
    }
    if (name === '-c') {
      judgeConfigPair(inv, st, args[index + 1]);
      index += 2;
      continue;
    }
    if (name === '--git-dir' || name === '--work-tree') {
      report(st, inv, 'high', 'runs git on another repository folder, whose settings can run commands');
    }
    if (name === '-C') {
      const dir = args[index + 1];
      // `git -C a -C b` is a/b; a computed folder stays unknown.
      if (dir) {
        here =
          dir.value === undefined || here.value === undefined
            ? dir
            : literalWord(
                dir.value.startsWith('/') || dir.value.startsWith('~') ? dir.value : `${here.value}/${dir.value}`,
              );
      }
    }
    if (GLOBAL_VALUE.has(name)) {
      index += attached === undefined ? 2 : 1;
      continue;
    }
    if (!GLOBAL_FLAGS.has(name)) {
      report(
        st,
        inv,
        'critical',
        say(
          `runs git with an option the analyser does not know (${value})`,
          `用分析器不认识的选项运行 git（${value}）`,
        ),
      );
    }
    index += 1;
  }
  return { sub: args[index]?.value, args: args.slice(index + 1), here };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function values(args: readonly Word[]): string[] {
  return args.map((arg) => arg.value ?? '');
}

/**
 * Whether any of `names` was given. git accepts a long option shortened to a unique prefix
 * (`--upload-p`), so a prefix of four or more letters counts as the option.
 */
function has(args: readonly Word[], ...names: string[]): boolean {
  return args.some((arg) => {
    const value = arg.value;
    if (value === undefined) return false;
    const given = value.split('=')[0] ?? value;
    const long = (name: string) =>
      name.startsWith('--') && (given === name || (given.length >= 6 && name.startsWith(given)));
    if (names.includes(value) || names.some(long)) return true;
    // Short flags may be clustered: `-fdx`.
    return (
      /^-[a-zA-Z]{2,}$/.test(value) &&
      names.some((name) => /^-[a-zA-Z]$/.test(name) && value.includes(name[1] as string))
    );
  });
}

function optionValue(args: readonly Word[], ...names: string[]): Word[] {
  const found: Word[] = [];
  args.forEach((arg, index) => {
    const value = arg.value;
    if (value === undefined) return;
    const [given = '', attached] = splitOnce(value, '=');
    for (const name of names) {
      const matches = given === name || (name.startsWith('--') && given.length >= 6 && name.startsWith(given));
      if (!matches) continue;
      if (attached !== undefined) found.push({ ...arg, value: attached });
      else if (args[index + 1]) found.push(args[index + 1] as Word);
    }
  });
  return found;
}

function operands(args: readonly Word[]): Word[] {
  return args.filter((arg) => arg.value !== undefined && !arg.value.startsWith('-'));
}

const LISTING = new Set([
  'status', 'log', 'diff', 'show', 'rev-parse', 'rev-list', 'ls-files', 'ls-tree', 'describe', 'shortlog', 'blame',
  'annotate', 'cat-file', 'show-ref', 'for-each-ref', 'name-rev', 'merge-base', 'count-objects', 'fsck',
  'verify-commit', 'verify-tag', 'verify-pack', 'check-ignore', 'check-attr', 'check-mailmap', 'check-ref-format',
  'var', 'help', 'version', 'whatchanged', 'show-branch', 'cherry', 'range-diff', 'diff-tree', 'diff-files',
  'diff-index', 'request-pull', 'get-tar-commit-id', 'stripspace', 'grep', 'shortlog', 'column',
]); // prettier-ignore

const EVERYDAY = new Set([
  'add', 'commit', 'mv', 'merge', 'cherry-pick', 'revert', 'am', 'apply', 'init', 'sparse-checkout', 'gc', 'prune',
  'repack', 'update-index', 'replace', 'commit-graph', 'multi-pack-index', 'pack-refs', 'lfs', 'hash-object',
  'mktree', 'mktag', 'write-tree', 'read-tree', 'commit-tree', 'fast-import', 'fast-export', 'bundle', 'format-patch',
  'interpret-trailers', 'mailinfo', 'mailsplit', 'merge-file', 'merge-tree', 'rerere', 'restore', 'switch',
  'checkout', 'stash', 'tag', 'branch', 'notes', 'worktree', 'submodule', 'bisect', 'reset', 'rm', 'clone', 'fetch',
  'pull', 'remote', 'config', 'archive', 'reflog', 'update-ref', 'maintenance', 'push', 'rebase', 'clean',
  'filter-branch', 'filter-repo', 'difftool', 'mergetool', 'send-email', 'daemon', 'instaweb', 'hook', 'ls-remote',
  'symbolic-ref', 'citool', 'gui', 'gitk', 'shell', 'upload-pack', 'receive-pack', 'p4', 'svn', 'cvsimport',
  'archimport', 'quiltimport', 'credential', 'credential-store', 'credential-cache', 'web--browse',
]); // prettier-ignore

const git: Handler = (inv, st) => {
  const parsed = globalOptions(inv, st);
  if (!parsed) return;
  const { sub, args } = parsed;
  if (sub === undefined) {
    if (inv.args.length > 0 && parsed.args.length === 0 && inv.args.at(-1)?.value === undefined) {
      report(st, inv, 'critical', 'runs a git subcommand computed at run time');
    }
    return;
  }
  if (['log', 'show', 'diff', 'format-patch', 'archive', 'bundle'].includes(sub)) {
    for (const output of optionValue(args, '--output', '-o')) {
      report(st, inv, 'medium', 'writes git output to a file');
      checkPath(st, inv, output, 'write');
    }
  }
  const transfers = [
    'clone',
    'fetch',
    'pull',
    'ls-remote',
    'push',
    'archive',
    'send-pack',
    'fetch-pack',
    'remote',
    'submodule',
  ];
  if (
    transfers.includes(sub) &&
    (has(args, '--upload-pack', '--receive-pack', '--exec') || (sub === 'clone' && has(args, '-u')))
  ) {
    report(st, inv, 'critical', 'makes git run another program for the transfer (--upload-pack/--receive-pack/--exec)');
  }
  if (LISTING.has(sub)) {
    listing(inv, st, sub, args);
    return;
  }
  if (!EVERYDAY.has(sub)) {
    report(
      st,
      inv,
      'high',
      say(
        `runs "git ${sub}", which NextAI has no rules for (it may be an alias or a plugin)`,
        `运行“git ${sub}”，NextAI 没有针对它的规则（它可能是别名或插件）`,
      ),
    );
    return;
  }
  everyday(inv, st, sub, args, parsed.here);
};

function listing(inv: Invocation, st: AnalysisState, sub: string, args: Word[]): void {
  if (sub === 'grep' && has(args, '-O', '--open-files-in-pager')) {
    report(st, inv, 'critical', 'makes git run a program on the files it finds (grep -O)');
  }
  if (sub === 'diff' && has(args, '--no-index')) {
    for (const file of operands(args)) checkPath(st, inv, file, 'read');
  }
}

/** A path given to git relative to where the repository is (`git -C app clean -fd src`). */
function within(here: Word, path: Word): Word {
  if (path.value === undefined || here.value === undefined || here.value === '.') return path;
  if (path.value.startsWith('/') || path.value.startsWith('~')) return path;
  return literalWord(`${here.value}/${path.value}`);
}

function runsGit(sub: string): Localized {
  return say(`runs git ${sub}`, `运行 git ${sub}`);
}

function everyday(inv: Invocation, st: AnalysisState, sub: string, args: Word[], here: Word): void {
  const list = values(args);
  // Pruning now deletes what is unreachable at once: after a reset or an expired reflog, the
  // commits that could have been recovered.
  if ((sub === 'gc' || sub === 'prune') && list.some((value) => /^--(?:prune|expire)=(?:now|all)$/.test(value))) {
    noteDestroyed(
      st,
      inv,
      literalWord(`${here.value ?? '.'}/.git`),
      'tree',
      say('prunes the history of', '清除历史，位于'),
    );
  }
  const urls = () => {
    for (const operand of operands(args)) gitUrl(inv, st, operand);
  };
  switch (sub) {
    case 'branch':
    case 'tag': {
      const changeFlags =
        sub === 'branch'
          ? [
              '-d',
              '-D',
              '-m',
              '-M',
              '-c',
              '-C',
              '--delete',
              '--move',
              '--copy',
              '-u',
              '--set-upstream-to',
              '--unset-upstream',
              '--edit-description',
              '-f',
              '--force',
            ]
          : [
              '-d',
              '--delete',
              '-a',
              '--annotate',
              '-s',
              '--sign',
              '-u',
              '--local-user',
              '-f',
              '--force',
              '-m',
              '--message',
              '-F',
              '--file',
              '-e',
              '--edit',
            ];
      const listFlags = [
        '-l',
        '--list',
        '-a',
        '--all',
        '-r',
        '--remotes',
        '--contains',
        '--no-contains',
        '--merged',
        '--no-merged',
        '--points-at',
        '--show-current',
        '-v',
        '-vv',
        '-n',
        '--sort',
        '--format',
      ];
      const changes = has(args, ...changeFlags) || (operands(args).length > 0 && !has(args, ...listFlags));
      if (!changes) return;
      const noun = sub === 'branch' ? '分支' : '标签';
      if (has(args, '-D') || (has(args, '-d', '--delete') && has(args, '-f', '--force'))) {
        report(st, inv, 'high', say(`force-deletes a git ${sub}`, `强制删除 git ${noun}`));
      } else {
        report(st, inv, 'medium', say(`changes git ${sub}es`, `更改 git ${noun}`));
      }
      return;
    }
    case 'remote': {
      const [action] = operands(args);
      if (!action || ['show', 'get-url'].includes(action.value ?? '')) return;
      report(st, inv, 'medium', 'changes git remotes');
      if (['add', 'set-url'].includes(action.value ?? '')) {
        const url = operands(args).at(-1);
        if (url) gitUrl(inv, st, url);
      }
      return;
    }
    case 'config':
      config(inv, st, args);
      return;
    case 'stash': {
      const [action] = operands(args);
      if (action?.value === 'list' || action?.value === 'show') return;
      if (action?.value === 'drop' || action?.value === 'clear') report(st, inv, 'high', 'throws away stashed changes');
      else report(st, inv, 'medium', 'stashes changes');
      return;
    }
    case 'checkout':
    case 'switch':
    case 'restore': {
      const discards =
        list.includes('--') ||
        list.includes('.') ||
        has(args, '-f', '--force', '--discard-changes', '--worktree', '-W', '-p', '--patch') ||
        (sub === 'restore' && !has(args, '--staged', '-S'));
      report(st, inv, discards ? 'high' : 'medium', discards ? 'throws away uncommitted changes' : runsGit(sub));
      if (discards) {
        noteDestroyed(st, inv, here, 'part', say('throws away uncommitted changes in', '丢弃未提交的更改，位于'));
      }
      return;
    }
    case 'reset':
      if (has(args, '--hard', '--merge', '--keep')) {
        report(st, inv, 'high', 'throws away commits or uncommitted changes');
        noteDestroyed(st, inv, here, 'part', say('throws away uncommitted changes in', '丢弃未提交的更改，位于'));
      } else report(st, inv, 'medium', 'moves the current branch');
      return;
    case 'clean': {
      if (has(args, '-n', '--dry-run')) return;
      const force = has(args, '-f', '--force');
      if (force && has(args, '-x', '-X', '-d'))
        report(st, inv, 'critical', 'deletes untracked and ignored files and folders');
      else report(st, inv, 'high', 'deletes untracked files');
      const paths = operands(args);
      const how = say('deletes the untracked files of', '删除未跟踪的文件，位于');
      for (const place of paths.length > 0 ? paths.map((path) => within(here, path)) : [here]) {
        noteDestroyed(st, inv, place, 'tree', how);
      }
      return;
    }
    case 'rm':
      if (has(args, '-r') && has(args, '-f', '--force')) report(st, inv, 'critical', 'force-deletes files recursively');
      else report(st, inv, 'high', 'deletes files from the work tree');
      return;
    case 'push':
      report(
        st,
        inv,
        'high',
        has(args, '-f', '--force', '--force-with-lease', '--mirror', '--delete', '-d')
          ? 'overwrites or deletes history on a remote'
          : 'publishes commits to a remote',
      );
      urls();
      return;
    case 'rebase':
      report(st, inv, 'high', 'rewrites commit history');
      for (const text of optionValue(args, '-x', '--exec'))
        runShellText(st, inv, text.value, 'runs a command for each commit');
      return;
    case 'clone':
      report(st, inv, 'medium', 'downloads a repository');
      for (const pair of optionValue(args, '-c', '--config')) judgeConfigPair(inv, st, pair);
      if (has(args, '--template'))
        report(st, inv, 'critical', 'copies hooks from another folder into the new repository');
      urls();
      return;
    case 'fetch':
    case 'pull':
    case 'ls-remote':
      report(st, inv, sub === 'ls-remote' ? 'low' : 'medium', runsGit(sub));
      urls();
      return;
    case 'submodule': {
      const [action] = operands(args);
      if (action?.value === 'foreach') {
        report(st, inv, 'high', 'runs a command in every submodule');
        const rest = args
          .slice(args.indexOf(action) + 1)
          .filter((arg) => arg.value !== '--recursive' && arg.value !== '-q' && arg.value !== '--quiet');
        runShellText(st, inv, joinedValue(rest), 'runs a command in every submodule');
        return;
      }
      if (action?.value === 'status' || action?.value === 'summary' || action === undefined) return;
      report(st, inv, 'medium', 'changes submodules');
      if (action.value === 'add') urls();
      return;
    }
    case 'bisect': {
      const [action] = operands(args);
      if (action?.value === 'run') {
        report(st, inv, 'high', 'runs a command for each commit it tests');
        runInner(st, inv, args.slice(args.indexOf(action) + 1));
        return;
      }
      if (action?.value !== 'log' && action?.value !== 'view' && action?.value !== 'visualize') {
        report(st, inv, 'medium', 'moves through history to find a change');
      }
      return;
    }
    case 'filter-branch':
      report(st, inv, 'high', 'rewrites the whole history');
      for (const text of optionValue(
        args,
        '--tree-filter',
        '--index-filter',
        '--msg-filter',
        '--env-filter',
        '--commit-filter',
        '--parent-filter',
        '--tag-name-filter',
      )) {
        runShellText(st, inv, text.value, 'runs a filter command for every commit');
      }
      return;
    case 'filter-repo':
      report(st, inv, 'high', 'rewrites the whole history');
      if (list.some((value) => /^--\w+-callback(?:=|$)/.test(value)))
        report(st, inv, 'critical', 'runs python code for every commit');
      return;
    case 'difftool':
    case 'mergetool':
      report(st, inv, 'high', 'starts a diff or merge tool');
      for (const text of optionValue(args, '-x', '--extcmd')) runShellText(st, inv, text.value, 'runs a diff command');
      return;
    case 'send-email': {
      report(st, inv, 'high', 'sends email');
      const server = optionValue(args, '--smtp-server')[0]?.value;
      if (has(args, '--to-cmd', '--cc-cmd', '--header-cmd', '--sendmail-cmd') || server?.startsWith('/')) {
        report(st, inv, 'critical', 'makes git run another program to send email');
      }
      return;
    }
    case 'credential':
    case 'credential-store':
    case 'credential-cache':
      report(st, inv, 'critical', 'reads or changes stored git credentials');
      return;
    case 'maintenance': {
      const [action] = operands(args);
      if (action?.value === 'start' || action?.value === 'register') {
        report(st, inv, 'critical', 'schedules background git jobs (cron, systemd or launchd)');
      } else {
        report(st, inv, 'medium', 'runs git maintenance');
      }
      return;
    }
    case 'worktree': {
      const [action] = operands(args);
      if (action?.value === 'list') return;
      report(
        st,
        inv,
        action?.value === 'remove' || action?.value === 'prune' ? 'high' : 'medium',
        'changes git worktrees',
      );
      return;
    }
    case 'reflog': {
      const [action] = operands(args);
      if (action?.value === 'expire' || action?.value === 'delete') {
        report(st, inv, 'high', 'deletes reflog entries');
        // Expiring everything now takes away what undoes a reset: the repository's history is at stake.
        if (list.some((value) => /^--expire(?:-unreachable)?=(?:now|all)$/.test(value)) || list.includes('--all')) {
          noteDestroyed(
            st,
            inv,
            literalWord(`${here.value ?? '.'}/.git`),
            'tree',
            say('throws away the undo history of', '丢弃撤销历史，位于'),
          );
        }
      }
      return;
    }
    case 'notes': {
      const [action] = operands(args);
      if (action === undefined || action.value === 'list' || action.value === 'show') return;
      report(st, inv, 'medium', 'changes git notes');
      return;
    }
    case 'update-ref':
      report(st, inv, has(args, '-d') ? 'high' : 'medium', 'changes a git reference');
      return;
    case 'archive':
      report(st, inv, has(args, '--remote') ? 'high' : 'medium', 'writes an archive of the repository');
      return;
    case 'commit':
      report(st, inv, 'medium', 'records a git commit');
      for (const file of optionValue(args, '-F', '--file', '-t', '--template')) checkPath(st, inv, file, 'read');
      return;
    case 'daemon':
    case 'instaweb':
    case 'hook':
    case 'shell':
    case 'upload-pack':
    case 'receive-pack':
    case 'p4':
    case 'svn':
    case 'cvsimport':
    case 'archimport':
    case 'quiltimport':
    case 'citool':
    case 'gui':
    case 'gitk':
    case 'web--browse':
      report(st, inv, 'high', runsGit(sub));
      return;
    default:
      report(st, inv, 'medium', runsGit(sub));
  }
}

function config(inv: Invocation, st: AnalysisState, args: Word[]): void {
  const list = values(args);
  if (has(args, '-e', '--edit')) {
    report(st, inv, 'high', 'opens git configuration in an editor');
    return;
  }
  const reading = has(
    args,
    '--get',
    '--get-all',
    '--get-regexp',
    '--get-urlmatch',
    '--get-color',
    '--get-colorbool',
    '-l',
    '--list',
  );
  const files = optionValue(args, '-f', '--file', '--blob');
  const rest = args.filter((arg, index) => {
    const value = arg.value ?? '';
    const previous = args[index - 1]?.value ?? '';
    return !value.startsWith('-') && !['-f', '--file', '--blob', '--type', '--default', '--comment'].includes(previous);
  });
  const action = rest[0]?.value;
  const modern = ['get', 'list', 'set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(action ?? '');
  const keys = modern ? rest.slice(1) : rest;
  if (
    reading ||
    action === 'get' ||
    action === 'list' ||
    (!modern &&
      keys.length <= 1 &&
      !has(args, '--unset', '--unset-all', '--remove-section', '--rename-section', '--add', '--replace-all'))
  ) {
    return;
  }
  report(st, inv, 'medium', 'changes git configuration');
  if (list.includes('--system')) report(st, inv, 'critical', 'changes git configuration for every user of the machine');
  for (const file of files) checkPath(st, inv, file, 'write');
  const key = keys[0];
  if (key) judgeConfigPair(inv, st, key);
}

export const GIT_HANDLERS: Record<string, Handler> = { git };
