import {
  higherRisk,
  say,
  type AnyTool,
  type GrantedToolSet,
  type Localized,
  type Platform,
  type RiskLevel,
} from '@nextai/shared';

import { supportedShells } from '../tools/terminal/shells.js';
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

/** The tools whose processes run in the sandbox. */
export const SANDBOXED_TOOLS = new Set(['bash_execute', 'bash_session', 'app_launch']);

const FILE_VERBS = {
  reads: say('reads', '读取'),
  searches: say('searches', '搜索'),
  watches: say('watches', '监视'),
  writes: say('writes', '写入'),
  edits: say('edits', '编辑'),
  creates: say('creates', '创建'),
  deletes: say('deletes', '删除'),
  uploads: say('uploads', '上传'),
} satisfies Record<string, Localized>;
type FileVerb = keyof typeof FILE_VERBS;

/** Why code on the display is high risk even in the sandbox. */
const ON_DISPLAY = (what: Localized) =>
  say(
    `${what.en}, with your display: an app can type into your other windows`,
    `${what['zh-CN']}，并且可以使用你的显示器：应用能向你的其他窗口输入`,
  );

/**
 * Looks at what a call's input does — the command it runs, the paths, URLs and apps it touches —
 * and reports the risk that follows and what the guards say. Tools not listed keep their
 * default risk.
 */
