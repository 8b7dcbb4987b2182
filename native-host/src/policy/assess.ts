import {
  higherRisk,
  resourcesOf,
  say,
  type FileUse,
  type FileVerb,
  type GrantedToolSet,
  type Localized,
  type Platform,
  type RiskLevel,
  type SandboxAsk,
  type ToolSpec,
} from '@nextai/shared';

import { supportedShells } from '../platform/shells.js';
import { planLaunch } from './channels/launch.js';
import { judgeLaunch } from './channels/launch-judgement.js';
import type { ProgramResolver } from './channels/program-path.js';
import { lexicalAbsolute } from './guards/paths.js';
import { permanentDeletion } from './permanent-delete.js';
import {
  baseAssessment,
  describeSandbox,
  planCommand,
  type SandboxAssessment,
  type SandboxRequest,
  type SandboxView,
} from './sandbox-plan.js';
import { ShellEffects } from './shell/effects.js';
import type { GuardVerdict, ShellGuards } from './verdicts.js';

/** What the shell analyser reports (see policy/shell). */
export interface ShellAnalysisLike {
  risk: RiskLevel;
  findings: { risk: RiskLevel; reason: Localized }[];
  blocked?: { layer: GuardVerdict['layer']; reason: Localized } | undefined;
  /** What a sandbox would have to give it; without it, the command cannot run confined unasked. */
  effects?: ShellEffects | undefined;
}

export interface FileCheck {
  allowed: boolean;
  real: string;
  layer?: 'protected_files' | 'filesystem' | undefined;
  reason?: Localized | undefined;
  sensitive?: Localized | undefined;
}

/** The guards and analysers an assessment uses; the daemon wires in the real ones. */
export interface AssessEnv {
  platform: Platform;
  homeDir: string;
  /** Where relative paths in the input are taken from. */
  cwd: string;
  /**
   * The current directory of a shell session (`undefined`: the default session), where its next
   * command runs; undefined when there is no such session yet (it will start in the home folder).
   */
  shellCwd?(sessionId: string | undefined): string | undefined;
  maxFileSize: number;
  checkFile(
    path: string,
    access: 'read' | 'write',
    cwd: string,
    restrictions?: { allowed_directories?: string[] },
    options?: { followFinal?: boolean },
  ): FileCheck;
  checkDomain(
    url: string,
    restrictions?: { allowed_domains?: string[] },
  ): { allowed: boolean; reason?: Localized | undefined };
  checkApp(nameOrTitle: string): { allowed: boolean; reason?: Localized | undefined };
  shellGuards: ShellGuards;
  analyzeShell(command: string, guards: ShellGuards, options: { cwd: string; homeDir: string }): ShellAnalysisLike;
  /** The operating-system sandbox, where this platform has one (absent: no sandbox layer at all). */
  sandbox?: SandboxView | undefined;
  /** Finds the program file a name starts, as app_launch would (absent: names are judged as given). */
  resolveProgram?: ProgramResolver | undefined;
}

export interface Assessment {
  /** Risk from what the input does, and why; it only ever raises the tool's default. */
  analysis: { risk: RiskLevel; findings: Localized[] };
  guards: GuardVerdict[];
  /** For calls that start something: the sandbox it would run in, or why it leaves it, in words too. */
  sandbox?: { plan: SandboxAssessment; summary: Localized } | undefined;
}

const FILE_VERBS: Record<FileVerb, Localized> = {
  reads: say('reads', '读取'),
  searches: say('searches', '搜索'),
  watches: say('watches', '监视'),
  writes: say('writes', '写入'),
  edits: say('edits', '编辑'),
  creates: say('creates', '创建'),
  deletes: say('deletes', '删除'),
  uploads: say('uploads', '上传'),
};

/** Why code on the display is high risk even in the sandbox. */
const ON_DISPLAY = (what: Localized) =>
  say(
    `${what.en}, with your display: an app can type into your other windows`,
    `${what['zh-CN']}，并且可以使用你的显示器：应用能向你的其他窗口输入`,
  );

/**
 * Looks at what a call's input does — what its tool declares it touches (`resources`): the paths,
 * URLs and apps, the command or program it starts, the text it types — and reports the risk that
 * follows and what the guards say. A tool that touches nothing keeps its default risk.
 */
