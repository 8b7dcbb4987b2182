import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { AppError } from '@nextai/shared';

import type { TrashAdapter } from '../desktop.js';
import { OpenFolder, copyTree, removeTree } from './pinned-tree.js';

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
  if (stats.dev === homeDevice) return trashIntoHome(context, { moved, shown: source }, source);

  const top = await mountTop(moved, source, stats.dev);
  let topdir: string;
  let topTrash: PinnedTrash | undefined;
  try {
    topdir = fs.readlinkSync(`/proc/self/fd/${top.fd}`);
    topTrash = await topdirTrash(top, topdir, context.uid);
  } finally {
    top.close();
  }
  if (topTrash !== undefined) {
    try {
      if (isInside(source, topTrash.path)) {
        throw new AppError('INVALID_INPUT', `${source} is already in the trash of its disk (${topTrash.path}).`);
      }
      return await trashInto(topTrash, { moved, shown: source }, path.relative(topdir, source), context.now);
    } finally {
      topTrash.close();
    }
  }
  // No usable trash on that disk: copied into the home trash, where it is just as restorable.
  return trashIntoHome(context, { moved, shown: source }, source);
}

async function trashIntoHome(
  context: TrashContext,
  entry: { moved: string; shown: string },
  recordedPath: string,
): Promise<string> {
  await ensureTrash(context.homeTrash, `the trash folder ${context.homeTrash}`);
  // The home trash is the daemon's own user's, whichever top-directory trash `uid` names.
  const trash = await pinTrash(context.homeTrash, process.getuid?.() ?? context.uid);
  if (typeof trash === 'string') {
    throw new AppError(
      'PERMISSION_DENIED',
      `The trash ${context.homeTrash} cannot be used safely: ${trash}. Nothing was moved; fix the trash folder, or delete with permanent: true.`,
    );
  }
  try {
    return await trashInto(trash, entry, recordedPath, context.now);
  } finally {
    trash.close();
  }
}

/**
 * A trash folder with its `files/` and `info/` held open, so what goes in lands there even if a
 * name on the way is replaced meanwhile: on a disk others (or the agent's commands)
 * can write to, `files/` could otherwise be a link to a folder the person keeps private.
 */
interface PinnedTrash {
  path: string;
  files: OpenFolder;
  info: OpenFolder;
  close(): void;
}

/**
 * Opens `trash`, `trash/files` and `trash/info` without following links and checks each is a
 * folder of `uid` that no one else may write to; the reason when not.
 */
