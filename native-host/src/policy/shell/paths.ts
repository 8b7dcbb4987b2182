import path from 'node:path';

import { say, type Localized } from '@nextai/shared';

import { joinZh, type ShellPhrase } from './phrases.js';

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
  ...['/etc/shadow', '/etc/gshadow', '/etc/master.passwd', '/etc/sudoers', '/etc/sudoers.d/', '/root/'].map((name) => ({
    path: name,
    what: say('system passwords and privileges', '系统密码和权限设置'),
  })),
  { path: '/etc/ssh/', what: say("the machine's ssh host keys", '本机的 ssh 主机密钥') },
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
        .map((entry) => ({
          path: path.posix.join(entry.path.startsWith('~/') ? homeDir : '/', entry.path.replace(/^~\//, '')),
          dir: entry.path.endsWith('/'),
          what: entry.what,
        }))
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

/** Case-insensitive: macOS and Windows file systems open `~/.SSH/ID_RSA` as `~/.ssh/id_rsa`. */
function matches(target: string, entry: { path: string; dir: boolean }): boolean {
  const lower = target.toLowerCase();
  const path = entry.path.toLowerCase();
  return entry.dir ? inside(lower, path) : lower === path;
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

/** Why writing to `target` is critical, or undefined when it is an ordinary place. */
export function criticalWrite(
  target: string,
  rules: PathRules,
  systemFolders = true,
): ShellPhrase | Localized | undefined {
  if (isHarmlessDevice(target)) return undefined;
  if (isNetworkPseudoPath(target)) return 'opens a network connection through /dev/tcp or /dev/udp';
  if (isDiskDevice(target)) return 'writes straight to a disk or memory device';
  for (const entry of rules.writeCritical) {
    if (matches(target, entry)) return say(`writes to ${entry.what.en}`, joinZh('写入', entry.what['zh-CN']));
  }
  if (/(?:^|\/)\.git\/(?:hooks(?:\/|$)|config$)/.test(target)) {
    return "changes a git repository's hooks or config, which run commands";
  }
  if (systemFolders && isSystemPath(target, rules)) return 'writes to a system folder';
  return undefined;
}

/** Why reading `target` is critical (it holds secrets), or undefined. */
export function criticalRead(target: string, rules: PathRules): ShellPhrase | Localized | undefined {
  if (isNetworkPseudoPath(target)) return 'opens a network connection through /dev/tcp or /dev/udp';
  if (isDiskDevice(target)) return 'reads a raw disk or memory device';
  if (/^\/proc\/(?:\d+|self)\/(?:environ|mem|maps)$/.test(target)) return "reads another process's memory or secrets";
  for (const entry of rules.readCritical) {
    if (!matches(target, entry)) continue;
    // Public keys and the list of known hosts are not secret.
    if (entry.what.en === 'ssh private keys' && /(?:\.pub|known_hosts(?:\.old)?|authorized_keys2?)$/i.test(target)) {
      continue;
    }
    return say(`reads ${entry.what.en}`, joinZh('读取', entry.what['zh-CN']));
  }
  return undefined;
}

/** Why reading everything below `dir` is critical: it contains a credential store. */
export function criticalTreeRead(dir: string, rules: PathRules): ShellPhrase | Localized | undefined {
  const own = criticalRead(dir, rules);
  if (own) return own;
  for (const entry of rules.readCritical) {
    if (inside(entry.path, dir)) {
      return say(`reads ${entry.what.en} (in ${dir})`, joinZh('读取', entry.what['zh-CN'], `（位于 ${dir} 中）`));
    }
  }
  return undefined;
}

/** Why changing everything below `dir` is critical (start-up files, keys, the system). */
export function criticalTreeWrite(dir: string, rules: PathRules): ShellPhrase | Localized | undefined {
  const own = criticalWrite(dir, rules);
  if (own) return own;
  if (dir === '/') return 'changes the whole file system';
  if (inside(rules.homeDir, dir)) return 'changes your whole home folder';
  for (const entry of rules.writeCritical) {
    if (inside(entry.path, dir)) {
      return say(`changes ${entry.what.en} (in ${dir})`, joinZh('更改', entry.what['zh-CN'], `（位于 ${dir} 中）`));
    }
  }
  return undefined;
}

function isSystemPath(target: string, rules: PathRules): boolean {
  if (SYSTEM_SCRATCH.some((scratch) => inside(target, scratch))) return false;
  if (inside(target, rules.homeDir) || (rules.projectDir !== undefined && inside(target, rules.projectDir)))
    return false;
  return SYSTEM_DIRS.some((dir) => inside(target, dir));
}

/** `/`, the home folder or a folder that contains it: far too much to touch at once. */
export function isBroadDirectory(target: string, rules: PathRules): boolean {
  return target === '/' || inside(rules.homeDir, target) || SYSTEM_DIRS.includes(target);
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
