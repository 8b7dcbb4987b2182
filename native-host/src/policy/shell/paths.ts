import path from 'node:path';

import { say, type Localized } from '@nextai/shared';

import { APP_SECRETS, HOME_SECRETS, MAIL_SECRETS, MESSENGER_SECRETS, WALLET_SECRETS } from '../../sandbox/places.js';
import { extend, joinZh, type ShellPhrase } from './phrases.js';

/**
 * Where a write changes what runs later or who may log in: shell start-up files, folders on
 * PATH, ssh keys and config, autostart and service folders, git hooks, history files. Entries
 * ending in `/` cover everything below them. `~` is the person's home folder.
 */
const WRITE_CRITICAL: { path: string; what: Localized }[] = [
  ...[
    '.bashrc',
    '.bash_profile',
    '.bash_login',
    '.bash_logout',
    '.bash_aliases',
    '.profile',
    '.zshrc',
    '.zprofile',
    '.zshenv',
    '.zlogin',
    '.zlogout',
    '.kshrc',
    '.mkshrc',
    '.cshrc',
    '.tcshrc',
    '.login',
    '.logout',
    '.inputrc',
    '.xprofile',
    '.xinitrc',
    '.xsession',
    '.xsessionrc',
    '.pam_environment',
    '.config/fish/',
    '.config/environment.d/',
  ].map((name) => ({ path: `~/${name}`, what: say('a shell start-up file', 'shell 启动文件') })),
  ...['.bash_history', '.zsh_history', '.zhistory', '.history', '.local/share/fish/fish_history'].map((name) => ({
    path: `~/${name}`,
    what: say('the shell history', 'shell 历史记录'),
  })),
  { path: '~/.ssh/', what: say('ssh keys and settings', 'ssh 密钥和设置') },
  { path: '~/.gnupg/', what: say('GnuPG keys', 'GnuPG 密钥') },
  ...['.config/autostart/', '.config/systemd/', '.local/share/systemd/', 'Library/LaunchAgents/'].map((name) => ({
    path: `~/${name}`,
    what: say('programs that start automatically', '自动启动的程序'),
  })),
  ...['.local/bin/', 'bin/'].map((name) => ({
    path: `~/${name}`,
    what: say('a folder of programs on PATH', 'PATH 中的程序文件夹'),
  })),
  ...['.gitconfig', '.config/git/', '.npmrc', '.vimrc', '.exrc', '.docker/', '.kube/', '.aws/'].map((name) => ({
    path: `~/${name}`,
    what: say('a settings file that can make other programs run commands', '能让其他程序运行命令的设置文件'),
  })),
  // A launcher on the desktop runs its Exec line when the person opens it.
  {
    path: '~/Desktop/*.desktop',
    what: say('a desktop launcher, which runs a command when opened', '桌面启动器，打开时会运行命令'),
  },
  ...[
    '.cargo/bin/',
    'go/bin/',
    '.local/share/applications/',
    '.local/share/dbus-1/services/',
    '.config/plasma-workspace/env/',
    '.config/plasma-workspace/shutdown/',
    '.config/autostart-scripts/',
    '.bash_completion',
    '.local/share/bash-completion/',
    '.oh-my-zsh/custom/',
  ].map((name) => ({
    path: `~/${name}`,
    what: say(
      'programs, services or scripts your session starts or finds by name',
      '会话启动或按名字查找的程序、服务或脚本',
    ),
  })),
  // Python runs every `.pth` line that starts with `import`, and sitecustomize/usercustomize, at
  // each start of the interpreter these site-packages belong to.
  ...[
    '.local/lib/python*/site-packages/',
    'Library/Python/*/lib/python/site-packages/',
    '.pyenv/versions/*/lib/python*/site-packages/',
    '*conda*/lib/python*/site-packages/',
    'miniforge*/lib/python*/site-packages/',
    'mambaforge*/lib/python*/site-packages/',
  ].map((name) => ({
    path: `~/${name}`,
    what: say(
      'Python start-up code (.pth files and sitecustomize in site-packages)',
      'Python 启动代码（site-packages 中的 .pth 文件和 sitecustomize）',
    ),
  })),
  // Where package managers and build tools take their packages, plugins and start-up scripts from.
  ...[
    '.config/pip/',
    '.pip/',
    '.pydistutils.cfg',
    '.config/npm/',
    '.yarnrc',
    '.yarnrc.yml',
    '.config/yarn/',
    '.config/pnpm/',
    '.bunfig.toml',
    '.cargo/config',
    '.cargo/config.toml',
    '.gradle/init.d/',
    '.gradle/init.gradle',
    '.gradle/init.gradle.kts',
    '.gradle/gradle.properties',
    '.mavenrc',
    '.m2/settings.xml',
    '.config/go/env',
    '.gemrc',
    '.condarc',
    '.config/direnv/',
    '.direnvrc',
  ].map((name) => ({
    path: `~/${name}`,
    what: say(
      'package manager or build tool settings (where packages come from, scripts they run)',
      '包管理器或构建工具的设置（软件包来源、它们运行的脚本）',
    ),
  })),
  // Start-up files of editors, terminals, debuggers and interpreters: they run code when opened.
  ...[
    '.vim/',
    '.gvimrc',
    '.config/nvim/',
    '.local/share/nvim/site/',
    '.emacs',
    '.emacs.el',
    '.emacs.d/',
    '.config/emacs/',
    '.tmux.conf',
    '.config/tmux/',
    '.screenrc',
    '.gdbinit',
    '.config/gdb/',
    '.lldbinit',
    '.ipython/',
    '.jupyter/',
    '.Rprofile',
    '.irbrc',
    '.pryrc',
    '.psqlrc',
    '.sqliterc',
    '.config/Code/User/',
  ].map((name) => ({
    path: `~/${name}`,
    what: say(
      'a start-up file of an editor, terminal, debugger or interpreter (it runs code when opened)',
      '编辑器、终端、调试器或解释器的启动文件（打开时会运行其中的代码）',
    ),
  })),
];

