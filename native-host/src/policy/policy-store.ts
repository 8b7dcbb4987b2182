import fs from 'node:fs';
import path from 'node:path';

import {
  AppError,
  TEMPLATES,
  TEMPLATE_IDS,
  projectConfigSchema,
  templateFromName,
  type PolicyConfig,
  type ProjectApprovalPolicy,
  type TemplateId,
} from '@nextai/shared';
import { isDeepStrictEqual } from 'node:util';

import type { Db } from '../storage/database.js';
import { storageHealth } from '../storage/storage-health.js';
import type { Logger } from '../core/logger.js';
import { editJson, parsePolicyConfig, readConfigFile } from './config-file.js';

export interface ResolvedProject {
  id: string;
  name: string;
  /** The template this policy equals, if any. */
  template: TemplateId | null;
  approval: ProjectApprovalPolicy;
}

export interface PolicyState {
  config: PolicyConfig;
  /** Where the policy in force came from. */
  source: 'file' | 'defaults' | 'last_good';
  /** Why config.json is not what is in force, when it is not. */
  problem?: string;
}

const LAST_GOOD_KEY = 'policy_last_good';

/**
 * The policy in force, read from the policy sections of config.json. A file that does not parse
 * or validate is refused — every problem with its line and field — and the previous policy stays
 * in force: the one loaded before, or after a restart the last good one kept in the database.
 */
