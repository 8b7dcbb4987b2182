import { say, type Localized } from '@nextai/shared';

import { RUNTIME_ARGS, checkPath, report } from '../invocation.js';
import { extend, type ShellPhrase } from '../phrases.js';
import { literalWord, type Word } from '../words.js';
import type { Handler } from './types.js';

/** The words that are not options. */
function operandsOf(args: readonly Word[]): Word[] {
  return args.filter((arg) => arg.value === undefined || !arg.value.startsWith('-'));
}

/**
 * A tool that only looks when its verb (first operand) matches `looks`, and changes the system
 * otherwise: `systemctl status` is fine, `systemctl stop` is critical.
 */
function verbTool(looks: RegExp, what: ShellPhrase, withoutVerb: 'low' | 'critical' = 'low'): Handler {
  return (inv, st) => {
    if (inv.args.some((arg) => arg.value === undefined)) {
      report(st, inv, 'critical', extend(what, ', with arguments computed at run time', '，且参数在运行时才确定'));
      return;
    }
    if (inv.args.some((arg) => /^(?:--version|--help|-h|-V)$/.test(arg.value ?? '')) && inv.args.length === 1) return;
    const verb = operandsOf(inv.args)[0]?.value;
    if (verb === undefined) {
      if (withoutVerb === 'critical') report(st, inv, 'critical', what);
      return;
    }
    if (!looks.test(verb)) {
      report(st, inv, 'critical', extend(what, ` (${inv.program} ${verb})`, `（${inv.program} ${verb}）`));
    }
  };
}

/**
 * A tool that only looks when every option is one of `looks` (`iptables -L`, `fdisk -l`).
 * `bare` is the verdict with no arguments at all, `noOptions` with operands but no options.
 */
function optionTool(
  looks: RegExp,
  what: ShellPhrase,
  verdicts: { bare?: 'low' | 'critical'; noOptions?: 'low' | 'critical'; windows?: boolean } = {},
): Handler {
  // Windows tools write options with a slash (`schtasks /query`).
  const option = verdicts.windows ? /^[-/]/ : /^-/;
  return (inv, st) => {
    const options = inv.args.filter((arg) => arg.value === undefined || option.test(arg.value));
    let harmless: boolean;
    if (inv.args.length === 0) harmless = (verdicts.bare ?? 'critical') === 'low';
    else if (options.length === 0) harmless = (verdicts.noOptions ?? 'critical') === 'low';
    else harmless = options.every((arg) => arg.value !== undefined && looks.test(arg.value));
    if (!harmless) report(st, inv, 'critical', what);
  };
}

function always(risk: 'critical' | 'high' | 'medium', what: ShellPhrase): Handler {
  return (inv, st) => report(st, inv, risk, what);
}

const SIGNAL_OPTION = /^-(?:\d+|[A-Z][A-Z0-9+-]*|s|n)$/;

/**
 * A kill target as bash and procps read a number: blanks around it, a sign, leading zeros
 * (`-01`, `+1`, `" -1"`, `-0`). Undefined for anything else (a job `%1`, a name).
 */
function targetNumber(value: string): number | undefined {
  const match = /^\s*([+-]?\d+)\s*$/.exec(value);
  return match ? Number(match[1]) : undefined;
}

/** `$!` (the job this shell just started) is a process of its own; any other computed target could be -1. */
function ownBackgroundJob(target: Word): boolean {
  return /^"?\$(?:!|\{!\})"?$/.test(target.text);
}

