import {
  CATEGORY_TITLES,
  DECISION_LAYER_TITLES,
  PERMISSION_LEVEL_TITLES,
  TEMPLATES,
  categoryFromKey,
  higherRisk,
  isStricter,
  levelAtLeast,
  riskAtLeast,
  type ApprovalAction,
  type Decision,
  type DecisionLayer,
  type GrantedToolSet,
  type PermissionLevel,
  type ProjectApprovalPolicy,
  type PromptRules,
  type TemplateId,
  type RiskLevel,
  type ToolCategory,
  say,
  toolTitleIn,
  type Localized,
} from '@nextai/shared';

import { LEVEL_REASONS } from './permission-levels.js';
import { runsConfined, type SandboxAssessment } from './sandbox-plan.js';
import type { GuardVerdict } from './verdicts.js';

export interface DecisionInput {
  tool: { name: string; title: string; category: ToolCategory; risk: RiskLevel };
  /** What the input analysis found: it may only raise the tool's default risk. */
  analysis: { risk: RiskLevel; findings: Localized[] };
  /** Guard verdicts for the paths, URLs and apps the input touches. */
  guards: readonly GuardVerdict[];
  /** The level this call needs and the level the person set. */
  requiredLevel: PermissionLevel;
  permissionLevel: PermissionLevel;
  project: { name: string; template?: string | undefined; policy: ProjectApprovalPolicy };
  promptRules?: PromptRules | undefined;
  grant?: GrantedToolSet | undefined;
  emergencyStop?: { since: string; reason: string } | undefined;
  /** Present when the call belongs to an agent run. */
  run?: { approvedForRun: boolean; denials: { consecutive: number; total: number } } | undefined;
  /**
   * What the call does that a web page may have asked for (submitting a credential or payment
   * form, sending a message, downloading, running a command a page showed): a person approves
   * each such call, whatever the template: a page must never act with the person's authority.
   */
  webContent?: { reason: Localized } | undefined;
  /** The call lets the agent into a tab the person opened themselves: they approve each time. */
  tabAccess?: { reason: Localized } | undefined;
  /**
   * For calls that start something (commands, shell sessions, apps): the sandbox it would run in
   * and `summary`, the sentence people read about it (sandbox-plan.ts).
   */
  sandbox?: { plan: SandboxAssessment; summary: Localized } | undefined;
}

/**
 * Denials in a row, or in all, after which a run stops acting on its own: a model that keeps
 * trying what the person refused is stopped rather than left to wear them down.
 */
export const BREAKER_CONSECUTIVE = 3;
export const BREAKER_TOTAL = 20;

type TrailEntry = Decision['trail'][number];

const RISK_ZH: Record<RiskLevel, string> = { low: '低', medium: '中', high: '高', critical: '极高' };

/**
 * The policy decision for one tool call — pure, so it is table-tested and explainable.
 *
 * Order: things that can never be allowed (emergency stop, guards, permission level, grant)
 * block outright; then the project's policy decides (tool override → category override →
 * per-risk action, adjusted by the mode); instruction rules and task grants may only tighten
 * it; critical risk always needs a person, for every call; repeated denials in a run make it ask;
 * and only then may an earlier "approve for this run" answer let it through.
 */
