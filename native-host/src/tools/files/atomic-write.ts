import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { AppError } from '@nextai/shared';

import { fsError } from './locate.js';
import { createExclusive, lstatOrUndefined, pathChanged, pinFolder, type PinnedFolder } from './pinned.js';

export interface AtomicWriteOptions {
  /** Create missing folders above the file. */
  createParents?: boolean;
  /** Test seam: runs after the temporary file is complete and synced, before it replaces the target. */
  beforeRename?: (temporary: string) => Promise<void> | void;
}

/**
 * Replaces `target` with `data` so that every reader sees either the old file or the new one,
 * never a mix, and a crash or a full disk leaves the old content: the data goes to a temporary
 * file in the same folder (same file system, so rename is atomic), is fsynced, renamed over the
 * target, and the folder is fsynced so the rename itself survives a power cut. An existing file
 * keeps its permission bits (and, when we may, its owner).
 *
 * `target` is a real path the file guard allowed (its last symlink already followed). The folder
 * is held open from before the temporary file is made until after the rename (pinned.ts), so the
 * file lands in the folder that was checked even if its path is re-pointed meanwhile; a symlink
 * that appears at the target's name is replaced, never followed; and a folder that was moved or
 * replaced is POLICY_BLOCKED before anything is renamed.
 */
export async function writeFileAtomic(target: string, data: Buffer, options: AtomicWriteOptions = {}): Promise<void> {
  const directory = path.dirname(target);
  const name = path.basename(target);
  let folder: PinnedFolder;
  try {
    folder = pinFolder(directory, 'written', options.createParents ?? false).folder;
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') throw fsError(enoent(), target, 'write');
    throw error;
  }
  try {
    const existing = lstatOrUndefined(folder.entry(name));
    if (existing?.isSymbolicLink()) {
      // The guard followed the last link already: a link here now was put here since.
      throw pathChanged(`${target} is now a symbolic link`, 'written');
    }
    if (existing && !existing.isFile()) {
      throw new AppError(
        'INVALID_INPUT',
        existing.isDirectory()
          ? `${target} is a directory; give the path of a file inside it.`
          : `${target} is a special file (a device, pipe or socket); only regular files are written.`,
        { details: { path: target } },
      );
    }
    // The dot-prefixed name keeps file managers and globs from showing it while it exists.
    const temporaryName = `.${name}.${randomBytes(6).toString('hex')}.tmp`;
    const temporary = path.join(directory, temporaryName);
    let handle: fs.promises.FileHandle;
    try {
      handle = await createExclusive(folder, temporaryName, existing ? existing.mode & 0o7777 : 0o666);
    } catch (error) {
      throw fsError(error, target, 'write');
    }
    try {
      try {
        await handle.writeFile(data);
        if (existing) {
          // open() applies the umask; the old file's exact bits are restored here.
          await handle.chmod(existing.mode & 0o7777);
          if (process.getuid?.() === 0 && (existing.uid !== 0 || existing.gid !== 0)) {
            await handle.chown(existing.uid, existing.gid);
          }
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      await options.beforeRename?.(temporary);
      // The last moment: the folder held must still be the folder the guard allowed.
      folder.verify();
      await fs.promises.rename(folder.entry(temporaryName), folder.entry(name));
    } catch (error) {
      // By name, a folder that is not where it was any more is left alone: its name may lead elsewhere.
      if (folder.reachable()) await fs.promises.rm(folder.entry(temporaryName), { force: true });
      throw fsError(error, target, 'write');
    }
    folder.sync();
  } finally {
    folder.close();
  }
}

function enoent(): NodeJS.ErrnoException {
  return Object.assign(new Error('no such folder'), { code: 'ENOENT' });
}

/**
 * Runs operations on the same file one after another, so two edits in flight do not read the
 * same old content and lose one of the changes.
 */
export class PathLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(file: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(file) ?? Promise.resolve();
    const result = previous.then(operation, operation);
    const tail = result.catch(() => undefined);
    this.tails.set(file, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(file) === tail) this.tails.delete(file);
    }
  }
}