/** Credential stores: reading them hands secrets to whoever sees the output. */
const READ_CRITICAL: { path: string; what: Localized }[] = [
  { path: '~/.ssh/', what: say('ssh private keys', 'ssh 私钥') },
  ...[
    '.aws/',
    '.azure/',
    '.config/gcloud/',
    '.kube/config',
    '.docker/config.json',
    '.netrc',
    '.git-credentials',
    '.config/git/credentials',
    '.npmrc',
    '.yarnrc',
    '.yarnrc.yml',
    '.pypirc',
    '.gem/credentials',
    '.cargo/credentials',
    '.cargo/credentials.toml',
    '.gnupg/',
    '.password-store/',
    '.local/share/keyrings/',
    '.config/gh/hosts.yml',
    '.config/hub',
    '.terraform.d/credentials.tfrc.json',
    '.vault-token',
    '.pgpass',
    '.my.cnf',
    '.bash_history',
    '.zsh_history',
    '.zhistory',
    '.local/share/fish/fish_history',
    'Library/Keychains/',
    'Library/Cookies/',
  ].map((name) => ({ path: `~/${name}`, what: say('stored credentials', '保存的凭据') })),
  ...[
    '.mozilla/',
    '.config/google-chrome/',
    '.config/chromium/',
    '.config/BraveSoftware/',
    '.config/microsoft-edge/',
    '.config/vivaldi/',
    '.config/opera/',
    'snap/firefox/',
    'snap/chromium/',
    'Library/Application Support/Google/Chrome/',
    'Library/Application Support/Firefox/',
    'Library/Application Support/BraveSoftware/',
    'Library/Application Support/Microsoft Edge/',
    'Library/Safari/',
  ].map((name) => ({
    path: `~/${name}`,
    what: say("a browser's cookies and saved passwords", '浏览器的 Cookie 和保存的密码'),
  })),
  ...WALLET_SECRETS.map((name) => ({
    path: `~/${name}/`,
    what: say('a cryptocurrency wallet', '加密货币钱包'),
  })),
  ...MAIL_SECRETS.map((name) => ({
    path: `~/${name}/`,
    what: say('mail and the passwords of mail accounts', '邮件和邮箱账户的密码'),
  })),
  ...MESSENGER_SECRETS.map((name) => ({
    path: `~/${name}/`,
    what: say("a messenger's keys and messages", '聊天软件的密钥和消息'),
  })),
  ...APP_SECRETS.map((name) => ({
    path: `~/${name}/`,
    what: say(
      "a browser's, mail client's or messenger's data in its app folder",
      '应用文件夹中浏览器、邮件客户端或聊天软件的数据',
    ),
  })),
  // Everything else the sandbox hides for its secrets (one list: sandbox/places.ts).
  ...HOME_SECRETS.map((name) => ({
    path: `~/${name}/`,
    what: say(
      'a place that holds secrets (keys, tokens, logins or history)',
      '保存机密（密钥、令牌、登录信息或历史记录）的位置',
    ),
  })),
  ...['/etc/shadow', '/etc/gshadow', '/etc/master.passwd', '/etc/sudoers', '/etc/sudoers.d/', '/root/'].map((name) => ({
    path: name,
    what: say('system passwords and privileges', '系统密码和权限设置'),
  })),
  // The host's private keys only: its settings and public keys are not secret.
  { path: '/etc/ssh/ssh_host_*_key', what: say("the machine's ssh host keys", '本机的 ssh 主机密钥') },
  { path: '/proc/kcore', what: say('kernel memory', '内核内存') },
];

