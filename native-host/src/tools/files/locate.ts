import fs from 'node:fs';

import { AppError, say } from '@nextai/shared';

import { isPathInside, pathApiFor } from '../../policy/guards/paths.js';
import { resolvePath } from '../../policy/guards/resolve.js';
import type { FileGuardVerdict, HostServices } from '../types.js';

/**
 * Where a file tool's path lands, judged again now. Resolved exactly as the policy's
 * file guard resolves it (policy/assess-env.ts: working directory = the home directory) — `~` and
 * relative paths from the home directory, `..` and every symlink followed (`real`) — and checked
 * again by that guard (NextAI's own files, the allowed directories and the call's grant, the
 * denied patterns): the policy decided on the path as it was, perhaps minutes ago, before a
 * person approved; a folder on the way may have been replaced by a link since. A path the guard
 * refuses now is POLICY_BLOCKED, and nothing is done.
 */
export function locate(
  services: HostServices,
  input: string,
  access: 'read' | 'write',
  nothingDone: string,
): { real: string } {
  const verdict = services.fileGuard.check(input, access);
  refuseUnlessAllowed(input, verdict, nothingDone);
  return { real: verdict.real };
}

/**
 * For operations on the name itself (delete, trash): the folders above it resolved, the last name
 * kept — so deleting a symlink removes the link, as `rm` does, not what it points to. The same
 * resolution and check the policy uses for delete_file (`followFinal: false`), `..` after a
 * symlink included.
 */
export function locateEntry(services: HostServices, input: string, nothingDone: string): string {
  const verdict = services.fileGuard.check(input, 'write', { followFinal: false });
  refuseUnlessAllowed(input, verdict, nothingDone);
  return verdict.real;
}

function refuseUnlessAllowed(input: string, verdict: FileGuardVerdict, nothingDone: string): void {
  if (verdict.allowed) return;
  const leads = verdict.real === input ? '' : ` ${input} now leads to ${verdict.real}.`;
  const reason = verdict.reason ?? say('NextAI may not use it.', 'NextAI 不能使用它。');
  throw new AppError(
    'POLICY_BLOCKED',
    say(
      `The path changed since it was approved (or the policy did):${leads} ${reason.en} Nothing was ${nothingDone}.`,
      `路径（或策略）在批准之后发生了变化：${leads ? `${input} 现在指向 ${verdict.real}。` : ''}${reason['zh-CN']} 没有进行任何操作。`,
    ),
    { details: { path: verdict.real, changed: true } },
  );
}

/** lstat/stat that answers undefined for "nothing there" and a clear AppError for the rest. */
export async function statOrUndefined(file: string, follow = true): Promise<fs.Stats | undefined> {
  try {
    return follow ? await fs.promises.stat(file) : await fs.promises.lstat(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw fsError(error, file);
  }
}

export function notFound(file: string, input: string): AppError {
  const shown = file === input ? file : `${input} (${file})`;
  return new AppError('NOT_FOUND', `${shown} does not exist. Check the path, or use file_search to find the file.`, {
    details: { path: file },
  });
}

/** A file-system error as an AppError that says what happened to which path. */
export function fsError(error: unknown, file: string, doing = 'access'): AppError {
  if (error instanceof AppError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const details = { path: file, code };
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new AppError('NOT_FOUND', `Cannot ${doing} ${file}: it (or a folder above it) does not exist.`, {
        cause: error,
        details,
      });
    case 'EACCES':
    case 'EPERM':
      return new AppError('PERMISSION_DENIED', `Cannot ${doing} ${file}: the system refused access (${code}).`, {
        cause: error,
        details,
      });
    case 'EROFS':
      return new AppError('NOT_WRITABLE', `Cannot ${doing} ${file}: it is on a read-only file system.`, {
        cause: error,
        details,
      });
    case 'ENOSPC':
    case 'EDQUOT':
      return new AppError('TOOL_FAILED', `Cannot ${doing} ${file}: the disk is full (${code}).`, {
        cause: error,
        details,
      });
    case 'EISDIR':
      return new AppError('INVALID_INPUT', `Cannot ${doing} ${file}: it is a directory.`, { cause: error, details });
    default:
      return new AppError('TOOL_FAILED', `Cannot ${doing} ${file}: ${(error as Error).message}`, {
        cause: error,
        details,
      });
  }
}

/**
 * Folders a deletion must never take, whatever the policy allows: the root, the home directory,
 * NextAI's data directory — and anything that contains one of them.
 */
export function refuseVital(services: HostServices, target: string): void {
  const { platform } = services;
  const api = pathApiFor(platform);
  const vital: { path: string; what: string }[] = [
    { path: api.parse(target).root, what: 'the root of the file system' },
    { path: services.homeDir, what: 'your home directory' },
    { path: services.paths.dataDir, what: "NextAI's data directory" },
  ];
  for (const entry of vital) {
    for (const spelling of spellings(services, entry.path)) {
      if (isPathInside(spelling, target, platform)) {
        const which = isPathInside(target, spelling, platform) ? 'is' : 'contains';
        throw new AppError(
          'PERMISSION_DENIED',
          `${target} ${which} ${entry.what}; NextAI never deletes that. Delete the files inside it one by one instead.`,
          { details: { path: target, protected: spelling } },
        );
      }
    }
  }
}

/** A folder as written and as it really is (home may be reached through a symlink). */
function spellings(services: HostServices, folder: string): string[] {
  try {
    const real = resolvePath(folder, services.homeDir, services.homeDir, services.platform).real;
    return real === folder ? [folder] : [folder, real];
  } catch {
    // Unresolvable (permissions): the spelling as written is still compared.
    return [folder];
  }
}
