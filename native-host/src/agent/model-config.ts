import fs from 'node:fs';
import path from 'node:path';

import { z } from 'zod';

import { AppError } from '@nextai/shared';

import { editJson, parseConfigJson, readConfigFile } from '../policy/config-file.js';
import { writeFileAtomic } from '../policy/policy-store.js';
import { findPreset, PRESET_IDS } from './providers/presets.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './providers/retry.js';
import { PROVIDER_DEFAULTS, selectProvider, type ModelConfig, type ProviderName } from './providers/select.js';

export const PROVIDER_NAMES = Object.keys(PROVIDER_DEFAULTS) as [ProviderName, ...ProviderName[]];

const httpUrl = z
  .string()
  .trim()
  .refine(
    (text) => {
      try {
        const url = new URL(text);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'must be an http:// or https:// URL, e.g. https://api.deepseek.com/v1' },
  );

/** A whole number of seconds in [min, max], written as a number or as its text. */
function seconds(min: number, max: number) {
  const message = `must be a whole number of seconds from ${min} to ${max}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
    z.number({ message }).int({ message }).min(min, { message }).max(max, { message }),
  );
}

/** The `model` section of config.json. Strict, like the policy sections: a misspelt key is an error. */
export const modelConfigSchema = z
  .object({
    preset: z
      .preprocess(
        (value) => (typeof value === 'string' ? value.trim() : value),
        z.enum(PRESET_IDS, { message: `must be one of: ${PRESET_IDS.join(', ')}` }),
      )
      .optional(),
    provider: z.enum(PROVIDER_NAMES, { message: `must be one of: ${PROVIDER_NAMES.join(', ')}` }).optional(),
    name: z.string().trim().min(1, { message: 'must not be empty' }).optional(),
    base_url: httpUrl.optional(),
    api_key: z.string().trim().min(1, { message: 'must not be empty' }).optional(),
    stream_idle_seconds: seconds(5, 3600).optional(),
    call_timeout_seconds: seconds(30, 24 * 3600).optional(),
    /**
     * Anthropic prompt caching (cache breakpoints on the tools, the system prompt and the
     * conversation so far): on unless turned off, for a server that speaks the format but refuses
     * `cache_control`. `true`/`false` are taken too.
     */
    prompt_cache: z
      .preprocess(
        (value) =>
          value === true
            ? 'on'
            : value === false
              ? 'off'
              : typeof value === 'string'
                ? value.trim().toLowerCase()
                : value,
        z.enum(['on', 'off'], { message: 'must be on or off' }),
      )
      .optional(),
  })
  .strict();
export type ModelSection = z.infer<typeof modelConfigSchema>;

export const MODEL_FIELDS = [
  'preset',
  'provider',
  'name',
  'base_url',
  'api_key',
  'stream_idle_seconds',
  'call_timeout_seconds',
  'prompt_cache',
] as const;
/** Fields written to config.json as numbers. */
const NUMERIC_FIELDS: readonly ModelField[] = ['stream_idle_seconds', 'call_timeout_seconds'];
export type ModelField = (typeof MODEL_FIELDS)[number];
export const MODEL_KEYS = MODEL_FIELDS.map((field) => `model.${field}`);

/** `model.base_url` → `base_url`; anything else is an INVALID_ARGUMENT naming the valid keys. */
export function modelFieldOf(key: string): ModelField {
  const field = MODEL_FIELDS.find((candidate) => `model.${candidate}` === key.trim());
  if (!field) {
    throw new AppError('INVALID_ARGUMENT', `Unknown setting "${key}". Settings: ${MODEL_KEYS.join(', ')}.`, {
      details: { key, valid: MODEL_KEYS },
    });
  }
  return field;
}

/** Validates one value for `field`; the error names the key and what it accepts, never the value of a key. */
export function validateModelValue(field: ModelField, value: string): string {
  const parsed = modelConfigSchema.shape[field].safeParse(value);
  if (!parsed.success || parsed.data === undefined) {
    const message = parsed.success ? 'must not be empty' : (parsed.error.issues[0]?.message ?? 'is invalid');
    const shown = field === 'api_key' ? '' : ` (got "${value}")`;
    throw new AppError('INVALID_ARGUMENT', `model.${field} ${message}${shown}.`, {
      details: { key: `model.${field}` },
    });
  }
  return String(parsed.data);
}

export interface ReadModelConfig {
  /** The string values found in the `model` section, valid or not. */
  config: ModelConfig;
  /** What is wrong with the `model` section, if anything (line-free: the section is small). */
  problems: string[];
}

/** Reads the `model` section of config.json; a missing file is an empty section. */
export function readModelConfig(file: string): ReadModelConfig {
  const text = readText(file);
  if (text === undefined) return { config: {}, problems: [] };
  const root = parseJsonc(text, file) as Record<string, unknown> | undefined;
  const section = root?.model;
  if (section === undefined) return { config: {}, problems: [] };
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    return { config: {}, problems: [`${file}: "model" must be an object.`] };
  }
  const config: ModelConfig = {};
  for (const field of MODEL_FIELDS) {
    const value = (section as Record<string, unknown>)[field];
    if (typeof value === 'string') config[field] = value;
    else if (typeof value === 'number' && NUMERIC_FIELDS.includes(field)) config[field] = String(value);
    else if (typeof value === 'boolean' && field === 'prompt_cache') config[field] = value ? 'on' : 'off';
  }
  const parsed = modelConfigSchema.safeParse(section);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${file}: model.${issue.path.map(String).join('.')}: ${issue.message}`);
  return { config, problems };
}