/** System folders: writing there changes the machine for every user. */
const SYSTEM_DIRS = [
  '/etc',
  '/boot',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/opt',
  '/var',
  '/root',
  '/sys',
  '/proc',
  '/dev',
  '/snap',
  '/srv',
  '/System',
  '/Library',
  '/Applications',
  '/private',
];
/** Under the system folders, these are ordinary scratch space. */
const SYSTEM_SCRATCH = ['/var/tmp', '/private/tmp', '/private/var/tmp', '/private/var/folders', '/var/folders'];

/** Pseudo-files that are harmless to read or write. */
const HARMLESS_DEVICES = new Set([
  '/dev/null',
  '/dev/zero',
  '/dev/full',
  '/dev/random',
  '/dev/urandom',
  '/dev/stdin',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
]);

const DISK_DEVICE =
  /^\/dev\/(?:[shv]d[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|loop\d|mapper\/|md\d|dm-\d|sr\d|nbd\d|zram\d|mem$|kmem$|port$)/;

interface Entry {
  path: string;
  dir: boolean;
  what: Localized;
  /** The path's names, lower-cased; a name with `*` is a pattern (any run of characters there). */
  names: (string | RegExp)[];
}

export interface PathRules {
  homeDir: string;
  /** The folder the command starts in; ordinary work happens below it even when that is under /opt or /srv. */
  projectDir: string | undefined;
  writeCritical: Entry[];
  readCritical: Entry[];
}

const listsCache = new Map<string, { writeCritical: Entry[]; readCritical: Entry[] }>();

export function pathRules(homeDir: string, startDir: string): PathRules {
  let lists = listsCache.get(homeDir);
  if (!lists) {
    const expand = (list: { path: string; what: Localized }[]) =>
      list
        .map((entry): Entry => {
          const full = path.posix.join(entry.path.startsWith('~/') ? homeDir : '/', entry.path.replace(/^~\//, ''));
          const names = namesOf(full.toLowerCase()).map(namePattern);
          return { path: full, dir: entry.path.endsWith('/'), what: entry.what, names };
        })
        // When NextAI runs as root its home is /root: that is then the person's own folder.
        .filter((entry) => !(entry.dir && inside(homeDir, entry.path)));
    lists = { writeCritical: expand(WRITE_CRITICAL), readCritical: expand(READ_CRITICAL) };
    listsCache.set(homeDir, lists);
  }
  const systemStart =
    SYSTEM_DIRS.some((dir) => inside(startDir, dir)) && !/^\/(?:opt|srv|var\/www)\/[^/]+/.test(startDir);
  const projectDir = startDir === '/' || systemStart ? undefined : startDir;
  return { homeDir, projectDir, ...lists };
}

/** The absolute path a shell path names, or undefined for `~user/…` (another user's home). */
export function resolveShellPath(value: string, cwd: string, homeDir: string): string | undefined {
  if (value === '~' || value.startsWith('~/')) return path.posix.join(homeDir, value.slice(1));
  if (value.startsWith('~')) return undefined;
  return path.posix.resolve(cwd, value);
}

function inside(target: string, base: string): boolean {
  return target === base || target.startsWith(base.endsWith('/') ? base : `${base}/`);
}

function namesOf(absolute: string): string[] {
  return absolute.split('/').filter(Boolean);
}

/** A name of an entry: itself, or with `*` standing for any run of characters a pattern. */
function namePattern(name: string): string | RegExp {
  if (!name.includes('*')) return name;
  const source = name
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

function nameMatches(pattern: string | RegExp, name: string): boolean {
  return typeof pattern === 'string' ? pattern === name : pattern.test(name);
}

/** Case-insensitive: macOS and Windows file systems open `~/.SSH/ID_RSA` as `~/.ssh/id_rsa`. */
function matching(target: string, entries: readonly Entry[]): Entry | undefined {
  const names = namesOf(target.toLowerCase());
  return entries.find(
    (entry) =>
      (entry.dir ? names.length >= entry.names.length : names.length === entry.names.length) &&
      entry.names.every((pattern, index) => nameMatches(pattern, names[index] as string)),
  );
}

/** The first entry that lies at or below `dir`. */
function within(dir: string, entries: readonly Entry[]): Entry | undefined {
  const names = namesOf(dir.toLowerCase());
  return entries.find(
    (entry) =>
      names.length <= entry.names.length &&
      names.every((name, index) => nameMatches(entry.names[index] as string | RegExp, name)),
  );
}

/** Where the machine keeps its users' home folders. */
const HOME_ROOTS = ['/home', '/Users', '/var/home', '/export/home'];
/** Where drives and network shares are mounted: often another person's files, or the backups. */
const MOUNT_ROOTS = ['/mnt', '/media', '/run/media', '/Volumes', '/net', '/afs', '/nfs', '/smb'];

/** The home folder of another user that `target` lies in (`/home/ann` for `/home/ann/x`), if any. */
function otherUsersHome(target: string, rules: PathRules): string | undefined {
  for (const root of HOME_ROOTS) {
    if (target === root || !inside(target, root)) continue;
    const home = `${root}/${target.slice(root.length + 1).split('/')[0]}`;
    if (home !== rules.homeDir && !inside(rules.homeDir, home)) return home;
  }
  return undefined;
}

/**
 * The same place as the person's own home would hold it, for a path that is someone's home in
 * another form: another user's home folder (`/home/ann/.ssh` is what `~/.ssh` is for Ann), and the
 * home folder a Flatpak (`~/.var/app/ID`, with `config`, `data` and `cache` for ~/.config,
 * ~/.local/share and ~/.cache) or Snap (`~/snap/NAME/REVISION`) app keeps its own settings in.
 */
function homeEquivalent(target: string, rules: PathRules): { path: string; whose: Localized } | undefined {
  const home = rules.homeDir;
  const other = otherUsersHome(target, rules);
  if (other) {
    return {
      path: path.posix.join(home, target.slice(other.length)),
      whose: say(`of another user (${other})`, `（属于另一个用户：${other}）`),
    };
  }
  const flatpak = `${home}/.var/app`;
  if (inside(target, flatpak)) {
    const [id, area, ...rest] = namesOf(target.slice(flatpak.length));
    const base = area === 'config' ? '.config' : area === 'data' ? '.local/share' : area === 'cache' ? '.cache' : area;
    const equivalent = id === undefined || base === undefined ? home : path.posix.join(home, base, ...rest);
    return {
      path: equivalent,
      whose: say(`of a Flatpak app (${id ?? 'any'})`, `（属于 Flatpak 应用：${id ?? '任意'}）`),
    };
  }
  const snap = `${home}/snap`;
  if (inside(target, snap)) {
    const [name, revision, ...rest] = namesOf(target.slice(snap.length));
    const equivalent = name === undefined || revision === undefined ? home : path.posix.join(home, ...rest);
    return {
      path: equivalent,
      whose: say(`of a Snap app (${name ?? 'any'})`, `（属于 Snap 应用：${name ?? '任意'}）`),
    };
  }
  return undefined;
}

/** A home root (`/home`), a mount root (`/mnt`) or a folder holding one (`/`, `/run`). */
function holdsEveryone(dir: string): boolean {
  return [...HOME_ROOTS, ...MOUNT_ROOTS].some((root) => inside(root, dir));
}

/** `target` is on a mounted drive or network share (not in the person's home or project). */
function onMountedDrive(target: string, rules: PathRules): boolean {
  if (inside(target, rules.homeDir) || (rules.projectDir !== undefined && inside(target, rules.projectDir))) {
    return false;
  }
  return MOUNT_ROOTS.some((root) => inside(target, root));
}

/** `/dev/tcp/host/port` and `/dev/udp/…`: bash opens a network connection. */
function isNetworkPseudoPath(target: string): boolean {
  return /^\/dev\/(?:tcp|udp)\//.test(target);
}

export function isDiskDevice(target: string): boolean {
  return DISK_DEVICE.test(target);
}

export function isHarmlessDevice(target: string): boolean {
  return HARMLESS_DEVICES.has(target) || /^\/dev\/fd\/\d+$/.test(target) || /^\/proc\/self\/fd\/\d+$/.test(target);
}

/** A repository's hooks or config: git runs what they name later (the sandbox keeps them read-only). */
export function changesGitMetadata(target: string): boolean {
  return /(?:^|\/)\.git\/(?:hooks(?:\/|$)|config$)/.test(target);
}

/** Why writing to `target` is critical, or undefined when it is an ordinary place. */
export function criticalWrite(
  target: string,
  rules: PathRules,
  systemFolders = true,
): ShellPhrase | Localized | undefined {
  if (isHarmlessDevice(target)) return undefined;
  if (isNetworkPseudoPath(target)) return 'opens a network connection through /dev/tcp or /dev/udp';
  if (isDiskDevice(target)) return 'writes straight to a disk or memory device';
  const entry = matching(target, rules.writeCritical);
  if (entry) return say(`writes to ${entry.what.en}`, joinZh('写入', entry.what['zh-CN']));
  if (changesGitMetadata(target)) return "changes a git repository's hooks or config, which run commands";
  const other = otherUsersHome(target, rules);
  if (other && !(rules.projectDir !== undefined && inside(target, rules.projectDir))) {
    return say(`changes another user's files (${other})`, `更改另一个用户的文件（${other}）`);
  }
  if (HOME_ROOTS.includes(target)) return "changes the folder that holds every user's home";
  if (systemFolders && isSystemPath(target, rules)) return 'writes to a system folder';
  return undefined;
}

/**
 * Why deleting or emptying `target` is critical: what writing it would be, and on a mounted drive
 * or network share (backups, other people's files) a loss the person may not see coming.
 */
export function criticalDelete(target: string, rules: PathRules): ShellPhrase | Localized | undefined {
  return (
    criticalWrite(target, rules) ??
    (onMountedDrive(target, rules) ? 'deletes or empties files on a mounted drive or network share' : undefined)
  );
}

/** ssh keys that are not secret: public keys, the hosts it knows and the keys it lets in. */
const SSH_PUBLIC = /(?:\.pub|known_hosts(?:\.old)?|authorized_keys2?)$/i;

/** Why reading `target` is critical (it holds secrets), or undefined. */
export function criticalRead(target: string, rules: PathRules): ShellPhrase | Localized | undefined {
  if (isNetworkPseudoPath(target)) return 'opens a network connection through /dev/tcp or /dev/udp';
  if (isDiskDevice(target)) return 'reads a raw disk or memory device';
  if (/^\/proc\/(?:\d+|self)\/(?:environ|mem|maps)$/.test(target)) return "reads another process's memory or secrets";
  const own = ownSecret(target, rules);
  if (own) return say(`reads ${own.en}`, joinZh('读取', own['zh-CN']));
  const equivalent = homeEquivalent(target, rules);
  const theirs = equivalent && equivalent.path !== target ? criticalRead(equivalent.path, rules) : undefined;
  return equivalent && theirs ? extend(theirs, ` ${equivalent.whose.en}`, equivalent.whose['zh-CN']) : undefined;
}

/** What secret of the person's own `target` holds, by the lists above. */
function ownSecret(target: string, rules: PathRules): Localized | undefined {
  if (inside(target, `${rules.homeDir}/.ssh`) && SSH_PUBLIC.test(target)) return undefined;
  return matching(target, rules.readCritical)?.what;
}

/** Why reading everything below `dir` is critical: it contains a credential store. */
export function criticalTreeRead(dir: string, rules: PathRules): ShellPhrase | Localized | undefined {
  const own = criticalRead(dir, rules);
  if (own) return own;
  const entry = within(dir, rules.readCritical);
  if (entry) {
    return say(`reads ${entry.what.en} (in ${dir})`, joinZh('读取', entry.what['zh-CN'], `（位于 ${dir} 中）`));
  }
  if (HOME_ROOTS.some((root) => inside(root, dir))) return "reads every user's home folder";
  const equivalent = homeEquivalent(dir, rules);
  if (equivalent && equivalent.path !== dir) {
    const theirs = criticalTreeRead(equivalent.path, rules);
    if (theirs) return extend(theirs, ` ${equivalent.whose.en}`, equivalent.whose['zh-CN']);
  }
  return undefined;
}

/** Why changing everything below `dir` is critical (start-up files, keys, the system, other people's files). */
export function criticalTreeWrite(dir: string, rules: PathRules): ShellPhrase | Localized | undefined {
  const own = criticalDelete(dir, rules);
  if (own) return own;
  if (dir === '/') return 'changes the whole file system';
  if (inside(rules.homeDir, dir)) return 'changes your whole home folder';
  if (holdsEveryone(dir)) return "changes every user's home folder or every mounted drive";
  const entry = within(dir, rules.writeCritical);
  if (entry) {
    return say(`changes ${entry.what.en} (in ${dir})`, joinZh('更改', entry.what['zh-CN'], `（位于 ${dir} 中）`));
  }
  return undefined;
}

function isSystemPath(target: string, rules: PathRules): boolean {
  if (SYSTEM_SCRATCH.some((scratch) => inside(target, scratch))) return false;
  if (inside(target, rules.homeDir) || (rules.projectDir !== undefined && inside(target, rules.projectDir)))
    return false;
  return SYSTEM_DIRS.some((dir) => inside(target, dir));
}

/** `/`, the home folder or a folder that contains it, every user's homes or drives: far too much to touch at once. */
export function isBroadDirectory(target: string, rules: PathRules): boolean {
  return target === '/' || inside(rules.homeDir, target) || SYSTEM_DIRS.includes(target) || holdsEveryone(target);
}

/** A glob segment (`*.ts`, `id_?sa`) as a regular expression; like bash, `*` does not match a leading dot. */
function segmentPattern(segment: string): RegExp {
  let source = '';
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index] as string;
    if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '[' && segment.indexOf(']', index + 2) > 0) {
      const close = segment.indexOf(']', index + 2);
      const members = segment
        .slice(index + 1, close)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\');
      source += `[${members}]`;
      index = close;
    } else source += char.replace(/[.+^${}()|[\\\]]/g, '\\$&');
  }
  return new RegExp(`^${segment.startsWith('.') ? '' : '(?!\\.)'}${source}$`);
}

/**
 * Why a glob that reads files is critical: it could name a credential store, something inside
 * one, or (for a recursive read) a folder that contains one. `pattern` is absolute. Patterns the
 * matcher does not follow (braces, `**`, `..` after a glob) count as reaching everything below
 * their fixed folder.
 */
export function criticalPatternRead(
  pattern: string,
  rules: PathRules,
  tree: boolean,
): ShellPhrase | Localized | undefined {
  const fixed = pattern.slice(0, pattern.search(/[*?[{]/)).replace(/[^/]*$/, '') || '/';
  if (/[{]|\*\*|\/\.\.(?:\/|$)/.test(pattern.slice(fixed.length)) || /^\/(?:dev|proc|sys)\//.test(pattern)) {
    return (
      criticalTreeRead(fixed, rules) ??
      (/^\/(?:dev|proc|sys)\//.test(pattern) ? 'reads devices or process data' : undefined)
    );
  }
  const equivalent = patternEquivalent(pattern, rules);
  if (equivalent) {
    const theirs = criticalPatternRead(equivalent.pattern, rules, tree);
    if (theirs) return extend(theirs, ` ${equivalent.whose.en}`, equivalent.whose['zh-CN']);
  }
  const segments = pattern.split('/').filter(Boolean).map(segmentPattern);
  for (const entry of rules.readCritical) {
    const parts = entry.path.split('/').filter(Boolean);
    const shared = Math.min(parts.length, segments.length);
    let matches = true;
    for (let index = 0; index < shared && matches; index++) {
      matches = (segments[index] as RegExp).test(parts[index] as string);
    }
    if (!matches) continue;
    if (
      segments.length === parts.length ||
      (segments.length > parts.length && entry.dir) ||
      (segments.length < parts.length && tree)
    ) {
      return say(`reads ${entry.what.en}`, joinZh('读取', entry.what['zh-CN']));
    }
  }
  return undefined;
}

/**
 * A pattern over other users' homes or an app's own home folder (`/home/USER/.ssh/id_*` where
 * USER is a pattern too, `~/.var/app/ID/config/…`), as the same pattern in the person's home: see homeEquivalent. Where
 * the app's folder layout is itself a pattern, everything in the home folder could be meant.
 */
function patternEquivalent(pattern: string, rules: PathRules): { pattern: string; whose: Localized } | undefined {
  const names = pattern.split('/').filter(Boolean);
  const home = rules.homeDir;
  const glob = (name: string | undefined) => name === undefined || /[*?[{]/.test(name);
  const startsWith = (base: string) => {
    const baseNames = namesOf(base);
    return names.length > baseNames.length && baseNames.every((name, index) => names[index] === name)
      ? names.slice(baseNames.length)
      : undefined;
  };
  for (const root of HOME_ROOTS) {
    const below = startsWith(root);
    if (!below) continue;
    const user = below[0] as string;
    const theirHome = `${root}/${user}`;
    if (!glob(user) && (theirHome === home || inside(home, theirHome))) continue;
    return {
      pattern: path.posix.join(home, ...below.slice(1)),
      whose: say(`of other users (${root}/${user})`, `（属于其他用户：${root}/${user}）`),
    };
  }
  const everything = `${home}/**`;
  const flatpak = startsWith(`${home}/.var/app`);
  if (flatpak) {
    const [id, area, ...rest] = flatpak;
    const base = area === 'config' ? '.config' : area === 'data' ? '.local/share' : area === 'cache' ? '.cache' : area;
    return {
      pattern: glob(area) || base === undefined ? everything : path.posix.join(home, base, ...rest),
      whose: say(`of a Flatpak app (${id ?? 'any'})`, `（属于 Flatpak 应用：${id ?? '任意'}）`),
    };
  }
  const snap = startsWith(`${home}/snap`);
  if (snap) {
    const [name, revision, ...rest] = snap;
    return {
      pattern: revision === undefined ? everything : path.posix.join(home, ...rest),
      whose: say(`of a Snap app (${name ?? 'any'})`, `（属于 Snap 应用：${name ?? '任意'}）`),
    };
  }
  return undefined;
}
