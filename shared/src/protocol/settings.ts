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

const modelProviderSchema = z.enum(['anthropic', 'openai']);

export const PRESET_GROUPS = ['international', 'china', 'local'] as const;

/** A known provider the settings and the wizard offer: choosing it fills in provider, base URL and model. */
export const providerPresetViewSchema = z.object({
  id: z.string(),
  label: z.object({ en: z.string(), 'zh-CN': z.string() }),
  group: z.enum(PRESET_GROUPS),
  /** The wire format it speaks. */
  provider: modelProviderSchema,
  base_url: z.string(),
  default_model: z.string(),
  /** Models to offer before the server's own list is fetched, the default first. */
  models: z.array(z.string()),
  needs_key: z.boolean(),
  /** Where to create a key (for a local server: where to get it). */
  key_url: z.string().nullable(),
  /** The part of `base_url` the person replaces with their own (Azure: their resource's name). */
  base_url_to_fill: z.string().nullable().optional(),
});
export type ProviderPresetView = z.infer<typeof providerPresetViewSchema>;

export const modelSettingsViewSchema = z.object({
  settings: z.array(modelSettingViewSchema),
  /** Why no model can be used as configured (never contains a key). */
  problem: z.string().optional(),
  /** Per provider: its default model and base URL, for the form's placeholders. */
  providers: z.array(z.object({ id: modelProviderSchema, model: z.string(), base_url: z.string() })),
  /** The preset chosen in config.json (`model.preset`), if any. */
  preset: z.string().nullable().default(null),
  /** Every preset, in the order to offer them. */
  presets: z.array(providerPresetViewSchema).default([]),
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
  /**
   * Sets the given model settings in config.json (all validated before any is written). A preset
   * fills in the provider, base URL and model not given with it. A saved key is removed when the
   * server changes and no key comes with the change: it was given for the other server.
   */
  'settings.set_model': {
    params: z
      .object({ preset: modelValue, provider: modelValue, name: modelValue, base_url: modelValue, api_key: modelValue })
      .strict(),
    result: z.object({
      model: modelSettingsViewSchema,
      /** The origin the removed key was for, when the change removed the saved key. */
      api_key_removed_for: z.string().optional(),
    }),
  },
  /**
   * The models a server lists (`GET /models`), sorted. The server is the one given (a preset, or
   * a provider and base URL, as in the form), else the saved one. The saved key is sent only to the
   * server it was saved for; a key typed in the form goes with `api_key`.
   */
  'settings.list_models': {
    params: z
      .object({
        preset: z.string().max(60).optional(),
        provider: modelProviderSchema.optional(),
        base_url: z.string().max(2000).optional(),
        api_key: z.string().max(4000).optional(),
      })
      .strict(),
    result: z.object({ provider: modelProviderSchema, base_url: z.string(), models: z.array(z.string()) }),
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