/**
 * Sets (or, with `undefined`, removes) one model setting in config.json, in place: comments,
 * formatting and the other sections stay as they were. The file is written through a temporary
 * file and a rename, with mode 0600. A file that is not valid JSON is refused, not repaired.
 */
export function writeModelValue(file: string, field: ModelField, value: string | undefined): void {
  writeModelValues(file, [[field, value]]);
}

/** Several model settings at once, in one write (see `writeModelValue`). */
export function writeModelValues(file: string, changes: readonly ModelChange[]): void {
  const text = readText(file) ?? '';
  const root = text.trim() === '' ? undefined : (parseJsonc(text, file) as Record<string, unknown> | undefined);
  const section = root?.model as Record<string, unknown> | undefined;
  const hasSection = typeof section === 'object' && section !== null;
  // Removing what is not there leaves the file (or its absence) as it is.
  const effective = changes.filter(([field, value]) => value !== undefined || (hasSection && field in section));
  if (effective.length === 0) return;
  let edited = text.trim() === '' ? '{}\n' : text;
  for (const [field, value] of effective) {
    const written = value !== undefined && NUMERIC_FIELDS.includes(field) ? Number(value) : value;
    edited = editJson(edited, ['model', field], written, file);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, edited);
  // The temporary file is created 0600; a stale one left by a crash might not be.
  fs.chmodSync(file, 0o600);
}

/** One setting to write: a value, or `undefined` to remove it. */
export type ModelChange = readonly [ModelField, string | undefined];

export interface ModelChangePlan {
  /** In the order of MODEL_FIELDS; a value was validated, `undefined` removes the setting. */
  changes: ModelChange[];
  /**
   * The saved API key is removed: it was for this origin and the model now lives elsewhere. A key
   * goes only to the server it was given for.
   */
  apiKeyRemovedFrom?: string;
}

/**
 * What a change of model settings writes. Every value is validated first (nothing is written
 * when one is wrong). Choosing a preset fills in its provider, base URL and model, unless the same
 * change sets them. A provider that no longer speaks the preset's format drops the preset. When
 * the server changes (another origin) and no key comes with the change, the saved key is removed
 * rather than sent to a server it was not given for.
 */
