import path from 'node:path';

/** Cryptocurrency wallets: whoever reads the wallet file can spend what is in it. */
export const WALLET_SECRETS = [
  '.bitcoin', '.electrum', '.electrum-ltc', '.ethereum', '.litecoin', '.dogecoin', '.bitmonero', '.monero', '.zcash',
  '.dashcore', '.walletwasabi', '.sparrow', '.config/Exodus', '.config/Ledger Live', '.config/atomic',
  '.config/Electrum', '.config/Bitcoin',
]; // prettier-ignore

/** Mail clients: the messages, and the passwords or tokens of the accounts. */
export const MAIL_SECRETS = [
  '.thunderbird', '.mozilla-thunderbird', '.icedove', '.config/evolution', '.local/share/evolution',
  '.local/share/geary', '.config/geary', '.claws-mail', '.mutt', '.muttrc', '.config/mutt', '.config/neomutt',
  '.mbsyncrc', '.msmtprc', '.fetchmailrc', '.offlineimaprc', '.local/share/akonadi', '.config/akonadi',
  '.local/share/kmail2', '.config/aerc',
]; // prettier-ignore

/** Messengers: their keys and sessions let anyone read and write as the person. */
export const MESSENGER_SECRETS = [
  '.config/Signal', '.local/share/TelegramDesktop', '.config/Element', '.config/Element-Nightly', '.config/discord',
  '.config/discordcanary', '.config/discordptb', '.config/Slack', '.config/Session', '.config/Wire',
  '.config/skypeforlinux', '.config/Microsoft/Microsoft Teams', '.config/teams-for-linux', '.config/keybase',
  '.local/share/keybase', '.config/Rocket.Chat', '.config/Mattermost', '.purple', '.local/share/fractal',
]; // prettier-ignore

/**
 * Browsers, mail clients, messengers and password managers installed as Flatpak or Snap apps keep
 * their profiles in an app folder of their own instead (~/.var/app/ID, ~/snap/NAME).
 */
export const APP_SECRETS = [
  ...['org.mozilla.firefox', 'org.mozilla.Thunderbird', 'com.google.Chrome', 'com.google.ChromeDev',
    'org.chromium.Chromium', 'com.github.Eloston.UngoogledChromium', 'com.brave.Browser', 'com.microsoft.Edge',
    'com.vivaldi.Vivaldi', 'com.opera.Opera', 'io.gitlab.librewolf-community', 'one.ablaze.floorp',
    'org.torproject.torbrowser-launcher', 'org.signal.Signal', 'org.telegram.desktop', 'im.riot.Riot',
    'com.discordapp.Discord', 'com.slack.Slack', 'org.gnome.Evolution', 'org.gnome.Geary', 'org.kde.kmail2',
    'com.bitwarden.desktop', 'org.keepassxc.KeePassXC', 'org.electrum.electrum', 'io.exodus.Exodus',
    'com.github.IsmaelMartinez.teams_for_linux', 'com.skype.Client', 'org.gnome.Fractal',
  ].map((id) => `.var/app/${id}`),
  ...['brave', 'thunderbird', 'telegram-desktop', 'signal-desktop', 'discord', 'slack', 'bitwarden',
    'element-desktop', 'opera', 'vivaldi', 'keepassxc', 'skype', 'teams-for-linux', 'electrum'].map(
    (name) => `snap/${name}`,
  ),
]; // prettier-ignore

/**
 * The places a sandboxed process never sees, whatever folders the person allows: keys and
 * passwords, browser profiles with their cookies, shell histories, and the sockets of services
 * that would act for it outside (the session bus, the user's systemd, container daemons, agents).
 * Home-relative entries start with `~/`. A missing entry is harmless: there is nothing to read.
 */
export const HOME_SECRETS = [
  // Keys and credential stores.
  '.ssh', '.gnupg', '.aws', '.azure', '.config/gcloud', '.kube', '.docker', '.config/gh', '.config/hub',
  '.netrc', '.git-credentials', '.config/git/credentials', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc',
  '.gem/credentials', '.cargo/credentials', '.cargo/credentials.toml', '.terraform.d', '.vault-token', '.pgpass',
  '.my.cnf', '.password-store', '.local/share/keyrings', '.local/share/kwalletd', '.config/rclone',
  '.config/Bitwarden', '.config/1Password', '.config/keepassxc', '.pki', '.config/op', '.config/doctl',
  '.config/heroku', '.config/netlify', '.config/vercel', '.config/configstore', '.config/gitlab', '.config/glab-cli',
  '.config/github-copilot', '.config/Code/User/globalStorage', '.config/Cursor/User/globalStorage',
  '.vscode-server/data/User/globalStorage', '.claude', '.claude.json', '.codex', '.gemini', '.config/gemini',
  '.aider', '.cursor', '.continue', '.ollama/id_ed25519', '.terraformrc', '.m2/settings.xml', '.m2/settings-security.xml',
  '.gradle/gradle.properties', '.ivy2/.credentials', '.sbt/credentials', '.s3cfg', '.boto', '.oci', '.ibmcloud',
  '.wrangler', '.fly', '.config/fly', '.kaggle', '.huggingface', '.cache/huggingface/token', '.config/hf',
  '.npmrc', '.config/pip/pip.conf', '.pip/pip.conf', '.condarc', '.config/composer/auth.json', '.composer/auth.json',
  '.nuget/NuGet/NuGet.Config', '.config/NuGet', '.config/filezilla', '.local/share/remmina', '.config/remmina',
  '.purple', '.config/Slack', '.config/discord', '.config/Signal', '.local/share/TelegramDesktop', '.config/Element',
  '.config/evolution', '.local/share/evolution', '.mozilla-thunderbird', '.config/rclone', '.config/sops',
  '.vault-token', '.cert', '.certs', '.local/share/gnome-keyring', '.config/kwalletrc', '.local/share/kwalletd5',
  // Browsers and mail: cookies, saved passwords, session tokens.
  '.mozilla', '.thunderbird', '.config/google-chrome', '.config/google-chrome-beta', '.config/chromium',
  '.config/BraveSoftware', '.config/microsoft-edge', '.config/vivaldi', '.config/opera', '.librewolf',
  'snap/firefox', 'snap/chromium',
  // What the person typed before: passwords pasted at a prompt end up here.
  '.bash_history', '.zsh_history', '.zhistory', '.history', '.python_history', '.node_repl_history',
  '.psql_history', '.mysql_history', '.sqlite_history', '.lesshst', '.local/share/fish/fish_history',
  // macOS.
  'Library/Keychains', 'Library/Cookies', 'Library/Safari', 'Library/Mail', 'Library/Messages',
  'Library/Application Support/Google/Chrome', 'Library/Application Support/Firefox',
  'Library/Application Support/BraveSoftware', 'Library/Application Support/Microsoft Edge',
  // Wallets, mail, messengers and the app folders of Flatpak and Snap versions of them.
  ...WALLET_SECRETS, ...MAIL_SECRETS, ...MESSENGER_SECRETS, ...APP_SECRETS,
  // NextAI's default data directory (the one in use is added by the daemon, wherever it is).
  '.nextai-agent',
]; // prettier-ignore

