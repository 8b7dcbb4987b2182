import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { storageHealthReport } from './storage-problem.js';
import {
  networkFileSystemAt,
  networkFileSystemOf,
  parseMacMount,
  parseProcMounts,
  type MountEntry,
} from './network-file-system.js';

/** A Linux machine's /proc/self/mounts: a local root, a home on NFS, sshfs and an encrypted FUSE folder. */
const PROC_MOUNTS = `/dev/nvme0n1p2 / ext4 rw,relatime 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
tmpfs /tmp tmpfs rw,nosuid,nodev 0 0
server:/export/home /home nfs4 rw,relatime,vers=4.2,hard,proto=tcp 0 0
/dev/sdb1 /home/me/local\\040disk ext4 rw 0 0
me@box:/srv /home/me/box fuse.sshfs rw,nosuid,nodev,user_id=1000 0 0
/home/me/.vault /home/me/Private fuse.gocryptfs rw,nosuid,nodev 0 0
//nas/share /mnt/nas cifs rw,vers=3.1.1 0 0
drvfs /mnt/c 9p rw,noatime,dirsync 0 0
`;

describe('network file system detection', () => {
  const mounts = parseProcMounts(PROC_MOUNTS);

  it('reads the mount table, spaces in mount points included', () => {
    expect(mounts).toContainEqual({ mountPoint: '/home/me/local disk', type: 'ext4' });
    expect(mounts).toContainEqual({ mountPoint: '/home/me/box', type: 'fuse.sshfs' });
    expect(mounts).toContainEqual({ mountPoint: '/mnt/nas', type: 'cifs' });
  });

  it('finds the mount holding the folder: the longest mount point that contains it', () => {
    expect(networkFileSystemOf('/home/me/.nextai-agent', { mounts })).toEqual({ type: 'nfs4', mountPoint: '/home' });
    expect(networkFileSystemOf('/home', { mounts })).toEqual({ type: 'nfs4', mountPoint: '/home' });
    // A local disk mounted inside the NFS home is local.
    expect(networkFileSystemOf('/home/me/local disk/nextai', { mounts })).toBeUndefined();
    expect(networkFileSystemOf('/mnt/nas/nextai', { mounts })).toEqual({ type: 'cifs', mountPoint: '/mnt/nas' });
    expect(networkFileSystemOf('/home/me/box/nextai', { mounts })).toEqual({
      type: 'fuse.sshfs',
      mountPoint: '/home/me/box',
    });
    expect(networkFileSystemOf('/home/me/Private/nextai', { mounts })).toBeUndefined();
    // WSL's Windows drives: 9p, where SQLite's locks are not to be trusted either.
    expect(networkFileSystemOf('/mnt/c/Users/me/nextai', { mounts })).toEqual({ type: '9p', mountPoint: '/mnt/c' });
    // Not a prefix by characters: /mnt/nas2 is not inside /mnt/nas.
    expect(networkFileSystemOf('/mnt/nas2/nextai', { mounts })).toBeUndefined();
    expect(networkFileSystemOf('/root/.nextai-agent', { mounts })).toBeUndefined();
    expect(networkFileSystemOf('/tmp/nx-1', { mounts })).toBeUndefined();
  });

  it('tells a FUSE file system over the network (sshfs) from a local one (an encrypted folder)', () => {
    const fuse: MountEntry[] = [
      { mountPoint: '/', type: 'ext4' },
      { mountPoint: '/home/me/box', type: 'fuse.sshfs' },
      { mountPoint: '/home/me/Private', type: 'fuse.gocryptfs' },
      { mountPoint: '/home/me/cloud', type: 'fuse.rclone' },
    ];
    expect(networkFileSystemOf('/home/me/box/nextai', { mounts: fuse })).toEqual({
      type: 'fuse.sshfs',
      mountPoint: '/home/me/box',
    });
    expect(networkFileSystemOf('/home/me/cloud/x', { mounts: fuse })?.type).toBe('fuse.rclone');
    expect(networkFileSystemOf('/home/me/Private/nextai', { mounts: fuse })).toBeUndefined();
    // FUSE's magic number alone says nothing either way.
    expect(networkFileSystemOf('/x', { magic: 0x65735546 })).toBeUndefined();
  });

  it('without a mount table, goes by statfs’s magic number', () => {
    expect(networkFileSystemOf('/home/me/.nextai-agent', { magic: 0x6969 })).toEqual({ type: 'nfs' });
    expect(networkFileSystemOf('/x', { magic: 0xff534d42 })).toEqual({ type: 'cifs' });
    expect(networkFileSystemOf('/x', { magic: 0xfe534d42 })).toEqual({ type: 'smb2' });
    expect(networkFileSystemOf('/x', { magic: 0xef53 /* ext4 */ })).toBeUndefined();
    expect(networkFileSystemOf('/x', { magic: 0x01021994 /* tmpfs */, mounts: [] })).toBeUndefined();
    expect(networkFileSystemOf('/x', {})).toBeUndefined();
  });

  it('reads macOS’s mount listing', () => {
    const listing = `/dev/disk3s1s1 on / (apfs, sealed, local, read-only, journaled)
/dev/disk3s5 on /System/Volumes/Data (apfs, local, journaled, nobrowse)
//me@nas._smb._tcp.local/home on /Volumes/home (smbfs, nodev, nosuid, mounted by me)
nas:/export on /Volumes/My Share (nfs, asynchronous)
`;
    const mac = parseMacMount(listing);
    expect(mac).toContainEqual({ mountPoint: '/Volumes/My Share', type: 'nfs' });
    expect(networkFileSystemOf('/Volumes/home/nextai', { mounts: mac })).toEqual({
      type: 'smbfs',
      mountPoint: '/Volumes/home',
    });
    expect(networkFileSystemOf('/Volumes/My Share/n', { mounts: mac })?.type).toBe('nfs');
    expect(networkFileSystemOf('/Users/me/.nextai-agent', { mounts: mac })).toBeUndefined();
  });

  it('on Windows, a UNC path is a network share', async () => {
    expect(networkFileSystemOf('C:\\Users\\me\\.nextai-agent', { mounts: [] }, path.win32)).toBeUndefined();
    await expect(networkFileSystemAt('\\\\nas\\home\\nextai', 'windows')).resolves.toEqual({
      type: 'smb',
      mountPoint: '\\\\nas\\home\\nextai',
    });
    await expect(networkFileSystemAt('C:\\Users\\me\\.nextai-agent', 'windows')).resolves.toBeUndefined();
  });

  it('is told in the storage report, whether or not writing works', () => {
    const report = storageHealthReport(undefined, '/home/me/.nextai-agent/data.db', {
      type: 'nfs4',
      mountPoint: '/home',
    });
    expect(report).toMatchObject({
      ok: true,
      network_file_system: {
        type: 'nfs4',
        mount_point: '/home',
        message: expect.stringContaining(
          "The data folder /home/me/.nextai-agent is on a network file system (nfs4, mounted at /home). SQLite's file locking is unreliable there",
        ),
        fix: expect.stringContaining('set NEXTAI_HOME to its new place'),
        fix_translations: { 'zh-CN': expect.stringContaining('NEXTAI_HOME') },
      },
    });
    const failing = storageHealthReport(
      { code: 'SQLITE_BUSY', message: 'database is locked', since: '2026-01-01T00:00:00.000Z' },
      '/home/me/.nextai-agent/data.db',
      { type: 'nfs4' },
    );
    expect(failing).toMatchObject({ ok: false, problem: 'locked', network_file_system: { type: 'nfs4' } });
    expect(storageHealthReport(undefined, '/home/me/.nextai-agent/data.db')).toEqual({
      ok: true,
      data_dir: '/home/me/.nextai-agent',
    });
  });
});
