import fs from 'node:fs';

import { AppError, say, type Localized, type Platform, type SecurityConfig } from '@nextai/shared';
import picomatch from 'picomatch';

import type { GuardVerdict } from '../verdicts.js';
import { expandBraces, MAX_BRACE_EXPANSIONS } from './brace-expansion.js';
import {
  absoluteCwd,
  caseInsensitive,
  comparablePath,
  expandHome,
  globForm,
  globSubject,
  isPathInside,
  joinedPath,
  lexicalAbsolute,
  pathApiFor,
  selfAndAncestors,
  splitAbsolute,
} from './paths.js';
import { resolvePath, type ResolvedPath, type ResolveOptions } from './resolve.js';
import { compiledLocations, sensitivePathReason } from './sensitive.js';
import { expandGlob, globReach, isGlob, MAX_GLOB_MATCHES } from './shell-glob.js';

// Where the guards' index and the older path tests import the expansion from.
export { expandBraces } from './brace-expansion.js';
export { expandGlob, globReach, isGlob } from './shell-glob.js';

export interface FileGuardOptions {
  platform: Platform;
  homeDir: string;
  security: SecurityConfig;
  /** NextAI's own files and folders (data directory, manifests, service units): never touched by a tool call. */
  protectedPaths: string[];
}

export interface FileVerdict {
  allowed: boolean;
  /** Where the call would really land; tools should open this, not the path they were given. */
  real: string;
  layer?: 'protected_files' | 'filesystem';
  reason?: Localized;
  /** Set when the place is sensitive (start-up files, keys, credential stores…): the call is critical. */
  sensitive?: Localized;
}

/** A coordinator grant's narrowing; it can only take folders away. */
export interface FileRestrictions {
  allowed_directories?: string[] | undefined;
}

interface DeniedPattern {
  pattern: string;
  test: (subject: string) => boolean;
}

interface ProtectedHit {
  kind: 'inside' | 'ancestor' | 'hardlink';
  protectedPath: string;
}

/**
 * How long a resolved configured folder (allowed, granted, protected, home) is reused. Checks
 * come in bursts — every path of one shell command, the steps of a run — and resolving a dozen
 * folders each time would cost more than the check itself; a folder re-linked is seen within a second.
 */
const CONFIGURED_TTL_MS = 1000;

const OWN_FILES = say(
  "NextAI's own files (its configuration with your API keys, database, audit log, browser manifests or service units)",
  'NextAI 自身的文件（含 API 密钥的配置、数据库、审计日志、浏览器清单或服务单元）',
);

/**
 * Decides which files a tool call may read or write: only inside the allowed
 * directories, never matching a denied pattern, never NextAI's own files — all judged on the
 * real path, after `~`, the working directory, `..` and every symlink are resolved, also for
 * files that do not exist yet.
 *
 * The configured directories, protected paths and home folder are resolved again at most a
 * second apart (CONFIGURED_TTL_MS), so a folder created or re-linked after start-up is judged by
 * what it is now.
 */
export class FileGuard {
  readonly platform: Platform;
  readonly homeDir: string;
  private readonly security: SecurityConfig;
  private readonly protectedPaths: string[];
  private readonly denied: DeniedPattern[];
  /** Configured folders resolved recently (see CONFIGURED_TTL_MS). */
  private readonly configured = new Map<string, { at: number; real: string | undefined }>();

  constructor(options: FileGuardOptions) {
    this.platform = options.platform;
    if (options.homeDir.startsWith('~')) {
      throw new AppError('INVALID_INPUT', `The home folder must be an absolute path, not ${options.homeDir}.`);
    }
    // Validated like a working directory: absolute, with a drive or share on Windows.
    this.homeDir = pathApiFor(options.platform).resolve(absoluteCwd(options.homeDir, '/', options.platform));
    this.security = options.security;
    this.protectedPaths = options.protectedPaths.map((entry) =>
      lexicalAbsolute(entry, this.homeDir, this.homeDir, this.platform),
    );
    this.denied = options.security.denied_patterns.map((pattern) => this.compileDenied(pattern));
  }