/** kill: named processes are high; pid 1, -1 (everything), 0 (this session) and targets that may be them are critical. */
const kill: Handler = (inv, st) => {
  const args = inv.args;
  if (args.some((arg) => /^-[lL]$|^--(?:list|table)$/.test(arg.value ?? ''))) return;
  let index = 0;
  const first = args[0]?.value;
  if (first !== undefined && SIGNAL_OPTION.test(first)) index = first === '-s' || first === '-n' ? 2 : 1;
  else if (first?.startsWith('--signal')) index = first.includes('=') ? 1 : 2;
  if (args[index]?.value === '--') index += 1;
  const targets = args.slice(index);
  if (targets.length === 0) return;
  report(st, inv, 'high', 'stops processes');
  for (const target of targets) {
    const value = target.value;
    if (value === undefined) {
      // What xargs or fd hand it come from another program's output (`lsof -t`, `pgrep`), and
      // `$(pgrep …)` is what pgrep selects; any other expansion, arithmetic above all, can be -1.
      const listing = pidListing(target);
      if (listing) selectionFindings(listing.program, listing.args, (risk, why) => report(st, inv, risk, why));
      if (listing || target === RUNTIME_ARGS || ownBackgroundJob(target)) {
        report(st, inv, 'high', 'stops processes chosen at run time');
      } else {
        report(st, inv, 'critical', 'stops processes chosen at run time, which could be every process (-1)');
      }
      continue;
    }
    const pid = targetNumber(value);
    if (pid === -1) report(st, inv, 'critical', 'stops every process it may (kill -1)');
    else if (pid === 1) report(st, inv, 'critical', 'stops the init process');
    else if (pid === 0) report(st, inv, 'critical', 'stops every process of this session');
  }
};

/** Process names that the system or the person's session cannot do without. */
const VITAL_PROCESSES = ['systemd', 'init', 'sshd', 'Xorg', 'Xwayland', 'gnome-shell', 'plasmashell', 'kwin_wayland',
  'kwin_x11', 'mutter', 'dbus-daemon', 'dbus-broker', 'pipewire', 'wireplumber', 'gdm', 'sddm', 'lightdm', 'login',
  'NetworkManager', 'polkitd', 'udevd', 'journald']; // prettier-ignore
/** Names of every shape, for telling a pattern that matches them all. */
const SAMPLE_NAMES = [...VITAL_PROCESSES, 'a', 'Z', '0', '-', '_', '.', 'kworker/0:1', 'node', 'python3', 'x y'];

/** POSIX classes as JavaScript writes them, for reading pkill's extended regular expressions. */
const POSIX_CLASSES: Record<string, string> = {
  alnum: 'A-Za-z0-9', alpha: 'A-Za-z', digit: '0-9', lower: 'a-z', upper: 'A-Z', space: '\\s', blank: ' \\t',
  punct: '!-\\/:-@\\[-`{-~', print: ' -~', graph: '!-~', cntrl: '\\x00-\\x1f', xdigit: '0-9A-Fa-f', word: '\\w',
}; // prettier-ignore

/**
 * Why a process pattern is critical: it matches every process (`.`, `z*`, `''`, `x|`), or the
 * processes the system and session need. `regex` is false for killall's exact names.
 */
function patternConcern(
  pattern: string,
  options: { regex: boolean; exact: boolean; ignoreCase: boolean },
): ShellPhrase | Localized | undefined {
  let matcher: (name: string) => boolean;
  if (options.regex) {
    let re: RegExp;
    try {
      const source = pattern.replace(/\[:(\w+):\]/g, (whole, name: string) => POSIX_CLASSES[name] ?? whole);
      re = new RegExp(options.exact ? `^(?:${source})$` : source, options.ignoreCase ? 'i' : '');
    } catch {
      return say(
        `stops processes matching a pattern the analyser cannot read (${pattern})`,
        `停止与分析器无法理解的模式（${pattern}）匹配的进程`,
      );
    }
    matcher = (name) => re.test(name);
  } else {
    matcher = (name) => (options.ignoreCase ? name.toLowerCase() === pattern.toLowerCase() : name === pattern);
  }
  if (SAMPLE_NAMES.every(matcher) || (options.regex && !options.exact && matcher(''))) {
    return 'stops every process (the pattern matches all names)';
  }
  const vital = VITAL_PROCESSES.filter(matcher);
  if (vital.length > 0) {
    return say(
      `stops processes the system or your session needs (${vital.join(', ')})`,
      `停止系统或你的会话所需的进程（${vital.join('、')}）`,
    );
  }
  return undefined;
}

