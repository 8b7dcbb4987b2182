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
} from '@nextai/shared';

import { LEVEL_REASONS } from './permission-levels.js';
import type { GuardVerdict } from './verdicts.js';

export interface DecisionInput {
  tool: { name: string; title: string; category: ToolCategory; risk: RiskLevel };
  /** What the input analysis found: it may only raise the tool's default risk. */
  analysis: { risk: RiskLevel; findings: string[] };
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
}

/** Denials in a row, or in all, after which a run stops acting on its own (issue #3). */
export const BREAKER_CONSECUTIVE = 3;
export const BREAKER_TOTAL = 20;

type TrailEntry = Decision['trail'][number];

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
  const risk = higherRisk(higherRisk(defaultRisk, input.analysis.risk), guardRisk);
  const findings = [
    ...input.analysis.findings,
    ...input.guards.filter((verdict) => !verdict.block).map((v) => v.reason),
  ];
  const finish = (action: ApprovalAction, layer: DecisionLayer, reason: string, perCall: boolean): Decision => ({
    action,
    risk,
    default_risk: defaultRisk,
    layer,
    reason,
    trail,
    findings,
    per_call: perCall,
  });
  const block = (layer: DecisionLayer, reason: string): Decision => {
    trail.push({ layer, action: 'always_block', reason });
    return finish('always_block', layer, reason, true);
  };

  // 1. Hard limits: no mode, template or approval gets past these.
  if (input.emergencyStop) {
    return block(
      'emergency_stop',
      `The emergency stop is on (since ${input.emergencyStop.since}: ${input.emergencyStop.reason}). Nothing runs until it is reset.`,
    );
  }
  const blocking = input.guards.find((verdict) => verdict.block);
  if (blocking) return block(blocking.layer, blocking.reason);
  if (!levelAtLeast(input.permissionLevel, input.requiredLevel)) {
    return block(
      'permission_level',
      `${input.tool.title} needs permission level ${input.requiredLevel} — ${LEVEL_REASONS[input.requiredLevel]}. This computer is set to ${input.permissionLevel} (${PERMISSION_LEVEL_TITLES[input.permissionLevel].en}).`,
    );
  }
  if (input.grant) {
    if (!input.grant.tools.includes(input.tool.name)) {
      return block(
        'grant',
        `This task was not granted ${input.tool.name}; it may use: ${input.grant.tools.join(', ') || 'no tools'}.`,
      );
    }
    const maxRisk = input.grant.restrictions?.max_risk_level;
    if (maxRisk && !riskAtLeast(maxRisk, risk)) {
      return block('grant', `This call is ${risk} risk; the task was granted tools up to ${maxRisk} risk only.`);
    }
  }

  // 2. The project's own policy.
  const { policy } = input.project;
  const projectLabel = input.project.template
    ? `The project "${input.project.name}" (${TEMPLATES[input.project.template as TemplateId]?.names.en ?? input.project.template} template)`
    : `The project "${input.project.name}"`;
  const categoryOverride = categoryOverrideFor(policy.category_overrides, input.tool.category);
  let action: ApprovalAction;
  let layer: DecisionLayer = 'project_policy';
  let reason: string;
  if (policy.tool_overrides[input.tool.name] !== undefined) {
    action = policy.tool_overrides[input.tool.name]!;
    reason = `${projectLabel} sets ${input.tool.name} to ${describeAction(action)}.`;
  } else if (categoryOverride !== undefined) {
    action = categoryOverride;
    reason = `${projectLabel} sets ${CATEGORY_TITLES[input.tool.category].en.toLowerCase()} tools to ${describeAction(action)}.`;
  } else {
    action = policy.risk_policies[risk];
    reason = `${projectLabel} sets ${risk}-risk actions to ${describeAction(action)}.`;
  }
  if (policy.mode === 'locked' && isStricter('require_approval', action)) {
    action = 'require_approval';
    reason = `${projectLabel} is locked: every action asks you first.`;
  } else if (policy.mode === 'supervised' && riskAtLeast(risk, 'high') && isStricter('require_approval', action)) {
    action = 'require_approval';
    reason = `${projectLabel} is supervised: ${risk}-risk actions ask you first.`;
  }
  trail.push({ layer, action, reason });

  // 3. Rules that can only tighten.
  const tighten = (candidate: ApprovalAction | undefined, candidateLayer: DecisionLayer, why: string) => {
    if (candidate === undefined) return;
    trail.push({ layer: candidateLayer, action: candidate, reason: why });
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
      `The instructions say ${promptRule.key}: ${describeAction(promptRule.action)}.`,
    );
  }
  const grantRule = ruleFor(input.grant?.approval_overrides, input.tool.name, input.tool.category);
  if (grantRule) {
    tighten(
      grantRule.action,
      'grant_overrides',
      `The task's grant says ${grantRule.key}: ${describeAction(grantRule.action)}.`,
    );
  }

  // 4. Critical risk needs a person for every call, whatever the template or overrides say.
  const perCall = risk === 'critical';
  if (perCall) {
    const why = `This is a sensitive operation${input.analysis.findings.length > 0 ? ` (${input.analysis.findings[0]})` : ''}: it needs your approval every time.`;
    tighten('require_approval', 'sensitive_operation', why);
  }

  // 5. A run that keeps being told no stops acting on its own.
  const denials = input.run?.denials;
  const tripped =
    denials !== undefined && (denials.consecutive >= BREAKER_CONSECUTIVE || denials.total >= BREAKER_TOTAL);
  if (tripped) {
    const why =
      denials.consecutive >= BREAKER_CONSECUTIVE
        ? `You denied ${denials.consecutive} actions in a row in this run, so it asks before each action until you approve one.`
        : `You denied ${denials.total} actions in this run, so it asks before each action from now on.`;
    tighten('require_approval', 'circuit_breaker', why);
  }

  // 6. "Approve for the rest of this run" — never for per-call approvals or a tripped breaker.
  if (action === 'require_approval' && input.run?.approvedForRun && !perCall && !tripped) {
    action = 'auto_approve';
    layer = 'run_approval';
    reason = `You approved ${input.tool.name} for the rest of this run.`;
    trail.push({ layer, action, reason });
  }
  return finish(action, layer, reason, perCall);
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

/** For display: "Project approval policy" etc. */
export function layerTitle(layer: DecisionLayer): string {
  return DECISION_LAYER_TITLES[layer].en;
}
