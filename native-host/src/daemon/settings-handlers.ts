import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {
  AppError,
  isErrorCode,
  say,
  projectConfigSchema,
  uiSettingsSchema,
  type MethodParams,
  type MethodResult,
  type SETTINGS_METHODS,
  type UiSettings,
} from '@nextai/shared';

import {
  effectiveModelSettings,
  planModelChanges,
  readModelConfig,
  writeModelValues,
  type ModelField,
} from '../agent/model-config.js';
import { createProvider, selectProvider, type ModelConfig, type ProviderSelection } from '../agent/providers/index.js';
import { listModels } from '../agent/providers/list-models.js';
import { findPreset, PROVIDER_PRESETS } from '../agent/providers/presets.js';
import { PROVIDER_DEFAULTS, refuseUnfilledBaseUrl, type ProviderName } from '../agent/providers/select.js';
import { expandHome } from '../policy/guards/paths.js';
import { editJson, parseConfigJson, parsePolicyConfig, readConfigFile } from '../policy/config-file.js';
import { writeFileAtomic } from '../policy/policy-store.js';
import type { ClientConnection } from './client-connection.js';
import type { DaemonServices } from './rpc-handlers.js';

type Params<M extends keyof typeof SETTINGS_METHODS> = MethodParams<typeof SETTINGS_METHODS, M>;
type Result<M extends keyof typeof SETTINGS_METHODS> = MethodResult<typeof SETTINGS_METHODS, M>;

/** How long "test connection" waits for the model's first answer. */
const TEST_TIMEOUT_MS = 30_000;

/**
 * The settings the side panel reads and writes. Everything lands in config.json
 * through the same validation that reads it: the policy sections through the policy's schema (and
 * the policy store reloads them at once), the model section through model-config.ts, the `ui`
 * section through `uiSettingsSchema`. The API key goes in and only comes back masked.
 */
export function registerSettingsHandlers(
  connection: ClientConnection,
  services: DaemonServices,
  asPerson: (what: string, method: string) => Promise<string>,
  notTheAgent: (what: string, method: string) => Promise<string>,
): void {
  const { peer } = connection;
  const reader = new SettingsService(services, connection.label);
  // Changing settings is the person's: the service records who changed what. A change is recorded
  // (an event, the audit log): refused before config.json is touched while the database cannot be written.
  const byPerson = async (method: string) => {
    const service = new SettingsService(services, await asPerson('change settings', method));
    services.storage.requireWritable(say('the settings change', '设置更改'));
    return service;
  };
  peer.handle('settings.get', () => reader.get());
  peer.handle('settings.set_ui', async (params) => (await byPerson('settings.set_ui')).setUi(params));
  peer.handle('settings.set_model', async (params) => (await byPerson('settings.set_model')).setModel(params));
  peer.handle('settings.test_model', () => reader.testModel());
  // It may send the saved key (to the server it was saved for): not for the agent's own processes.
  peer.handle('settings.list_models', async (params) => {
    await notTheAgent('list the models of a model server', 'settings.list_models');
    return reader.listModels(params);
  });
  peer.handle('settings.set_security', async (params) => (await byPerson('settings.set_security')).setSecurity(params));
  peer.handle('settings.save_project', async (params) => (await byPerson('settings.save_project')).saveProject(params));
  peer.handle('settings.delete_project', async (params) =>
    (await byPerson('settings.delete_project')).deleteProject(params),
  );
}

export class SettingsService {
  constructor(
    private readonly services: Pick<DaemonServices, 'policy' | 'recordPolicyChange' | 'info' | 'events' | 'runs'>,
    private readonly by: string,
    private readonly environment: Readonly<Record<string, string | undefined>> = process.env,
    private readonly homeDir: string = os.homedir(),
  ) {}

  private get file(): string {
    return this.services.policy.configFile;
  }