export function assessInput(
  tool: AnyTool,
  input: Record<string, unknown>,
  env: AssessEnv,
  grant?: GrantedToolSet,
): Assessment {
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

  const file = (value: unknown, access: 'read' | 'write', what: FileVerb, options?: { followFinal?: boolean }) => {
    const verb = FILE_VERBS[what];
    if (typeof value !== 'string') return;
    let verdict: FileCheck;
    try {
      verdict = env.checkFile(value, access, env.cwd, fileRestrictions, options);
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
      return;
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
  };
  const url = (value: unknown) => {
    if (typeof value !== 'string') return;
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
  const app = (value: unknown) => {
    if (typeof value !== 'string') return;
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
  const shell = (command: string, cwd: string) => {
    const analysis = env.analyzeShell(command, env.shellGuards, { cwd, homeDir: env.homeDir });
    if (analysis.blocked) {
      guards.push({ block: true, risk: 'critical', layer: analysis.blocked.layer, reason: analysis.blocked.reason });
    }
    for (const finding of analysis.findings) raise(finding.risk, finding.reason);
    risk = higherRisk(risk, analysis.risk);
    return analysis;
  };
  // The sandbox the call would run in (when this platform has a sandbox layer at all).
  const grantedDirs = grant?.restrictions?.allowed_directories;
  let sandbox: SandboxAssessment | undefined =
    env.sandbox && SANDBOXED_TOOLS.has(tool.name) ? baseAssessment(env.sandbox, grantedDirs) : undefined;
  if (sandbox && tool.name === 'app_launch' && env.platform !== 'linux' && sandbox.available) {
    // Seatbelt cannot hold a whole graphical app here yet: it asks, as with no sandbox at all.
    sandbox = {
      ...sandbox,
      available: false,
      unavailable: say('apps cannot run in the sandbox on this system yet', '在这个系统上，应用还不能在沙箱中运行'),
    };
  }
  const request = {
    network: input.network === true,
    outside: input.outside_sandbox === true ? { justification: stringOr(input.justification) } : undefined,
  };
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

  switch (tool.name) {
    case 'bash_execute': {
      // The command runs where its session is now (an earlier `cd` counts), not in the home folder.
      const sessionId = typeof input.session_id === 'string' ? input.session_id : undefined;
      const sessionCwd = env.shellCwd?.(sessionId) ?? env.cwd;
      let workingDir = sessionCwd;
      if (typeof input.working_dir === 'string') {
        const verdict = env.shellGuards.checkPath(input.working_dir, 'read', sessionCwd);
        if (verdict) guards.push(verdict);
        try {
          // As the terminal takes it (tools/terminal/index.ts): relative to the session's directory.
          workingDir = lexicalAbsolute(input.working_dir, sessionCwd, env.homeDir, env.platform);
        } catch (error) {
          // Not a path (`~name`, a NUL byte): the call fails before anything runs, but nothing is assumed.
          const where = JSON.stringify(input.working_dir);
          const message = (error as Error).message;
          const reason = say(`working_dir ${where}: ${message}`, `工作目录 ${where}：${message}`);
          if (!verdict) raise('critical', reason);
        }
      }
      confine(shell(String(input.command ?? ''), workingDir));
      if (sandbox) sandbox.cwd = workingDir;
      break;
    }
    case 'bash_session':
      if (sandbox) sandbox = planFor(sandbox, new ShellEffects(), request);
      if (
        input.action === 'create' &&
        typeof input.shell === 'string' &&
        !isSupportedShell(input.shell, env.platform)
      ) {
        raise(
          'critical',
          say(`starts "${input.shell}", which is not a known shell`, `启动“${input.shell}”，它不是已知的 shell`),
        );
      }
      break;
    case 'file_read':
      file(input.path, 'read', 'reads');
      break;
    case 'file_search':
      file(input.directory, 'read', 'searches');
      break;
    case 'file_watch':
      file(input.path, 'read', 'watches');
      break;
    case 'file_write':
      file(input.path, 'write', 'writes');
      if (typeof input.content === 'string' && Buffer.byteLength(input.content) > env.maxFileSize) {
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
      break;
    case 'file_edit':
      file(input.path, 'write', 'edits');
      break;
    case 'create_directory':
      file(input.path, 'write', 'creates');
      break;
    case 'delete_file':
      // The tool removes a symlink itself, not what it points to: the link's own place is judged.
      file(input.path, 'write', 'deletes', { followFinal: false });
      if (input.permanent === true && typeof input.path === 'string') {
        // A folder deleted for good takes all it holds past the trash (issue #16): critical.
        let real: string | undefined;
        try {
          real = env.checkFile(input.path, 'write', env.cwd, fileRestrictions, { followFinal: false }).real;
        } catch {
          real = undefined; // Not a path at all: file() above has already refused it.
        }
        const deletion = real === undefined ? undefined : permanentDeletion(real);
        if (deletion) raise(deletion.risk, deletion.reason);
      }
      break;
    case 'browser_navigate':
      if (typeof input.url === 'string' && !['back', 'forward', 'reload'].includes(input.url)) url(input.url);
      break;
    case 'web_fetch':
      url(input.url);
      break;
    case 'browser_tabs':
      if (input.action === 'open' && typeof input.url === 'string') url(input.url);
      break;
    case 'browser_interact':
      if (input.action === 'upload') file(input.value, 'read', 'uploads');
      break;
    case 'app_launch': {
      const args = Array.isArray(input.args) ? input.args.map(String) : [];
      const launch = planLaunch(String(input.name ?? ''), args, {
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
    case 'app_switch':
    case 'app_close':
      app(input.name);
      if (tool.name === 'app_close' && input.force === true) {
        raise('high', say('kills the app without letting it save', '强制结束应用，不让它保存'));
      }
      break;
    case 'window_manage':
      app(input.window_title);
      break;
    case 'screenshot':
      if (input.mode === 'window') app(input.window_title);
      break;
    case 'type_text': {
      // Text with a line break is submitted where it is typed; in a terminal it is a command.
      const text = typeof input.text === 'string' ? input.text : '';
      if (/[\r\n]/.test(text)) {
        const analysis = shell(text, env.cwd);
        if (analysis.risk !== 'critical') {
          // Typing ordinary text is not running it: keep only what is critical.
          risk = 'low';
          findings.length = 0;
        }
      }
      break;
    }
    default:
      break;
  }
  return {
    analysis: { risk, findings },
    guards,
    ...(sandbox ? { sandbox: { plan: sandbox, summary: describeSandbox(sandbox, env.homeDir) } } : {}),
  };
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The shells the terminal runs (tools/terminal/shells.ts), spelled as shellSpec accepts them. */
function isSupportedShell(name: string, platform: Platform): boolean {
  const trimmed = name.trim();
  return supportedShells(platform).includes(platform === 'windows' ? trimmed.toLowerCase() : trimmed);
}
