import { say, type Localized, type Platform } from '@nextai/shared';

import { comparablePath, pathApiFor, splitAbsolute } from './paths.js';

/**
 * Places where a write runs code later (start-up files, scheduled jobs, services, autostart) or
 * where a read exposes secrets (SSH keys, credential stores, keychains, browser cookies and saved
 * passwords). Touching them is never routine, so the guards raise such calls to critical: a
 * person approves each one. `path` starts with `~/` (the home folder) or is absolute; `tree` covers
 * everything inside too.
 */
export interface SensitiveLocation {
  path: string;
  tree: boolean;
  reason: Localized;
  /** Only on these platforms (absolute system paths that mean nothing elsewhere). */
  platforms?: readonly Platform[];
}

const STARTUP = say(
  'a shell or login start-up file: what is written there runs every time you log in or open a terminal',
  'shell 或登录启动文件：写进去的内容会在每次登录或打开终端时运行',
);
const GIT = say(
  'git configuration, which can make git run commands and send credentials',
  'git 配置，它能让 git 运行命令并发送凭据',
);
const SSH = say('SSH keys and settings, which give access to other computers', 'SSH 密钥和设置，可用来访问其他电脑');
const SCHEDULED = say(
  'scheduled jobs (cron/at): what is written there runs automatically later',
  '计划任务（cron/at）：写进去的内容以后会自动运行',
);
const SERVICES = say(
  'service definitions (systemd/launchd/init): what is written there runs in the background',
  '服务定义（systemd/launchd/init）：写进去的内容会在后台运行',
);
const AUTOSTART = say('programs started automatically when you log in', '登录时自动启动的程序');
const CREDENTIALS = say('a credential store holding passwords, tokens or keys', '保存密码、令牌或密钥的凭据存储');
const KEYCHAIN = say('a keychain or keyring holding saved passwords', '保存密码的钥匙串或密钥环');
const PRIVILEGES = say('system accounts and administrator rights', '系统账户和管理员权限');
const BROWSER = say(
  'browser cookies or saved passwords, which let anyone act as you on websites',
  '浏览器 Cookie 或保存的密码，任何人拿到都能在网站上冒充你',
);

const unix: readonly Platform[] = ['linux', 'macos'];
const windows: readonly Platform[] = ['windows'];

const file = (path: string, reason: Localized, platforms?: readonly Platform[]): SensitiveLocation =>
  platforms ? { path, tree: false, reason, platforms } : { path, tree: false, reason };
const tree = (path: string, reason: Localized, platforms?: readonly Platform[]): SensitiveLocation =>
  platforms ? { path, tree: true, reason, platforms } : { path, tree: true, reason };

