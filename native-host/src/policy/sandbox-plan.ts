import fs from 'node:fs';
import path from 'node:path';

import {
  higherRisk,
  say,
  type Localized,
  type RiskLevel,
  type SandboxMechanism,
  type SandboxNetwork,
} from '@nextai/shared';

import { describeFolder, realProfileFs, type SandboxFolders } from '../sandbox/profile.js';
import { inSandboxTmp, inside } from '../sandbox/places.js';
import type { SandboxStatus } from '../sandbox/types.js';
import type { EscapeKind, ShellEffects } from './shell/effects.js';
import {
  changesGitMetadata,
  criticalPatternRead,
  criticalRead,
  criticalTreeRead,
  criticalWrite,
  isDiskDevice,
  isHarmlessDevice,
  pathRules,
} from './shell/paths.js';

/**
 * Whether a command can run inside the operating-system sandbox, with or without the network,
 * or needs to leave it — and what stays risky even inside: destroying the person's work in the
 * writable folders (docs/ARCHITECTURE.md, "Sandbox first": a confined command can run without asking).
 */
export interface SandboxAssessment {
  mechanism: SandboxMechanism;
  /** A sandbox can start here. When false, nothing runs unconfined without a person. */
  available: boolean;
  unavailable?: Localized | undefined;
  network: SandboxNetwork;
  /** Real paths the sandbox may change. */
  writable: string[];
  /** Places it cannot see, for people (`~/.ssh`…). */
  hidden: string[];
  notes: Localized[];
  /** What it needs that the sandbox does not give; empty when it runs confined. */
  escapes: Escape[];
  /** What stays risky inside: mass destruction (critical), discarded changes, a network it asked for (high). */
  confined: { risk: RiskLevel; findings: Localized[] };
  /** The folder it starts in, when it is a command (said when it would leave the sandbox). */
  cwd?: string | undefined;
}

export interface Escape {
  why: Localized;
  /** The least risk leaving for this reason carries. */
  floor: RiskLevel;
}

/** What the policy knows of the sandbox here (the daemon's SandboxService). */
export interface SandboxView {
  status(): SandboxStatus;
  /** The folders for a grant (undefined: no grant). */
  folders(granted?: readonly string[]): SandboxFolders;
  /** The places hidden, as people read them. */
  describeHidden(hidden: readonly string[]): string[];
}

/** What the agent asked for besides the command: the network, or leaving the sandbox. */
export interface SandboxRequest {
  network?: boolean | undefined;
  outside?: { justification?: string | undefined } | undefined;
}

const READ_ROLES = new Set(['read', 'list', 'exec', 'readTree', 'link']);

/** The file-system facts the plan looks at (tests give their own). */
export interface PlanFs {
  exists(target: string): boolean;
  /** The real path of the longest existing part, the rest appended. */
  real(target: string): string;
  isRepository(folder: string): boolean;
}

export const realPlanFs: PlanFs = {
  exists: (target) => realProfileFs.exists(target),
  real: (target) => {
    let existing = target;
    const rest: string[] = [];
    for (;;) {
      try {
        const real = fs.realpathSync.native(existing);
        return rest.length === 0 ? real : path.posix.join(real, ...rest.reverse());
      } catch {
        const parent = path.posix.dirname(existing);
        if (parent === existing) return target;
        rest.push(path.posix.basename(existing));
        existing = parent;
      }
    }
  },
  isRepository: (folder) => {
    try {
      return fs.statSync(path.posix.join(folder, '.git')).isDirectory();
    } catch {
      return false;
    }
  },
};

/** The sandbox for a call that starts something, before looking at what it runs. */
export function baseAssessment(view: SandboxView, granted?: readonly string[]): SandboxAssessment {
  const folders = view.folders(granted);
  const status = view.status();
  return {
    mechanism: status.mechanism,
    available: status.available,
    ...(status.available ? {} : { unavailable: status.reason }),
    network: 'none',
    writable: folders.writable,
    hidden: view.describeHidden(folders.hidden),
    notes: folders.notes,
    escapes: [],
    confined: { risk: 'low', findings: [] },
  };
}

