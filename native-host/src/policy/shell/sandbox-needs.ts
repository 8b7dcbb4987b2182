import { say, type Localized } from '@nextai/shared';

import type { EscapeKind } from './effects.js';
import type { Invocation } from './invocation.js';
import type { AnalysisState } from './state.js';

/**
 * What each program needs from the sandbox besides files: the network, something outside it
 * (raised privileges, the host's processes, the system's services, the desktop, hidden keys), or
 * nothing. Paths are judged separately, from the analysis of each path (effects.ts). A program
 * that is not listed needs nothing more: inside the sandbox it can only fail.
 */

type Verb = string | undefined;

interface Needs {
  /** It talks to other machines (for these verbs, when given). */
  network?: true | ((verb: Verb, values: readonly (string | undefined)[]) => boolean);
  /** What it needs that the sandbox does not give. */
  escape?: EscapeKind | ((inv: Invocation, verb: Verb) => EscapeKind | undefined);
  /** It runs code NextAI cannot see (for these verbs, when given). */
  code?: true | ((verb: Verb, values: readonly (string | undefined)[]) => boolean);
}

const INFO = /^(?:-v|-V|--version|version|-h|--help|help)$/;

const verbs = (pattern: RegExp) => (verb: Verb) => verb !== undefined && pattern.test(verb);

const NPM_NETWORK =
  /^(?:install|i|in|ci|add|update|up|upgrade|publish|unpublish|login|adduser|logout|view|v|info|show|outdated|search|s|audit|exec|x|dlx|create|init|ping|whoami|doctor|dedupe|fetch|deprecate|dist-tag|owner|access|token|pack|link|rebuild)$/;
const NPM_CODE = /^(?:run|run-script|rum|urn|test|t|tst|start|stop|restart|exec|x|dlx|create|rebuild)$/;

const packageManager: Needs = {
  network: (verb, values) => (verb === undefined ? values.length === 0 : NPM_NETWORK.test(verb)),
  code: verbs(NPM_CODE),
};
const PYTHON_NETWORK = /^(?:install|download|add|lock|sync|update|upgrade|search|index|wheel|publish|upload|remove)$/;
const pythonPackages: Needs = { network: (verb) => verb !== undefined && PYTHON_NETWORK.test(verb) };
const buildTool: Needs = { network: true, code: true };
const interpreter: Needs = { code: true };
/** A shell runs a script file NextAI has not read; `sh -c '…'` text is analysed where it is. */
const shell: Needs = {
  code: (verb, values) => verb !== undefined && !values.some((value) => value !== undefined && /^-[a-z]*c/.test(value)),
};
const networkOnly: Needs = { network: true };
const sshFamily: Needs = { network: true, escape: 'secrets' };

