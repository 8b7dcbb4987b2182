import { z } from 'zod';

import { RISK_LEVELS, type RiskLevel } from '../tools/define-tool.js';

/** What happens to a tool call, from the most permissive to the strictest. */
export const APPROVAL_ACTIONS = ['auto_approve', 'notify_only', 'require_approval', 'always_block'] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];
export const approvalActionSchema = z.enum(APPROVAL_ACTIONS);

/** The stricter of two actions. Rules that may only tighten combine with this, never replace. */
export function stricter(a: ApprovalAction, b: ApprovalAction): ApprovalAction {
  return APPROVAL_ACTIONS.indexOf(a) >= APPROVAL_ACTIONS.indexOf(b) ? a : b;
}

export function isStricter(a: ApprovalAction, than: ApprovalAction): boolean {
  return APPROVAL_ACTIONS.indexOf(a) > APPROVAL_ACTIONS.indexOf(than);
}

export const riskLevelSchema = z.enum(RISK_LEVELS);

/** The higher of two risk levels. Input analysis may only raise a tool's default risk. */
export function higherRisk(a: RiskLevel, b: RiskLevel): RiskLevel {
  return RISK_LEVELS.indexOf(a) >= RISK_LEVELS.indexOf(b) ? a : b;
}

export function riskAtLeast(risk: RiskLevel, floor: RiskLevel): boolean {
  return RISK_LEVELS.indexOf(risk) >= RISK_LEVELS.indexOf(floor);
}

/**
 * How a project's approval policy treats its rules: `auto` applies them as written, `supervised`
 * also asks about every high or critical risk, `locked` asks about every action.
 */
export const APPROVAL_MODES = ['auto', 'supervised', 'locked'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/**
 * Permission levels, the most a call may do whatever the approval policy says: read-only (L1),
 * standard (L2), elevated (L3), full control (L4).
 */
export const PERMISSION_LEVELS = ['L1', 'L2', 'L3', 'L4'] as const;
export type PermissionLevel = (typeof PERMISSION_LEVELS)[number];

export function levelAtLeast(level: PermissionLevel, required: PermissionLevel): boolean {
  return PERMISSION_LEVELS.indexOf(level) >= PERMISSION_LEVELS.indexOf(required);
}

export const PERMISSION_LEVEL_TITLES: Record<PermissionLevel, { en: string; 'zh-CN': string }> = {
  L1: { en: 'Read-only', 'zh-CN': '只读' },
  L2: { en: 'Standard', 'zh-CN': '标准' },
  L3: { en: 'Elevated', 'zh-CN': '提升' },
  L4: { en: 'Full control', 'zh-CN': '完全控制' },
};
