import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { AppError, toAppError } from '@nextai/shared';

import type { RunOptions, RunResult } from '../core/subprocess.js';
import type { Browser } from './browsers.js';
import type { InstallPlan, RegistryOperation, UninstallPlan } from './plan.js';
import {
  mergeRecord,
  serializeInstallRecord,
  sha256,
  type InstallRecord,
  type RecordEntry,
  type RegistryRecordEntry,
} from './record.js';
import {
  REG_COMMAND,
  formatWindowsCommand,
  parseRegDefaultValue,
  regAddArgs,
  regDeleteArgs,
  regQueryArgs,
} from './registry.js';

/** `runCommand`'s signature; tests pass a fake that records the calls. */
export type CommandRunner = (command: string, args: readonly string[], options?: RunOptions) => Promise<RunResult>;

const RECORD_MODE = 0o600;

const MANIFEST_HINT = 'or leave this browser out with --browser (or name a profile directory with --user-data-dir)';
const DATA_HINT = 'or set NEXTAI_HOME to a data directory you can write to';

/**
 * Errors that mean "this location cannot be written": permissions, a read-only file system, a
 * file where a directory should be (ENOTDIR, EEXIST from mkdir) or the reverse (EISDIR), a full disk.
 */
const NOT_WRITABLE_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'EISDIR', 'ENOSPC', 'EDQUOT']);

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'a file is in the way of a directory',
  EISDIR: 'a directory is in the way of the file',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is exhausted',
};

/**
 * Writes files and registry keys and remembers how to undo each step, so that a failure part-way
 * leaves the machine as it was: overwritten files get their old content back, new files and the
 * directories created for them are removed, registry keys get their old value back or go.
 */
class InstallTransaction {
  private readonly files: { path: string; previous?: { content: Buffer; mode: number } }[] = [];
  private readonly registry: { key: string; existed: boolean; previous?: string }[] = [];
  readonly createdDirectories: string[] = [];

  constructor(private readonly run: CommandRunner) {}

  ensureDirectory(directory: string, forFile: string, hint: string): void {
    try {
      this.createdDirectories.push(...makeDirectory(directory));
    } catch (error) {
      throw notWritable(forFile, error, 'write', hint);
    }
  }

  writeFile(target: string, content: string, mode: number, hint: string): void {
    this.ensureDirectory(path.dirname(target), target, hint);
    try {
      const previous = readExisting(target);
      writeAtomically(target, content, mode);
      this.files.push(previous === undefined ? { path: target } : { path: target, previous });
    } catch (error) {
      throw notWritable(target, error, 'write', hint);
    }
  }

  async setRegistryValue(operation: RegistryOperation): Promise<void> {
    const previous = await queryDefaultValue(this.run, operation.key);
    try {
      await this.run(operation.command, operation.args);
    } catch (error) {
      throw registryError(operation.key, error);
    }
    this.registry.push({ key: operation.key, ...previous });
  }

  /** Undoes every step, newest first; returns what could not be undone. */
  async rollback(): Promise<string[]> {
    const problems: string[] = [];
    for (const entry of [...this.registry].reverse()) {
      try {
        // A key that existed without a string value keeps ours: there is no old value to put back.
        if (entry.previous !== undefined) await this.run(REG_COMMAND, regAddArgs(entry.key, entry.previous));
        else if (!entry.existed) await this.run(REG_COMMAND, regDeleteArgs(entry.key));
      } catch (error) {
        problems.push(`registry key ${entry.key}: ${toAppError(error).message}`);
      }
    }
    for (const file of [...this.files].reverse()) {
      try {
        if (file.previous === undefined) fs.rmSync(file.path, { force: true });
        else writeAtomically(file.path, file.previous.content, file.previous.mode);
      } catch (error) {
        problems.push(`${file.path}: ${toAppError(error).message}`);
      }
    }
    // A child's path is longer than its parent's, so this removes children first.
    for (const directory of [...this.createdDirectories].sort((a, b) => b.length - a.length)) {
      try {
        fs.rmdirSync(directory);
      } catch (error) {
        problems.push(`${directory}: ${toAppError(error).message}`);
      }
    }
    return problems;
  }
}