  get maxFileSize(): number {
    return this.security.max_file_size;
  }

  /** `~`, the working directory, `..` and symlinks resolved; INVALID_INPUT for what is not a path. */
  resolve(path: string, cwd: string, options?: ResolveOptions): ResolvedPath {
    return resolvePath(path, cwd, this.homeDir, this.platform, options);
  }

  /**
   * Whether a file tool may read or write `path`, and where it would really land. With
   * `followFinal: false` a final symlink is judged where it is, not where it points: for tools
   * that act on the name (delete_file removes the link, not its target).
   */
  check(
    path: string,
    access: 'read' | 'write',
    cwd: string,
    restrictions?: FileRestrictions,
    options?: ResolveOptions,
  ): FileVerdict {
    let target: ResolvedPath;
    try {
      target = this.resolve(path, cwd, options);
    } catch (error) {
      if (error instanceof AppError && error.code === 'INVALID_INPUT') throw error;
      return {
        allowed: false,
        real: safeLexical(path, cwd, this.homeDir, this.platform),
        layer: 'filesystem',
        reason: cannotCheck(path, error),
      };
    }
    const { real } = target;
    const sensitive = this.sensitiveReason(target);
    const withSensitive = (verdict: FileVerdict): FileVerdict => (sensitive ? { ...verdict, sensitive } : verdict);

    const own = this.protectedHit(target, access, options?.followFinal ?? true);
    if (own) {
      return withSensitive({
        allowed: false,
        real,
        layer: 'protected_files',
        reason: protectedReason(path, target, own),
      });
    }

    const pattern = this.deniedMatch(target);
    if (pattern !== undefined) {
      return withSensitive({
        allowed: false,
        real,
        layer: 'filesystem',
        reason: say(
          `${describe(path, target)} matches the denied pattern "${pattern}" (security.denied_patterns).`,
          `${describe(path, target)} 匹配禁止的路径模式“${pattern}”（security.denied_patterns）。`,
        ),
      });
    }

    const allowed = this.security.allowed_directories;
    if (!this.insideAny(real, allowed)) {
      return withSensitive({
        allowed: false,
        real,
        layer: 'filesystem',
        reason: say(
          `${describe(path, target)} is outside the folders NextAI may use (${allowed.join(', ') || 'none'}). ` +
            'To allow it, add its folder to security.allowed_directories.',
          `${describe(path, target)} 不在 NextAI 可以使用的目录（${allowed.join(', ') || '无'}）中。` +
            '如要允许，请把它所在的目录加入 security.allowed_directories。',
        ),
      });
    }
    const granted = restrictions?.allowed_directories;
    if (granted !== undefined && !this.insideAny(real, granted)) {
      return withSensitive({
        allowed: false,
        real,
        layer: 'filesystem',
        reason: say(
          `${describe(path, target)} is outside the folders this task was granted (${granted.join(', ') || 'none'}).`,
          `${describe(path, target)} 不在这个任务获授权的目录（${granted.join(', ') || '无'}）中。`,
        ),
      });
    }
    return withSensitive({ allowed: true, real });
  }

  /**
   * For paths found in shell commands. Commands are not confined to the allowed directories
   * (only file tools are), so this speaks up only for NextAI's own files (blocked), sensitive
   * places and denied patterns (critical). Globs are judged by what they could match.
   */
  checkPath(path: string, access: 'read' | 'write', cwd: string): GuardVerdict | undefined {
    if (typeof path !== 'string' || path.length === 0) return undefined;
    if (!path.includes('{')) return this.checkOnePath(path, access, cwd);
    const expansions = expandBraces(path);
    if (expansions === undefined) {
      return critical(
        say(
          `${path} expands to more than ${MAX_BRACE_EXPANSIONS} paths; they cannot all be checked.`,
          `${path} 展开后超过 ${MAX_BRACE_EXPANSIONS} 个路径，无法逐一检查。`,
        ),
      );
    }
    let first: GuardVerdict | undefined;
    for (const expansion of expansions) {
      const verdict = this.checkOnePath(expansion, access, cwd);
      if (verdict?.block) return verdict;
      first ??= verdict;
    }
    return first;
  }