export const SENSITIVE_LOCATIONS: readonly SensitiveLocation[] = [
  ...[
    '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.bash_aliases', '.profile', '.zshrc', '.zshenv',
    '.zprofile', '.zlogin', '.zlogout', '.kshrc', '.mkshrc', '.cshrc', '.tcshrc', '.login', '.logout', '.xprofile',
    '.xinitrc', '.xsession', '.xsessionrc', '.pam_environment',
  ].map((name) => file(`~/${name}`, STARTUP)), // prettier-ignore
  ...['.config/fish', '.config/nushell', '.config/environment.d', '.config/powershell', '.oh-my-zsh/custom'].map(
    (name) => tree(`~/${name}`, STARTUP),
  ),
  tree('~/Documents/PowerShell', STARTUP),
  tree('~/Documents/WindowsPowerShell', STARTUP),
  ...['/etc/profile', '/etc/bash.bashrc', '/etc/bashrc', '/etc/zshrc', '/etc/zprofile', '/etc/zshenv', '/etc/zlogin']
    .concat(['/etc/environment', '/etc/csh.cshrc', '/etc/csh.login'])
    .map((name) => file(name, STARTUP, unix)),
  tree('/etc/profile.d', STARTUP, unix),
  tree('/etc/zsh', STARTUP, unix),

  file('~/.gitconfig', GIT),
  file('~/.config/git/config', GIT),

  tree('~/.ssh', SSH),
  tree('/etc/ssh', SSH, unix),
  tree('/root/.ssh', SSH, unix),
  tree('C:/ProgramData/ssh', SSH, windows),

  tree('/var/spool/cron', SCHEDULED, unix),
  tree('/var/spool/at', SCHEDULED, unix),
  tree('/var/at', SCHEDULED, unix),
  tree('/usr/lib/cron/tabs', SCHEDULED, unix),
  file('/etc/crontab', SCHEDULED, unix),
  file('/etc/anacrontab', SCHEDULED, unix),
  ...['cron.d', 'cron.hourly', 'cron.daily', 'cron.weekly', 'cron.monthly'].map((name) =>
    tree(`/etc/${name}`, SCHEDULED, unix),
  ),
  tree('C:/Windows/System32/Tasks', SCHEDULED, windows),

  tree('~/.config/systemd', SERVICES),
  tree('~/.local/share/systemd', SERVICES),
  ...['/etc/systemd', '/lib/systemd', '/usr/lib/systemd', '/run/systemd', '/etc/init.d', '/etc/init'].map((name) =>
    tree(name, SERVICES, unix),
  ),
  file('/etc/rc.local', SERVICES, unix),
  tree('~/Library/LaunchAgents', SERVICES),
  ...['/Library/LaunchAgents', '/Library/LaunchDaemons', '/System/Library/LaunchAgents'].map((name) =>
    tree(name, SERVICES, unix),
  ),
  tree('/System/Library/LaunchDaemons', SERVICES, unix),
  tree('~/Library/Application Support/com.apple.backgroundtaskmanagementagent', AUTOSTART),

  tree('~/.config/autostart', AUTOSTART),
  tree('/etc/xdg/autostart', AUTOSTART, unix),
  tree('~/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup', AUTOSTART),
  tree('C:/ProgramData/Microsoft/Windows/Start Menu/Programs/StartUp', AUTOSTART, windows),

  ...['.aws', '.gnupg', '.password-store', '.kube', '.azure', '.config/gcloud', '.config/gh', '.docker/config.json']
    .concat(['.config/hub', '.terraform.d/credentials.tfrc.json', '.cargo/credentials', '.cargo/credentials.toml'])
    .concat(['.netrc', '.git-credentials', '.config/git/credentials', '.npmrc', '.yarnrc.yml', '.pypirc'])
    .concat(['.gem/credentials', '.pgpass', '.my.cnf', '.vault-token', '.config/rclone/rclone.conf'])
    .map((name) => tree(`~/${name}`, CREDENTIALS)),
  ...['AppData/Roaming/Microsoft/Credentials', 'AppData/Local/Microsoft/Credentials']
    .concat(['AppData/Roaming/Microsoft/Protect', 'AppData/Local/Microsoft/Vault'])
    .map((name) => tree(`~/${name}`, CREDENTIALS)),
  file('~/_netrc', CREDENTIALS, windows),
  tree('~/Library/Keychains', KEYCHAIN),
  tree('/Library/Keychains', KEYCHAIN, unix),
  tree('~/.local/share/keyrings', KEYCHAIN),
  tree('~/.local/share/kwalletd', KEYCHAIN),
  tree('~/Library/Cookies', BROWSER),

  file('/etc/shadow', PRIVILEGES, unix),
  file('/etc/gshadow', PRIVILEGES, unix),
  file('/etc/passwd', PRIVILEGES, unix),
  file('/etc/sudoers', PRIVILEGES, unix),
  tree('/etc/sudoers.d', PRIVILEGES, unix),
  tree('/etc/polkit-1', PRIVILEGES, unix),
  tree('/etc/pam.d', PRIVILEGES, unix),
];

/** Files a browser keeps its cookies, saved passwords and their encryption key in. */
const BROWSER_SECRET_FILES = new Set(
  ['Cookies', 'Cookies-journal', 'Login Data', 'Login Data-journal', 'Login Data For Account', 'Web Data']
    .concat(['Local State', 'Cookies.binarycookies', 'cookies.sqlite', 'cookies.sqlite-wal', 'logins.json'])
    .concat(['logins-backup.json', 'key4.db', 'key3.db', 'signons.sqlite'])
    .map((name) => name.toLowerCase()),
);