/**
 * Judges what a shell command does against the sandbox: paths it changes outside the writable
 * folders, hidden places it reads, what it needs that no sandbox gives (privileges, the host's
 * processes, services, devices, the desktop, keys) — each an escape — and what it destroys inside.
 */
export function planCommand(
  base: SandboxAssessment,
  effects: ShellEffects,
  options: { homeDir: string; hiddenPlaces: readonly string[]; request?: SandboxRequest; files?: PlanFs },
): SandboxAssessment {
  const files = options.files ?? realPlanFs;
  const plan: SandboxAssessment = { ...base, escapes: [], confined: { risk: 'low', findings: [] } };
  const escape = (why: Localized, floor: RiskLevel) => {
    if (!plan.escapes.some((known) => known.why.en === why.en)) plan.escapes.push({ why, floor });
  };
  const confinedRisk = (risk: RiskLevel, why: Localized) => {
    plan.confined.risk = higherRisk(plan.confined.risk, risk);
    if (!plan.confined.findings.some((known) => known.en === why.en)) plan.confined.findings.push(why);
  };
  const writable = plan.writable;
  const hidden = options.hiddenPlaces;
  const inWritable = (target: string) => writable.some((folder) => inside(target, folder));
  const isHidden = (target: string) => hidden.some((place) => inside(target, place));
  // bubblewrap gives the sandbox a /tmp of its own (the person's home and the writable folders
  // show through where they live under it); Seatbelt cannot, so there /tmp is simply read-only.
  const privateTmp = (target: string) =>
    plan.mechanism === 'bubblewrap' && inSandboxTmp(target, options.homeDir, writable);
  const rules = pathRules(options.homeDir, options.homeDir);
  const shown = (target: string) => describeFolder(target, options.homeDir);

  for (const need of effects.needs) {
    escape(need.why, NEED_FLOORS[need.kind]);
  }

  for (const effect of effects.paths) {
    const raw = effect.target ?? (effect.pattern ? fixedFolder(effect.pattern) : undefined);
    // Unknown paths stay unknown: inside the sandbox a change there can only land in the
    // writable folders or fail. Paths handed to a program NextAI does not know are the same.
    if (raw === undefined || effect.role === 'unknown') continue;
    if (/^\/dev\/(?:tcp|udp)\//.test(raw)) {
      effects.needsNetwork(
        say('opens a network connection through /dev/tcp', '通过 /dev/tcp 打开网络连接'),
        effect.excerpt,
      );
      continue;
    }
    const reads = READ_ROLES.has(effect.role);
    if (raw.startsWith('/dev/')) {
      if (isHarmlessDevice(raw) || (reads && raw === '/dev/tty')) continue;
      if (isDiskDevice(raw))
        escape(say(`uses the disk or memory device ${raw}`, `使用磁盘或内存设备 ${raw}`), 'critical');
      else
        escape(say(`uses the device ${raw}, which the sandbox does not have`, `使用设备 ${raw}，沙箱中没有它`), 'high');
      continue;
    }
    if (privateTmp(raw)) {
      // The sandbox's /tmp is its own and starts empty: what the computer's /tmp holds now is not
      // in it. A new file straight in /tmp is scratch; a file or folder that exists there is the
      // computer's, and reaching it means leaving.
      const top = raw.split('/').slice(0, 3).join('/');
      const theirs = raw !== '/tmp' && (files.exists(raw) || files.exists(top)) && !wroteEarlier(effects, top);
      if (theirs && reads) {
        escape(
          say(
            `reads ${raw}, in this computer's shared temporary folder, which the sandbox does not see`,
            `读取 ${raw}，它位于这台电脑共用的临时文件夹中，沙箱看不到`,
          ),
          'low',
        );
      } else if (theirs) {
        escape(
          say(
            `changes ${raw}, in this computer's shared temporary folder, which the sandbox does not see (it has a /tmp of its own)`,
            `更改 ${raw}，它位于这台电脑共用的临时文件夹中，沙箱看不到（沙箱有自己的 /tmp）`,
          ),
          'high',
        );
      }
      continue;
    }
    const target = files.real(raw);
    if (reads) {
      if (isHidden(raw) || isHidden(target)) {
        escape(say(`reads ${shown(raw)}, which the sandbox hides`, `读取 ${shown(raw)}，沙箱隐藏了它`), 'low');
      } else if (holdsSecrets(effect)) {
        // A secret the sandbox does not hide here (another user's, an app's own copy): reading it
        // confined still hands it to whoever sees the output.
        confinedRisk(
          'critical',
          say(
            `reads ${shown(raw)}, which holds secrets the sandbox does not hide (${effect.excerpt})`,
            `读取 ${shown(raw)}，其中有沙箱没有隐藏的机密（${effect.excerpt}）`,
          ),
        );
      }
      continue;
    }
    if (isHidden(raw) || isHidden(target)) {
      escape(say(`changes ${shown(raw)}, which the sandbox hides`, `更改 ${shown(raw)}，沙箱隐藏了它`), 'high');
      continue;
    }
    if (inWritable(target)) {
      if (changesGitMetadata(target)) {
        escape(
          say(
            `changes ${shown(raw)}, which the sandbox keeps read-only (git hooks and config run commands later)`,
            `更改 ${shown(raw)}，沙箱让它保持只读（git 钩子和配置以后会运行命令）`,
          ),
          'high',
        );
      } else if (criticalWrite(target, rules, false)) {
        // Writable here, but it runs code later, outside (a desktop launcher, a start-up file in a
        // folder a grant made writable): confinement does not make that harmless.
        confinedRisk(
          'critical',
          say(
            `changes ${shown(raw)}, which runs code later, outside the sandbox (${effect.excerpt})`,
            `更改 ${shown(raw)}，它以后会在沙箱外运行代码（${effect.excerpt}）`,
          ),
        );
      }
      continue;
    }
    const where = writable.length > 0 ? writable.map(shown).join(', ') : say('none', '无').en;
    escape(
      say(
        `${effect.role === 'create' ? 'creates' : 'changes'} ${shown(raw)}, outside the folders the sandbox may change (${where})`,
        `${effect.role === 'create' ? '创建' : '更改'} ${shown(raw)}，不在沙箱可以更改的文件夹（${writable.length > 0 ? writable.map(shown).join('、') : '无'}）中`,
      ),
      'high',
    );
  }

  for (const destroyed of effects.destroys) destruction(destroyed);

  const request = options.request;
  if (effects.network.size > 0) plan.network = 'full';
  // With the network, what it reads of yours can leave the machine: the person's files outside the
  // writable folders (documents, settings) are not for sending unasked.
  if (plan.network === 'full') {
    for (const effect of effects.paths) {
      if (effect.role !== 'read' && effect.role !== 'readTree') continue;
      const raw = effect.target ?? (effect.pattern ? fixedFolder(effect.pattern) : undefined);
      if (raw === undefined) {
        confinedRisk(
          'high',
          say(
            `reads a file only known at run time and has the network: it could send it out (${effect.excerpt})`,
            `读取一个运行时才确定的文件，并且可以联网：它可能把它发送出去（${effect.excerpt}）`,
          ),
        );
        continue;
      }
      if (!inside(raw, options.homeDir) || privateTmp(raw)) continue;
      const target = files.real(raw);
      if (inWritable(target) || isHidden(raw) || isHidden(target)) continue;
      confinedRisk(
        'high',
        say(
          `reads ${shown(raw)} and has the network: it could send it out`,
          `读取 ${shown(raw)}，并且可以联网：它可能把它发送出去`,
        ),
      );
    }
  }
  if (request?.network && effects.network.size === 0) {
    plan.network = 'full';
    confinedRisk(
      'high',
      effects.unseenCode
        ? say(
            `the agent asks for the network for code NextAI cannot check (${effects.unseenCode.why.en})`,
            `智能体为 NextAI 无法检查的代码申请网络（${effects.unseenCode.why['zh-CN']}）`,
          )
        : say(
            'the agent asks for the network, which NextAI does not see this command needing',
            '智能体申请网络，但 NextAI 看不出这条命令需要网络',
          ),
    );
  }
  if (request?.outside) {
    const why = request.outside.justification?.trim();
    escape(
      why
        ? say(
            `the agent asks to run it outside the sandbox: "${why.slice(0, 300)}"`,
            `智能体要求在沙箱外运行它：“${why.slice(0, 300)}”`,
          )
        : say('the agent asks to run it outside the sandbox', '智能体要求在沙箱外运行它'),
      'high',
    );
  }
  // Leaving the sandbox is for what NextAI can see: code it cannot check never runs outside
  // without a person, whatever the template (critical needs a person every time).
  if (plan.escapes.length > 0 && effects.unseenCode) {
    escape(
      say(
        `and ${effects.unseenCode.why.en}, which would then run outside the sandbox too`,
        `并且${effects.unseenCode.why['zh-CN']}，它也会在沙箱外运行`,
      ),
      'critical',
    );
  }
  if (effects.runsDownload) {
    // `curl … | sh`: whatever a server sends, run with the network. Confinement limits it to the
    // writable folders, but nobody has seen it: critical, as outside.
    confinedRisk(
      'critical',
      say(
        `runs code it downloads, with the network (${effects.runsDownload.excerpt})`,
        `运行它下载的代码，并且可以联网（${effects.runsDownload.excerpt}）`,
      ),
    );
  }
  if (effects.overflow) {
    confinedRisk(
      'high',
      say('touches more paths than NextAI follows one by one', '涉及的路径多到 NextAI 无法逐一核对'),
    );
  }
  return plan;

  /** The analysis's own rules say this read names a credential store or other secrets. */
  function holdsSecrets(effect: ShellEffects['paths'][number]): boolean {
    if (effect.pattern !== undefined)
      return criticalPatternRead(effect.pattern, rules, effect.role === 'readTree') !== undefined;
    if (effect.target === undefined) return false;
    const why =
      effect.role === 'readTree' ? criticalTreeRead(effect.target, rules) : criticalRead(effect.target, rules);
    return why !== undefined;
  }

  function destruction(destroyed: ShellEffects['destroys'][number]): void {
    const raw = destroyed.target ?? (destroyed.pattern ? fixedFolder(destroyed.pattern) : undefined);
    if (raw === undefined) {
      if (destroyed.scope === 'tree') {
        confinedRisk(
          'critical',
          say(
            `${destroyed.how.en} a folder only known at run time, which could be a whole project (${destroyed.excerpt})`,
            `${destroyed.how['zh-CN']}一个运行时才确定的文件夹，它可能是整个项目（${destroyed.excerpt}）`,
          ),
        );
      }
      return;
    }
    if (privateTmp(raw)) return;
    const target = files.real(raw);
    if (!inWritable(target)) {
      // Outside, it needs to leave the sandbox to do what it means to: `find /mnt -delete` or
      // `find ~ -delete` only list the folder they delete in, so no change of a path said so.
      escape(
        say(
          `${destroyed.how.en} ${shown(raw)}, outside the folders the sandbox may change`,
          `${destroyed.how['zh-CN']} ${shown(raw)}，不在沙箱可以更改的文件夹中`,
        ),
        'high',
      );
      return;
    }
    // A writable folder itself, a folder holding one, a project in it, a repository, or its history
    // (anything in `.git`: objects, refs — without them the commits are gone).
    const whole =
      writable.some((root) => inside(root, target) || path.posix.dirname(target) === root) ||
      /(?:^|\/)\.git(?:\/|$)/.test(target) ||
      files.isRepository(target);
    if (destroyed.scope === 'part') {
      // Part of a whole project (uncommitted changes, what a filter picks): the person decides.
      if (whole)
        confinedRisk('high', say(`${destroyed.how.en} ${shown(raw)}`, `${destroyed.how['zh-CN']} ${shown(raw)}`));
      return;
    }
    if (whole) {
      confinedRisk(
        'critical',
        say(
          `${destroyed.how.en} ${shown(raw)}${destroyed.pattern ? ' (everything a pattern matches)' : ''}: a whole project or writable folder, which the sandbox does not protect`,
          `${destroyed.how['zh-CN']} ${shown(raw)}${destroyed.pattern ? '（通配模式匹配的全部内容）' : ''}：这是整个项目或可写文件夹，沙箱不会保护它`,
        ),
      );
    }
  }
}