  private checkOnePath(path: string, access: 'read' | 'write', cwd: string): GuardVerdict | undefined {
    if (path.length === 0) return undefined;
    if (isGlob(path)) {
      try {
        return this.checkGlob(path, access, cwd);
      } catch (error) {
        return critical(cannotCheck(path, error));
      }
    }
    return this.checkLiteral(path, access, cwd);
  }

  /** A path taken as written (glob characters in it are part of a name). */
  private checkLiteral(path: string, access: 'read' | 'write', cwd: string): GuardVerdict | undefined {
    let target: ResolvedPath;
    try {
      target = this.resolve(path, cwd);
    } catch (error) {
      // `~name`, a NUL byte, a symlink loop, an unreadable folder: what it touches is unknown.
      return critical(cannotCheck(path, error));
    }
    return this.judgeForShell(path, target, access);
  }

  private judgeForShell(path: string, target: ResolvedPath, access: 'read' | 'write'): GuardVerdict | undefined {
    const own = this.protectedHit(target, access);
    if (own?.kind === 'ancestor') return critical(protectedReason(path, target, own));
    if (own) {
      return { block: true, risk: 'critical', layer: 'protected_files', reason: protectedReason(path, target, own) };
    }
    const sensitive = this.sensitiveReason(target);
    if (sensitive) {
      return critical(
        say(`${describe(path, target)} is ${sensitive.en}.`, `${describe(path, target)} 是${sensitive['zh-CN']}。`),
      );
    }
    const pattern = this.deniedMatch(target);
    if (pattern === undefined) return undefined;
    const reason = say(
      `${describe(path, target)} matches the denied pattern "${pattern}".`,
      `${describe(path, target)} 匹配禁止的路径模式“${pattern}”。`,
    );
    // Shell commands run anywhere; reading a denied place (say /etc/os-release) stays the
    // terminal's own high risk, writing one is critical. Sensitive places were handled above.
    return access === 'write' ? critical(reason) : { block: false, risk: 'high', layer: 'filesystem', reason };
  }

  private compileDenied(pattern: string): DeniedPattern {
    let expanded = pattern;
    try {
      expanded = expandHome(pattern, this.homeDir, this.platform);
    } catch {
      // `~name/…` cannot be expanded; kept as written it simply never matches a real path.
      expanded = pattern;
    }
    let glob = globForm(expanded, this.platform);
    // A pattern with a folder but no root (`secrets/*`) is meant wherever that folder is.
    if (glob.includes('/') && !glob.startsWith('/') && !/^[a-zA-Z]:\//.test(glob) && !glob.startsWith('**')) {
      glob = `**/${glob}`;
    }
    const globs = [glob];
    // The folder a pattern starts from may be a symlink (`/etc` is `/private/etc` on macOS; a
    // synced `~/.ssh`): the pattern also covers where it really is. Resolved once, when the
    // guard is built for a configuration.
    const { base, glob: rest } = picomatch.scan(glob);
    if (base && pathApiFor(this.platform).isAbsolute(base)) {
      const realBase = globForm(this.realOfInput(base), this.platform);
      if (comparablePath(realBase, this.platform) !== comparablePath(base, this.platform)) {
        globs.push(rest ? `${realBase.replace(/\/$/, '')}/${rest}` : realBase);
      }
    }
    // "Everything in X" (`X/*`, `X/**`) also covers X: listing, searching or deleting the folder
    // reaches everything in it.
    for (const each of [...globs]) {
      const folder = /^(.+)\/\*{1,2}$/.exec(each)?.[1];
      if (folder && folder !== '**') globs.push(folder);
    }
    // posix: `[!x]` negates a set, as in the shell and in .gitignore files.
    const options = { dot: true, nocase: caseInsensitive(this.platform), posix: true };
    if (!glob.includes('/')) {
      // A pattern without a folder (`*.pem`) is about the file name wherever it is. (picomatch's
      // own `basename` option would test only the name for every pattern, folders included.)
      const matchName = picomatch(glob, options);
      return { pattern, test: (subject) => matchName(subject.slice(subject.lastIndexOf('/') + 1)) };
    }
    const matcher = picomatch(globs, options);
    return { pattern, test: (subject) => matcher(subject) };
  }