/** System files with secrets, and folders of sockets that act for whoever connects. */
const SYSTEM_SECRETS: Record<'linux' | 'macos', string[]> = {
  // Root-only on a person's machine; a daemon running as root (containers, CI) could read them,
  // so they are hidden whoever runs it.
  linux: ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-', '/etc/sudoers', '/etc/sudoers.d',
    '/etc/ssh/ssh_host_rsa_key', '/etc/ssh/ssh_host_ecdsa_key', '/etc/ssh/ssh_host_ed25519_key',
    '/etc/ssh/ssh_host_dsa_key', '/var/run/docker.sock', '/etc/ssl/private', '/etc/NetworkManager/system-connections',
    '/etc/wpa_supplicant', '/etc/wireguard', '/etc/openvpn', '/etc/ipsec.secrets', '/etc/ipsec.d', '/etc/krb5.keytab',
    '/etc/letsencrypt', '/etc/pki/tls/private', '/etc/security/opasswd', '/var/lib/NetworkManager', '/var/lib/iwd',
    '/var/lib/bluetooth', '/var/lib/docker', '/var/lib/containers', '/var/lib/sss', '/var/lib/polkit-1',
    '/var/lib/AccountsService', '/var/lib/fprint', '/var/backups', '/var/spool/cron', '/var/lib/postgresql',
    '/var/lib/mysql', '/etc/mysql/debian.cnf',
    // Sockets of container and VM managers, which start whatever they are asked to with the host's disks.
    '/var/lib/lxd', '/var/snap/lxd/common/lxd', '/var/lib/incus', '/var/lib/libvirt', '/var/lib/machines'],
  macos: ['/etc/sudoers', '/private/etc/sudoers', '/private/etc/sudoers.d', '/Library/Keychains',
    '/var/run/docker.sock', '/private/var/run/docker.sock'],
}; // prettier-ignore

export type SandboxPlatform = 'linux' | 'macos';

/** The secret places for this home folder, as absolute paths (they may not exist). */
export function secretPlaces(homeDir: string, platform: SandboxPlatform): string[] {
  return [...HOME_SECRETS.map((relative) => path.posix.join(homeDir, relative)), ...SYSTEM_SECRETS[platform]];
}

/**
 * Folders whose every file is a system's own: making one of them (or a folder above one)
 * writable would let a sandboxed command change the programs everybody runs.
 */
const SYSTEM_TREES = ['/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run',
  '/sbin', '/sys', '/usr', '/var', '/System', '/Library', '/Applications', '/private', '/opt', '/srv', '/snap',
  '/nix', '/root', '/home', '/Users', '/Volumes', '/mnt', '/media']; // prettier-ignore
/** Below these system trees, a folder of its own is ordinary work space (a server's site, an app). */
const WORK_BELOW = ['/opt', '/srv', '/var/www', '/mnt', '/media', '/Volumes', '/home', '/Users', '/private/tmp'];

/**
 * Why `folder` (a real path) cannot be writable in a sandbox, or undefined when it can: the whole
 * file system, the home folder or a folder holding it (its start-up files and keys would be
 * writable), or a system folder.
 */
export function tooBroadToWrite(folder: string, homeDir: string): 'root' | 'home' | 'system' | undefined {
  if (folder === '/') return 'root';
  if (inside(homeDir, folder)) return 'home';
  if (WORK_BELOW.some((base) => folder !== base && inside(folder, base))) return undefined;
  if (SYSTEM_TREES.some((tree) => inside(folder, tree) || inside(tree, folder))) return 'system';
  return undefined;
}

/** `target` is `base` or below it (both absolute, normalised). */
export function inside(target: string, base: string): boolean {
  if (base === '/') return target.startsWith('/');
  return target === base || target.startsWith(`${base}/`);
}

/**
 * `target` is in bubblewrap's own /tmp: under /tmp, but not where the home folder or a writable
 * folder shows through. The same name outside the sandbox is another file or folder.
 */
export function inSandboxTmp(target: string, homeDir: string, writable: readonly string[]): boolean {
  return inside(target, '/tmp') && ![homeDir, ...writable].some((folder) => inside(target, folder));
}