/** Applies an install plan and writes the record; on any failure, undoes everything and throws. */
export async function applyInstallPlan(
  plan: InstallPlan,
  options: { record: InstallRecord | undefined; recordPath: string; run: CommandRunner; now: Date },
): Promise<InstallRecord> {
  const transaction = new InstallTransaction(options.run);
  try {
    const entries: RecordEntry[] = [];
    for (const file of plan.files) {
      transaction.writeFile(file.path, file.content, file.mode, file.role === 'manifest' ? MANIFEST_HINT : DATA_HINT);
      entries.push({
        kind: 'file',
        role: file.role,
        path: file.path,
        sha256: sha256(file.content),
        ...(file.browser === undefined ? {} : { browser: file.browser }),
        ...(file.userDataDir === undefined ? {} : { userDataDir: file.userDataDir }),
      });
    }
    for (const operation of plan.registry) {
      await transaction.setRegistryValue(operation);
      entries.push({ kind: 'registry', key: operation.key, value: operation.value, browser: operation.browser });
    }
    // The record goes last, so it never lists something that was not written.
    transaction.ensureDirectory(path.dirname(options.recordPath), options.recordPath, DATA_HINT);
    const record = mergeRecord(options.record, entries, transaction.createdDirectories, options.now);
    transaction.writeFile(options.recordPath, serializeInstallRecord(record), RECORD_MODE, DATA_HINT);
    return record;
  } catch (error) {
    const problems = await transaction.rollback();
    throw withRollbackOutcome(toAppError(error), problems);
  }
}

function withRollbackOutcome(error: AppError, problems: string[]): AppError {
  const outcome =
    problems.length === 0
      ? ' Nothing was installed: what this run had written was removed again.'
      : ` Undoing this run's changes failed for: ${problems.join('; ')}. Remove those by hand.`;
  return new AppError(error.code, `${error.message}${outcome}`, {
    cause: error.cause ?? error,
    details: error.details,
  });
}

export type UninstallAction =
  | { type: 'remove'; role: 'launcher' | 'manifest'; path: string; browser?: Browser }
  | { type: 'registry-delete'; key: string; browser: Browser; command: string }
  | { type: 'remove-directory'; path: string }
  | { type: 'already-gone'; target: string; browser?: Browser }
  | { type: 'keep'; target: string; browser?: Browser; reason: string };

export interface UninstallFailure {
  target: string;
  message: string;
}

export interface UninstallOutcome {
  actions: UninstallAction[];
  failures: UninstallFailure[];
  /** The record after this run; `undefined` once nothing is left in it (the file is deleted). */
  record: InstallRecord | undefined;
}

/**
 * Removes what the plan selected — only files whose content is still what install wrote, only
 * registry keys that still point at the recorded manifest — then empty directories install had
 * created, then updates or deletes the record. With `dryRun` it only looks.
 */
export async function applyUninstallPlan(
  plan: UninstallPlan,
  options: { record: InstallRecord; recordPath: string; run: CommandRunner; now: Date; dryRun: boolean },
): Promise<UninstallOutcome> {
  const { run, dryRun } = options;
  const actions: UninstallAction[] = [];
  const failures: UninstallFailure[] = [];
  const stillOurs: RecordEntry[] = [...plan.remaining];

  for (const entry of plan.files) {
    const browser = entry.browser === undefined ? {} : { browser: entry.browser };
    let current: Buffer | undefined;
    try {
      current = readExisting(entry.path)?.content;
    } catch (error) {
      failures.push({ target: entry.path, message: notWritable(entry.path, error).message });
      stillOurs.push(entry);
      continue;
    }
    if (current === undefined) {
      actions.push({ type: 'already-gone', target: entry.path, ...browser });
    } else if (sha256(current) !== entry.sha256) {
      actions.push({ type: 'keep', target: entry.path, ...browser, reason: 'changed since `nextai install` wrote it' });
    } else {
      try {
        if (!dryRun) fs.unlinkSync(entry.path);
        actions.push({ type: 'remove', role: entry.role, path: entry.path, ...browser });
      } catch (error) {
        failures.push({ target: entry.path, message: notWritable(entry.path, error, 'remove').message });
        stillOurs.push(entry);
      }
    }
  }

  for (const entry of plan.registry) {
    const outcome = await removeRegistryEntry(entry, run, dryRun);
    if ('failure' in outcome) {
      failures.push(outcome.failure);
      stillOurs.push(entry);
    } else {
      actions.push(outcome.action);
    }
  }

  if (dryRun) return { actions, failures, record: options.record };

  const recordEmpty = stillOurs.length === 0;
  if (recordEmpty) {
    try {
      fs.rmSync(options.recordPath, { force: true });
    } catch (error) {
      failures.push({ target: options.recordPath, message: notWritable(options.recordPath, error, 'remove').message });
    }
  }
  const directoriesLeft: string[] = [];
  for (const directory of [...options.record.createdDirectories].sort((a, b) => b.length - a.length)) {
    const removed = removeEmptyDirectory(directory);
    if (removed === 'removed') actions.push({ type: 'remove-directory', path: directory });
    if (removed === 'kept') directoriesLeft.push(directory);
  }
  if (recordEmpty) return { actions, failures, record: undefined };

  const record = mergeRecord(undefined, stillOurs, directoriesLeft, options.now);
  try {
    writeAtomically(options.recordPath, serializeInstallRecord(record), RECORD_MODE);
  } catch (error) {
    failures.push({ target: options.recordPath, message: notWritable(options.recordPath, error).message });
  }
  return { actions, failures, record };
}