/** The call runs inside the sandbox: one can start here and it needs nothing outside. */
export function runsConfined(plan: SandboxAssessment): boolean {
  return plan.available && plan.escapes.length === 0;
}

/**
 * The risk that decides the permission level a call needs: a confined command is not the
 * "unrestricted terminal" of L4, whatever it does inside (the template still judges that).
 */
export function effectiveRisk(analysisRisk: RiskLevel, plan: SandboxAssessment | undefined): RiskLevel {
  return plan && runsConfined(plan) ? 'low' : analysisRisk;
}

/** The least risk each kind of leaving carries (the analysis may find more). */
const NEED_FLOORS: Record<EscapeKind, RiskLevel> = {
  privileges: 'critical',
  host_processes: 'high',
  process_list: 'low',
  system: 'high',
  devices: 'critical',
  desktop: 'high',
  secrets: 'high',
  git_config: 'high',
};

/** The folder a pattern starts from: `/home/u/p/*.log` → `/home/u/p`. */
function fixedFolder(pattern: string): string {
  const glob = pattern.search(/[*?[{]/);
  if (glob < 0) return pattern;
  const fixed = pattern.slice(0, glob);
  const folder = fixed.slice(0, fixed.lastIndexOf('/'));
  return folder === '' ? '/' : folder;
}

/** This same command made the file or folder first (inside the sandbox's own /tmp). */
function wroteEarlier(effects: ShellEffects, target: string): boolean {
  return effects.paths.some(
    (effect) =>
      effect.target !== undefined &&
      (effect.target === target || inside(target, effect.target)) &&
      (effect.role === 'write' || effect.role === 'create'),
  );
}

/** The sentence the approval card and `policy explain` show. */
export function describeSandbox(plan: SandboxAssessment, homeDir: string): Localized {
  const shown = (folder: string) => (folder === homeDir ? '~' : describeFolder(folder, homeDir));
  if (!plan.available) {
    const why = plan.unavailable ?? say('no sandbox here', '这里没有沙箱');
    return say(
      `No sandbox here (${why.en}): it would run with your full access, so it asks you first.`,
      `这里没有沙箱（${why['zh-CN']}）：它会以你的全部权限运行，所以先征求你的同意。`,
    );
  }
  if (plan.escapes.length > 0) {
    // Where it would run matters outside: a relative path means something else in another folder.
    const where = plan.cwd ? say(` in ${shown(plan.cwd)}`, `在 ${shown(plan.cwd)} 中`) : say('', '');
    return say(
      `Asks to leave the sandbox because it ${plan.escapes.map((escape) => escape.why.en).join('; ')}. If allowed, it runs${where.en} with your full access.`,
      `请求离开沙箱，因为它${plan.escapes.map((escape) => escape.why['zh-CN']).join('；')}。如果允许，它会${where['zh-CN']}以你的全部权限运行。`,
    );
  }
  const folders = plan.writable.length > 0 ? plan.writable.map(shown).join(', ') : undefined;
  const network = plan.network === 'full' ? say('network on', '可以联网') : say('no network', '不能联网');
  return say(
    `Runs in the sandbox: writes only in ${folders ?? 'its private temporary folder'}${folders ? ' and a private temporary folder' : ''}; ${network.en}; your keys, passwords and NextAI's own files are hidden.`,
    `在沙箱中运行：只能写入${folders ? `${plan.writable.map(shown).join('、')}和一个私有临时文件夹` : '它自己的临时文件夹'}；${network['zh-CN']}；你的密钥、密码和 NextAI 自身文件对它不可见。`,
  );
}