  /** A pattern that matches the path or one of its folders (`~/.ssh/*` covers `~/.ssh/a/b`). */
  private deniedMatch(target: Pick<ResolvedPath, 'real' | 'absolute'>): string | undefined {
    for (const subject of new Set([target.real, target.absolute])) {
      for (const candidate of selfAndAncestors(subject, this.platform)) {
        const form = globSubject(candidate, this.platform);
        const hit = this.denied.find((denied) => denied.test(form));
        if (hit) return hit.pattern;
      }
    }
    return undefined;
  }

  private sensitiveReason(target: ResolvedPath): Localized | undefined {
    const realHome = this.realOf(this.homeDir);
    return (
      sensitivePathReason(target.real, this.homeDir, this.platform) ??
      (realHome !== this.homeDir ? sensitivePathReason(target.real, realHome, this.platform) : undefined) ??
      (target.absolute !== target.real ? sensitivePathReason(target.absolute, this.homeDir, this.platform) : undefined)
    );
  }

  /** Both spellings of each protected path: as configured and with its symlinks followed. */
  private protectedForms(): { configured: string; forms: string[] }[] {
    return this.protectedPaths.map((configured) => ({
      configured,
      forms: [...new Set([configured, this.realOf(configured)])],
    }));
  }

  private protectedHit(target: ResolvedPath, access: 'read' | 'write', followFinal = true): ProtectedHit | undefined {
    const subjects = [...new Set([target.real, target.absolute])];
    const protectedList = this.protectedForms();
    for (const { configured, forms } of protectedList) {
      if (forms.some((form) => subjects.some((subject) => isPathInside(subject, form, this.platform)))) {
        return { kind: 'inside', protectedPath: configured };
      }
    }
    if (access === 'write') {
      // Deleting, moving or replacing a folder changes everything inside it.
      for (const { configured, forms } of protectedList) {
        if (forms.some((form) => subjects.some((subject) => isPathInside(form, subject, this.platform)))) {
          return { kind: 'ancestor', protectedPath: configured };
        }
      }
    }
    return target.exists ? this.hardLinkHit(target.real, protectedList, followFinal) : undefined;
  }

  /**
   * A hard link is the same file under another name, so `ln ~/.nextai-agent/config.json
   * ~/Projects/x` would otherwise expose the API keys. Only files with more than one link are
   * compared, against the protected files and the files directly inside protected folders.
   */
  private hardLinkHit(
    real: string,
    protectedList: { configured: string; forms: string[] }[],
    followFinal: boolean,
  ): ProtectedHit | undefined {
    // A symlink kept as it is (followFinal false) is its own file: removing it leaves the target.
    const stat = followFinal ? statOrUndefined(real) : lstatOrUndefined(real);
    if (!stat?.isFile() || stat.nlink < 2) return undefined;
    const api = pathApiFor(this.platform);
    for (const { configured, forms } of protectedList) {
      const location = forms.at(-1) as string;
      const own = statOrUndefined(location);
      if (!own) continue;
      const candidates = own.isDirectory() ? listFiles(location).map((name) => api.join(location, name)) : [location];
      for (const candidate of candidates) {
        const other = candidate === location ? own : statOrUndefined(candidate);
        if (other && other.dev === stat.dev && other.ino === stat.ino) {
          return { kind: 'hardlink', protectedPath: configured };
        }
      }
    }
    return undefined;
  }

