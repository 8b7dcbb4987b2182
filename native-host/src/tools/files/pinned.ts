import fs from 'node:fs';
import path from 'node:path';

import { AppError, say } from '@nextai/shared';

import { currentPlatform } from '../../core/current-platform.js';
import { procNamesOpenFolders } from '../../platform/linux/pinned-tree.js';
import { fsError } from './locate.js';

/**
 * Acting on the folder the policy judged, not on whatever its path names a moment later. The
 * policy checks a file call's real path when it decides; the call may then wait minutes
 * for a person, and a process the agent started can meanwhile move a folder on the way and put a
 * symlink in its place. The file tools therefore resolve and check the path again when they act
 * (locate.ts), and then:
 *
 * - hold the folder they change open (`PinnedFolder`, opened with O_NOFOLLOW | O_DIRECTORY, then
 *   confirmed to be the folder at that real path) and create, rename and delete *in that open
 *   folder*. Node has no openat(); on Linux `/proc/self/fd/<fd>/<name>` is the same thing — the
 *   kernel resolves it from the open folder, whatever its path names by then. Where there is no
 *   /proc (macOS, Windows) the path is used by name and the folder is confirmed again (no symlink
 *   on the way, same device and inode) immediately before each change: a window of a few system
 *   calls instead of minutes.
 * - never follow a symlink in the last name: the guard resolved the last link already, so a link
 *   there now is a new one (O_NOFOLLOW on opens, lstat on names; rename replaces a link itself).
 * - open files to read them with O_NOFOLLOW, confirm the open file is the one at the real path,
 *   and read from that handle.
 *
 * Every refusal here is POLICY_BLOCKED: "the path changed since it was approved".
 */

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
/** 0 where the platform has no such flag (Windows). */
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** How folders are pinned here; tests switch `viaProc` off to exercise the by-name way on Linux. */
export const pinning = {
  /** Linux with a /proc that names open folders: operations go through /proc/self/fd/<fd>/<name>. */
  viaProc: currentPlatform() === 'linux' && procNamesOpenFolders(),
};

/** POLICY_BLOCKED: what was judged is not what is there now; nothing was done. */
export function pathChanged(detail: string, nothingDone: string): AppError {
  return new AppError(
    'POLICY_BLOCKED',
    say(
      `The path changed since it was approved: ${detail}. Nothing was ${nothingDone}; look at the folder again before retrying.`,
      `路径在批准之后发生了变化：${detail}。没有进行任何${nothingDone === 'read' ? '读取' : '更改'}；请先重新查看该文件夹再重试。`,
    ),
    { details: { changed: true } },
  );
}