/** Folder names that show a path is inside a browser's profile. */
const BROWSER_FOLDERS = new Set(
  ['google-chrome', 'google-chrome-beta', 'chromium', 'chrome', 'google', 'bravesoftware', 'microsoft edge']
    .concat(['microsoft-edge', 'edge', 'vivaldi', 'opera', 'opera software', 'com.operasoftware.opera', 'arc'])
    .concat(['firefox', '.mozilla', 'mozilla', 'librewolf', '.librewolf', 'waterfox', 'yandexbrowser', 'thorium'])
    .concat(['com.apple.safari', 'safari', 'net.waterfox.waterfox', 'org.mozilla.firefox']),
);

/** Where a location lives on this platform, or undefined when it does not apply. */
function sensitiveAnchor(location: SensitiveLocation, homeDir: string, platform: Platform): string | undefined {
  if (location.platforms && !location.platforms.includes(platform)) return undefined;
  const api = pathApiFor(platform);
  if (location.path.startsWith('~/')) return api.join(homeDir, location.path.slice(2));
  return api.normalize(location.path);
}

/** macOS keeps /etc, /var and /tmp under /private (the short names are symlinks). */
export function sensitiveAnchors(location: SensitiveLocation, homeDir: string, platform: Platform): string[] {
  const anchor = sensitiveAnchor(location, homeDir, platform);
  if (anchor === undefined) return [];
  if (platform === 'macos' && /^\/(?:etc|var|tmp)(?:\/|$)/.test(anchor)) return [anchor, `/private${anchor}`];
  return [anchor];
}

export interface CompiledLocation {
  anchor: string;
  /** The anchor split into root and names, for matching shell globs against it. */
  root: string;
  segments: string[];
  /** The anchor in comparison form, and the same with a trailing separator. */
  exact: string;
  below: string;
  tree: boolean;
  reason: Localized;
}

/** Compiled anchors per platform and home folder; a daemon sees one or two homes, tests a few. */
const compiledCache = new Map<string, CompiledLocation[]>();

/** Every sensitive location as it lives under this home folder on this platform (cached). */
export function compiledLocations(homeDir: string, platform: Platform): CompiledLocation[] {
  const key = `${platform}\0${homeDir}`;
  let compiled = compiledCache.get(key);
  if (!compiled) {
    const sep = platform === 'windows' ? '\\' : '/';
    compiled = SENSITIVE_LOCATIONS.flatMap((location) =>
      sensitiveAnchors(location, homeDir, platform).map((anchor) => {
        const exact = comparablePath(anchor, platform);
        const { root, segments } = splitAbsolute(anchor, platform);
        return { anchor, root, segments, exact, below: `${exact}${sep}`, tree: location.tree, reason: location.reason };
      }),
    );
    if (compiledCache.size >= 64) compiledCache.clear();
    compiledCache.set(key, compiled);
  }
  return compiled;
}

/**
 * Why a path is sensitive, or undefined. Give it the real path (symlinks resolved); callers also
 * ask about the lexical path, since `~/.bashrc` may be a symlink into a dotfiles folder.
 */
export function sensitivePathReason(realPath: string, homeDir: string, platform: Platform): Localized | undefined {
  const subject = comparablePath(realPath, platform);
  for (const location of compiledLocations(homeDir, platform)) {
    if (subject === location.exact || (location.tree && subject.startsWith(location.below))) return location.reason;
  }
  const { segments } = splitAbsolute(realPath, platform);
  const name = segments.at(-1);
  if (name !== undefined && BROWSER_SECRET_FILES.has(name.toLowerCase())) {
    if (segments.slice(0, -1).some((folder) => BROWSER_FOLDERS.has(folder.toLowerCase()))) return BROWSER;
  }
  return undefined;
}