export function planModelChanges(
  current: ModelConfig,
  requested: Partial<Record<ModelField, string | null>>,
  environment: Readonly<Record<string, string | undefined>>,
): ModelChangePlan {
  const wanted = new Map<ModelField, string | undefined>();
  for (const field of MODEL_FIELDS) {
    if (!(field in requested)) continue;
    const value = requested[field];
    if (value === undefined) continue;
    wanted.set(field, value === null || value.trim() === '' ? undefined : validateModelValue(field, value));
  }
  const preset = wanted.has('preset') ? findPreset(wanted.get('preset')) : undefined;
  if (preset) {
    if (!wanted.has('provider')) wanted.set('provider', preset.protocol);
    if (!wanted.has('base_url')) wanted.set('base_url', preset.baseUrl);
    if (!wanted.has('name')) wanted.set('name', preset.defaultModel);
  }
  const next: ModelConfig = { ...current };
  for (const [field, value] of wanted) {
    if (value === undefined) delete next[field];
    else next[field] = value;
  }
  const keptPreset = findPreset(next.preset);
  if (!wanted.has('preset') && keptPreset && next.provider !== undefined && next.provider !== keptPreset.protocol) {
    wanted.set('preset', undefined);
    delete next.preset;
  }
  let apiKeyRemovedFrom: string | undefined;
  if (!wanted.has('api_key') && current.api_key?.trim()) {
    const before = endpointOrigin(current, environment);
    const after = endpointOrigin(next, environment);
    if (before !== undefined && after !== undefined && before !== after) {
      wanted.set('api_key', undefined);
      apiKeyRemovedFrom = before;
    }
  }
  const changes = MODEL_FIELDS.filter((field) => wanted.has(field)).map((field): ModelChange => [
    field,
    wanted.get(field),
  ]);
  return { changes, ...(apiKeyRemovedFrom !== undefined ? { apiKeyRemovedFrom } : {}) };
}

/** The origin the model's requests go to under `config`, or undefined when none can be worked out. */
function endpointOrigin(
  config: ModelConfig,
  environment: Readonly<Record<string, string | undefined>>,
): string | undefined {
  try {
    return new URL(selectProvider(config, environment).baseUrl).origin;
  } catch {
    return undefined;
  }
}

/** The model call's time limits from the `model` section (the defaults where it sets none). */
export function modelTimeouts(config: ModelConfig): Partial<RetryPolicy> {
  const timeouts: Partial<RetryPolicy> = {};
  const idle = Number(config.stream_idle_seconds);
  const deadline = Number(config.call_timeout_seconds);
  if (Number.isInteger(idle) && idle > 0) timeouts.streamIdleMs = idle * 1000;
  if (Number.isInteger(deadline) && deadline > 0) timeouts.callDeadlineMs = deadline * 1000;
  return timeouts;
}

/** `sk-…abcd`: enough to tell two keys apart, never enough to use one. */
export function maskApiKey(key: string): string {
  const trimmed = key.trim();
  if (trimmed.length < 12) return '…';
  const prefix = /^[A-Za-z]{2,4}-/.exec(trimmed)?.[0] ?? '';
  return `${prefix}…${trimmed.slice(-4)}`;
}

export interface EffectiveSetting {
  key: string;
  /** What is in force; the API key only masked. Null when nothing is. */
  value: string | null;
  /** `config.json`, `preset (ID)`, `environment (NAME)`, `default`, or `not set`. */
  source: string;
}

export interface EffectiveModelSettings {
  file: string;
  settings: EffectiveSetting[];
  /** Why no model could be used as configured, if so (never contains a key). */
  problem?: string;
}