async function removeRegistryEntry(
  entry: RegistryRecordEntry,
  run: CommandRunner,
  dryRun: boolean,
): Promise<{ action: UninstallAction } | { failure: UninstallFailure }> {
  const { key, browser } = entry;
  let current: { existed: boolean; previous?: string };
  try {
    current = await queryDefaultValue(run, key);
  } catch (error) {
    return { failure: { target: key, message: toAppError(error).message } };
  }
  if (!current.existed) return { action: { type: 'already-gone', target: key, browser } };
  // Windows paths are case-insensitive; another install may have pointed the key elsewhere.
  if (current.previous?.toLowerCase() !== entry.value.toLowerCase()) {
    const now = current.previous ?? 'no value';
    return { action: { type: 'keep', target: key, browser, reason: `it points to ${now} now, not to our manifest` } };
  }
  const args = regDeleteArgs(key);
  try {
    if (!dryRun) await run(REG_COMMAND, args);
  } catch (error) {
    return { failure: { target: key, message: registryError(key, error, 'remove').message } };
  }
  return { action: { type: 'registry-delete', key, browser, command: formatWindowsCommand(REG_COMMAND, args) } };
}

/** `removed`, `gone` (it did not exist), or `kept` (not empty, or not removable). */
function removeEmptyDirectory(directory: string): 'removed' | 'gone' | 'kept' {
  try {
    fs.rmdirSync(directory);
    return 'removed';
  } catch (error) {
    // Not empty (ENOTEMPTY, or EEXIST on some systems) means something else lives there now:
    // it stays, and so does the record of having created it, for a later uninstall.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'kept';
  }
}

/**
 * The key's default value, or `existed: false` when `reg query` fails — it exits 1 for a missing
 * key, and its message is translated, so the exit status is all there is to go on.
 */
async function queryDefaultValue(run: CommandRunner, key: string): Promise<{ existed: boolean; previous?: string }> {
  try {
    const { stdout } = await run(REG_COMMAND, regQueryArgs(key));
    const previous = parseRegDefaultValue(stdout);
    return previous === undefined ? { existed: true } : { existed: true, previous };
  } catch (error) {
    if (error instanceof AppError && error.code === 'TOOL_FAILED') return { existed: false };
    throw error;
  }
}

/** Creates `directory` and its missing parents; returns the ones it created, deepest first. */
function makeDirectory(directory: string): string[] {
  const first = fs.mkdirSync(directory, { recursive: true });
  if (first === undefined) return [];
  const created: string[] = [];
  for (let current = directory; ; current = path.dirname(current)) {
    created.push(current);
    if (current === first || path.dirname(current) === current) return created;
  }
}

function readExisting(target: string): { content: Buffer; mode: number } | undefined {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  return { content: fs.readFileSync(target), mode: stat.mode & 0o7777 };
}

/** Writes next to the target and renames over it, so a reader never sees half a file. */
function writeAtomically(target: string, content: string | Buffer, mode: number): void {
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    fs.writeFileSync(temporary, content, { mode, flag: 'wx' });
    // The umask applies to the mode given at creation; the launcher must end up executable.
    fs.chmodSync(temporary, mode);
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

function notWritable(
  target: string,
  error: unknown,
  verb: 'write' | 'remove' = 'write',
  hint = 'then run the command again',
): AppError {
  if (error instanceof AppError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const offending = (error as NodeJS.ErrnoException).path;
  const where = offending && offending !== target ? ` (at ${offending})` : '';
  if (code === undefined || !NOT_WRITABLE_CODES.has(code)) {
    return new AppError('INTERNAL', `Cannot ${verb} ${target}: ${toAppError(error).message}`, { cause: error });
  }
  const directory = path.dirname(target);
  return new AppError(
    'NOT_WRITABLE',
    `Cannot ${verb} ${target}: ${REASONS[code] ?? code}${where}. Make sure ${directory} is a directory you own and ` +
      `can write to (move away whatever is in the way), ${hint}.`,
    { cause: error, details: { path: target, errno: code } },
  );
}

function registryError(key: string, error: unknown, verb: 'set' | 'remove' = 'set'): AppError {
  const appError = toAppError(error);
  if (appError.code !== 'TOOL_FAILED') return appError;
  return new AppError(
    'NOT_WRITABLE',
    `Cannot ${verb} the registry key ${key}: ${appError.message}. Check that your account may change HKEY_CURRENT_USER ` +
      '(a policy may block it).',
    { cause: error, details: { key } },
  );
}