  /** Configured folders (allowed, granted) are taken from the home folder when relative — never from the caller's cwd. */
  private insideAny(real: string, directories: readonly string[]): boolean {
    return directories.some((directory) => {
      const root = this.configuredRoot(directory);
      return root !== undefined && isPathInside(real, root, this.platform);
    });
  }

  private configuredRoot(directory: string): string | undefined {
    const now = performance.now();
    const cached = this.configured.get(directory);
    if (cached && now - cached.at < CONFIGURED_TTL_MS) return cached.real;
    let real: string | undefined;
    try {
      real = resolvePath(directory, this.homeDir, this.homeDir, this.platform).real;
    } catch {
      // A directory that cannot be resolved (a loop, `~name`, unreadable) allows nothing.
      real = undefined;
    }
    // Grants bring folders of their own; the map stays small whatever they send.
    if (this.configured.size >= 256) this.configured.clear();
    this.configured.set(directory, { at: now, real });
    return real;
  }

  /** A configured path (protected, home) with its symlinks followed, or as written when that fails. */
  private realOf(absolute: string): string {
    // A path behind a symlink loop or an unreadable folder cannot be reached through it either;
    // its configured spelling is still compared.
    return this.configuredRoot(absolute) ?? absolute;
  }

  /** Like realOf, for paths that come from a call: resolved now, not remembered. */
  private realOfInput(absolute: string): string {
    try {
      return resolvePath(absolute, this.homeDir, this.homeDir, this.platform).real;
    } catch {
      // Unresolvable: the spelling is what the glob checks below compare.
      return absolute;
    }
  }

  /**
   * A glob is judged twice: by what it could ever match (compared name by name with NextAI's
   * files and the sensitive places, so files created later count too) and by what it matches
   * now, each match resolved like any path — a `*` may match a symlink that leads anywhere.
   */
  private checkGlob(path: string, access: 'read' | 'write', cwd: string): GuardVerdict | undefined {
    const api = pathApiFor(this.platform);
    const { root, segments } = splitAbsolute(joinedPath(path, cwd, this.homeDir, this.platform), this.platform);
    const firstGlob = segments.findIndex(isGlob);
    if (segments.slice(firstGlob + 1).includes('..')) {
      return critical(
        say(
          `${path} has .. after a pattern, which leads wherever a matching symlink points.`,
          `${path} 在通配符之后有 ..，会通向匹配的符号链接所指的任何地方。`,
        ),
      );
    }
    const baseRaw = root + segments.slice(0, firstGlob).join(api.sep);
    const rest = segments.slice(firstGlob).filter((segment) => segment !== '.');
    const physicalBase = this.realOfInput(baseRaw);
    const lexical = api.join(api.resolve(baseRaw), ...rest);
    const physical = api.join(physicalBase, ...rest);
    const split = [...new Set([lexical, physical])].map((glob) => splitAbsolute(glob, this.platform));

    for (const { configured, forms } of this.protectedForms()) {
      for (const form of forms) {
        const reach = split.map((glob) => globReach(glob, form, this.platform));
        if (reach.includes('inside')) {
          return {
            block: true,
            risk: 'critical',
            layer: 'protected_files',
            reason: say(
              `${path} can match ${configured}, one of ${OWN_FILES.en}; tool calls may not touch them.`,
              `${path} 可能匹配 ${configured}，它属于${OWN_FILES['zh-CN']}；工具调用不能碰它们。`,
            ),
          };
        }
        if (access === 'write' && reach.includes('ancestor')) {
          return critical(
            say(
              `${path} can match a folder that holds ${configured}, one of ${OWN_FILES.en}.`,
              `${path} 可能匹配包含 ${configured} 的目录，它属于${OWN_FILES['zh-CN']}。`,
            ),
          );
        }
      }
    }
    for (const home of new Set([this.homeDir, this.realOf(this.homeDir)])) {
      for (const location of compiledLocations(home, this.platform)) {
        if (split.some((glob) => globReach(glob, location, this.platform) === 'inside')) {
          return critical(
            say(`${path} can match ${location.reason.en}.`, `${path} 可能匹配${location.reason['zh-CN']}。`),
          );
        }
      }
    }

    const matches = expandGlob(physicalBase, rest, this.platform);
    if (matches === undefined) {
      return critical(
        say(
          `${path} matches more than ${MAX_GLOB_MATCHES} files or folders; they cannot all be checked.`,
          `${path} 匹配超过 ${MAX_GLOB_MATCHES} 个文件或目录，无法逐一检查。`,
        ),
      );
    }
    let first: GuardVerdict | undefined;
    for (const match of matches) {
      const verdict = match.plain
        ? this.judgeForShell(path, { input: path, absolute: match.path, real: match.path, exists: true }, access)
        : this.checkLiteral(match.path, access, cwd);
      if (verdict?.block) return verdict;
      first ??= verdict;
    }
    if (first) return first;

    const pattern = this.deniedMatch({ real: physical, absolute: lexical });
    if (pattern === undefined) return undefined;
    return critical(
      say(`${path} matches the denied pattern "${pattern}".`, `${path} 匹配禁止的路径模式“${pattern}”。`),
    );
  }
}