/** What each model setting is in force and where it comes from: config.json, the environment, or a default. */
export function effectiveModelSettings(
  file: string,
  environment: Readonly<Record<string, string | undefined>>,
): EffectiveModelSettings {
  const { config, problems } = readModelConfig(file);
  let provider: ProviderName | undefined;
  let problem: string | undefined = problems.length > 0 ? problems.join('\n') : undefined;
  try {
    provider = selectProvider(config, environment).provider;
  } catch (error) {
    problem ??= (error as Error).message;
    const configured = config.provider?.trim() || findPreset(config.preset)?.protocol;
    provider = PROVIDER_NAMES.find((name) => name === configured);
  }
  const present = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
  const defaults = provider ? PROVIDER_DEFAULTS[provider] : undefined;
  // The preset stands in for what config.json leaves out, as long as it speaks the provider's format.
  const configuredPreset = findPreset(config.preset);
  const preset = configuredPreset?.protocol === provider ? configuredPreset : undefined;
  const fromPreset = preset ? `preset (${preset.id})` : '';

  const settings: EffectiveSetting[] = [];
  // Listed only when chosen: configurations from before presets read as they always did.
  const presetId = present(config.preset);
  if (presetId) settings.push({ key: 'model.preset', value: presetId, source: 'config.json' });
  const configuredProvider = present(config.provider);
  if (configuredProvider) {
    settings.push({ key: 'model.provider', value: configuredProvider, source: 'config.json' });
  } else if (preset) {
    settings.push({ key: 'model.provider', value: preset.protocol, source: fromPreset });
  } else if (provider && defaults) {
    const variable = present(environment[defaults.apiKeyVariable]) ? defaults.apiKeyVariable : defaults.baseUrlVariable;
    settings.push({ key: 'model.provider', value: provider, source: `environment (${variable} is set)` });
  } else {
    settings.push({ key: 'model.provider', value: null, source: 'not set' });
  }

  const name = present(config.name);
  settings.push(
    name
      ? { key: 'model.name', value: name, source: 'config.json' }
      : preset
        ? { key: 'model.name', value: preset.defaultModel, source: fromPreset }
        : defaults
          ? { key: 'model.name', value: defaults.model, source: 'default' }
          : { key: 'model.name', value: null, source: 'not set' },
  );

  settings.push(fromConfigEnvironmentOrDefault('model.base_url', present(config.base_url), defaults?.baseUrlVariable));
  const apiKey = fromConfigEnvironmentOrDefault('model.api_key', present(config.api_key), defaults?.apiKeyVariable);
  settings.push({ ...apiKey, value: apiKey.value === null ? null : maskApiKey(apiKey.value) });
  for (const [field, fallback] of [
    ['stream_idle_seconds', String(DEFAULT_RETRY_POLICY.streamIdleMs / 1000)],
    ['call_timeout_seconds', String(DEFAULT_RETRY_POLICY.callDeadlineMs / 1000)],
    ['prompt_cache', 'on'],
  ] as const) {
    const configured = present(config[field]);
    settings.push(
      configured
        ? { key: `model.${field}`, value: configured, source: 'config.json' }
        : { key: `model.${field}`, value: fallback, source: 'default' },
    );
  }
  return { file, settings, ...(problem ? { problem } : {}) };

  function fromConfigEnvironmentOrDefault(
    key: string,
    configured: string | undefined,
    variable: string | undefined,
  ): EffectiveSetting {
    if (configured) return { key, value: configured, source: 'config.json' };
    if (key === 'model.base_url' && preset) return { key, value: preset.baseUrl, source: fromPreset };
    const fromEnvironment = variable ? present(environment[variable]) : undefined;
    if (variable && fromEnvironment) return { key, value: fromEnvironment, source: `environment (${variable})` };
    if (key === 'model.base_url' && defaults) return { key, value: defaults.baseUrl, source: 'default' };
    return { key, value: null, source: 'not set' };
  }
}

/** config.json's text, or undefined when there is none; a file that cannot be read is CONFIG_INVALID saying why. */
function readText(file: string): string | undefined {
  const read = readConfigFile(file);
  if (read.kind === 'missing') return undefined;
  if (read.kind === 'refused') {
    throw new AppError('CONFIG_INVALID', `${read.problem}\nFix config.json first, then run the command again.`);
  }
  return read.text;
}

/** Parses JSON with comments; a syntax error is CONFIG_INVALID naming the line and column. */
function parseJsonc(text: string, file: string): unknown {
  const parsed = parseConfigJson(text, file);
  if (!parsed.ok) {
    throw new AppError(
      'CONFIG_INVALID',
      `${parsed.problems.join('\n')}\nFix config.json first, then run the command again.`,
    );
  }
  return parsed.value;
}