async function pinTrash(trash: string, uid: number, shown: string = trash): Promise<PinnedTrash | string> {
  const opened: OpenFolder[] = [];
  const close = () => {
    for (const folder of opened) folder.close();
  };
  const fail = (reason: string): string => {
    close();
    return reason;
  };
  try {
    const top = await OpenFolder.open(trash, shown);
    opened.push(top);
    for (const name of ['files', 'info']) {
      // Made inside the open trash folder: never through a link put in its place.
      await fs.promises.mkdir(top.entry(name), { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      opened.push(await OpenFolder.open(top.entry(name), path.join(shown, name)));
    }
    for (const folder of opened) {
      const stats = folder.stat();
      if (stats.uid !== uid) return fail(`${folder.shown} belongs to another user (uid ${stats.uid})`);
      if ((stats.mode & 0o022) !== 0) return fail(`others may write to ${folder.shown}`);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return fail(
      code === 'ELOOP' || code === 'ENOTDIR'
        ? `a name in it is a symbolic link or not a folder (${(error as Error).message})`
        : (error as Error).message,
    );
  }
  const [, files, info] = opened as [OpenFolder, OpenFolder, OpenFolder];
  return { path: shown, files, info, close };
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
/** A new file, never through a link in its last name. */
const WRITE_NEW = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);
/** NAME_MAX of Linux file systems, in bytes; the .trashinfo name must fit too. */
const NAME_MAX = 255;

async function trashInto(
  trash: PinnedTrash,
  { moved: source, shown }: { moved: string; shown: string },
  recordedPath: string,
  now: () => Date,
): Promise<string> {
  const base = fitName(path.basename(recordedPath));
  for (let attempt = 1; attempt < 100_000; attempt += 1) {
    const name = attempt === 1 ? base : numberedName(base, attempt);
    const infoName = `${name}${INFO_SUFFIX}`;
    const infoFile = path.join(trash.path, 'info', infoName);
    const destination = path.join(trash.path, 'files', name);
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(trash.info.entry(infoName), WRITE_NEW, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new AppError('TOOL_FAILED', `Cannot write ${infoFile}: ${(error as Error).message}`, { cause: error });
    }
    try {
      // A leftover in files/ without its .trashinfo (another program crashed) keeps its name.
      if (await exists(trash.files.entry(name))) {
        await handle.close();
        await fs.promises.rm(trash.info.entry(infoName), { force: true });
        continue;
      }
      await handle.writeFile(trashInfo(recordedPath, now()));
      await handle.sync();
      await handle.close();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.promises.rm(trash.info.entry(infoName), { force: true });
      throw new AppError('TOOL_FAILED', `Cannot write ${infoFile}: ${(error as Error).message}`, { cause: error });
    }
    try {
      await moveAcross(source, trash.files.entry(name));
    } catch (error) {
      await fs.promises.rm(trash.info.entry(infoName), { force: true });
      const code = (error as NodeJS.ErrnoException).code;
      throw new AppError(
        code === 'EACCES' || code === 'EPERM' ? 'PERMISSION_DENIED' : 'TOOL_FAILED',
        `Cannot move ${shown} to the trash (${destination}): ${(error as Error).message}`,
        { cause: error, details: { path: shown, code } },
      );
    }
    return destination;
  }
  throw new AppError('TOOL_FAILED', `The trash ${trash.path} has no free name left for ${base}.`);
}

/**
 * rename, or for another file system (EXDEV) a copy that is removed from its old place once
 * complete — both walked through open folders, never following a link (pinned-tree.ts).
 */
async function moveAcross(source: string, destination: string): Promise<void> {
  try {
    await fs.promises.rename(source, destination);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  try {
    await copyTree(source, destination);
  } catch (error) {
    await removeTree(destination).catch(() => undefined);
    throw error;
  }
  await removeTree(source);
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

/**
 * The top folder (mount point) of the file system `device` is, held open: reached by `..` from the
 * folder holding the entry, which `moved` names through its open folder (not by name, which a
 * link put on the way could send elsewhere).
 */
async function mountTop(moved: string, shown: string, device: number): Promise<OpenFolder> {
  const pinned = /^\/proc\/self\/fd\/(\d+)\/[^/]+$/.exec(moved);
  let current = await OpenFolder.open(
    pinned ? `/proc/self/fd/${pinned[1]}/.` : path.dirname(moved),
    path.dirname(shown),
  );
  for (;;) {
    let parent: OpenFolder;
    try {
      parent = await OpenFolder.open(current.entry('..'));
    } catch (error) {
      current.close();
      throw error;
    }
    const above = parent.stat();
    const here = current.stat();
    if (above.dev !== device || (above.ino === here.ino && above.dev === here.dev)) {
      parent.close();
      return current;
    }
    current.close();
    current = parent;
  }
}

/**
 * The trash of an open top folder, per the spec's two methods, or undefined when neither can be
 * used. (1) `$topdir/.Trash` made by an administrator: a real folder with the sticky bit, not a
 * symlink; our `$uid` folder in it. (2) `$topdir/.Trash-$uid`, created if missing; it must be a
 * real folder of ours. A `.Trash` that fails the checks must not be used (it could be someone's trap).
 */
async function topdirTrash(top: OpenFolder, topdir: string, uid: number): Promise<PinnedTrash | undefined> {
  const shared = await OpenFolder.open(top.entry('.Trash'), path.join(topdir, '.Trash')).catch(() => undefined);
  if (shared) {
    try {
      if ((shared.stat().mode & 0o1000) !== 0) {
        const mine = await usableOwnFolder(shared.entry(String(uid)), path.join(topdir, '.Trash', String(uid)), uid);
        if (mine) return mine;
      }
    } finally {
      shared.close();
    }
  }
  return usableOwnFolder(top.entry(`.Trash-${uid}`), path.join(topdir, `.Trash-${uid}`), uid);
}

async function usableOwnFolder(folder: string, shown: string, uid: number): Promise<PinnedTrash | undefined> {
  try {
    await fs.promises.mkdir(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const pinned = await pinTrash(folder, uid, shown);
    return typeof pinned === 'string' ? undefined : pinned;
  } catch {
    return undefined;
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