function critical(reason: Localized): GuardVerdict {
  return { block: false, risk: 'critical', layer: 'filesystem', reason };
}

function describe(path: string, target: ResolvedPath): string {
  return target.real === path ? path : `${path} (really ${target.real})`;
}

function protectedReason(path: string, target: ResolvedPath, hit: ProtectedHit): Localized {
  const where = describe(path, target);
  const own = hit.protectedPath;
  switch (hit.kind) {
    case 'inside':
      return say(
        `${where} is inside ${own}, one of ${OWN_FILES.en}; tool calls may not read or change them.`,
        `${where} 位于 ${own} 内，它属于${OWN_FILES['zh-CN']}；工具调用不能读取或修改它们。`,
      );
    case 'ancestor':
      return say(
        `${where} holds ${own}, one of ${OWN_FILES.en}; writing to it would change them.`,
        `${where} 包含 ${own}，它属于${OWN_FILES['zh-CN']}；写入它会改动这些文件。`,
      );
    case 'hardlink':
      return say(
        `${where} is a hard link to a file in ${own}, one of ${OWN_FILES.en}; tool calls may not read or change it.`,
        `${where} 是指向 ${own} 中文件的硬链接，它属于${OWN_FILES['zh-CN']}；工具调用不能读取或修改它。`,
      );
  }
}

function cannotCheck(path: string, error: unknown): Localized {
  const message = (error as Error).message;
  return say(`${path} cannot be checked: ${message}`, `无法检查 ${path}：${message}`);
}

function safeLexical(path: string, cwd: string, homeDir: string, platform: Platform): string {
  try {
    return lexicalAbsolute(path, cwd, homeDir, platform);
  } catch {
    // Only reached when resolve() failed for a reason other than the input; keep the text.
    return path;
  }
}

function statOrUndefined(location: string): fs.Stats | undefined {
  try {
    return fs.statSync(location);
  } catch {
    // Gone or unreadable: there is nothing to compare with.
    return undefined;
  }
}

function lstatOrUndefined(location: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(location);
  } catch {
    // Gone or unreadable: there is nothing to compare with.
    return undefined;
  }
}

function listFiles(directory: string): string[] {
  try {
    return fs.readdirSync(directory);
  } catch {
    // An unreadable protected folder: only the folder itself is compared.
    return [];
  }
}