export class PolicyStore {
  private state: PolicyState;
  private watcher: fs.FSWatcher | undefined;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly file: string,
    private readonly db: Db,
    private readonly log: Logger,
    private readonly onChange: (change: { accepted: boolean; problems: string[]; summary: string }) => void = () =>
      undefined,
  ) {
    this.state = this.initialState();
  }

  get current(): PolicyState {
    return this.state;
  }

  get configFile(): string {
    return this.file;
  }

  /** Re-reads config.json; keeps the policy in force when the file is invalid. */
  reload(): { accepted: boolean; problems: string[] } {
    const read = this.readFile();
    if (read.kind === 'missing') {
      const before = this.state.source;
      this.state = { config: defaults(), source: 'defaults' };
      // The file was removed: the built-in defaults are a change like any other (they may allow less).
      if (before !== 'defaults') {
        this.onChange({
          accepted: true,
          problems: [],
          summary: 'config.json removed; the built-in defaults are in force',
        });
      }
      return { accepted: true, problems: [] };
    }
    if (!read.parsed.ok) {
      this.state = { ...this.state, problem: read.parsed.problems.join('\n') };
      this.log.warn('config.json refused; the previous policy stays in force', { problems: read.parsed.problems });
      this.onChange({ accepted: false, problems: read.parsed.problems, summary: 'refused' });
      return { accepted: false, problems: read.parsed.problems };
    }
    this.accept(read.parsed.config);
    this.onChange({ accepted: true, problems: [], summary: 'config.json reloaded' });
    return { accepted: true, problems: [] };
  }

  /** Follows edits to config.json (editors often replace the file, so the directory is watched). */
  watch(): void {
    if (this.watcher) return;
    const directory = path.dirname(this.file);
    const name = path.basename(this.file);
    try {
      this.watcher = fs.watch(directory, (_event, changed) => {
        if (changed !== name) return;
        clearTimeout(this.reloadTimer);
        this.reloadTimer = setTimeout(() => this.reloadFromWatcher(), 100);
      });
      this.watcher.on('error', (error) => this.log.warn('cannot watch config.json', { error: error.message }));
    } catch (error) {
      this.log.warn('cannot watch config.json; changes apply after a restart', { error: (error as Error).message });
    }
  }

  /** A reload nobody waits on: whatever goes wrong is logged, never thrown out of the timer (it would end the daemon). */
  private reloadFromWatcher(): void {
    try {
      this.reload();
    } catch (error) {
      this.log.error('could not apply a change of config.json; the policy in force stays', {
        error: (error as Error).message,
      });
    }
  }

  close(): void {
    clearTimeout(this.reloadTimer);
    this.watcher?.close();
    this.watcher = undefined;
  }

  projects(): ResolvedProject[] {
    const { projects } = this.state.config;
    const listed = Object.entries(projects.items).map(([id, project]) => view(id, project.name, project.approval));
    if (!listed.some((project) => project.id === projects.default_project)) listed.unshift(this.defaultProject());
    return listed;
  }

  /** The project with this id or name (case-insensitive), or the default project. */
  project(nameOrId?: string): ResolvedProject {
    if (nameOrId === undefined)
      return this.projectById(this.state.config.projects.default_project) ?? this.defaultProject();
    const wanted = nameOrId.toLowerCase();
    const found = this.projects().find(
      (project) => project.id.toLowerCase() === wanted || project.name.toLowerCase() === wanted,
    );
    if (!found) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `There is no project "${nameOrId}". Projects: ${this.projects()
          .map((project) => project.id)
          .join(', ')}.`,
      );
    }
    return found;
  }

  /**
   * Sets a project's policy to a template by editing config.json in place (other sections and
   * formatting stay as they were). Creates the project entry if the default one was implicit.
   */
  setTemplate(templateName: string, nameOrId?: string): ResolvedProject {
    const template = templateFromName(templateName);
    if (!template) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `Unknown template "${templateName}". Templates: ${TEMPLATE_IDS.map((id) => `${id} (${TEMPLATES[id].names['zh-CN']})`).join(', ')}.`,
      );
    }
    if (this.state.problem) {
      throw new AppError('CONFIG_INVALID', `config.json has problems; fix them first:\n${this.state.problem}`);
    }
    const project = this.project(nameOrId);
    const read = readConfigFile(this.file);
    if (read.kind === 'refused') throw new AppError('CONFIG_INVALID', `${read.problem}\nFix config.json first.`);
    const text = read.kind === 'read' ? read.text : '';
    const entry = projectConfigSchema.parse({ name: project.name, template, approval: TEMPLATES[template].policy });
    const edited = editJson(text, ['projects', 'items', project.id], entry, this.file);
    const parsed = parsePolicyConfig(edited, this.file);
    if (!parsed.ok) throw new AppError('CONFIG_INVALID', parsed.problems.join('\n'));
    writeFileAtomic(this.file, edited);
    this.accept(parsed.config);
    this.onChange({ accepted: true, problems: [], summary: `project ${project.id} set to ${template}` });
    return this.project(project.id);
  }

  private projectById(id: string): ResolvedProject | undefined {
    const project = this.state.config.projects.items[id];
    return project ? view(id, project.name, project.approval) : undefined;
  }

  private defaultProject(): ResolvedProject {
    const template = templateFromName(this.state.config.projects.default_approval_template) ?? 'development';
    return view(this.state.config.projects.default_project, 'Default', TEMPLATES[template].policy);
  }

  private initialState(): PolicyState {
    const read = this.readFile();
    if (read.kind === 'missing') return { config: defaults(), source: 'defaults' };
    if (read.parsed.ok) {
      this.remember(read.parsed.config);
      return { config: read.parsed.config, source: 'file' };
    }
    const problem = read.parsed.problems.join('\n');
    this.log.warn('config.json refused at start', { problems: read.parsed.problems });
    const lastGood = this.db.prepare('SELECT value FROM safety_state WHERE key = ?').pluck().get(LAST_GOOD_KEY) as
      string | undefined;
    if (lastGood) return { config: JSON.parse(lastGood) as PolicyConfig, source: 'last_good', problem };
    return { config: defaults(), source: 'defaults', problem };
  }

  private accept(config: PolicyConfig): void {
    this.state = { config, source: 'file' };
    this.remember(config);
  }

  /**
   * Keeps a copy of the policy in force, for a restart that finds config.json broken. When the
   * database cannot be written the copy waits for the next change: the policy in force is the
   * file's all the same, and what follows a change (the event that ends the terminals a narrower
   * policy no longer allows, the audit record) must not be skipped for want of a fallback copy.
   */
  private remember(config: PolicyConfig): void {
    try {
      this.db
        .prepare(
          'INSERT INTO safety_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        )
        .run(LAST_GOOD_KEY, JSON.stringify(config));
    } catch (error) {
      if (!storageHealth(this.db).noteFailure(error)) throw error;
      this.log.warn('could not keep a copy of the policy in force in the database; it is in force all the same', {
        error: (error as Error).message,
      });
    }
  }

  /** Never throws: a file that cannot be read or parsed is refused like one that does not validate. */
  private readFile(): { kind: 'missing' } | { kind: 'read'; parsed: ReturnType<typeof parsePolicyConfig> } {
    const read = readConfigFile(this.file);
    if (read.kind === 'missing') return read;
    if (read.kind === 'refused') return { kind: 'read', parsed: { ok: false, problems: [read.problem] } };
    try {
      return { kind: 'read', parsed: parsePolicyConfig(read.text, this.file) };
    } catch (error) {
      // Not expected (the parser refuses what it cannot handle); kept so no file can stop the daemon.
      return { kind: 'read', parsed: { ok: false, problems: [`${this.file}: not read: ${(error as Error).message}`] } };
    }
  }
}

function defaults(): PolicyConfig {
  const parsed = parsePolicyConfig('{}', 'defaults');
  if (!parsed.ok)
    throw new AppError('INTERNAL', `The built-in policy defaults are invalid: ${parsed.problems.join('; ')}`);
  return parsed.config;
}

function view(id: string, name: string, approval: ProjectApprovalPolicy): ResolvedProject {
  const template = TEMPLATE_IDS.find((candidate) => isDeepStrictEqual(TEMPLATES[candidate].policy, approval)) ?? null;
  return { id, name, template, approval };
}

/** Writes through a temporary file and a rename, so a crash never leaves half a config. */
export function writeFileAtomic(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text, { mode: 0o600 });
  fs.renameSync(temporary, file);
}