/** Whether no name on the way to `target` (itself included) is a symlink now. */
function symlinkFree(target: string): boolean {
  const { root } = path.parse(target);
  const names = target.slice(root.length).split(path.sep).filter(Boolean);
  let current = root;
  for (const name of names) {
    current = path.join(current, name);
    try {
      if (fs.lstatSync(current).isSymbolicLink()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function sameFile(a: fs.Stats, b: fs.Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Where the open descriptor `fd` is now, as the kernel names it (Linux). */
function procPath(fd: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * A folder held open at the real path the guard allowed. `entry(name)` is how to reach a name
 * inside *this* folder; `verify()` confirms the folder is still at its path.
 */
export class PinnedFolder {
  private constructor(
    /** The real path it was opened at (and is shown by). */
    readonly path: string,
    private readonly fd: number | undefined,
    private readonly identity: fs.Stats,
    private readonly nothingDone: string,
  ) {}

  /**
   * Opens `folder` — a path with no symlink on the way, as the guard resolved it — and confirms
   * what was opened is the folder at that path. A symlink anywhere on the way now is POLICY_BLOCKED;
   * a missing folder NOT_FOUND; a file in the way INVALID_INPUT.
   */
  static open(folder: string, nothingDone: string): PinnedFolder {
    return PinnedFolder.at(folder, folder, nothingDone);
  }

  /** Opens `through` (a path that reaches the folder, perhaps via an open parent) and names it `shown`. */
  private static at(through: string, shown: string, nothingDone: string): PinnedFolder {
    let fd: number | undefined;
    let identity: fs.Stats;
    try {
      if (currentPlatform() === 'windows') {
        // Folders cannot be opened on Windows: held by identity only, confirmed before each change.
        identity = fs.lstatSync(through);
        if (identity.isSymbolicLink()) throw pathChanged(`${shown} is now a link`, nothingDone);
        if (!identity.isDirectory()) throw notAFolder(shown);
      } else {
        fd = fs.openSync(through, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        identity = fs.fstatSync(fd);
      }
    } catch (error) {
      if (error instanceof AppError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'ENOTDIR') {
        // A symlink where the guard saw a folder (O_NOFOLLOW), or something that is no folder.
        const now = lstatOrUndefined(through);
        if (now?.isSymbolicLink()) {
          throw pathChanged(`${shown} is now a symbolic link (to ${readLinkOr(through)})`, nothingDone);
        }
        if (code === 'ENOTDIR' && now && !now.isDirectory()) throw notAFolder(shown);
        // ENOTDIR from a name above it: a file (or a new link) on the way.
        if (code === 'ENOTDIR') throw notAFolder(path.dirname(shown));
      }
      throw fsError(error, shown, 'open the folder');
    }
    const pinned = new PinnedFolder(shown, fd, identity, nothingDone);
    try {
      pinned.verify();
    } catch (error) {
      pinned.close();
      throw error;
    }
    return pinned;
  }

  /** How to reach `name` in this very folder (Linux: through its descriptor). */
  entry(name: string): string {
    if (name.includes('/') || name.includes(path.sep) || name === '..' || name === '.' || name === '') {
      throw new AppError('INTERNAL', `Not a single name: ${JSON.stringify(name)}.`);
    }
    return pinning.viaProc && this.fd !== undefined ? `/proc/self/fd/${this.fd}/${name}` : path.join(this.path, name);
  }

  /**
   * A path that names this very folder (Linux: /proc/self/fd/<fd>); names joined to it are found
   * in this folder, whatever its path names by then. Elsewhere its path.
   */
  base(): string {
    return pinning.viaProc && this.fd !== undefined ? `/proc/self/fd/${this.fd}` : this.path;
  }

  /** The folder `name` inside this one, pinned in turn (never through a symlink). */
  child(name: string): PinnedFolder {
    return PinnedFolder.at(this.entry(name), path.join(this.path, name), this.nothingDone);
  }

  /** Throws POLICY_BLOCKED unless the folder held is (still) the one at `path`, reached without symlinks. */
  verify(): void {
    if (pinning.viaProc && this.fd !== undefined) {
      const now = procPath(this.fd);
      if (now !== this.path) {
        throw pathChanged(
          `the folder ${this.path} was moved or replaced${now ? ` (the folder that was there is now ${now.replace(/ \(deleted\)$/, ', deleted')})` : ''}`,
          this.nothingDone,
        );
      }
      return;
    }
    let current: fs.Stats | undefined;
    try {
      current = fs.statSync(this.path);
    } catch {
      current = undefined;
    }
    if (!current || !sameFile(current, this.identity) || !symlinkFree(this.path)) {
      throw pathChanged(`the folder ${this.path} was moved or replaced (a symlink on the way?)`, this.nothingDone);
    }
  }

  /** Whether `entry()` reaches this folder now (always through its descriptor; by name only while verify() passes). */
  reachable(): boolean {
    if (pinning.viaProc && this.fd !== undefined) return true;
    try {
      this.verify();
      return true;
    } catch {
      return false;
    }
  }

  /** fsync of the folder, so a rename in it survives a power cut (not possible on Windows). */
  sync(): void {
    if (this.fd === undefined) return;
    try {
      fs.fsyncSync(this.fd);
    } catch (error) {
      // Some file systems (certain FUSE and network mounts) do not support fsync on a folder.
      if (!['EINVAL', 'ENOTSUP', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      // Already closed: nothing is held any more, which is what closing is for.
    }
  }
}

/**
 * Pins `folder`, creating the folders missing on the way when `create` is set — one at a time,
 * each inside the one pinned above it, so a symlink slipped in between cannot send the creation
 * elsewhere. Resolves with the folder and the first folder that had to be created.
 */
export function pinFolder(
  folder: string,
  nothingDone: string,
  create = false,
): { folder: PinnedFolder; firstCreated?: string } {
  const missing: string[] = [];
  let existing = folder;
  for (;;) {
    const stats = lstatOrUndefined(existing);
    if (stats) break;
    const parent = path.dirname(existing);
    if (parent === existing) break;
    missing.unshift(path.basename(existing));
    existing = parent;
  }
  if (missing.length > 0 && !create) {
    throw new AppError('NOT_FOUND', `The folder ${folder} does not exist.`, { details: { path: folder } });
  }
  let pinned = PinnedFolder.open(existing, nothingDone);
  let firstCreated: string | undefined;
  for (const name of missing) {
    try {
      fs.mkdirSync(pinned.entry(name));
      firstCreated ??= path.join(pinned.path, name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        pinned.close();
        throw fsError(error, path.join(pinned.path, name), 'create the folder');
      }
    }
    let next: PinnedFolder;
    try {
      next = pinned.child(name);
    } finally {
      pinned.close();
    }
    pinned = next;
  }
  return { folder: pinned, ...(firstCreated ? { firstCreated } : {}) };
}

/**
 * Opens the file at `real` (the guard's real path, its last link already followed) for reading:
 * never through a new symlink, never blocking on a pipe put in its place, and confirmed to be the
 * file at that path. Read from the handle, not by name.
 */
export async function openFileForReading(real: string): Promise<fs.promises.FileHandle> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    throw openFailure(error, real);
  }
  try {
    confirmOpenFile(handle.fd, await handle.stat(), real);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** openFileForReading for callers that cannot wait (browser_interact's upload); the caller closes the descriptor. */
export function openFileForReadingSync(real: string): number {
  let fd: number;
  try {
    fd = fs.openSync(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    throw openFailure(error, real);
  }
  try {
    confirmOpenFile(fd, fs.fstatSync(fd), real);
    return fd;
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

function openFailure(error: unknown, real: string): AppError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || (code === 'ENOTDIR' && lstatOrUndefined(real)?.isSymbolicLink())) {
    return pathChanged(`${real} is now a symbolic link (to ${readLinkOr(real)})`, 'read');
  }
  return fsError(error, real, 'read');
}

/** Throws POLICY_BLOCKED unless the open descriptor is the file at `real`, reached without symlinks. */
function confirmOpenFile(fd: number, held: fs.Stats, real: string): void {
  let same: boolean;
  if (pinning.viaProc) {
    same = procPath(fd) === real;
  } else {
    let current: fs.Stats | undefined;
    try {
      current = fs.statSync(real);
    } catch {
      current = undefined;
    }
    same = current !== undefined && sameFile(current, held) && symlinkFree(real);
  }
  if (!same) throw pathChanged(`${real} was moved or replaced (a symlink on the way?)`, 'read');
}

/** Creates `name` in `folder` for writing; fails if anything (a symlink included) is there. */
export function createExclusive(folder: PinnedFolder, name: string, mode: number): Promise<fs.promises.FileHandle> {
  return fs.promises.open(folder.entry(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
}

export function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

function readLinkOr(file: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return 'somewhere else';
  }
}

function notAFolder(file: string): AppError {
  return new AppError('INVALID_INPUT', `A file is in the way: ${file} is not a folder.`, { details: { path: file } });
}
