import fs from 'node:fs';

/**
 * Copying and removing folder trees without following a symlink anywhere, also one that a process
 * puts in place of a folder while the walk is under way. Node has no openat(); on Linux
 * `/proc/self/fd/<fd>/<name>` is the same thing: the kernel resolves the name in the folder that
 * is open, whatever its path names by then. Every folder is opened with O_NOFOLLOW | O_DIRECTORY
 * and confirmed to be the one that was looked at (device and inode), and everything below it is
 * reached through it. `fs.cp` and `fs.rm` walk by path: a folder swapped for a link to another
 * place between two of their steps sends them there.
 */

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = fs.constants;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = fs.constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** A folder held open: names in it resolve from it (`entry`), not from its path. */
export class OpenFolder {
  private constructor(
    readonly fd: number,
    /** The folder's path when it was opened, for messages. */
    readonly shown: string,
  ) {}

  /**
   * Opens the folder at `where` without following a link in its last name. ELOOP / ENOTDIR when
   * it is a symlink or not a folder; `expect` (from an earlier lstat) must be the same folder.
   */
  static async open(where: string, shown: string = where, expect?: fs.Stats): Promise<OpenFolder> {
    const fd = await new Promise<number>((resolve, reject) =>
      fs.open(where, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, (error, opened) => (error ? reject(error) : resolve(opened))),
    );
    const folder = new OpenFolder(fd, shown);
    if (expect) {
      const now = folder.stat();
      if (now.dev !== expect.dev || now.ino !== expect.ino) {
        folder.close();
        throw Object.assign(new Error(`${shown} was replaced while it was being read`), { code: 'ECHANGED' });
      }
    }
    return folder;
  }

  /** The path of a name inside this open folder. */
  entry(name: string): string {
    return `/proc/self/fd/${this.fd}/${name}`;
  }

  stat(): fs.Stats {
    return fs.fstatSync(this.fd);
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // Already closed.
    }
  }
}

/** Whether /proc/self/fd/<fd> of an open folder reads back as its path (not so without /proc, or with it locked down). */
export function procNamesOpenFolders(): boolean {
  let fd: number | undefined;
  try {
    fd = fs.openSync('/', O_RDONLY | O_DIRECTORY);
    return fs.readlinkSync(`/proc/self/fd/${fd}`) === '/';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Copies the entry at `from` (a path through an open folder) to the new name `to` (likewise):
 * files with their mode and times, folders recursively, symlinks as links (never their targets).
 * Sockets, pipes and devices are refused (EINVAL): they cannot be kept in a trash.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  const stats = await fs.promises.lstat(from);
  if (stats.isSymbolicLink()) {
    await fs.promises.symlink(await fs.promises.readlink(from), to);
    return;
  }
  if (stats.isDirectory()) {
    const source = await OpenFolder.open(from, from, stats);
    try {
      await fs.promises.mkdir(to, { mode: 0o700 });
      const target = await OpenFolder.open(to);
      try {
        for (const name of await fs.promises.readdir(`/proc/self/fd/${source.fd}`)) {
          await copyTree(source.entry(name), target.entry(name));
        }
        fs.fchmodSync(target.fd, stats.mode & 0o7777);
        fs.futimesSync(target.fd, stats.atime, stats.mtime);
      } finally {
        target.close();
      }
    } finally {
      source.close();
    }
    return;
  }
  if (!stats.isFile()) {
    throw Object.assign(new Error(`${from} is not a file, folder or link (a socket, pipe or device)`), {
      code: 'EINVAL',
    });
  }
  const input = await fs.promises.open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const opened = await input.stat();
    if (opened.dev !== stats.dev || opened.ino !== stats.ino || !opened.isFile()) {
      throw Object.assign(new Error(`${from} was replaced while it was being copied`), { code: 'ECHANGED' });
    }
    const output = await fs.promises.open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      await copyContent(input, output);
      await output.chmod(stats.mode & 0o7777);
      await output.utimes(stats.atime, stats.mtime);
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/**
 * Removes the entry at `entry` (a path through an open folder) and, for a folder, everything in
 * it, reaching each level through the open folder above it. A folder swapped for a link midway
 * is not followed: the walk stops with an error there.
 */
export async function removeTree(entry: string): Promise<void> {
  const stats = await fs.promises.lstat(entry);
  if (!stats.isDirectory()) {
    await fs.promises.unlink(entry);
    return;
  }
  const folder = await OpenFolder.open(entry, entry, stats);
  try {
    for (const name of await fs.promises.readdir(`/proc/self/fd/${folder.fd}`)) await removeTree(folder.entry(name));
  } finally {
    folder.close();
  }
  await fs.promises.rmdir(entry);
}

/** Copies a file's bytes from one open handle to another. */
async function copyContent(input: fs.promises.FileHandle, output: fs.promises.FileHandle): Promise<void> {
  const buffer = Buffer.allocUnsafe(1 << 20);
  for (;;) {
    const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) return;
    let written = 0;
    while (written < bytesRead) {
      const { bytesWritten } = await output.write(buffer, written, bytesRead - written);
      written += bytesWritten;
    }
  }
}
