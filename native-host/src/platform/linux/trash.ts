import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AppError } from '@nextai/shared';

import type { TrashAdapter } from '../desktop.js';

export interface LinuxTrashOptions {
  /** The user whose top-directory trash ($topdir/.Trash-$uid) is used. */
  uid?: number;
  /** The clock for DeletionDate. */
  now?: () => Date;
}

/**
 * The freedesktop.org Trash specification 1.0, as GNOME Files, Dolphin and `gio trash` read it.
 *
 * A file on the same file system as the home trash ($XDG_DATA_HOME/Trash, by default
 * ~/.local/share/Trash) goes there, with its absolute path in the .trashinfo. A file on another
 * file system goes to that file system's top-directory trash — `$topdir/.Trash/$uid` when an
 * administrator made `$topdir/.Trash` (a real folder with the sticky bit), else `$topdir/.Trash-$uid`
 * — with its path relative to $topdir, so the trash still works when the disk is mounted
 * elsewhere. When neither can be used (a read-only or foreign disk), or a rename across mounts
 * still fails (bind mounts), the file is copied into the home trash and then removed: slower,
 * but it stays restorable. The optional `directorysizes` cache is not written (file managers
 * compute sizes when it is absent).
 *
 * The .trashinfo is created first with O_EXCL, which is how two programs trashing files of the
 * same name at once each get their own name (`name.ext`, then `name.2.ext`, `name.3.ext`…).
 */
export function createLinuxTrash(
  env: NodeJS.ProcessEnv = process.env,
  homeDir: string = os.homedir(),
  options: LinuxTrashOptions = {},
): TrashAdapter {
  const uid = options.uid ?? process.getuid?.() ?? 0;
  const now = options.now ?? (() => new Date());
  return {
    moveToTrash: async (absolutePath, moveOptions) => {
      const trashedTo = await moveToTrash(absolutePath, moveOptions?.via, {
        homeTrash: homeTrashDirectory(env, homeDir),
        uid,
        now,
      });
      return { trashedTo };
    },
  };
}

/** $XDG_DATA_HOME/Trash; XDG says a relative XDG_DATA_HOME is invalid and must be ignored. */
export function homeTrashDirectory(env: NodeJS.ProcessEnv, homeDir: string): string {
  const dataHome = env.XDG_DATA_HOME?.trim();
  const base = dataHome && path.isAbsolute(dataHome) ? dataHome : path.join(homeDir, '.local', 'share');
  return path.join(base, 'Trash');
}

interface TrashContext {
  homeTrash: string;
  uid: number;
  now: () => Date;
}

/**
 * `file` is the path recorded (and shown); `via`, when given, is the way to the very same entry
 * that is moved (its open folder's /proc/self/fd/<n>/<name>), so a folder re-pointed meanwhile
 * cannot make something else go to the trash.
 */
async function moveToTrash(file: string, via: string | undefined, context: TrashContext): Promise<string> {
  if (!path.isAbsolute(file)) throw new AppError('INVALID_INPUT', `The trash takes absolute paths, not ${file}.`);
  const source = path.resolve(file);
  const moved = via ?? source;
  let stats: fs.Stats;
  try {
    stats = await fs.promises.lstat(moved);
  } catch (error) {
    throw new AppError('NOT_FOUND', `${source} does not exist, so there is nothing to move to the trash.`, {
      cause: error,
    });
  }
  if (source === path.parse(source).root)
    throw new AppError('PERMISSION_DENIED', 'The root folder cannot go to the trash.');
  await ensureTrash(context.homeTrash, `the trash folder ${context.homeTrash}`);
  if (isInside(source, context.homeTrash) || isInside(context.homeTrash, source)) {
    throw new AppError(
      'INVALID_INPUT',
      `${source} is the trash or is already in it (${context.homeTrash}). Empty it from the file manager, or delete it with permanent: true.`,
    );
  }
  const homeDevice = (await fs.promises.stat(context.homeTrash)).dev;
  if (stats.dev === homeDevice) return trashInto(context.homeTrash, { moved, shown: source }, source, context.now);

  const topdir = await mountTop(source, stats.dev);
  const topTrash = await topdirTrash(topdir, context.uid);
  if (topTrash !== undefined) {
    if (isInside(source, topTrash)) {
      throw new AppError('INVALID_INPUT', `${source} is already in the trash of its disk (${topTrash}).`);
    }
    return trashInto(topTrash, { moved, shown: source }, path.relative(topdir, source), context.now);
  }
  // No usable trash on that disk: copied into the home trash, where it is just as restorable.
  return trashInto(context.homeTrash, { moved, shown: source }, source, context.now);
}