  get(): Result<'settings.get'> {
    const state = this.services.policy.current;
    return {
      file: this.file,
      ui: this.ui(),
      model: this.model(),
      directories: this.directories(state.config.security.allowed_directories),
      ...(state.problem ? { config_problem: state.problem } : {}),
    };
  }

  setUi(params: Params<'settings.set_ui'>): Result<'settings.set_ui'> {
    let text = this.readText();
    if (text.trim() !== '' && this.readJson() === undefined) {
      const parsed = parsePolicyConfig(text, this.file);
      const problems = parsed.ok ? [`${this.file}: the file is not a JSON object.`] : parsed.problems;
      throw new AppError('CONFIG_INVALID', `Not saved: ${problems.join('\n')}\nFix config.json first.`);
    }
    for (const field of ['language', 'setup_done'] as const) {
      const value = params[field];
      if (value !== undefined) text = editJson(text, ['ui', field], value, this.file);
    }
    this.write(text);
    const ui = this.ui();
    this.services.events.append('settings.ui_changed', { language: ui.language, setup_done: ui.setup_done });
    return { ui };
  }

  setModel(params: Params<'settings.set_model'>): Result<'settings.set_model'> {
    // Every value is checked before any is written: a bad base URL does not leave half a change.
    // The panel's form sets these; the time limits are set in config.json or with `nextai config set`.
    const requested: Partial<Record<ModelField, string | null>> = {};
    for (const field of [
      'preset',
      'provider',
      'name',
      'base_url',
      'api_key',
    ] as const satisfies readonly ModelField[]) {
      if (params[field] !== undefined) requested[field] = params[field];
    }
    const plan = planModelChanges(readModelConfig(this.file).config, requested, this.environment);
    writeModelValues(this.file, plan.changes);
    if (plan.changes.length > 0) {
      const fields = plan.changes.map(([field]) => `model.${field}`).join(', ');
      this.services.recordPolicyChange(`model settings changed: ${fields}`, this.by);
    }
    return {
      model: this.model(),
      ...(plan.apiKeyRemovedFrom !== undefined ? { api_key_removed_for: plan.apiKeyRemovedFrom } : {}),
    };
  }

  /**
   * The models the server lists. Which server: the preset, provider and base URL given (what the
   * form shows), filled in from the saved settings. The saved key (or the environment's) goes only
   * to the origin it is in force for; a key typed in the form comes in `api_key`.
   */
  async listModels(params: Params<'settings.list_models'>): Promise<Result<'settings.list_models'>> {
    const { config } = readModelConfig(this.file);
    const saved = savedSelection(config, this.environment);
    const preset = findPreset(params.preset);
    const provider: ProviderName | undefined = params.provider ?? preset?.protocol ?? saved?.provider;
    if (provider === undefined) {
      throw new AppError(
        'INVALID_ARGUMENT',
        say('Choose a provider first, then list its models.', '请先选择服务商，再列出模型。'),
      );
    }
    const baseUrl = (
      params.base_url?.trim() ||
      (preset?.protocol === provider ? preset.baseUrl : undefined) ||
      (saved?.provider === provider ? saved.baseUrl : undefined) ||
      PROVIDER_DEFAULTS[provider].baseUrl
    ).replace(/\/+$/, '');
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new AppError(
        'INVALID_ARGUMENT',
        say(`"${baseUrl}" is not a URL. Check the base URL.`, `“${baseUrl}”不是有效的 URL。请检查接口地址。`),
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AppError(
        'INVALID_ARGUMENT',
        say('The base URL must start with http:// or https://.', '接口地址必须以 http:// 或 https:// 开头。'),
      );
    }
    refuseUnfilledBaseUrl(url, baseUrl);
    const typed = params.api_key?.trim() || undefined;
    const savedKey =
      saved?.apiKey !== undefined && new URL(saved.baseUrl).origin === url.origin ? saved.apiKey : undefined;
    const models = await listModels({ provider, baseUrl, apiKey: typed ?? savedKey });
    return { provider, base_url: baseUrl, models };
  }