/**
 * What a pkill/pgrep-style selection of processes reaches, reported through `raise`: every
 * process, a user's, or the ones the system needs. `program` is pkill, pgrep, killall, pidof or skill.
 */
function selectionFindings(
  program: string,
  args: readonly Word[],
  raise: (risk: 'high' | 'critical', why: ShellPhrase | Localized) => void,
): void {
  const operands: Word[] = [];
  let allOfUser = false;
  let exact = program === 'pidof';
  let ignoreCase = false;
  let regex = program === 'pkill' || program === 'pgrep' || program === 'skill';
  for (let index = 0; index < args.length; index++) {
    const value = args[index]?.value;
    if (value === undefined) {
      operands.push(args[index] as Word);
      continue;
    }
    if (/^-[uUgGPtsF]$|^--(?:euid|uid|group|pgroup|parent|terminal|session|pidfile|ns|nslist|signal)$/.test(value)) {
      if (/^-[uU]$|^--(?:euid|uid)$/.test(value)) allOfUser = true;
      index += 1;
      continue;
    }
    if (value === '-v' || value === '--inverse') raise('critical', 'stops every process except the ones named');
    if (value === '-x' || value === '--exact') exact = true;
    if (value === '-r' || value === '--regexp') regex = true;
    if ((value === '-i' && /^p/.test(program)) || value === '-I' || value === '--ignore-case') ignoreCase = true;
    if (value.startsWith('-')) continue;
    operands.push(args[index] as Word);
  }
  if (program === 'killall5') raise('critical', 'stops every process');
  if (operands.length === 0 && allOfUser) raise('critical', "stops all of a user's processes");
  // pkill and pgrep take one pattern; killall and pidof one name or pattern each.
  const patterns = program === 'pkill' || program === 'pgrep' ? operands.slice(0, 1) : operands;
  for (const pattern of patterns) {
    if (pattern.value === undefined) {
      raise('critical', 'stops processes by a pattern computed at run time, which could match every process');
      continue;
    }
    const why = patternConcern(pattern.value, {
      regex,
      exact: exact && (program === 'pkill' || program === 'pgrep' || program === 'pidof'),
      ignoreCase,
    });
    if (why) raise('critical', why);
  }
}

const pkill: Handler = (inv, st) => {
  report(st, inv, 'high', 'stops processes by name');
  selectionFindings(inv.program, inv.args, (risk, why) => report(st, inv, risk, why));
};

/**
 * `kill $(pgrep ARGS)`, `kill \`pidof NAME\``: the pids come from pgrep or pidof, so they are what
 * that selection reaches. Its arguments are words without expansions; anything else is unknown.
 */
