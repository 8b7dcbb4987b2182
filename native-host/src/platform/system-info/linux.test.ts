import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  XRANDR_ARGS,
  describeLinuxOs,
  linuxSystemInfo,
  onePerDevice,
  parseDefaultRoute,
  parseOsRelease,
  parseProcMounts,
  parseXrandr,
  selectDiskMounts,
} from './linux.js';

const signal = new AbortController().signal;

describe('os-release', () => {
  it('reads quoted and unquoted values and ignores comments', () => {
    const debian = [
      'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"',
      'NAME="Debian GNU/Linux"',
      'VERSION_ID="12"',
      'VERSION="12 (bookworm)"',
      'VERSION_CODENAME=bookworm',
      'ID=debian',
      '# a comment',
      'HOME_URL="https://www.debian.org/"',
    ].join('\n');
    const fields = parseOsRelease(debian);
    expect(fields).toMatchObject({ PRETTY_NAME: 'Debian GNU/Linux 12 (bookworm)', VERSION_CODENAME: 'bookworm' });
    expect(describeLinuxOs(fields, '6.1.0-18-amd64')).toEqual({
      name: 'Debian GNU/Linux 12 (bookworm)',
      version: '12 (bookworm)',
    });
  });

  it('undoes shell escapes inside double quotes and takes single quotes literally', () => {
    const fields = parseOsRelease(`NAME="Say \\"hi\\" \\\\ \\$HOME"\nVARIANT='It\\'s'\n`);
    expect(fields.NAME).toBe('Say "hi" \\ $HOME');
    expect(fields.VARIANT).toBe("It\\'s");
  });

  it('falls back for rolling releases and for a missing file', () => {
    const arch = parseOsRelease('NAME="Arch Linux"\nPRETTY_NAME="Arch Linux"\nID=arch\nBUILD_ID=rolling\n');
    expect(describeLinuxOs(arch, '6.9.7-arch1-1')).toEqual({ name: 'Arch Linux', version: 'rolling' });
    expect(describeLinuxOs({}, '6.9.7-arch1-1')).toEqual({ name: 'Linux 6.9.7-arch1-1', version: '6.9.7-arch1-1' });
  });
});

// An Ubuntu 22.04 laptop: snaps, an EFI partition, a USB stick with a space in its label, an NTFS
// disk through ntfs-3g (fuseblk), an NFS share, sshfs and the desktop's own FUSE mounts.
const UBUNTU_MOUNTS = `sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
udev /dev devtmpfs rw,nosuid,relatime,size=8029532k,nr_inodes=2007383,mode=755,inode64 0 0
devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000 0 0
tmpfs /run tmpfs rw,nosuid,nodev,noexec,relatime,size=1612064k,mode=755,inode64 0 0
/dev/nvme0n1p2 / ext4 rw,relatime,errors=remount-ro 0 0
securityfs /sys/kernel/security securityfs rw,nosuid,nodev,noexec,relatime 0 0
tmpfs /dev/shm tmpfs rw,nosuid,nodev,inode64 0 0
tmpfs /run/lock tmpfs rw,nosuid,nodev,noexec,relatime,size=5120k,inode64 0 0
cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0
pstore /sys/fs/pstore pstore rw,nosuid,nodev,noexec,relatime 0 0
efivarfs /sys/firmware/efi/efivars efivarfs rw,nosuid,nodev,noexec,relatime 0 0
bpf /sys/fs/bpf bpf rw,nosuid,nodev,noexec,relatime,mode=700 0 0
systemd-1 /proc/sys/fs/binfmt_misc autofs rw,relatime,fd=29,pgrp=1,timeout=0,minproto=5,maxproto=5,direct,pipe_ino=17645 0 0
hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0
mqueue /dev/mqueue mqueue rw,nosuid,nodev,noexec,relatime 0 0
debugfs /sys/kernel/debug debugfs rw,nosuid,nodev,noexec,relatime 0 0
tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0
fusectl /sys/fs/fuse/connections fusectl rw,nosuid,nodev,noexec,relatime 0 0
configfs /sys/kernel/config configfs rw,nosuid,nodev,noexec,relatime 0 0
/dev/loop0 /snap/bare/5 squashfs ro,nodev,relatime,errors=continue 0 0
/dev/loop1 /snap/core22/1380 squashfs ro,nodev,relatime,errors=continue 0 0
/dev/loop2 /snap/firefox/4173 squashfs ro,nodev,relatime,errors=continue 0 0
/dev/nvme0n1p1 /boot/efi vfat rw,relatime,fmask=0077,dmask=0077,codepage=437,iocharset=iso8859-1,shortname=mixed,errors=remount-ro 0 0
binfmt_misc /proc/sys/fs/binfmt_misc binfmt_misc rw,nosuid,nodev,noexec,relatime 0 0
tmpfs /run/snapd/ns tmpfs rw,nosuid,nodev,noexec,relatime,size=1612064k,mode=755,inode64 0 0
nsfs /run/snapd/ns/snap-store.mnt nsfs rw 0 0
tmpfs /run/user/1000 tmpfs rw,nosuid,nodev,relatime,size=1612060k,nr_inodes=403015,mode=700,uid=1000,gid=1000,inode64 0 0
gvfsd-fuse /run/user/1000/gvfs fuse.gvfsd-fuse rw,nosuid,nodev,relatime,user_id=1000,group_id=1000 0 0
portal /run/user/1000/doc fuse.portal rw,nosuid,nodev,relatime,user_id=1000,group_id=1000 0 0
/dev/sda1 /media/alice/USB\\040STICK vfat rw,nosuid,nodev,relatime,uid=1000,gid=1000,fmask=0022,dmask=0022,codepage=437,iocharset=iso8859-1,shortname=mixed,showexec,utf8,flush,errors=remount-ro 0 0
/dev/sdb1 /media/alice/Backup fuseblk rw,nosuid,nodev,relatime,user_id=0,group_id=0,default_permissions,allow_other,blksize=4096 0 0
nas.local:/export/media /mnt/nas nfs4 rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys 0 0
alice@server:/srv /home/alice/remote fuse.sshfs rw,nosuid,nodev,relatime,user_id=1000,group_id=1000 0 0
`;

