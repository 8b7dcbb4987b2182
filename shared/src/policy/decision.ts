import { z } from 'zod';

import { RISK_LEVELS } from '../tools/define-tool.js';
import { APPROVAL_ACTIONS } from './actions.js';

/** The layers a decision passes through, in order; the one that set the outcome is named. */
export const DECISION_LAYERS = [
  'emergency_stop',
  'protected_files',
  'filesystem',
  'network',
  'blocked_app',
  'permission_level',
  'grant',
  'sandbox',
  'project_policy',
  'prompt_rules',
  'grant_overrides',
  'sensitive_operation',
  'web_content',
  'tab_access',
  'circuit_breaker',
  'run_approval',
] as const;
export type DecisionLayer = (typeof DECISION_LAYERS)[number];

export const DECISION_LAYER_TITLES: Record<DecisionLayer, { en: string; 'zh-CN': string }> = {
  emergency_stop: { en: 'Emergency stop', 'zh-CN': '紧急停止' },
  protected_files: { en: "NextAI's own files", 'zh-CN': 'NextAI 自身文件' },
  filesystem: { en: 'Folder permissions', 'zh-CN': '目录权限' },
  network: { en: 'Website permissions', 'zh-CN': '域名权限' },
  blocked_app: { en: 'Blocked apps', 'zh-CN': '应用黑名单' },
  permission_level: { en: 'Permission level', 'zh-CN': '权限等级' },
  grant: { en: 'Task grant', 'zh-CN': '任务授权' },
  sandbox: { en: 'Sandbox', 'zh-CN': '沙箱' },
  project_policy: { en: 'Project approval policy', 'zh-CN': '项目审批策略' },
  prompt_rules: { en: 'Rules from the instructions', 'zh-CN': '提示词规则' },
  grant_overrides: { en: 'Task approval rules', 'zh-CN': '任务审批规则' },
  sensitive_operation: { en: 'Sensitive operation', 'zh-CN': '敏感操作' },
  web_content: { en: 'Prompted by web content', 'zh-CN': '网页内容触发' },
  tab_access: { en: "Working in the person's tab", 'zh-CN': '使用用户的标签页' },
  circuit_breaker: { en: 'Repeated denials', 'zh-CN': '连续拒绝' },
  run_approval: { en: 'Approved for this run', 'zh-CN': '本次运行已批准' },
};

/** How a sandbox is described in another language, field for field. */
export const sandboxTranslationSchema = z.object({
  summary: z.string(),
  escapes: z.array(z.string()),
  notes: z.array(z.string()).optional(),
  unavailable: z.string().optional(),
});

export const decisionTranslationsSchema = z
  .object({
    'zh-CN': z.object({
      reason: z.string(),
      findings: z.array(z.string()),
      sandbox: sandboxTranslationSchema.optional(),
    }),
  })
  .partial();
export type DecisionTranslations = z.infer<typeof decisionTranslationsSchema>;

export const SANDBOX_MECHANISMS = ['bubblewrap', 'seatbelt', 'none'] as const;
export type SandboxMechanism = (typeof SANDBOX_MECHANISMS)[number];
export const SANDBOX_NETWORK = ['none', 'full'] as const;
export type SandboxNetwork = (typeof SANDBOX_NETWORK)[number];

/**
 * Where a command would run (docs/ARCHITECTURE.md, "Sandbox first"): confined by the operating system, and
 * what the confinement gives it — or why it needs to leave, or why there is no sandbox here.
 */
export const sandboxInfoSchema = z.object({
  /** The call runs inside the sandbox (when it runs at all). */
  sandboxed: z.boolean(),
  mechanism: z.enum(SANDBOX_MECHANISMS),
  /** Folders it may change (besides a private temporary folder). */
  writable: z.array(z.string()),
  /** Places it cannot see at all: NextAI's own data, keys and passwords, browser profiles… */
  hidden: z.array(z.string()),
  network: z.enum(SANDBOX_NETWORK),
  /** "Runs in the sandbox: writes only in …" or "Asks to leave the sandbox because …". */
  summary: z.string(),
  /** What the call needs that the sandbox does not give; empty when it runs confined. */
  escapes: z.array(z.string()),
  /** About the profile itself: folders left out and why. */
  notes: z.array(z.string()).optional(),
  /** Why no sandbox can start here (then the call is never run unconfined without a person). */
  unavailable: z.string().optional(),
});
export type SandboxInfo = z.infer<typeof sandboxInfoSchema>;

export const decisionSchema = z.object({
  action: z.enum(APPROVAL_ACTIONS),
  /** Risk after input analysis (never below the tool's default). */
  risk: z.enum(RISK_LEVELS),
  default_risk: z.enum(RISK_LEVELS),
  layer: z.enum(DECISION_LAYERS),
  /** Why, in words a person understands. */
  reason: z.string(),
  /** Every layer that had something to say, in order. */
  trail: z.array(z.object({ layer: z.enum(DECISION_LAYERS), action: z.enum(APPROVAL_ACTIONS), reason: z.string() })),
  /** What the input analysis found, for the approval card. */
  findings: z.array(z.string()),
  /** An approval for this call cannot be reused for the rest of the run (sensitive operations). */
  per_call: z.boolean(),
  /** `reason` and `findings` in the panel's other languages, item for item. */
  translations: decisionTranslationsSchema,
  /** For commands and launched programs: the sandbox they run in, or why they leave it. */
  sandbox: sandboxInfoSchema.optional(),
});
export type Decision = z.infer<typeof decisionSchema>;