function pidListing(target: Word): { program: string; args: Word[] } | undefined {
  const match = /^"?(?:\$\(|`)\s*(pgrep|pidof)\b([^$`()\\]*)(?:\)|`)"?$/.exec(target.text);
  if (!match) return undefined;
  const words = (match[2] ?? '').match(/'[^']*'|"[^"]*"|[^\s'"]+/g) ?? [];
  return { program: match[1] as string, args: words.map((word) => literalWord(word.replace(/^(['"])(.*)\1$/s, '$2'))) };
}

/** `ip OBJECT [COMMAND]`: show/list is fine, add/del/set/flush changes the network. */
const ip: Handler = (inv, st) => {
  const args = inv.args;
  let index = 0;
  while (index < args.length && (args[index]?.value ?? '').startsWith('-')) {
    const value = args[index]?.value ?? '';
    if (/^-(?:b|batch)$/.test(value))
      report(st, inv, 'critical', 'changes the network configuration from a batch file');
    index += /^-(?:n|netns|rc|rcvbuf|l|loops|f|family)$/.test(value) ? 2 : 1;
  }
  const object = args[index]?.value;
  const command = args[index + 1]?.value;
  if (args.slice(index).some((arg) => arg.value === undefined)) {
    report(st, inv, 'critical', 'changes the network configuration with arguments computed at run time');
    return;
  }
  if (object === undefined || object === 'help') return;
  if (command === undefined || /^(?:show|list|ls|lst|sh|s|get|monitor|help|l)$/.test(command)) return;
  if (object === 'netns' && command === 'exec') {
    report(st, inv, 'critical', 'runs a command in another network namespace');
    return;
  }
  if (object !== undefined && /^-/.test(command)) return;
  report(
    st,
    inv,
    'critical',
    say(`changes the network configuration (ip ${object} ${command})`, `更改网络配置（ip ${object} ${command}）`),
  );
};

const ifconfig: Handler = (inv, st) => {
  const operands = inv.args.filter((arg) => arg.value !== '-a' && arg.value !== '-s' && arg.value !== '-l');
  if (operands.length > 1 || operands.some((arg) => arg.value === undefined)) {
    report(st, inv, 'critical', 'changes a network interface');
  }
};

const sysctl: Handler = (inv, st) => {
  const changes = inv.args.some(
    (arg) => arg.value === undefined || /^-(?:w|p|f)$|^--(?:write|load|system)|=/.test(arg.value),
  );
  if (changes) report(st, inv, 'critical', 'changes kernel settings (sysctl)');
};

const crontab: Handler = (inv, st) => {
  // Only `crontab -l` (optionally `-u USER`) lists; everything else replaces or edits the table.
  let listing = false;
  for (let index = 0; index < inv.args.length; index++) {
    const value = inv.args[index]?.value;
    if (value === '-l') listing = true;
    else if (value === '-u') index += 1;
    else {
      listing = false;
      break;
    }
  }
  if (!listing) report(st, inv, 'critical', 'changes scheduled jobs (crontab)');
};

const at: Handler = (inv, st) => {
  if (inv.args.length === 1 && /^-[lV]$/.test(inv.args[0]?.value ?? '')) return;
  report(st, inv, 'critical', 'schedules commands to run later');
};

/** journalctl is read-only except for the options that delete or rotate logs. */
const journalctl: Handler = (inv, st) => {
  if (
    inv.args.some(
      (arg) =>
        arg.value === undefined || /^--(?:vacuum-\w+|rotate|flush|relinquish-var|setup-keys|sync)/.test(arg.value),
    )
  ) {
    report(st, inv, 'critical', 'deletes, rotates or rewrites the system logs');
  }
};

const dmesg: Handler = (inv, st) => {
  if (
    inv.args.some(
      (arg) =>
        arg.value === undefined || /^-[a-zA-Z]*[cCnDEH]|^--(?:clear|read-clear|console-\w+|human)/.test(arg.value),
    )
  ) {
    report(st, inv, 'critical', 'clears the kernel log, changes console logging, or opens a pager');
  }
};

const gpg: Handler = (inv, st) => {
  const values = inv.args.map((arg) => arg.value ?? '');
  inv.args.forEach((arg, index) => {
    const next = inv.args[index + 1];
    if ((arg.value === '-o' || arg.value === '--output') && next) checkPath(st, inv, next, 'write');
  });
  if (
    values.some((value) =>
      /^--(?:export-secret-(?:sub)?keys|delete-secret-(?:and-public-)?keys?|gen-revoke|export-ownertrust|import-ownertrust)/.test(
        value,
      ),
    )
  ) {
    report(st, inv, 'critical', 'exports or deletes secret keys');
  } else if (values.some((value) => /^(?:-d|--decrypt)$/.test(value))) {
    report(st, inv, 'high', 'decrypts a file');
  } else {
    report(st, inv, 'medium', 'runs gpg');
  }
};

const security: Handler = (inv, st) => {
  const verb = inv.args[0]?.value ?? '';
  if (
    /^(?:find-(?:generic|internet)-password|dump-keychain|export|add-\w+|delete-\w+|set-\w+|unlock-keychain|create-keychain|import|authorizationdb|remove-trusted-cert|add-trusted-cert)$/.test(
      verb,
    ) ||
    inv.args[0]?.value === undefined
  ) {
    report(
      st,
      inv,
      'critical',
      say(`reads or changes the keychain (security ${verb})`, `读取或更改钥匙串（security ${verb}）`),
    );
  } else {
    report(st, inv, 'high', 'uses the keychain tool');
  }
};

const passwordManager = always('critical', 'reads or changes secrets in a password manager or key store');
const diskTool = (looks: RegExp, bare: 'low' | 'critical' = 'critical') =>
  optionTool(looks, 'changes disks, partitions or file systems', { bare });

const windowsCritical = always('critical', 'runs a Windows system tool that can change the machine or run hidden code');

export const SYSTEM_HANDLERS: Record<string, Handler> = {
  kill,
  pkill,
  killall: pkill,
  killall5: pkill,
  skill: pkill,
  systemctl: verbTool(
    /^(?:status|show|cat|list-[\w-]+|is-active|is-enabled|is-failed|is-system-running|get-default|show-environment|help|whoami)$/,
    'changes system services',
  ),
  service: (inv, st) => {
    const operands = operandsOf(inv.args);
    const listing = inv.args.some((arg) => arg.value === '--status-all') || operands[1]?.value === 'status';
    if (!listing) report(st, inv, 'critical', 'changes system services');
  },
  launchctl: verbTool(
    /^(?:list|print|print-disabled|print-cache|blame|procinfo|version|help|dumpstate|error|examine|managerpid|manageruid|managername|hostinfo|dumpjpcategory|resolveport)$/,
    'changes login items or services',
  ),
  'update-rc.d': always('critical', 'changes which services start with the system'),
  chkconfig: optionTool(/^--list$/, 'changes which services start with the system', { bare: 'low' }),
  'rc-update': verbTool(/^(?:show|-s)$/, 'changes which services start with the system'),
  'rc-service': (inv, st) => {
    if (operandsOf(inv.args)[1]?.value !== 'status') report(st, inv, 'critical', 'changes system services');
  },
  sv: always('critical', 'changes system services'),
  initctl: verbTool(/^(?:list|status|show-config|version)$/, 'changes system services'),
  insserv: always('critical', 'changes which services start with the system'),
  crontab,
  at,
  batch: at,
  atq: always('medium', 'lists scheduled jobs'),
  atrm: always('high', 'removes scheduled jobs'),
  shutdown: always('critical', 'shuts down or restarts the machine'),
  reboot: always('critical', 'shuts down or restarts the machine'),
  halt: always('critical', 'shuts down or restarts the machine'),
  poweroff: always('critical', 'shuts down or restarts the machine'),
  init: verbTool(/^--version$/, 'changes the system run level', 'low'),
  telinit: always('critical', 'changes the system run level'),
  loginctl: verbTool(
    /^(?:list-[\w-]+|show-[\w-]+|session-status|user-status|seat-status)$/,
    'ends sessions or changes login settings',
  ),
  iptables: optionTool(
    /^-(?:[nvxL]*[LS][nvxL]*|n|v|t|w|-list(?:-rules)?|-numeric|-verbose|-table(?:=\w+)?|-line-numbers)$/,
    'changes the firewall',
  ),
  ip6tables: optionTool(
    /^-(?:[nvxL]*[LS][nvxL]*|n|v|t|w|-list(?:-rules)?|-numeric|-verbose|-table(?:=\w+)?|-line-numbers)$/,
    'changes the firewall',
  ),
  'iptables-save': always('medium', 'prints the firewall rules'),
  'iptables-restore': always('critical', 'replaces the firewall rules'),
  'ip6tables-restore': always('critical', 'replaces the firewall rules'),
  nft: verbTool(/^(?:list|-a|describe|monitor)$/, 'changes the firewall', 'critical'),
  ufw: verbTool(/^(?:status|show|app|version)$/, 'changes the firewall', 'critical'),
  'firewall-cmd': optionTool(
    /^--(?:state|list-[\w-]+|get-[\w-]+|query-[\w-]+|zone=\w+|permanent|version|help)$/,
    'changes the firewall',
  ),
  pfctl: optionTool(/^-s\w*$/, 'changes the firewall'),
  ipfw: verbTool(/^(?:list|show|-a)$/, 'changes the firewall', 'critical'),
  ip,
  ifconfig,
  route: verbTool(/^(?:-n|get|print|show|monitor)$/, 'changes the routing table'),
  nmcli: (inv, st) => {
    const operands = operandsOf(inv.args).map((arg) => arg.value);
    if (operands.some((value) => value === undefined)) report(st, inv, 'critical', 'changes the network configuration');
    else if (operands.length >= 2 && !/^(?:status|show|s|list|l|wifi|all|monitor)$/.test(operands[1] ?? '')) {
      report(st, inv, 'critical', 'changes the network configuration');
    } else if (operands.length >= 3 && operands[1] === 'wifi' && !/^(?:list|l)$/.test(operands[2] ?? '')) {
      report(st, inv, 'critical', 'changes the network configuration');
    }
  },
  networksetup: optionTool(/^-(?:list[\w]*|get[\w]*|print[\w]*|version|help)$/, 'changes the network configuration'),
  scutil: optionTool(/^(?:--get|-r|--dns|--proxy|--nwi)$/, 'changes system configuration'),
  hostnamectl: verbTool(/^(?:status|hostname)$/, "changes the machine's name"),
  timedatectl: verbTool(/^(?:status|show|list-timezones|timesync-status|show-timesync)$/, 'changes the system clock'),
  resolvectl: verbTool(/^(?:status|query|statistics|service|openpgp|tlsa)$/, 'changes name resolution'),
  wg: verbTool(/^(?:show|showconf|genkey|genpsk|pubkey)$/, 'changes VPN tunnels'),
  tc: verbTool(/^(?:show|-s|-d|-j)$/, 'changes network traffic control', 'critical'),
  ethtool: optionTool(/^-(?:i|S|k|g|a|c|l|T|P|m|-driver|-statistics|-show-[\w-]+)$/, 'changes a network interface', {
    noOptions: 'low',
  }),
  sysctl,
  modprobe: optionTool(
    /^-(?:n|c|-dry-run|-show-depends|-showconfig|-show|-version)$/,
    'loads or removes kernel modules',
  ),
  insmod: always('critical', 'loads kernel modules'),
  rmmod: always('critical', 'removes kernel modules'),
  kexec: always('critical', 'replaces the running kernel'),
  mount: (inv, st) => {
    if (operandsOf(inv.args).length > 0 || inv.args.some((arg) => !/^-(?:l|t|-show-labels)$/.test(arg.value ?? ''))) {
      report(st, inv, 'critical', 'mounts a file system');
    }
  },
  umount: always('critical', 'unmounts a file system'),
  losetup: diskTool(/^-(?:l|a|-list|-all|J|-json)$/, 'low'),
  cryptsetup: verbTool(/^(?:status|luksDump|isLuks|--version|benchmark)$/, 'changes encrypted disks', 'critical'),
  swapon: diskTool(/^-(?:s|-show|-summary)$/, 'low'),
  swapoff: always('critical', 'turns off swap space'),
  mkswap: always('critical', 'formats a disk as swap'),
  mkfs: always('critical', 'formats a disk'),
  mke2fs: always('critical', 'formats a disk'),
  mkdosfs: always('critical', 'formats a disk'),
  mkntfs: always('critical', 'formats a disk'),
  newfs: always('critical', 'formats a disk'),
  fdisk: diskTool(/^-(?:l|-list)$/),
  sfdisk: diskTool(/^-(?:l|d|-list|-dump|J|-json)$/),
  cfdisk: always('critical', 'changes disk partitions'),
  gdisk: always('critical', 'changes disk partitions'),
  sgdisk: diskTool(/^-(?:p|-print|i)$/),
  parted: (inv, st) => {
    const looks = inv.args.every((arg) => /^(?:-l|--list|-s|--script|print|\/dev\/\w+)$/.test(arg.value ?? ''));
    if (!looks) report(st, inv, 'critical', 'changes disk partitions');
  },
  partprobe: always('critical', 'rereads disk partitions'),
  wipefs: (inv, st) => {
    if (
      inv.args.some((arg) => arg.value === undefined || /^-(?:a|o|-all|-offset|f|-force)|^-[a-z]*a/.test(arg.value))
    ) {
      report(st, inv, 'critical', 'erases file-system signatures from a disk');
    }
  },
  tune2fs: diskTool(/^-l$/),
  e2fsck: always('critical', 'repairs a file system'),
  fsck: always('critical', 'repairs a file system'),
  resize2fs: always('critical', 'resizes a file system'),
  xfs_repair: always('critical', 'repairs a file system'),
  debugfs: diskTool(/^-(?:R|c)$/),
  zerofree: always('critical', 'overwrites free disk space'),
  blkdiscard: always('critical', 'discards every block of a disk'),
  badblocks: diskTool(/^-(?:s|v|b|c)$/),
  hdparm: diskTool(/^-(?:I|i|t|T|g)$/),
  mdadm: diskTool(/^--(?:detail|examine|query)$|^-(?:D|E|Q)$/),
  zpool: verbTool(/^(?:status|list|iostat|get|history|events)$/, 'changes storage pools', 'low'),
  zfs: verbTool(/^(?:list|get|holds|userspace|groupspace|diff)$/, 'changes storage datasets', 'low'),
  btrfs: (inv, st) => {
    const words = operandsOf(inv.args).map((arg) => arg.value ?? '');
    if (!words.some((word) => /^(?:show|list|df|usage|status|--version)$/.test(word))) {
      report(st, inv, 'critical', 'changes a btrfs file system');
    }
  },
  lvcreate: always('critical', 'changes logical volumes'),
  lvremove: always('critical', 'changes logical volumes'),
  lvextend: always('critical', 'changes logical volumes'),
  lvreduce: always('critical', 'changes logical volumes'),
  lvresize: always('critical', 'changes logical volumes'),
  vgcreate: always('critical', 'changes volume groups'),
  vgremove: always('critical', 'changes volume groups'),
  vgextend: always('critical', 'changes volume groups'),
  pvcreate: always('critical', 'changes physical volumes'),
  pvremove: always('critical', 'changes physical volumes'),
  diskutil: verbTool(/^(?:list|info|activity|listFilesystems|apfs)$/, 'changes disks'),
  passwd: optionTool(/^-(?:S|-status)$/, 'changes a password'),
  chpasswd: always('critical', 'changes passwords'),
  useradd: always('critical', 'creates a user account'),
  adduser: always('critical', 'creates a user account'),
  userdel: always('critical', 'deletes a user account'),
  deluser: always('critical', 'deletes a user account'),
  usermod: always('critical', 'changes a user account'),
  groupadd: always('critical', 'changes groups'),
  addgroup: always('critical', 'changes groups'),
  groupdel: always('critical', 'changes groups'),
  delgroup: always('critical', 'changes groups'),
  groupmod: always('critical', 'changes groups'),
  gpasswd: always('critical', 'changes group membership'),
  newgrp: always('critical', 'switches to another group'),
  chsh: always('critical', "changes a user's login shell"),
  chfn: always('critical', 'changes a user account'),
  chage: optionTool(/^-(?:l|-list)$/, 'changes password ageing'),
  vipw: always('critical', 'edits the password file'),
  vigr: always('critical', 'edits the group file'),
  visudo: always('critical', 'edits who may use sudo'),
  newusers: always('critical', 'creates user accounts'),
  pwconv: always('critical', 'changes the password files'),
  setcap: always('critical', 'gives a program raised privileges (capabilities)'),
  getcap: always('medium', 'lists program capabilities'),
  setpriv: always('critical', 'runs a program with changed privileges'),
  capsh: always('critical', 'runs a program with changed privileges'),
  login: always('critical', 'logs in as a user'),
  dscl: (inv, st) => {
    if (!inv.args.some((arg) => /^-(?:read|list|search|readall|readpl)$/.test(arg.value ?? ''))) {
      report(st, inv, 'critical', 'changes user accounts (dscl)');
    }
  },
  sysadminctl: always('critical', 'changes user accounts'),
  dseditgroup: always('critical', 'changes groups'),
  security,
  'secret-tool': passwordManager,
  pass: passwordManager,
  gopass: passwordManager,
  op: passwordManager,
  bw: passwordManager,
  lpass: passwordManager,
  'keepassxc-cli': passwordManager,
  keepassxc: passwordManager,
  'kwallet-query': passwordManager,
  keyring: passwordManager,
  vault: passwordManager,
  gpg,
  gpg2: gpg,
  journalctl,
  dmesg,
  logrotate: always('high', 'rotates log files'),
  defaults: (inv, st) => {
    const verb = operandsOf(inv.args)[0]?.value ?? '';
    if (inv.args.some((arg) => /^(?:LoginHook|LogoutHook)$/i.test(arg.value ?? ''))) {
      report(st, inv, 'critical', 'sets a login hook that runs a command');
    } else if (!/^(?:read|read-type|domains|find|export|help)$/.test(verb)) {
      report(st, inv, 'high', 'changes application settings');
    }
  },
  csrutil: verbTool(/^(?:status|authenticated-root)$/, 'changes System Integrity Protection'),
  spctl: optionTool(/^--(?:status|assess|a|t|type|v|verbose|raw)$|^-[avt]+$/, 'changes Gatekeeper'),
  nvram: optionTool(/^-(?:p|x)$/, 'changes firmware settings'),
  tccutil: always('high', 'resets privacy permissions'),
  xattr: (inv, st) => {
    if (inv.args.some((arg) => /^-[a-z]*[dcw]/.test(arg.value ?? ''))) {
      report(st, inv, 'high', "changes file attributes (such as a download's quarantine mark)");
    }
  },
  chflags: always('high', 'changes file flags'),
  pmset: (inv, st) => {
    if (!inv.args.every((arg) => /^-g$|^(?:batt|ps|custom|assertions|sched|log|live|cap)$/.test(arg.value ?? ''))) {
      report(st, inv, 'high', 'changes power settings');
    }
  },
  systemsetup: optionTool(/^-get\w+$/, 'changes system settings'),
  softwareupdate: optionTool(/^-(?:l|-list|-history)$/, 'installs system updates'),
  reg: verbTool(/^(?:query|export|compare)$/i, 'changes the Windows registry', 'critical'),
  schtasks: optionTool(/^\/(?:query|fo|v|nh|s|u|p|tn)$/i, 'changes scheduled tasks', { windows: true }),
  sc: verbTool(
    /^(?:query|queryex|qc|qdescription|qfailure|getdisplayname|getkeyname|enumdepend|sdshow)$/i,
    'changes Windows services',
    'critical',
  ),
  netsh: windowsCritical,
  bcdedit: optionTool(/^\/(?:enum|v)$/i, 'changes how the machine boots', { windows: true, bare: 'low' }),
  vssadmin: verbTool(/^list$/i, 'deletes or changes shadow copies (backups)', 'critical'),
  wmic: windowsCritical,
  rundll32: windowsCritical,
  regsvr32: windowsCritical,
  mshta: windowsCritical,
  certutil: windowsCritical,
  installutil: windowsCritical,
  msbuild: windowsCritical,
  cscript: windowsCritical,
  wscript: windowsCritical,
  format: always('critical', 'formats a disk'),
  diskpart: always('critical', 'changes disk partitions'),
  cipher: windowsCritical,
  icacls: always('high', 'changes who may use files'),
  takeown: always('high', 'takes ownership of files'),
  net: (inv, st) => {
    const words = operandsOf(inv.args).map((arg) => arg.value?.toLowerCase() ?? '');
    if (
      words.some((word) => /^\/(?:add|delete|del)$/.test(word)) ||
      /^(?:user|localgroup|group|share|stop|start)$/.test(words[0] ?? '')
    ) {
      report(st, inv, 'critical', 'changes accounts, shares or services (net)');
    } else {
      report(st, inv, 'high', 'runs a Windows network command');
    }
  },
};