export function decide(input: DecisionInput): Decision {
  const trail: TrailEntry[] = [];
  const defaultRisk = input.tool.risk;
  const guardRisk = input.guards.reduce<RiskLevel>((risk, verdict) => higherRisk(risk, verdict.risk), 'low');
  const guardFindings = input.guards.filter((verdict) => !verdict.block).map((v) => v.reason);
  const sandbox = input.sandbox?.plan;
  const confined = sandbox !== undefined && runsConfined(sandbox);
  // Confined, only what the sandbox does not make harmless counts: destroying work in the writable
  // folders. Leaving it, the command counts for everything it does, and at least what it leaves
  // for — but no longer for the terminal's blanket default, which the analysis replaces. Without
  // a sandbox, the terminal's default stands, as it always did.
  let risk: RiskLevel;
  let findings: Localized[];
  if (sandbox && confined) {
    risk = higherRisk(sandbox.confined.risk, guardRisk);
    findings = [...sandbox.confined.findings, ...guardFindings];
  } else if (sandbox?.available) {
    const floor = sandbox.escapes.reduce<RiskLevel>((level, escape) => higherRisk(level, escape.floor), 'low');
    risk = higherRisk(higherRisk(input.analysis.risk, floor), guardRisk);
    // Why it leaves is said by the sandbox part (and the reason, when the sandbox asks).
    findings = [...input.analysis.findings, ...guardFindings];
  } else {
    risk = higherRisk(higherRisk(defaultRisk, input.analysis.risk), guardRisk);
    findings = [...input.analysis.findings, ...guardFindings];
  }
  const finish = (action: ApprovalAction, layer: DecisionLayer, reason: Localized, perCall: boolean): Decision => ({
    action,
    risk,
    default_risk: defaultRisk,
    layer,
    reason: reason.en,
    trail,
    findings: findings.map((finding) => finding.en),
    per_call: perCall,
    translations: {
      'zh-CN': {
        reason: reason['zh-CN'],
        findings: findings.map((finding) => finding['zh-CN']),
        ...(input.sandbox ? { sandbox: sandboxInfo(input.sandbox, 'zh-CN') } : {}),
      },
    },
    ...(input.sandbox ? { sandbox: { ...sandboxInfo(input.sandbox, 'en'), ...sandboxShape(input.sandbox.plan) } } : {}),
  });
  const block = (layer: DecisionLayer, reason: Localized): Decision => {
    trail.push({ layer, action: 'always_block', reason: reason.en });
    return finish('always_block', layer, reason, true);
  };
  const toolZh = toolTitleIn('zh-CN', input.tool.name, input.tool.title);

  // 1. Hard limits: no mode, template or approval gets past these.
  if (input.emergencyStop) {
    const { since, reason } = input.emergencyStop;
    return block(
      'emergency_stop',
      say(
        `The emergency stop is on (since ${since}: ${reason}). Nothing runs until it is reset.`,
        `紧急停止已开启（${since} 起：${reason}）。复位之前什么都不会运行。`,
      ),
    );
  }
  const blocking = input.guards.find((verdict) => verdict.block);
  if (blocking) return block(blocking.layer, blocking.reason);
  if (!levelAtLeast(input.permissionLevel, input.requiredLevel)) {
    const needed = input.requiredLevel;
    const set = input.permissionLevel;
    return block(
      'permission_level',
      say(
        `${input.tool.title} needs permission level ${needed} — ${LEVEL_REASONS[needed].en}. This computer is set to ${set} (${PERMISSION_LEVEL_TITLES[set].en}).`,
        `“${toolZh}”需要权限等级 ${needed}（${LEVEL_REASONS[needed]['zh-CN']}）。这台电脑设置为 ${set}（${PERMISSION_LEVEL_TITLES[set]['zh-CN']}）。`,
      ),
    );
  }
  if (input.grant) {
    if (!input.grant.tools.includes(input.tool.name)) {
      const granted = input.grant.tools.join(', ');
      return block(
        'grant',
        say(
          `This task was not granted ${input.tool.name}; it may use: ${granted || 'no tools'}.`,
          `这个任务没有获得 ${input.tool.name} 的授权；它可以使用：${granted || '无'}。`,
        ),
      );
    }
    const maxRisk = input.grant.restrictions?.max_risk_level;
    if (maxRisk && !riskAtLeast(maxRisk, risk)) {
      return block(
        'grant',
        say(
          `This call is ${risk} risk; the task was granted tools up to ${maxRisk} risk only.`,
          `这次调用是${RISK_ZH[risk]}风险；这个任务只获得了最高${RISK_ZH[maxRisk]}风险的授权。`,
        ),
      );
    }
  }

  // 2. The project's own policy — or, for a call the sandbox confines, the sandbox: it runs
  //    without asking in every template but the locked one (observe), unless the person set this
  //    tool or its category stricter, or what it can still destroy is high or critical risk.
  const { policy } = input.project;
  const project = projectLabel(input.project);
  const categoryOverride = categoryOverrideFor(policy.category_overrides, input.tool.category);
  const personOverride = policy.tool_overrides[input.tool.name] ?? categoryOverride;
  let action: ApprovalAction;
  let layer: DecisionLayer = 'project_policy';
  let reason: Localized;
  if (
    confined &&
    input.sandbox &&
    policy.mode !== 'locked' &&
    !riskAtLeast(risk, 'high') &&
    (personOverride === undefined || !isStricter(personOverride, 'auto_approve'))
  ) {
    action = 'auto_approve';
    layer = 'sandbox';
    reason = input.sandbox.summary;
  } else if (policy.tool_overrides[input.tool.name] !== undefined) {
    action = policy.tool_overrides[input.tool.name]!;
    reason = say(
      `${project.en} sets ${input.tool.name} to ${describeAction(action)}.`,
      `${project['zh-CN']}将 ${input.tool.name} 设为“${ACTION_ZH[action]}”。`,
    );
  } else if (categoryOverride !== undefined) {
    action = categoryOverride;
    const category = CATEGORY_TITLES[input.tool.category];
    reason = say(
      `${project.en} sets ${category.en.toLowerCase()} tools to ${describeAction(action)}.`,
      `${project['zh-CN']}将“${category['zh-CN']}”类工具设为“${ACTION_ZH[action]}”。`,
    );
  } else {
    action = policy.risk_policies[risk];
    reason = say(
      `${project.en} sets ${risk}-risk actions to ${describeAction(action)}.`,
      `${project['zh-CN']}将${RISK_ZH[risk]}风险操作设为“${ACTION_ZH[action]}”。`,
    );
  }
  if (policy.mode === 'locked' && isStricter('require_approval', action)) {
    action = 'require_approval';
    reason = say(
      `${project.en} is locked: every action asks you first.`,
      `${project['zh-CN']}处于锁定模式：每个操作都会先征求你的同意。`,
    );
  } else if (policy.mode === 'supervised' && riskAtLeast(risk, 'high') && isStricter('require_approval', action)) {
    action = 'require_approval';
    reason = say(
      `${project.en} is supervised: ${risk}-risk actions ask you first.`,
      `${project['zh-CN']}处于监督模式：${RISK_ZH[risk]}风险操作会先征求你的同意。`,
    );
  }
  trail.push({ layer, action, reason: reason.en });

  // 2b. Leaving the sandbox, or running with no sandbox at all, needs a person in every template:
  //     outside, the whole command runs with the person's full access (even a look at the
  //     machine's processes: what follows it in the same command would run outside too).
  if (sandbox && !confined && input.sandbox) {
    trail.push({ layer: 'sandbox', action: 'require_approval', reason: input.sandbox.summary.en });
    // Named even where the project asks anyway: leaving the sandbox is what the person decides.
    if (!isStricter(action, 'require_approval')) {
      action = 'require_approval';
      layer = 'sandbox';
      reason = input.sandbox.summary;
    }
  }

  // 3. Rules that can only tighten.
  const tighten = (candidate: ApprovalAction | undefined, candidateLayer: DecisionLayer, why: Localized) => {
    if (candidate === undefined) return;
    trail.push({ layer: candidateLayer, action: candidate, reason: why.en });
    if (isStricter(candidate, action)) {
      action = candidate;
      layer = candidateLayer;
      reason = why;
    }
  };
  const promptRule = ruleFor(input.promptRules?.approval_overrides, input.tool.name, input.tool.category);
  if (promptRule) {
    tighten(
      promptRule.action,
      'prompt_rules',
      say(
        `The instructions say ${promptRule.key}: ${describeAction(promptRule.action)}.`,
        `指令规定 ${promptRule.key}：${ACTION_ZH[promptRule.action]}。`,
      ),
    );
  }
  const grantRule = ruleFor(input.grant?.approval_overrides, input.tool.name, input.tool.category);
  if (grantRule) {
    tighten(
      grantRule.action,
      'grant_overrides',
      say(
        `The task's grant says ${grantRule.key}: ${describeAction(grantRule.action)}.`,
        `任务授权规定 ${grantRule.key}：${ACTION_ZH[grantRule.action]}。`,
      ),
    );
  }

  // 4. Critical risk needs a person for every call, whatever the template or overrides say.
  const perCall = risk === 'critical';
  if (perCall) {
    const first = input.analysis.findings[0];
    tighten(
      'require_approval',
      'sensitive_operation',
      say(
        `This is a sensitive operation${first ? ` (${first.en})` : ''}: it needs your approval every time.`,
        `这是敏感操作${first ? `（${first['zh-CN']}）` : ''}：每次都需要你批准。`,
      ),
    );
  }

  // 5. What pages may have asked for, and the person's own tabs: a person approves every call,
  //    in every mode and template (deny still beats it: a blocked call stays blocked).
  //    Where the project already asks, this layer is named all the same: it is why no earlier
  //    "approve for this run" answer can stand in for the person this time.
  const personal = input.webContent ?? input.tabAccess;
  const insist = (candidateLayer: DecisionLayer, why: Localized) => {
    tighten('require_approval', candidateLayer, why);
    if (action === 'require_approval') {
      layer = candidateLayer;
      reason = why;
    }
  };
  if (input.webContent) {
    const what = input.webContent.reason;
    insist(
      'web_content',
      say(
        `This ${what.en}: a person approves every such action.`,
        `这个操作可能是网页要求的：${what['zh-CN']}。每次都需要有人批准。`,
      ),
    );
  }
  if (input.tabAccess) {
    insist(
      'tab_access',
      say(
        `This ${input.tabAccess.reason.en}: you decide each time.`,
        `这${input.tabAccess.reason['zh-CN']}：每次都由你决定。`,
      ),
    );
  }

  // 6. A run that keeps being told no stops acting on its own.
  const denials = input.run?.denials;
  const tripped =
    denials !== undefined && (denials.consecutive >= BREAKER_CONSECUTIVE || denials.total >= BREAKER_TOTAL);
  if (tripped) {
    const why =
      denials.consecutive >= BREAKER_CONSECUTIVE
        ? say(
            `You denied ${denials.consecutive} actions in a row in this run, so it asks before each action until you approve one.`,
            `你在这次运行中连续拒绝了 ${denials.consecutive} 个操作，所以在你批准一个之前，每个操作都会先问你。`,
          )
        : say(
            `You denied ${denials.total} actions in this run, so it asks before each action from now on.`,
            `你在这次运行中共拒绝了 ${denials.total} 个操作，所以从现在起每个操作都会先问你。`,
          );
    tighten('require_approval', 'circuit_breaker', why);
  }

  // 7. "Approve for the rest of this run" — never for per-call approvals or a tripped breaker.
  if (action === 'require_approval' && input.run?.approvedForRun && !perCall && !personal && !tripped) {
    action = 'auto_approve';
    layer = 'run_approval';
    reason = say(
      `You approved ${input.tool.name} for the rest of this run.`,
      `你已批准 ${input.tool.name} 在本次运行的剩余部分使用。`,
    );
    trail.push({ layer, action, reason: reason.en });
  }
  return finish(action, layer, reason, perCall || personal !== undefined);
}