  /** A one-sentence exchange with the configured model; any failure is reported, never thrown. */
  async testModel(): Promise<Result<'settings.test_model'>> {
    const started = Date.now();
    try {
      const { config, problems } = readModelConfig(this.file);
      if (problems.length > 0) {
        throw new AppError('CONFIG_INVALID', `The model settings are not valid: ${problems.join('; ')}`);
      }
      const selection = selectProvider(config, this.environment);
      // One attempt: a person waiting on a button wants the error, not four retries.
      // The test sends what a run would (the same cache breakpoints, or none).
      const provider = createProvider(selection, {
        retry: { maxAttempts: 1, attemptTimeoutMs: TEST_TIMEOUT_MS },
        promptCache: config.prompt_cache !== 'off',
      });
      const signal = AbortSignal.timeout(TEST_TIMEOUT_MS);
      let reply = '';
      for await (const event of provider.stream(
        {
          model: selection.model,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'Reply with the single word: OK' }] }],
          tools: [],
          maxTokens: 16,
        },
        { signal },
      )) {
        if (event.type === 'text_delta') reply += event.text;
      }
      return {
        ok: true,
        provider: selection.provider,
        model: selection.model,
        base_url: selection.baseUrl,
        duration_ms: Date.now() - started,
        reply: reply.trim().slice(0, 200),
      };
    } catch (error) {
      const code = error instanceof AppError ? error.code : 'UNAVAILABLE';
      const message =
        error instanceof Error && error.name === 'TimeoutError'
          ? `The model did not answer within ${TEST_TIMEOUT_MS / 1000} s. Check the base URL and the network.`
          : error instanceof Error
            ? error.message
            : String(error);
      return { ok: false, code: isErrorCode(code) ? code : 'UNAVAILABLE', message };
    }
  }

  setSecurity(params: Params<'settings.set_security'>): Result<'settings.set_security'> {
    let text = this.readText();
    const changed: string[] = [];
    for (const directory of params.allowed_directories ?? []) {
      if (directory.trim() !== '' && this.resolveDirectory(directory.trim()) === undefined) {
        throw new AppError(
          'INVALID_ARGUMENT',
          `"${directory}" is not a full path. Write it from the root (/home/me/work) or from your home folder (~/work).`,
          { details: { path: directory } },
        );
      }
    }
    for (const [key, value] of Object.entries(params)) {
      if (value === undefined) continue;
      const cleaned = Array.isArray(value) ? unique(value.map((item) => String(item).trim()).filter(Boolean)) : value;
      text = editJson(text, ['security', key], cleaned, this.file);
      changed.push(`security.${key}`);
    }
    this.writePolicy(text, `changed ${changed.join(', ') || 'nothing'}`);
    const { security } = this.services.policy.current.config;
    return { security, directories: this.directories(security.allowed_directories) };
  }

  saveProject(params: Params<'settings.save_project'>): Result<'settings.save_project'> {
    const { policy } = this.services;
    const existing = policy.projects().find((project) => project.id === params.id);
    const entry = projectConfigSchema.parse({
      name: params.name ?? existing?.name ?? params.id,
      approval: params.approval ?? existing?.approval ?? policy.project().approval,
    });
    const text = editJson(this.readText(), ['projects', 'items', params.id], entry, this.file);
    this.writePolicy(text, `project ${params.id} ${existing ? 'changed' : 'created'}`);
    return { project: policy.project(params.id) };
  }

  deleteProject({ id }: Params<'settings.delete_project'>): Result<'settings.delete_project'> {
    const { policy, runs } = this.services;
    const project = policy.project(id);
    if (project.id === policy.project().id) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `"${project.name}" is the default project: runs without a project use its policy, so it cannot be removed.`,
      );
    }
    const unfinished = runs.list({ state: 'active', limit: 1000 }).filter((run) => run.project === project.id);
    if (unfinished.length > 0) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `Runs still act under "${project.name}" (${unfinished.map((run) => run.id).join(', ')}). ` +
          'Stop them or let them finish, then remove the project.',
        { details: { runs: unfinished.map((run) => run.id) } },
      );
    }
    const text = editJson(this.readText(), ['projects', 'items', project.id], undefined, this.file);
    this.writePolicy(text, `project ${project.id} removed`);
    return { deleted: project.id };
  }

  /** Validates the whole file as the policy store will read it, writes it, and puts it in force. */
  private writePolicy(text: string, summary: string): void {
    const parsed = parsePolicyConfig(text, this.file);
    if (!parsed.ok) {
      throw new AppError('CONFIG_INVALID', `Not saved: ${parsed.problems.join('\n')}`);
    }
    this.write(text);
    const reloaded = this.services.policy.reload();
    if (!reloaded.accepted) throw new AppError('CONFIG_INVALID', `Not in force: ${reloaded.problems.join('\n')}`);
    this.services.recordPolicyChange(summary, this.by);
  }

  private ui(): UiSettings {
    const root = this.readJson();
    const parsed = uiSettingsSchema.safeParse(root?.ui ?? {});
    return parsed.success ? parsed.data : uiSettingsSchema.parse({});
  }

  private model(): Result<'settings.get'>['model'] {
    const effective = effectiveModelSettings(this.file, this.environment);
    return {
      settings: effective.settings,
      ...(effective.problem ? { problem: effective.problem } : {}),
      providers: (Object.keys(PROVIDER_DEFAULTS) as (keyof typeof PROVIDER_DEFAULTS)[]).map((id) => ({
        id,
        model: PROVIDER_DEFAULTS[id].model,
        base_url: PROVIDER_DEFAULTS[id].baseUrl,
      })),
      preset: effective.settings.find((entry) => entry.key === 'model.preset')?.value ?? null,
      presets: PROVIDER_PRESETS.map((preset) => ({
        id: preset.id,
        label: preset.label,
        group: preset.group,
        provider: preset.protocol,
        base_url: preset.baseUrl,
        default_model: preset.defaultModel,
        models: [...preset.models],
        needs_key: preset.needsKey,
        key_url: preset.keyUrl ?? null,
        base_url_to_fill: preset.baseUrlToFill ?? null,
      })),
    };
  }

  private directories(list: readonly string[]): Result<'settings.get'>['directories'] {
    return list.map((entry) => {
      const resolved = this.resolveDirectory(entry);
      return { path: entry, resolved: resolved ?? entry, exists: resolved !== undefined && isDirectory(resolved) };
    });
  }

  /** `~/x` or an absolute path, resolved; undefined for what the file guard would not resolve either. */
  private resolveDirectory(entry: string): string | undefined {
    try {
      const expanded = expandHome(entry, this.homeDir, this.services.info.platform);
      return path.isAbsolute(expanded) ? path.resolve(expanded) : undefined;
    } catch {
      return undefined;
    }
  }

  private readText(): string {
    const read = readConfigFile(this.file);
    if (read.kind === 'refused') throw new AppError('CONFIG_INVALID', `${read.problem}\nFix config.json first.`);
    return read.kind === 'read' ? read.text : '';
  }

  private readJson(): Record<string, unknown> | undefined {
    const text = this.readText();
    if (text.trim() === '') return undefined;
    const parsed = parseConfigJson(text, this.file);
    if (!parsed.ok) return undefined;
    return typeof parsed.value === 'object' && parsed.value !== null
      ? (parsed.value as Record<string, unknown>)
      : undefined;
  }

  private write(text: string): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileAtomic(this.file, text);
    fs.chmodSync(this.file, 0o600);
  }
}

/** The saved model selection, or undefined when none can be made (nothing configured, no key…). */
function savedSelection(
  config: ModelConfig,
  environment: Readonly<Record<string, string | undefined>>,
): ProviderSelection | undefined {
  try {
    return selectProvider(config, environment);
  } catch {
    return undefined;
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}
