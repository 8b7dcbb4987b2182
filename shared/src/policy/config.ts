import { z } from 'zod';

import { CATEGORY_TITLES, TOOL_CATEGORIES, type ToolCategory } from '../tools/define-tool.js';
import { APPROVAL_MODES, PERMISSION_LEVELS, approvalActionSchema, riskLevelSchema } from './actions.js';

/** Per-risk actions of a project. */
export const riskPoliciesSchema = z
  .object({
    low: approvalActionSchema,
    medium: approvalActionSchema,
    high: approvalActionSchema,
    critical: approvalActionSchema,
  })
  .strict();

const categoryNames = [...TOOL_CATEGORIES, ...Object.values(CATEGORY_TITLES).map((title) => title['zh-CN'])];

/** A project's approval policy: a mode, an action per risk level, and per-category and per-tool overrides. */
export const projectApprovalPolicySchema = z
  .object({
    mode: z.enum(APPROVAL_MODES),
    risk_policies: riskPoliciesSchema,
    /** Keys: a category id ("terminal") or its Chinese name ("终端操控"). */
    category_overrides: z
      .record(z.string(), approvalActionSchema)
      .default({})
      .refine((record) => Object.keys(record).every((key) => categoryNames.includes(key)), {
        message: `category_overrides keys must be one of: ${categoryNames.join(', ')}`,
      }),
    /** Keys: tool names ("bash_execute"). */
    tool_overrides: z.record(z.string(), approvalActionSchema).default({}),
  })
  .strict();
export type ProjectApprovalPolicy = z.infer<typeof projectApprovalPolicySchema>;

/** Maps a category override key (id or Chinese name) to the category id. */
export function categoryFromKey(key: string): ToolCategory | undefined {
  if ((TOOL_CATEGORIES as readonly string[]).includes(key)) return key as ToolCategory;
  return TOOL_CATEGORIES.find((category) => CATEGORY_TITLES[category]['zh-CN'] === key);
}

export const TEMPLATE_IDS = ['full-auto', 'development', 'strict', 'observe'] as const;
export type TemplateId = (typeof TEMPLATE_IDS)[number];
export const templateIdSchema = z.enum(TEMPLATE_IDS);

/** The four approval-policy templates a person picks from; development is the default. */
export const TEMPLATES: Record<
  TemplateId,
  { names: { en: string; 'zh-CN': string }; use: string; policy: ProjectApprovalPolicy }
> = {
  'full-auto': {
    names: { en: 'Full auto', 'zh-CN': '全自动' },
    use: 'Trusted automation pipelines',
    policy: {
      mode: 'auto',
      risk_policies: {
        low: 'auto_approve',
        medium: 'auto_approve',
        high: 'auto_approve',
        critical: 'require_approval',
      },
      category_overrides: {},
      tool_overrides: {},
    },
  },
  development: {
    names: { en: 'Development', 'zh-CN': '开发模式' },
    use: 'Everyday development (default)',
    policy: {
      mode: 'supervised',
      risk_policies: {
        low: 'auto_approve',
        medium: 'auto_approve',
        high: 'require_approval',
        critical: 'always_block',
      },
      category_overrides: {},
      tool_overrides: {},
    },
  },
  strict: {
    names: { en: 'Strict', 'zh-CN': '严格模式' },
    use: 'Production work',
    policy: {
      mode: 'supervised',
      risk_policies: {
        low: 'auto_approve',
        medium: 'require_approval',
        high: 'require_approval',
        critical: 'always_block',
      },
      category_overrides: {},
      tool_overrides: {},
    },
  },
  observe: {
    names: { en: 'Observe', 'zh-CN': '观察模式' },
    use: 'First tries and demos',
    policy: {
      mode: 'locked',
      risk_policies: {
        low: 'require_approval',
        medium: 'require_approval',
        high: 'require_approval',
        critical: 'always_block',
      },
      category_overrides: {},
      tool_overrides: {},
    },
  },
};

export const DEFAULT_TEMPLATE: TemplateId = 'development';

/** Accepts a template id, or its English or Chinese name ("开发模式"). */
export function templateFromName(name: string): TemplateId | undefined {
  const wanted = name.trim().toLowerCase();
  return TEMPLATE_IDS.find(
    (id) =>
      id === wanted || TEMPLATES[id].names.en.toLowerCase() === wanted || TEMPLATES[id].names['zh-CN'] === name.trim(),
  );
}