/** The sandbox part of a decision in one language. */
function sandboxInfo(
  sandbox: NonNullable<DecisionInput['sandbox']>,
  locale: 'en' | 'zh-CN',
): { summary: string; escapes: string[]; notes?: string[]; unavailable?: string } {
  const { plan, summary } = sandbox;
  return {
    summary: summary[locale],
    escapes: plan.escapes.map((escape) => escape.why[locale]),
    ...(plan.notes.length > 0 ? { notes: plan.notes.map((note) => note[locale]) } : {}),
    ...(plan.unavailable ? { unavailable: plan.unavailable[locale] } : {}),
  };
}

function sandboxShape(plan: SandboxAssessment) {
  return {
    sandboxed: runsConfined(plan),
    mechanism: plan.mechanism,
    writable: plan.writable,
    hidden: plan.hidden,
    network: plan.network,
  };
}

/** "The project "x" (Development template)", in each language. */
function projectLabel(project: DecisionInput['project']): Localized {
  const template = project.template ? TEMPLATES[project.template as TemplateId]?.names : undefined;
  const templateEn = template?.en ?? project.template;
  const templateZh = template?.['zh-CN'] ?? project.template;
  return project.template
    ? say(`The project "${project.name}" (${templateEn} template)`, `项目“${project.name}”（${templateZh}模板）`)
    : say(`The project "${project.name}"`, `项目“${project.name}”`);
}