const NEEDS: Record<string, Needs> = {
  // Talks to other machines.
  ...Object.fromEntries(
    ['curl', 'wget', 'http', 'https', 'xh', 'xhs', 'axel', 'aria2c', 'ping', 'ping6', 'traceroute', 'tracepath',
      'mtr', 'dig', 'host', 'nslookup', 'whois', 'nc', 'ncat', 'netcat', 'socat', 'telnet', 'ftp', 'lftp', 'tftp',
      'ncftp', 'mail', 'mailx', 'sendmail', 'nmap', 'yt-dlp', 'youtube-dl', 'lynx', 'w3m', 'links'].map(
      (name) => [name, networkOnly],
    ),
  ), // prettier-ignore
  openssl: { network: (verb) => verb === 's_client' || verb === 's_server' },
  ...Object.fromEntries(['ssh', 'scp', 'sftp', 'ssh-copy-id', 'sshfs', 'mosh'].map((name) => [name, sshFamily])),
  rsync: {
    network: (_verb, values) =>
      values.some((value) => value !== undefined && /^(?:[^/@:]+@)?[^/:]+:|^rsync:\/\//.test(value)),
    escape: (inv) =>
      inv.args.some((arg) => arg.value !== undefined && /^(?:[^/@:]+@)?[^/:]+:(?!\/\/)/.test(arg.value))
        ? 'secrets'
        : undefined,
  },
  git: {
    network: verbs(/^(?:clone|fetch|pull|push|ls-remote|submodule|remote|archive|request-pull|send-email|lfs)$/),
    escape: (inv, verb) => gitEscape(inv, verb),
  },
  // Packages and builds: downloads, and code from the project or its dependencies.
  npm: packageManager,
  pnpm: packageManager,
  yarn: packageManager,
  bun: { ...packageManager, code: (verb) => verb === undefined || NPM_CODE.test(verb) || !NPM_NETWORK.test(verb) },
  npx: buildTool,
  pnpx: buildTool,
  bunx: buildTool,
  pip: pythonPackages,
  pipx: { network: true, code: true },
  uv: {
    network: (verb) => verb !== undefined && /^(?:pip|add|sync|lock|run|tool|venv|python|publish|remove)$/.test(verb),
    code: verbs(/^(?:run|tool)$/),
  },
  uvx: buildTool,
  poetry: { network: verbs(/^(?:install|add|update|lock|publish|search|remove)$/), code: verbs(/^(?:run)$/) },
  pipenv: { network: verbs(/^(?:install|update|lock|sync|uninstall)$/), code: verbs(/^(?:run)$/) },
  pdm: { network: verbs(/^(?:install|add|update|lock|sync|publish|remove)$/), code: verbs(/^(?:run)$/) },
  conda: { network: verbs(/^(?:install|create|update|upgrade|search)$/) },
  mamba: { network: verbs(/^(?:install|create|update|upgrade|search)$/) },
  cargo: {
    network: verbs(
      /^(?:build|b|run|r|test|t|check|c|fetch|install|update|add|publish|search|doc|bench|clippy|vendor|generate-lockfile)$/,
    ),
    code: verbs(/^(?:build|b|run|r|test|t|bench|check|c|clippy|install)$/),
  },
  go: {
    network: verbs(/^(?:get|install|build|run|test|mod|generate|vet)$/),
    code: verbs(/^(?:build|run|test|generate|install)$/),
  },
  gem: { network: verbs(/^(?:install|update|fetch|push|search)$/) },
  bundle: { network: verbs(/^(?:install|update|add|outdated)$/), code: verbs(/^(?:exec)$/) },
  bundler: { network: verbs(/^(?:install|update|add|outdated)$/), code: verbs(/^(?:exec)$/) },
  composer: { network: verbs(/^(?:install|update|require|create-project|search)$/) },
  mvn: buildTool,
  gradle: buildTool,
  gradlew: buildTool,
  dotnet: { network: verbs(/^(?:restore|build|run|test|publish|add|tool|new)$/), code: verbs(/^(?:run|test|build)$/) },
  deno: { network: true, code: true },
  ...Object.fromEntries(
    ['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'fish', 'csh', 'tcsh'].map((name) => [name, shell]),
  ),
  ...Object.fromEntries(
    ['make', 'gmake', 'bmake', 'cmake', 'ninja', 'meson', 'bazel', 'ant', 'python', 'pypy', 'node', 'nodejs', 'ruby',
      'perl', 'php', 'lua', 'luajit', 'rscript', 'java', 'tsx', 'ts-node', 'pytest', 'jest', 'vitest', 'mocha', 'tox',
      'nox', 'swift', 'julia', 'octave', 'sbcl', 'guile', 'racket', 'elixir', 'erl', 'escript', 'ghc', 'runghc',
      'scala', 'kotlin', 'groovy', 'tclsh', 'wish', 'expect'].map((name) => [name, interpreter]),
  ), // prettier-ignore
  // Raised privileges: the sandbox lets no program gain any.
  ...Object.fromEntries(
    ['sudo', 'su', 'doas', 'pkexec', 'runuser', 'sudoedit', 'chroot', 'nsenter', 'newgrp', 'sg', 'capsh', 'login',
      'passwd', 'chsh', 'chfn', 'chpasswd', 'useradd', 'userdel', 'usermod', 'groupadd', 'groupdel', 'gpasswd',
      'visudo', 'setcap', 'sudo-rs', 'sudoedit-rs', 'run0', 'please', 'pleaseedit', 'gksu', 'gksudo', 'kdesu',
      'kdesudo', 'lxqt-sudo', 'lxsudo', 'ksu', 'beesu', 'machinectl', 'setpriv'].map((name) => [
      name,
      { escape: 'privileges' as const },
    ]),
  ), // prettier-ignore
  // The host's processes: inside, only the sandbox's own are there.
  kill: { escape: (inv) => killEscape(inv) },
  ...Object.fromEntries(
    ['pkill', 'killall', 'killall5', 'skill', 'xkill', 'renice'].map((name) => [
      name,
      { escape: 'host_processes' as const },
    ]),
  ),
  ...Object.fromEntries(
    ['ps', 'pgrep', 'pidof', 'top', 'htop', 'btop', 'atop', 'pstree', 'lsof', 'fuser', 'w', 'who', 'ss', 'netstat',
      'nethogs', 'iotop'].map((name) => [name, { escape: 'process_list' as const }]),
  ), // prettier-ignore
  // The system: services, scheduled jobs, packages, containers, mounts, the network set-up.
  ...Object.fromEntries(
    ['systemctl', 'service', 'launchctl', 'crontab', 'at', 'atq', 'atrm', 'batch', 'shutdown', 'reboot', 'halt',
      'poweroff', 'init', 'telinit', 'loginctl', 'mount', 'umount', 'losetup', 'swapon', 'swapoff', 'modprobe',
      'insmod', 'rmmod', 'sysctl', 'iptables', 'ip6tables', 'nft', 'ufw', 'firewall-cmd', 'nmcli', 'hostnamectl',
      'timedatectl', 'resolvectl', 'docker', 'podman', 'nerdctl', 'docker-compose', 'apt', 'apt-get', 'aptitude',
      'dnf', 'yum', 'zypper', 'pacman', 'apk', 'snap', 'flatpak', 'port', 'brew', 'softwareupdate', 'systemd-run',
      'dbus-send', 'gdbus', 'busctl', 'qdbus', 'journalctl', 'dmesg', 'wall', 'write', 'ctr', 'crictl', 'lxc',
      'incus', 'systemd-nspawn', 'virsh', 'virt-install', 'virt-clone', 'virt-customize', 'virt-sysprep',
      'virt-rescue', 'virt-copy-in', 'virt-copy-out', 'guestmount', 'guestfish', 'distrobox', 'toolbox', 'multipass',
      'qemu-nbd', 'qemu-system', 'qemu-kvm', 'kvm'].map((name) => [
      name,
      { escape: 'system' as const },
    ]),
  ), // prettier-ignore
  dpkg: {
    escape: (inv) =>
      inv.args.some((arg) => /^-(?:i|r|P|-install|-remove|-purge|-configure)/.test(arg.value ?? ''))
        ? 'system'
        : undefined,
  },
  rpm: {
    escape: (inv) =>
      inv.args.some((arg) => /^-(?:i|U|e|F)|^--(?:install|upgrade|erase)/.test(arg.value ?? '')) ? 'system' : undefined,
  },
  // Disks and other devices.
  ...Object.fromEntries(
    ['mkfs', 'fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted', 'wipefs', 'hdparm', 'blkdiscard', 'badblocks',
      'cryptsetup', 'mdadm', 'diskutil', 'eject'].map((name) => [name, { escape: 'devices' as const }]),
  ), // prettier-ignore
  // The person's desktop.
  ...Object.fromEntries(
    ['xdg-open', 'open', 'gio', 'gnome-open', 'kde-open', 'start', 'code', 'notify-send', 'xdotool', 'wmctrl', 'xclip',
      'xsel', 'wl-copy', 'wl-paste', 'pbcopy', 'pbpaste', 'osascript', 'xrandr', 'xset', 'scrot', 'gnome-screenshot',
      'zenity', 'kdialog', 'firefox', 'firefox-esr', 'chromium', 'chromium-browser', 'google-chrome', 'screencapture',
      'say', 'espeak', 'aplay', 'paplay', 'pactl', 'arecord',
      // Programs that type, click or script other windows (XTEST, uinput, the Wayland protocols).
      'xte', 'xvkbd', 'xmacroplay', 'xmacrorec2', 'ydotool', 'ydotoold', 'wtype', 'dotool', 'autokey-gtk',
      'autokey-qt', 'autokey-run', 'actiona', 'actexec', 'sikulix', 'xautomation', 'xinput', 'xmodmap', 'xkbcomp',
      'xev', 'xwd', 'import', 'xsendkeys', 'keymapper'].map((name) => [name, { escape: 'desktop' as const }]),
  ), // prettier-ignore
  // Keys, agents and credential stores the sandbox hides.
  ...Object.fromEntries(
    ['gpg', 'gpg2', 'gpg-agent', 'pass', 'gopass', 'secret-tool', 'keyring', 'op', 'bw', 'lpass', 'keepassxc-cli',
      'ssh-add', 'ssh-agent', 'security', 'kwallet-query'].map((name) => [name, { escape: 'secrets' as const }]),
  ), // prettier-ignore
  ...Object.fromEntries(
    ['aws', 'gcloud', 'az', 'kubectl', 'helm', 'gh', 'hub', 'terraform', 'tofu', 'heroku', 'vercel', 'netlify',
      'fly', 'flyctl', 'doctl', 'wrangler', 'firebase'].map((name) => [name, { network: true, escape: 'secrets' as const }]),
  ), // prettier-ignore
};

/** Apps that the desktop list names for shell commands, but that app_launch simply starts. */
const APPS = new Set([
  'firefox',
  'firefox-esr',
  'chromium',
  'chromium-browser',
  'google-chrome',
  'code',
  'zenity',
  'kdialog',
]);

/** Reasons a person reads on the approval card, per kind. */
export const ESCAPE_REASONS: Record<EscapeKind, (program: string) => Localized> = {
  privileges: (program) =>
    say(`raises privileges (${program}), which the sandbox never allows`, `提升权限（${program}），沙箱从不允许`),
  host_processes: (program) =>
    say(`signals processes outside the sandbox (${program})`, `向沙箱外的进程发信号（${program}）`),
  process_list: (program) =>
    say(
      `looks at this computer's processes (${program}); inside the sandbox only its own are visible`,
      `查看这台电脑的进程（${program}）；沙箱里只能看到它自己的进程`,
    ),
  system: (program) =>
    say(
      `changes or asks the system outside the sandbox (${program}: services, packages, containers, scheduled jobs)`,
      `更改或查询沙箱外的系统（${program}：服务、软件包、容器、计划任务）`,
    ),
  devices: (program) => say(`uses disks or other devices (${program})`, `使用磁盘或其他设备（${program}）`),
  desktop: (program) =>
    say(
      `uses your desktop (${program}: windows, clipboard, notifications, apps)`,
      `使用你的桌面（${program}：窗口、剪贴板、通知、应用）`,
    ),
  secrets: (program) =>
    say(`uses keys or credentials the sandbox hides (${program})`, `使用沙箱隐藏的密钥或凭据（${program}）`),
  git_config: (program) =>
    say(
      `changes a repository's git config or hooks (${program}), which the sandbox keeps read-only`,
      `更改仓库的 git 配置或钩子（${program}），沙箱让它们保持只读`,
    ),
};

/**
 * What a program started by `app_launch` needs beyond an app's sandbox (it gets the display):
 * `xdotool`, `wmctrl` and the like act on the person's other windows.
 */
export function launchedProgramEscape(name: string): { kind: EscapeKind; why: Localized } | undefined {
  const program =
    name
      .split('/')
      .pop()
      ?.toLowerCase()
      .replace(/\.exe$/, '') ?? '';
  // Opening a browser or an editor is what app_launch is for; from a shell command it is not.
  if (APPS.has(program)) return undefined;
  const escape = NEEDS[program]?.escape;
  return typeof escape === 'string' ? { kind: escape, why: ESCAPE_REASONS[escape](program) } : undefined;
}

/** Records what one program start needs; called for every program the command runs. */
export function noteSandboxNeeds(inv: Invocation, st: AnalysisState): void {
  const needs = NEEDS[inv.program];
  if (!needs) return;
  const values = inv.args.map((arg) => arg.value);
  if (values.length > 0 && values.every((value) => value !== undefined && INFO.test(value))) return;
  const verb =
    inv.program === 'git' ? gitVerb(values) : values.find((value) => value === undefined || !value.startsWith('-'));
  const network = typeof needs.network === 'function' ? needs.network(verb, values) : needs.network === true;
  if (network) {
    // The subcommand is named for tools that have them (`git fetch`), not for `curl URL`.
    const what = typeof needs.network === 'function' && verb ? `${inv.program} ${verb}` : inv.program;
    st.effects.needsNetwork(say(`${what} uses the network`, `${what} 需要网络`), inv.excerpt);
  }
  const escape = typeof needs.escape === 'function' ? needs.escape(inv, verb) : needs.escape;
  if (escape) st.effects.need(escape, ESCAPE_REASONS[escape](inv.program), inv.excerpt);
  const code = typeof needs.code === 'function' ? needs.code(verb, values) : needs.code === true;
  if (code) noteUnseenCode(inv, st);
}

/** A program NextAI has no rules for, a project script, inline code: it runs what nobody looked at. */
export function noteUnseenCode(inv: Invocation, st: AnalysisState): void {
  st.effects.runsUnseenCode(
    say(
      `runs code NextAI cannot check (${inv.program || inv.name.text})`,
      `运行 NextAI 无法检查的代码（${inv.program || inv.name.text}）`,
    ),
    inv.excerpt,
  );
}

/** `kill 1234` reaches outside; `kill %1`, `kill $!` and `kill -1` stay among the sandbox's own processes. */
function killEscape(inv: Invocation): EscapeKind | undefined {
  const targets = inv.args
    .map((arg) => arg.value)
    .filter((value): value is string => value !== undefined && !value.startsWith('-') && !value.startsWith('%'));
  return targets.some((value) => /^\d+$/.test(value) && Number(value) > 1) ? 'host_processes' : undefined;
}

/** git's subcommand, after its own options (`git -C ~/app status` is `status`). */
function gitVerb(values: readonly (string | undefined)[]): Verb {
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (value === undefined) return undefined;
    if (/^(?:-C|-c|--git-dir|--work-tree|--namespace|--exec-path|--super-prefix|--config-env)$/.test(value)) index += 1;
    else if (!value.startsWith('-')) return value;
  }
  return undefined;
}

/** git writes its own config for these: read-only in the sandbox. */
function gitEscape(inv: Invocation, verb: Verb): EscapeKind | undefined {
  const values = inv.args.map((arg) => arg.value ?? '');
  if (verb === 'config') {
    const reads = values.some((value) => /^--(?:get|get-all|get-regexp|list|show-origin|show-scope)$|^-l$/.test(value));
    return reads ? undefined : 'git_config';
  }
  if (verb === 'remote') {
    const sub = values[values.indexOf('remote') + 1];
    return sub !== undefined && /^(?:add|rename|remove|rm|set-url|set-head|set-branches)$/.test(sub)
      ? 'git_config'
      : undefined;
  }
  if (verb === 'submodule' && values.includes('add')) return 'git_config';
  if (verb === 'push' && values.some((value) => value === '-u' || value === '--set-upstream')) return 'git_config';
  if (verb === 'branch' && values.some((value) => /^(?:-u|--set-upstream-to|--unset-upstream)/.test(value)))
    return 'git_config';
  return undefined;
}