/** `files/` and `info/` exist in `trash` (created 0700, as the spec asks), or a clear error. */
async function ensureTrash(trash: string, what: string): Promise<void> {
  try {
    await fs.promises.mkdir(path.join(trash, 'files'), { recursive: true, mode: 0o700 });
    await fs.promises.mkdir(path.join(trash, 'info'), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new AppError('TOOL_FAILED', `Cannot create ${what}: ${(error as Error).message}`, { cause: error });
  }
}

const INFO_SUFFIX = '.trashinfo';
/** NAME_MAX of Linux file systems, in bytes; the .trashinfo name must fit too. */
const NAME_MAX = 255;

async function trashInto(
  trash: string,
  { moved: source, shown }: { moved: string; shown: string },
  recordedPath: string,
  now: () => Date,
): Promise<string> {
  await ensureTrash(trash, `the trash folder ${trash}`);
  const base = fitName(path.basename(recordedPath));
  for (let attempt = 1; attempt < 100_000; attempt += 1) {
    const name = attempt === 1 ? base : numberedName(base, attempt);
    const infoFile = path.join(trash, 'info', `${name}${INFO_SUFFIX}`);
    const destination = path.join(trash, 'files', name);
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(infoFile, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new AppError('TOOL_FAILED', `Cannot write ${infoFile}: ${(error as Error).message}`, { cause: error });
    }
    try {
      // A leftover in files/ without its .trashinfo (another program crashed) keeps its name.
      if (await exists(destination)) {
        await handle.close();
        await fs.promises.rm(infoFile, { force: true });
        continue;
      }
      await handle.writeFile(trashInfo(recordedPath, now()));
      await handle.sync();
      await handle.close();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.promises.rm(infoFile, { force: true });
      throw new AppError('TOOL_FAILED', `Cannot write ${infoFile}: ${(error as Error).message}`, { cause: error });
    }
    try {
      await moveAcross(source, destination);
    } catch (error) {
      await fs.promises.rm(infoFile, { force: true });
      const code = (error as NodeJS.ErrnoException).code;
      throw new AppError(
        code === 'EACCES' || code === 'EPERM' ? 'PERMISSION_DENIED' : 'TOOL_FAILED',
        `Cannot move ${shown} to the trash (${destination}): ${(error as Error).message}`,
        { cause: error, details: { path: shown, code } },
      );
    }
    return destination;
  }
  throw new AppError('TOOL_FAILED', `The trash ${trash} has no free name left for ${base}.`);
}

/** rename, or for another file system (EXDEV) a copy that is removed from its old place once complete. */
async function moveAcross(source: string, destination: string): Promise<void> {
  try {
    await fs.promises.rename(source, destination);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  try {
    await fs.promises.cp(source, destination, {
      recursive: true,
      errorOnExist: true,
      force: false,
      preserveTimestamps: true,
      verbatimSymlinks: true,
    });
  } catch (error) {
    await fs.promises.rm(destination, { recursive: true, force: true });
    throw error;
  }
  await fs.promises.rm(source, { recursive: true, force: false });
}

/** The .trashinfo text: Path percent-encoded per segment (RFC 2396), DeletionDate in local time. */
export function trashInfo(recordedPath: string, date: Date): string {
  const encoded = recordedPath
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
  return `[Trash Info]\nPath=${encoded}\nDeletionDate=${localTimestamp(date)}\n`;
}

/** YYYY-MM-DDThh:mm:ss in the local time zone, as the specification asks (no zone suffix). */
export function localTimestamp(date: Date): string {
  const two = (value: number) => String(value).padStart(2, '0');
  return (
    `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}` +
    `T${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`
  );
}

/** `report.pdf` → `report.2.pdf`; names without an extension (or dotfiles) → `name.2`. */
export function numberedName(base: string, number: number): string {
  const extension = path.extname(base);
  if (extension === '' || extension === base) return `${base}.${number}`;
  return `${base.slice(0, -extension.length)}.${number}${extension}`;
}

/** Shortens a name so that it, a counter and `.trashinfo` still fit in NAME_MAX bytes. */
function fitName(name: string): string {
  const room = NAME_MAX - INFO_SUFFIX.length - 8;
  if (Buffer.byteLength(name) <= room) return name;
  const extension = path.extname(name).slice(0, 16);
  let stem = name.slice(0, name.length - extension.length);
  while (Buffer.byteLength(stem + extension) > room) stem = [...stem].slice(0, -1).join('');
  return stem + extension;
}

/** The top folder of the file system `file` is on (its mount point). */
async function mountTop(file: string, device: number): Promise<string> {
  let current = path.dirname(file);
  for (;;) {
    const parent = path.dirname(current);
    if (parent === current) return current;
    const stats = await fs.promises.lstat(parent);
    if (stats.dev !== device) return current;
    current = parent;
  }
}

/**
 * The trash of a top folder, per the spec's two methods, or undefined when neither can be used.
 * (1) `$topdir/.Trash` made by an administrator: a real folder with the sticky bit, not a symlink;
 * our `$uid` folder in it. (2) `$topdir/.Trash-$uid`, created if missing; it must be a real folder
 * of ours. A `.Trash` that fails the checks must not be used (it could be someone's trap).
 */
async function topdirTrash(topdir: string, uid: number): Promise<string | undefined> {
  const shared = path.join(topdir, '.Trash');
  const sharedStats = await fs.promises.lstat(shared).catch(() => undefined);
  if (sharedStats?.isDirectory() && (sharedStats.mode & 0o1000) !== 0) {
    const mine = path.join(shared, String(uid));
    if (await usableOwnFolder(mine, uid)) return mine;
  }
  const personal = path.join(topdir, `.Trash-${uid}`);
  return (await usableOwnFolder(personal, uid)) ? personal : undefined;
}

async function usableOwnFolder(folder: string, uid: number): Promise<boolean> {
  try {
    await fs.promises.mkdir(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  const stats = await fs.promises.lstat(folder).catch(() => undefined);
  if (!stats?.isDirectory() || stats.uid !== uid) return false;
  try {
    await ensureTrash(folder, folder);
    return true;
  } catch {
    return false;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.promises.lstat(file);
    return true;
  } catch {
    return false;
  }
}

function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (relative !== '..' && !relative.startsWith('../') && !path.isAbsolute(relative));
}
