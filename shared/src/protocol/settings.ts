import { z } from 'zod';

import { projectApprovalPolicySchema, securityConfigSchema, templateIdSchema } from '../policy/config.js';

/**
 * Settings the side panel reads and writes through the daemon: the panel's own
 * preferences (`ui` section of config.json), the model (`model` section — the API key goes in and
 * never comes back except masked), the global safety settings and the projects' approval policies.
 * The daemon validates every value with the same schemas that read config.json.
 */

export const UI_LANGUAGES = ['auto', 'en', 'zh-CN'] as const;

/** The `ui` section of config.json. */
export const uiSettingsSchema = z
  .object({
    /** `auto` follows the browser's language. */
    language: z.enum(UI_LANGUAGES).default('auto'),
    /** The first-run wizard was finished (or skipped). */
    setup_done: z.boolean().default(false),
  })
  .strict();
export type UiSettings = z.infer<typeof uiSettingsSchema>;

/** One model setting in force and where it comes from (`config.json`, `environment (…)`, `default`, `not set`). */
export const modelSettingViewSchema = z.object({
  key: z.string(),
  /** The API key only masked (`sk-…abcd`). */
  value: z.string().nullable(),
  source: z.string(),
});

export const modelSettingsViewSchema = z.object({
  settings: z.array(modelSettingViewSchema),
  /** Why no model can be used as configured (never contains a key). */
  problem: z.string().optional(),
  /** Per provider: its default model and base URL, for the form's placeholders. */
  providers: z.array(z.object({ id: z.enum(['anthropic', 'openai']), model: z.string(), base_url: z.string() })),
});
export type ModelSettingsView = z.infer<typeof modelSettingsViewSchema>;

const projectViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  template: templateIdSchema.nullable(),
  approval: projectApprovalPolicySchema,
});

/** A directory in the allow list, with whether it exists on this computer. */
export const directoryViewSchema = z.object({ path: z.string(), resolved: z.string(), exists: z.boolean() });

/**
 * The editable fields of the `security` section, each optional. Not `securityConfigSchema.partial()`:
 * its fields have defaults, which would fill in (and overwrite) every field not sent.
 */
const section = securityConfigSchema.shape;
const securityEditSchema = z
  .object({
    permission_level: section.permission_level.unwrap().optional(),
    allowed_directories: section.allowed_directories.unwrap().optional(),
    denied_patterns: section.denied_patterns.unwrap().optional(),
    allowed_domains: section.allowed_domains.unwrap().optional(),
    blocked_domains: section.blocked_domains.unwrap().optional(),
    blocked_domain_categories: section.blocked_domain_categories.unwrap().optional(),
    blocked_apps: section.blocked_apps.unwrap().optional(),
  })
  .strict();

/** Empty string or `null` removes a model setting (the environment or the default applies again). */
const modelValue = z.string().max(4000).nullable().optional();

export const SETTINGS_METHODS = {
  /** Everything the settings pages and the first-run wizard show. */
  'settings.get': {
    params: z.object({}),
    result: z.object({
      file: z.string(),
      ui: uiSettingsSchema,
      model: modelSettingsViewSchema,
      directories: z.array(directoryViewSchema),
      /** Why config.json is not what is in force, if so (the policy refused it). */
      config_problem: z.string().optional(),
    }),
  },
  'settings.set_ui': {
    params: z.object({ language: z.enum(UI_LANGUAGES).optional(), setup_done: z.boolean().optional() }).strict(),
    result: z.object({ ui: uiSettingsSchema }),
  },
  /** Sets the given model settings in config.json (all validated before any is written). */
  'settings.set_model': {
    params: z.object({ provider: modelValue, name: modelValue, base_url: modelValue, api_key: modelValue }).strict(),
    result: z.object({ model: modelSettingsViewSchema }),
  },
  /** A tiny real call to the configured model: ok, or the provider's error in words. */
  'settings.test_model': {
    params: z.object({}),
    result: z.discriminatedUnion('ok', [
      z.object({
        ok: z.literal(true),
        provider: z.string(),
        model: z.string(),
        base_url: z.string(),
        duration_ms: z.number(),
        reply: z.string(),
      }),
      z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
    ]),
  },
  /** Replaces the given fields of the `security` section (allowed directories, domains, apps, level…). */
  'settings.set_security': {
    params: securityEditSchema,
    result: z.object({ security: securityConfigSchema, directories: z.array(directoryViewSchema) }),
  },
  /** Creates or updates a project: its name and its whole approval policy. */
  'settings.save_project': {
    params: z
      .object({
        id: z
          .string()
          .min(1)
          .max(60)
          .regex(/^[a-z0-9][a-z0-9_-]*$/, {
            message: 'a project id is lower-case letters, digits, "-" and "_" (e.g. "website")',
          }),
        name: z.string().trim().min(1).max(100).optional(),
        approval: projectApprovalPolicySchema.optional(),
      })
      .strict(),
    result: z.object({ project: projectViewSchema }),
  },
  /**
   * Removes a project and its approval policy. The default project cannot be removed, nor one
   * that unfinished runs still act under (their next call would have no policy).
   */
  'settings.delete_project': {
    params: z.object({ id: z.string().min(1).max(60) }).strict(),
    result: z.object({ deleted: z.string() }),
  },
} as const;