// Fedora 40 on btrfs: / and /home are subvolumes of one partition; a stick under /run/media.
const FEDORA_MOUNTS = `/dev/nvme0n1p3 / btrfs rw,relatime,seclabel,compress=zstd:1,ssd,discard=async,space_cache=v2,subvolid=257,subvol=/root 0 0
devtmpfs /dev devtmpfs rw,seclabel,nosuid,size=4096k,nr_inodes=4041745,mode=755,inode64 0 0
tmpfs /tmp tmpfs rw,seclabel,nosuid,nodev,size=16183244k,nr_inodes=1048576,inode64 0 0
/dev/nvme0n1p3 /home btrfs rw,relatime,seclabel,compress=zstd:1,ssd,discard=async,space_cache=v2,subvolid=256,subvol=/home 0 0
/dev/nvme0n1p2 /boot ext4 rw,relatime,seclabel 0 0
/dev/nvme0n1p1 /boot/efi vfat rw,relatime,fmask=0077,dmask=0077,codepage=437,iocharset=ascii,shortname=winnt,errors=remount-ro 0 0
selinuxfs /sys/fs/selinux selinuxfs rw,nosuid,noexec,relatime 0 0
/dev/sdb1 /run/media/alice/DATA exfat rw,nosuid,nodev,relatime,uid=1000,gid=1000,fmask=0022,dmask=0022,iocharset=utf8,errors=remount-ro 0 0
`;

// A Docker container: / is an overlay, files and a volume are bind-mounted from the host disk.
const DOCKER_MOUNTS = `overlay / overlay rw,relatime,lowerdir=/var/lib/docker/overlay2/l/ABC:/var/lib/docker/overlay2/l/DEF,upperdir=/var/lib/docker/overlay2/123/diff,workdir=/var/lib/docker/overlay2/123/work 0 0
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
tmpfs /dev tmpfs rw,nosuid,size=65536k,mode=755,inode64 0 0
devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=666 0 0
sysfs /sys sysfs ro,nosuid,nodev,noexec,relatime 0 0
cgroup /sys/fs/cgroup cgroup2 ro,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0
mqueue /dev/mqueue mqueue rw,nosuid,nodev,noexec,relatime 0 0
shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k,inode64 0 0
/dev/sda1 /etc/resolv.conf ext4 rw,relatime,discard 0 0
/dev/sda1 /etc/hostname ext4 rw,relatime,discard 0 0
/dev/sda1 /etc/hosts ext4 rw,relatime,discard 0 0
/dev/sda1 /workspace ext4 rw,relatime,discard 0 0
proc /proc/bus proc ro,nosuid,nodev,noexec,relatime 0 0
tmpfs /proc/acpi tmpfs ro,relatime,inode64 0 0
`;

