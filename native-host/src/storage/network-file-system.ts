import fs from 'node:fs';
import path from 'node:path';

import type { Platform } from '@nextai/shared';

import { currentPlatform } from '../core/current-platform.js';
import { runCommand } from '../core/subprocess.js';

/**
 * Whether the data folder is on a network file system. SQLite's documentation says its file
 * locking is unreliable on them (NFS, SMB/CIFS, AFP, sshfs…: a lock the server loses after a
 * network hiccup or a server restart is simply gone, and another computer can write meanwhile),
 * and that WAL mode needs every connection on one computer. NextAI Agent still starts there — it
 * may be the only place the person can keep it — but says so (storage-problem.ts words it).
 */

/** One line of the mount table: where a file system is mounted and its type as the system names it. */
export interface MountEntry {
  mountPoint: string;
  /** nfs4, cifs, ext4, fuse.sshfs (Linux), smbfs, apfs (macOS)… */
  type: string;
}

/** What is known of the file system a folder is on. */
export interface FileSystemFacts {
  /** statfs's f_type: Linux's magic number of the file system (elsewhere not a stable number). */
  magic?: number | undefined;
  /** The mount table, when it could be read (/proc/self/mounts on Linux, `mount` on macOS). */
  mounts?: readonly MountEntry[] | undefined;
}

export interface NetworkFileSystem {
  /** Its type as the system names it (nfs4, cifs, fuse.sshfs, smbfs…), or the kind its magic number says. */
  type: string;
  mountPoint?: string | undefined;
}

/** Network file systems by the type name the mount table gives (FUSE ones as Linux names them: fuse.<program>). */
const NETWORK_TYPES = new Set([
  'nfs',
  'nfs4',
  'cifs',
  'smb',
  'smb2',
  'smb3',
  'smbfs',
  'afpfs',
  'webdav',
  'davfs',
  'ncpfs',
  'ncp',
  'afs',
  'coda',
  '9p',
  'ceph',
  'glusterfs',
  'lustre',
  'gpfs',
  'ocfs2',
  'gfs2',
  'beegfs',
  'vboxsf',
  'prl_fs',
  'fuse.sshfs',
  'fuse.rclone',
  'fuse.s3fs',
  'fuse.gcsfuse',
  'fuse.goofys',
  'fuse.gvfsd-fuse',
  'fuse.smbnetfs',
  'fuse.curlftpfs',
  'fuse.davfs2',
  'fuse.glusterfs',
  'fuse.ceph-fuse',
  'fuse.juicefs',
  'fuse.seaweedfs',
  'fuse.mfs',
  'fuse.vmhgfs-fuse',
]);

/**
 * Linux's statfs magic numbers of network file systems (linux/magic.h and the file systems' own
 * headers): what is known when the mount table cannot be read. FUSE's own number (0x65735546)
 * is not among them: a FUSE file system may be local (an encrypted folder) or remote (sshfs), and
 * only the mount table's fuse.<program> tells which.
 */
const NETWORK_MAGIC = new Map<number, string>([
  [0x6969, 'nfs'],
  [0x517b, 'smb'],
  [0xff534d42, 'cifs'],
  [0xfe534d42, 'smb2'],
  [0x564c, 'ncp'],
  [0x5346414f, 'afs'],
  [0x6b414653, 'afs'],
  [0x73757245, 'coda'],
  [0x01021997, '9p'],
  [0x00c36400, 'ceph'],
  [0x0bd00bd0, 'lustre'],
  [0x47504653, 'gpfs'],
  [0x7461636f, 'ocfs2'],
  [0x01161970, 'gfs2'],
  [0x19830326, 'beegfs'],
  [0x786f4256, 'vboxsf'],
]);

/**
 * The network file system `dir` is on, or undefined when it is on a local one (or nothing says
 * otherwise). The mount table decides when it lists the mount holding `dir` (the longest mount
 * point that contains it); otherwise statfs's magic number. `dir` should have its symbolic links
 * resolved: a data folder linked to an NFS mount is on NFS.
 */
export function networkFileSystemOf(
  dir: string,
  facts: FileSystemFacts,
  pathApi: path.PlatformPath = path.posix,
): NetworkFileSystem | undefined {
  const mount = mountHolding(dir, facts.mounts ?? [], pathApi);
  if (mount) {
    return NETWORK_TYPES.has(mount.type.toLowerCase()) ? { type: mount.type, mountPoint: mount.mountPoint } : undefined;
  }
  const byMagic = facts.magic === undefined ? undefined : NETWORK_MAGIC.get(facts.magic);
  return byMagic ? { type: byMagic } : undefined;
}

function mountHolding(dir: string, mounts: readonly MountEntry[], pathApi: path.PlatformPath): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const mount of mounts) {
    const relative = pathApi.relative(mount.mountPoint, dir);
    const inside = relative === '' || (!relative.startsWith('..') && !pathApi.isAbsolute(relative));
    if (inside && (!best || mount.mountPoint.length >= best.mountPoint.length)) best = mount;
  }
  return best;
}

/**
 * Linux's /proc/self/mounts (fstab's format): `source mountpoint type options dump pass`, with a
 * space, tab, newline or backslash in a path written as an octal escape (\040).
 */
export function parseProcMounts(text: string): MountEntry[] {
  const unescape = (field: string) =>
    field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  const mounts: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const [, mountPoint, type] = fields;
    if (mountPoint && type) mounts.push({ mountPoint: unescape(mountPoint), type });
  }
  return mounts;
}

/** macOS's `mount`: `source on /mount/point (type, option, …)`; a mount point may hold spaces. */
export function parseMacMount(text: string): MountEntry[] {
  const mounts: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const match = / on (.+) \(([^,)]+)[,)]/.exec(line);
    if (match?.[1] && match[2]) mounts.push({ mountPoint: match[1], type: match[2].trim() });
  }
  return mounts;
}

/**
 * The network file system the folder `dir` is on, probed on this machine: statfs and
 * /proc/self/mounts on Linux, `mount` on macOS, a UNC path (\\server\share) on Windows (a mapped
 * drive letter is not told apart from a local disk). Undefined when it is local or cannot be told:
 * this only warns, so a probe that fails says nothing rather than something wrong.
 */
export async function networkFileSystemAt(
  dir: string,
  platform: Platform = currentPlatform(),
): Promise<NetworkFileSystem | undefined> {
  let real = dir;
  try {
    real = fs.realpathSync.native(dir);
  } catch {
    // Not there (yet): the path as given is the best guess.
  }
  if (platform === 'windows') {
    return /^\\\\(?![?.]\\)[^\\]+\\[^\\]+/.test(real) ? { type: 'smb', mountPoint: real } : undefined;
  }
  if (platform === 'macos') {
    const listing = await runCommand('mount', [], { timeoutMs: 5000 }).catch(() => undefined);
    return listing ? networkFileSystemOf(real, { mounts: parseMacMount(listing.stdout) }) : undefined;
  }
  let magic: number | undefined;
  let mounts: MountEntry[] | undefined;
  try {
    magic = fs.statfsSync(real).type;
  } catch {
    magic = undefined;
  }
  try {
    mounts = parseProcMounts(fs.readFileSync('/proc/self/mounts', 'utf8'));
  } catch {
    mounts = undefined;
  }
  return networkFileSystemOf(real, { magic, mounts });
}