/** Groups of domains a person can block with one switch. */
export const DOMAIN_CATEGORIES = ['banking', 'password_managers', 'identity_providers'] as const;
export type DomainCategory = (typeof DOMAIN_CATEGORIES)[number];

/** Global safety settings: permission level, allowed folders and domains, what is always off limits. */
export const securityConfigSchema = z
  .object({
    permission_level: z.enum(PERMISSION_LEVELS).default('L3'),
    allowed_directories: z.array(z.string().min(1)).default(['~/Projects', '~/Documents/NextAI', '~/Desktop']),
    denied_patterns: z
      .array(z.string().min(1))
      .default(['~/.ssh/*', '~/.gnupg/*', '~/.aws/*', '**/node_modules/**', '/etc/**', '/System/**']),
    max_file_size: z
      .number()
      .int()
      .positive()
      .default(50 * 1024 * 1024),
    /**
     * Empty: every domain not blocked is allowed. Loopback, link-local, private-network and cloud
     * metadata addresses (localhost, 127.0.0.1, 192.168.x.x, 169.254.169.254…, and names that
     * resolve to them) are opened only for a host an entry names exactly, never through `*` or
     * a wildcard: `["*", "localhost"]` keeps every site and adds localhost.
     */
    allowed_domains: z.array(z.string().min(1)).default([]),
    blocked_domains: z
      .array(z.string().min(1))
      .default(['*.bank.com', '*.banking.*', 'accounts.google.com', 'id.apple.com', 'login.microsoftonline.com']),
    blocked_domain_categories: z.array(z.enum(DOMAIN_CATEGORIES)).default([...DOMAIN_CATEGORIES]),
    blocked_apps: z
      .array(z.string().min(1))
      .default(['Keychain Access', '1Password', 'Bitwarden', 'KeePassXC', 'LastPass', 'Passwords', 'Seahorse']),
  })
  .strict();
export type SecurityConfig = z.infer<typeof securityConfigSchema>;

export const projectConfigSchema = z
  .object({
    name: z.string().min(1),
    /** Informational: the template the policy came from, if it still matches one. */
    template: templateIdSchema.optional(),
    approval: projectApprovalPolicySchema,
  })
  .strict();
export type ProjectConfig = z.infer<typeof projectConfigSchema>;

export const DEFAULT_PROJECT_ID = 'default';

export const projectsConfigSchema = z
  .object({
    default_approval_template: z
      .string()
      .default(DEFAULT_TEMPLATE)
      .refine((name) => templateFromName(name) !== undefined, {
        message: `must be one of ${TEMPLATE_IDS.join(', ')} (or their names: ${TEMPLATE_IDS.map((id) => TEMPLATES[id].names['zh-CN']).join(', ')})`,
      }),
    default_project: z.string().default(DEFAULT_PROJECT_ID),
    items: z.record(z.string().min(1), projectConfigSchema).default({}),
  })
  .strict();

/**
 * The policy part of `config.json`. Other sections (models, UI…) belong to other owners: they are
 * accepted and left out of the parsed policy (stripped), so what the policy keeps — in memory and
 * as the last good copy in SQLite — never holds another section's secrets, such as the model's
 * API key. The sections here are strict, so a misspelt field is an error, not a no-op.
 */
export const policyConfigSchema = z
  .object({
    security: securityConfigSchema.default(securityConfigSchema.parse({})),
    projects: projectsConfigSchema.default(projectsConfigSchema.parse({})),
  })
  .strip();
export type PolicyConfig = z.infer<typeof policyConfigSchema>;

/** Coordinator grant for one task; it can only tighten. */
export const grantedToolSetSchema = z
  .object({
    tools: z.array(z.string()),
    restrictions: z
      .object({
        allowed_directories: z.array(z.string()).optional(),
        allowed_domains: z.array(z.string()).optional(),
        max_risk_level: riskLevelSchema.optional(),
      })
      .strict()
      .optional(),
    approval_overrides: z.record(z.string(), approvalActionSchema).optional(),
  })
  .strict();
export type GrantedToolSet = z.infer<typeof grantedToolSetSchema>;

/** Approval rules declared in a prompt or task instruction; they can only tighten. */
export const promptRulesSchema = z
  .object({
    /** Keys: tool names, category ids or Chinese category names. */
    approval_overrides: z.record(z.string(), approvalActionSchema),
  })
  .strict();
export type PromptRules = z.infer<typeof promptRulesSchema>;