const mountPoints = (text: string) => selectDiskMounts(parseProcMounts(text)).map((entry) => entry.mountPoint);

describe('/proc/mounts', () => {
  it('keeps real filesystems and removable media, and skips pseudo, snap, FUSE and network mounts', () => {
    expect(mountPoints(UBUNTU_MOUNTS)).toEqual(['/', '/boot/efi', '/media/alice/USB STICK', '/media/alice/Backup']);
    expect(onePerDevice(selectDiskMounts(parseProcMounts(UBUNTU_MOUNTS)))).toEqual([
      { drive: '/', filesystem: 'ext4' },
      { drive: '/boot/efi', filesystem: 'vfat' },
      { drive: '/media/alice/USB STICK', filesystem: 'vfat' },
      { drive: '/media/alice/Backup', filesystem: 'fuseblk' },
    ]);
  });

  it('counts a btrfs partition once, at its shortest mount point, and keeps /run/media', () => {
    expect(onePerDevice(selectDiskMounts(parseProcMounts(FEDORA_MOUNTS))).map((disk) => disk.drive)).toEqual([
      '/',
      '/boot',
      '/boot/efi',
      '/run/media/alice/DATA',
    ]);
  });

  it('keeps an overlay root in a container', () => {
    const selected = selectDiskMounts(parseProcMounts(DOCKER_MOUNTS));
    expect(selected.map((entry) => entry.mountPoint)).toEqual([
      '/',
      '/etc/resolv.conf',
      '/etc/hostname',
      '/etc/hosts',
      '/workspace',
    ]);
    // Without the file mounts (the adapter stats them away first) the volume stands for its disk.
    const directories = selected.filter((entry) => !entry.mountPoint.startsWith('/etc/'));
    expect(onePerDevice(directories)).toEqual([
      { drive: '/', filesystem: 'overlay' },
      { drive: '/workspace', filesystem: 'ext4' },
    ]);
  });

  it('uses the last of several mounts on one mount point and keeps devices that are not paths apart', () => {
    const entries = parseProcMounts(
      [
        '/dev/sdc1 /data ext4 rw 0 0',
        '/dev/sdd1 /data xfs rw 0 0',
        'rpool/ROOT/ubuntu / zfs rw 0 0',
        'rpool/home /home zfs rw 0 0',
        'C:\\134 /mnt/c 9p rw,aname=drvfs;path=C:\\134 0 0',
        'D:\\134 /mnt/d 9p rw,aname=drvfs;path=D:\\134 0 0',
      ].join('\n'),
    );
    expect(entries[4]).toEqual({ device: 'C:\\', mountPoint: '/mnt/c', filesystem: '9p' });
    expect(onePerDevice(selectDiskMounts(entries))).toEqual([
      { drive: '/data', filesystem: 'xfs' },
      { drive: '/', filesystem: 'zfs' },
      { drive: '/home', filesystem: 'zfs' },
      { drive: '/mnt/c', filesystem: '9p' },
      { drive: '/mnt/d', filesystem: '9p' },
    ]);
  });
});

