import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { currentPlatform } from '../../platform/current.js';
import { fsError } from './locate.js';

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
 */
export async function writeFileAtomic(target: string, data: Buffer, options: AtomicWriteOptions = {}): Promise<void> {
  const directory = path.dirname(target);
  if (options.createParents) {
    try {
      await fs.promises.mkdir(directory, { recursive: true });
    } catch (error) {
      throw fsError(error, directory, 'create the folder');
    }
  }
  let existing: fs.Stats | undefined;
  try {
    existing = await fs.promises.stat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fsError(error, target, 'write');
  }
  // The dot-prefixed name keeps file managers and globs from showing it while it exists.
  const temporary = path.join(directory, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(temporary, 'wx', existing ? existing.mode & 0o7777 : 0o666);
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
    await fs.promises.rename(temporary, target);
  } catch (error) {
    await fs.promises.rm(temporary, { force: true });
    throw fsError(error, target, 'write');
  }
  await syncDirectory(directory);
}

/** fsync of a folder makes a rename in it durable. Windows cannot open folders; there rename is journaled. */
async function syncDirectory(directory: string): Promise<void> {
  if (currentPlatform() === 'windows') return;
  const handle = await fs.promises.open(directory, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems (certain FUSE and network mounts) do not support fsync on a folder.
    if (!['EINVAL', 'ENOTSUP', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle.close();
  }
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