function categoryOverrideFor(
  overrides: Record<string, ApprovalAction>,
  category: ToolCategory,
): ApprovalAction | undefined {
  for (const [key, action] of Object.entries(overrides)) {
    if (categoryFromKey(key) === category) return action;
  }
  return undefined;
}

/** The strictest rule that names the tool or its category. */
function ruleFor(
  rules: Record<string, ApprovalAction> | undefined,
  tool: string,
  category: ToolCategory,
): { key: string; action: ApprovalAction } | undefined {
  if (!rules) return undefined;
  let found: { key: string; action: ApprovalAction } | undefined;
  for (const [key, action] of Object.entries(rules)) {
    if (key !== tool && categoryFromKey(key) !== category) continue;
    if (!found || isStricter(action, found.action)) found = { key, action };
  }
  return found;
}

export function describeAction(action: ApprovalAction): string {
  switch (action) {
    case 'auto_approve':
      return 'run without asking';
    case 'notify_only':
      return 'run and tell you';
    case 'require_approval':
      return 'ask you first';
    case 'always_block':
      return 'never run';
  }
}

const ACTION_ZH: Record<ApprovalAction, string> = {
  auto_approve: '直接运行',
  notify_only: '运行并通知你',
  require_approval: '先问你',
  always_block: '永不运行',
};

/** For display: "Project approval policy" etc. */
export function layerTitle(layer: DecisionLayer): string {
  return DECISION_LAYER_TITLES[layer].en;
}