export function assessInput(
  tool: ToolSpec,
  input: Record<string, unknown>,
  env: AssessEnv,
  grant?: GrantedToolSet,
): Assessment {
  const resources = resourcesOf(tool, input);
  const findings: Localized[] = [];
  const guards: GuardVerdict[] = [];
  let risk: RiskLevel = 'low';
  const raise = (level: RiskLevel, reason: Localized) => {
    risk = higherRisk(risk, level);
    findings.push(reason);
  };
  const dirs = grant?.restrictions?.allowed_directories;
  const domains = grant?.restrictions?.allowed_domains;
  const fileRestrictions = dirs ? { allowed_directories: dirs } : undefined;

  const file = (use: FileUse) => {
    const verdict = checkFile(use);
    if (verdict && use.permanent === true) {
      // A folder deleted for good takes all it holds past the trash: critical.
      const deletion = permanentDeletion(verdict.real);
      if (deletion) raise(deletion.risk, deletion.reason);
    }
    if (use.content !== undefined && Buffer.byteLength(use.content) > env.maxFileSize) {
      guards.push({
        block: true,
        risk: 'critical',
        layer: 'filesystem',
        reason: say(
          `The content is larger than the ${env.maxFileSize}-byte file size limit.`,
          `内容超过了 ${env.maxFileSize} 字节的文件大小上限。`,
        ),
      });
    }
  };
  /** The file guard's verdict on one path; undefined when the path cannot even be resolved. */
  const checkFile = (use: FileUse): FileCheck | undefined => {
    const verb = FILE_VERBS[use.verb];
    const value = use.path;
    const options = use.followFinal === undefined ? undefined : { followFinal: use.followFinal };
    let verdict: FileCheck;
    try {
      verdict = env.checkFile(value, use.access, env.cwd, fileRestrictions, options);
    } catch (error) {
      // A path that cannot even be resolved (a NUL byte, `~user`) is refused, not guessed at.
      guards.push({
        block: true,
        risk: 'critical',
        layer: 'filesystem',
        reason: say(
          `${verb.en} ${JSON.stringify(value)}: ${(error as Error).message}`,
          `${verb['zh-CN']} ${JSON.stringify(value)}：${(error as Error).message}`,
        ),
      });
      return undefined;
    }
    if (!verdict.allowed) {
      guards.push({
        block: true,
        risk: 'critical',
        layer: verdict.layer ?? 'filesystem',
        reason:
          verdict.reason ??
          say(
            `${verb.en} ${value} is outside the folders NextAI may use.`,
            `${verb['zh-CN']} ${value}：不在 NextAI 可以使用的目录中。`,
          ),
      });
    } else if (verdict.sensitive) {
      const sensitive = verdict.sensitive;
      raise(
        'critical',
        say(`${verb.en} ${verdict.real}: ${sensitive.en}`, `${verb['zh-CN']} ${verdict.real}：${sensitive['zh-CN']}`),
      );
    }
    return verdict;
  };
  const url = (value: string) => {
    const verdict = env.checkDomain(value, domains ? { allowed_domains: domains } : undefined);
    if (!verdict.allowed) {
      guards.push({
        block: true,
        risk: 'critical',
        layer: 'network',
        reason: verdict.reason ?? say(`${value} is not allowed.`, `不允许访问 ${value}。`),
      });
    }
  };
  const app = (value: string) => {
    const verdict = env.checkApp(value);
    if (!verdict.allowed) {
      guards.push({
        block: true,
        risk: 'critical',
        layer: 'blocked_app',
        reason: verdict.reason ?? say(`${value} is a blocked app.`, `${value} 是禁止的应用。`),
      });
    }
  };
  /** The analyser's verdict on a command line; what it blocks is a guard whatever else follows. */
  const analyse = (command: string, cwd: string) => {
    const analysis = env.analyzeShell(command, env.shellGuards, { cwd, homeDir: env.homeDir });
    if (analysis.blocked) {
      guards.push({ block: true, risk: 'critical', layer: analysis.blocked.layer, reason: analysis.blocked.reason });
    }
    return analysis;
  };
  const count = (analysis: ShellAnalysisLike) => {
    for (const finding of analysis.findings) raise(finding.risk, finding.reason);
    risk = higherRisk(risk, analysis.risk);
  };
  const shell = (command: string, cwd: string) => {
    const analysis = analyse(command, cwd);
    count(analysis);
    return analysis;
  };

  for (const use of resources.files ?? []) file(use);
  for (const address of resources.urls ?? []) url(address);
  for (const name of resources.apps ?? []) app(name);
  for (const declared of resources.risks ?? []) raise(declared.risk, declared.reason);

  // What it starts runs in the sandbox, where this platform has a sandbox layer at all.
  const runs = resources.runs;
  const grantedDirs = grant?.restrictions?.allowed_directories;
  let sandbox: SandboxAssessment | undefined =
    env.sandbox && runs ? baseAssessment(env.sandbox, grantedDirs) : undefined;
  if (sandbox && runs?.kind === 'program' && env.platform !== 'linux' && sandbox.available) {
    // Seatbelt cannot hold a whole graphical app here yet: it asks, as with no sandbox at all.
    sandbox = {
      ...sandbox,
      available: false,
      unavailable: say('apps cannot run in the sandbox on this system yet', '在这个系统上，应用还不能在沙箱中运行'),
    };
  }
  const request = runs && runs.kind !== 'session' ? sandboxRequest(runs.ask) : {};
  // What running it needs of the sandbox: a command's effects, or none (a session, an app).
  const planFor = (current: SandboxAssessment, effects: ShellEffects, asked: SandboxRequest) =>
    planCommand(current, effects, {
      homeDir: env.homeDir,
      hiddenPlaces: env.sandbox?.folders(grantedDirs).hidden ?? [],
      request: asked,
    });
  const confine = (analysis: ShellAnalysisLike) => {
    if (!sandbox) return;
    if (!analysis.effects) {
      sandbox = {
        ...sandbox,
        escapes: [
          {
            why: say('the analysis could not tell what it needs', '分析无法判断它需要什么'),
            floor: 'high',
          },
        ],
      };
      return;
    }
    sandbox = planFor(sandbox, analysis.effects, request);
  };

  switch (runs?.kind) {
    case 'command': {
      // The command runs where its session is now (an earlier `cd` counts), not in the home folder.
      const sessionCwd = env.shellCwd?.(runs.session) ?? env.cwd;
      let workingDir = sessionCwd;
      if (runs.workingDir !== undefined) {
        const verdict = env.shellGuards.checkPath(runs.workingDir, 'read', sessionCwd);
        if (verdict) guards.push(verdict);
        try {
          // As the terminal takes it (tools/terminal/index.ts): relative to the session's directory.
          workingDir = lexicalAbsolute(runs.workingDir, sessionCwd, env.homeDir, env.platform);
        } catch (error) {
          // Not a path (`~name`, a NUL byte): the call fails before anything runs, but nothing is assumed.
          const where = JSON.stringify(runs.workingDir);
          const message = (error as Error).message;
          const reason = say(`working_dir ${where}: ${message}`, `工作目录 ${where}：${message}`);
          if (!verdict) raise('critical', reason);
        }
      }
      confine(shell(runs.command, workingDir));
      if (sandbox) sandbox.cwd = workingDir;
      break;
    }
    case 'session':
      if (sandbox) sandbox = planFor(sandbox, new ShellEffects(), request);
      if (runs.shell !== undefined && !isSupportedShell(runs.shell, env.platform)) {
        raise(
          'critical',
          say(`starts "${runs.shell}", which is not a known shell`, `启动“${runs.shell}”，它不是已知的 shell`),
        );
      }
      break;
    case 'program': {
      const args = [...runs.args];
      const launch = planLaunch(runs.name, args, {
        platform: env.platform,
        cwd: env.cwd,
        resolve: env.resolveProgram,
      });
      for (const name of launch.program.names) app(name);
      const judged = judgeLaunch(launch, args.length > 0, {
        shell: (command) => shell(command, env.cwd),
        writable: sandbox?.writable,
      });
      for (const finding of judged.findings) raise(finding.risk, finding.reason);
      if (!sandbox) break;
      if (judged.analysis) confine(judged.analysis);
      else sandbox = planFor(sandbox, judged.effects, request);
      // An app gets the network (browsers, mail and the like need it); a terminal or a command
      // only what it needs: what is typed into a terminal later is judged as it is typed.
      if (judged.app) sandbox.network = 'full';
      const escape = judged.escape;
      if (escape && !sandbox.escapes.some((known) => known.why.en === escape.en)) {
        sandbox.escapes.push({ why: escape, floor: 'high' });
      }
      // It gets the display: code nobody checked could type into the person's other windows.
      for (const why of judged.onDisplay) {
        sandbox.confined.risk = higherRisk(sandbox.confined.risk, 'high');
        sandbox.confined.findings.push(ON_DISPLAY(why));
      }
      break;
    }
    case undefined:
      break;
  }

  // Text with a line break is submitted where it is typed; in a terminal it is a command. Typing
  // ordinary text is not running it: only a critical verdict counts (keys into a terminal window
  // are judged as the line they submit, channels/terminal-input.ts).
  if (resources.typed !== undefined && /[\r\n]/.test(resources.typed)) {
    const analysis = analyse(resources.typed, env.cwd);
    const worst = analysis.findings.reduce<RiskLevel>(
      (level, finding) => higherRisk(level, finding.risk),
      analysis.risk,
    );
    if (worst === 'critical') count(analysis);
  }
  return {
    analysis: { risk, findings },
    guards,
    ...(sandbox ? { sandbox: { plan: sandbox, summary: describeSandbox(sandbox, env.homeDir) } } : {}),
  };
}

/** What the call asks of the sandbox, as the sandbox plan takes it. */
function sandboxRequest(ask: SandboxAsk): SandboxRequest {
  return {
    network: ask.network === true,
    outside: ask.outside ? { justification: ask.outside.justification } : undefined,
  };
}

/** The shells the terminal runs (platform/shells.ts), spelled as shellSpec accepts them. */
function isSupportedShell(name: string, platform: Platform): boolean {
  const trimmed = name.trim();
  return supportedShells(platform).includes(platform === 'windows' ? trimmed.toLowerCase() : trimmed);
}