describe('xrandr', () => {
  it('reads connected, switched-on outputs with geometry and the primary flag', () => {
    const laptopWithMonitors = `Screen 0: minimum 320 x 200, current 4920 x 1920, maximum 16384 x 16384
eDP-1 connected primary 1920x1080+0+840 (normal left inverted right x axis y axis) 309mm x 174mm
   1920x1080     60.02*+  60.01    59.97    59.96    59.93
   1680x1050     59.95    59.88
DP-1 disconnected (normal left inverted right x axis y axis)
HDMI-1 connected 1080x1920+1920+0 left (normal left inverted right x axis y axis) 527mm x 296mm
   1920x1080     60.00*+  50.00    59.94
DP-2 connected (normal left inverted right x axis y axis)
   2560x1440     59.95 +
DP-3 connected 1920x1080+-1920+840 (normal left inverted right x axis y axis) 527mm x 296mm
   1920x1080     60.00*+
`;
    expect(parseXrandr(laptopWithMonitors)).toEqual([
      { id: 0, name: 'eDP-1', width: 1920, height: 1080, x: 0, y: 840, scale: 1, primary: true },
      { id: 1, name: 'HDMI-1', width: 1080, height: 1920, x: 1920, y: 0, scale: 1, primary: false },
      { id: 2, name: 'DP-3', width: 1920, height: 1080, x: -1920, y: 840, scale: 1, primary: false },
    ]);
  });

  it('reads Xvfb and XWayland reports', () => {
    const xvfb = `Screen 0: minimum 1 x 1, current 1280 x 800, maximum 1280 x 800
screen connected 1280x800+0+0 0mm x 0mm
   1280x800       0.00*
`;
    expect(parseXrandr(xvfb)).toEqual([
      { id: 0, name: 'screen', width: 1280, height: 800, x: 0, y: 0, scale: 1, primary: false },
    ]);
    const xwayland = `Screen 0: minimum 16 x 16, current 2560 x 1440, maximum 32767 x 32767
XWAYLAND0 connected primary 2560x1440+0+0 (normal left inverted right x axis y axis) 600mm x 340mm
   2560x1440     59.91*+
`;
    expect(parseXrandr(xwayland)).toEqual([
      { id: 0, name: 'XWAYLAND0', width: 2560, height: 1440, x: 0, y: 0, scale: 1, primary: true },
    ]);
    expect(parseXrandr('')).toEqual([]);
  });

  it('asks for the current configuration without re-probing', () => {
    expect(XRANDR_ARGS).toEqual(['--current']);
  });
});

describe('/proc/net/route', () => {
  it('picks the up default route with the lowest metric', () => {
    const table = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
wlp2s0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
enp0s31f6\t00000000\t0100A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0
tun0\t00000000\t00000000\t0000\t0\t0\t50\t00000000\t0\t0\t0
`;
    expect(parseDefaultRoute(table)).toBe('enp0s31f6');
    expect(parseDefaultRoute('Iface\tDestination\tGateway\n')).toBeUndefined();
  });
});

describe('linux adapter on this machine', () => {
  let emptyDirectory: string;
  beforeAll(() => {
    emptyDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-no-xrandr-'));
  });
  afterAll(() => {
    fs.rmSync(emptyDirectory, { recursive: true, force: true });
  });

  it('says why there are no displays when DISPLAY is not set', async () => {
    expect(await linuxSystemInfo.displays({ env: { PATH: process.env.PATH }, signal })).toEqual({
      value: [],
      warnings: ['displays: no X display (DISPLAY is not set)'],
    });
    expect(await linuxSystemInfo.displays({ env: { WAYLAND_DISPLAY: 'wayland-0' }, signal })).toEqual({
      value: [],
      warnings: ['displays: no X display (DISPLAY is not set; this Wayland session has no XWayland)'],
    });
  });

  it('names the package when xrandr is missing', async () => {
    const reading = await linuxSystemInfo.displays({ env: { DISPLAY: ':0', PATH: emptyDirectory }, signal });
    expect(reading.value).toEqual([]);
    expect(reading.warnings).toEqual([
      "displays: Couldn't find the `xrandr` program. On Debian/Ubuntu: sudo apt install x11-xserver-utils; on Fedora: sudo dnf install xrandr.",
    ]);
  });

  it('reports xrandr’s own error when the X server is not there', async () => {
    const reading = await linuxSystemInfo.displays({ env: { DISPLAY: ':4711', PATH: process.env.PATH }, signal });
    expect(reading.value).toEqual([]);
    expect(reading.warnings).toHaveLength(1);
    expect(reading.warnings[0]).toMatch(/^displays: `xrandr --current` exited with code 1: Can't open display :4711/);
  });

  it('describes the OS from /etc/os-release', async () => {
    const expected = parseOsRelease(fs.readFileSync('/etc/os-release', 'utf8')).PRETTY_NAME;
    const reading = await linuxSystemInfo.describeOs({ env: {}, signal });
    expect(reading).toEqual({ value: { name: expected, version: expect.any(String) }, warnings: [] });
  });

  it('lists / among the disk candidates', async () => {
    const reading = await linuxSystemInfo.diskCandidates({ env: {}, signal });
    expect(reading.warnings).toEqual([]);
    expect(reading.value.map((candidate) => candidate.drive)).toContain('/');
  });
});
