import fs from 'node:fs';
import os from 'node:os';

import { runCommand } from '../../core/subprocess.js';
import {
  STATFS_TIMEOUT_MS,
  SUBPROCESS_TIMEOUT_MS,
  errorMessage,
  withTimeout,
  type DiskCandidate,
  type DisplayInfo,
  type OsDescription,
  type ReadOptions,
  type Reading,
  type SystemInfoAdapter,
} from './common.js';

export const XRANDR_INSTALL_HINT =
  'On Debian/Ubuntu: sudo apt install x11-xserver-utils; on Fedora: sudo dnf install xrandr.';

/**
 * `--current` prints the same report as `--query` without asking the driver to re-probe every
 * connector, which takes hundreds of milliseconds on some GPUs.
 */
export const XRANDR_ARGS = ['--current'] as const;

/** Fields of os-release(5): KEY=value lines, values optionally quoted, `#` comments. */
export function parseOsRelease(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*([A-Z0-9_]+)=(.*?)\s*$/.exec(line);
    if (!match?.[1]) continue;
    let value = match[2] ?? '';
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
      // Inside double quotes os-release allows shell-style escapes of ", \, $ and `.
      if (quote === '"') value = value.replace(/\\(["\\$`])/g, '$1');
    }
    fields[match[1]] = value;
  }
  return fields;
}

export function describeLinuxOs(fields: Record<string, string>, kernel: string): OsDescription {
  const name = fields.PRETTY_NAME || [fields.NAME, fields.VERSION].filter(Boolean).join(' ') || `Linux ${kernel}`;
  // Rolling distributions (Arch, Tumbleweed) have no VERSION; BUILD_ID or the kernel stands in.
  const version = fields.VERSION || fields.VERSION_ID || fields.BUILD_ID || kernel;
  return { name, version };
}

export interface MountEntry {
  device: string;
  mountPoint: string;
  filesystem: string;
}

/** /proc/mounts escapes space, tab, newline and backslash in paths as octal (`\040`). */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

export function parseProcMounts(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const [device, mountPoint, filesystem] = line.trim().split(/\s+/);
    if (!device || !mountPoint || !filesystem) continue;
    entries.push({
      device: unescapeMountField(device),
      mountPoint: unescapeMountField(mountPoint),
      filesystem,
    });
  }
  return entries;
}

/** Kernel and in-memory filesystems: no disk behind them. */
const PSEUDO_FILESYSTEMS = new Set([
  'autofs',
  'binfmt_misc',
  'bpf',
  'cgroup',
  'cgroup2',
  'configfs',
  'debugfs',
  'devpts',
  'devtmpfs',
  'efivarfs',
  'fusectl',
  'hugetlbfs',
  'mqueue',
  'nsfs',
  'proc',
  'pstore',
  'ramfs',
  'rpc_pipefs',
  'securityfs',
  'selinuxfs',
  'sysfs',
  'tmpfs',
  'tracefs',
  'nfsd',
  // Snap packages and read-only system images: always 100% full, never where files go.
  'squashfs',
  'erofs',
  // Container layers; `/` itself is kept below whatever its type.
  'overlay',
  'aufs',
]);

/**
 * Network filesystems. statfs on one whose server is unreachable blocks in the kernel for
 * minutes and cannot be cancelled from Node, so they are left out rather than risked.
 */
const NETWORK_FILESYSTEMS = new Set([
  'nfs',
  'nfs4',
  'cifs',
  'smb3',
  'smbfs',
  'ncpfs',
  'afs',
  'ceph',
  'glusterfs',
  'lustre',
]);

/** Places where the system keeps its own mounts, apart from removable media under /run/media. */
const SYSTEM_MOUNT_PREFIXES = [
  '/proc/',
  '/sys/',
  '/dev/',
  '/run/',
  '/snap/',
  '/var/lib/docker/',
  '/var/lib/containers/',
];

function isDiskMount(entry: MountEntry): boolean {
  if (entry.mountPoint === '/') return true;
  if (PSEUDO_FILESYSTEMS.has(entry.filesystem) || NETWORK_FILESYSTEMS.has(entry.filesystem)) return false;
  // FUSE daemons are remote (sshfs, rclone) or virtual (gvfsd, portal, lxcfs); a stuck one hangs
  // statfs. fuseblk is a block device behind FUSE (NTFS via ntfs-3g, exFAT) and is a real disk.
  if (entry.filesystem === 'fuse' || entry.filesystem.startsWith('fuse.')) return false;
  const path = `${entry.mountPoint}/`;
  if (path.startsWith('/run/media/')) return true;
  return !SYSTEM_MOUNT_PREFIXES.some((prefix) => path.startsWith(prefix));
}

/**
 * The mounts that may be disks: real filesystems, `/` always. When one mount point is mounted
 * over, the last entry is the one in effect.
 */
export function selectDiskMounts(entries: readonly MountEntry[]): MountEntry[] {
  const byMountPoint = new Map<string, MountEntry>();
  for (const entry of entries) {
    byMountPoint.delete(entry.mountPoint);
    byMountPoint.set(entry.mountPoint, entry);
  }
  return [...byMountPoint.values()].filter(isDiskMount);
}

/**
 * Each block device once, at its shortest mount point, in mount order: bind mounts and btrfs
 * subvolumes repeat a device and would count its space twice. Devices that are not paths (ZFS
 * datasets, WSL drives, virtiofs tags) name one filesystem each and are kept as they are.
 */
export function onePerDevice(entries: readonly MountEntry[]): DiskCandidate[] {
  const shortest = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.device.startsWith('/')) continue;
    const current = shortest.get(entry.device);
    if (current === undefined || entry.mountPoint.length < current.length) shortest.set(entry.device, entry.mountPoint);
  }
  return entries
    .filter((entry) => !entry.device.startsWith('/') || shortest.get(entry.device) === entry.mountPoint)
    .map((entry) => ({ drive: entry.mountPoint, filesystem: entry.filesystem }));
}

/**
 * Containers bind-mount single files from the host disk (/etc/hosts, /etc/resolv.conf); they
 * must go before onePerDevice, or /etc/hosts would stand for a volume on the same disk. A mount
 * point that cannot be stat'ed stays: readDisks then says why it is missing.
 */
async function withoutFileMounts(entries: readonly MountEntry[]): Promise<MountEntry[]> {
  const stats = await Promise.allSettled(
    entries.map((entry) =>
      withTimeout(fs.promises.stat(entry.mountPoint), STATFS_TIMEOUT_MS, `stat ${entry.mountPoint}`),
    ),
  );
  return entries.filter((_entry, index) => {
    const stat = stats[index];
    return stat?.status !== 'fulfilled' || stat.value.isDirectory();
  });
}

/**
 * Connected outputs that are switched on, from `xrandr --query`/`--current`:
 *   eDP-1 connected primary 1920x1080+0+0 (normal left inverted right x axis y axis) 309mm x 174mm
 *   HDMI-1 connected 1080x1920+1920+0 left (normal left inverted right x axis y axis) 527mm x 296mm
 * The geometry is already rotated. A connected output without geometry is switched off.
 */
export function parseXrandr(text: string): DisplayInfo[] {
  const displays: DisplayInfo[] = [];
  for (const line of text.split('\n')) {
    const match = /^(\S+) connected( primary)? (\d+)x(\d+)\+(-?\d+)\+(-?\d+)/.exec(line);
    if (!match) continue;
    displays.push({
      id: displays.length,
      name: match[1],
      width: Number(match[3]),
      height: Number(match[4]),
      x: Number(match[5]),
      y: Number(match[6]),
      // X11 has no per-output scale; desktops that scale do it inside the toolkits.
      scale: 1,
      primary: match[2] !== undefined,
    });
  }
  return displays;
}

/** Interface of the default IPv4 route with the lowest metric, from /proc/net/route. */
export function parseDefaultRoute(text: string): string | undefined {
  let best: { name: string; metric: number } | undefined;
  for (const line of text.split('\n').slice(1)) {
    const [name, destination, , flags, , , metric, mask] = line.trim().split(/\s+/);
    if (!name || destination !== '00000000' || mask !== '00000000') continue;
    // RTF_UP (0x1): the route is usable.
    if ((Number.parseInt(flags ?? '0', 16) & 0x1) === 0) continue;
    const value = Number(metric);
    if (!best || value < best.metric) best = { name, metric: value };
  }
  return best?.name;
}

async function readFirst(paths: readonly string[]): Promise<string> {
  let lastError: unknown;
  for (const path of paths) {
    try {
      return await fs.promises.readFile(path, 'utf8');
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function readLinuxDisplays(options: ReadOptions): Promise<Reading<DisplayInfo[]>> {
  const display = options.env.DISPLAY;
  if (!display) {
    const why = options.env.WAYLAND_DISPLAY
      ? 'no X display (DISPLAY is not set; this Wayland session has no XWayland)'
      : 'no X display (DISPLAY is not set)';
    return { value: [], warnings: [`displays: ${why}`] };
  }
  const env: Record<string, string> = { DISPLAY: display };
  // The caller's PATH and XAUTHORITY decide which xrandr runs and whether the server lets it in.
  if (options.env.XAUTHORITY) env.XAUTHORITY = options.env.XAUTHORITY;
  if (options.env.PATH) env.PATH = options.env.PATH;
  try {
    const result = await runCommand('xrandr', XRANDR_ARGS, {
      env,
      timeoutMs: SUBPROCESS_TIMEOUT_MS,
      installHint: XRANDR_INSTALL_HINT,
    });
    const displays = parseXrandr(result.stdout);
    return {
      value: displays,
      warnings: displays.length === 0 ? [`displays: xrandr on ${display} reported no active output`] : [],
    };
  } catch (error) {
    return { value: [], warnings: [`displays: ${errorMessage(error)}`] };
  }
}

export const linuxSystemInfo: SystemInfoAdapter = {
  platform: 'linux',
  hasLoadAverage: true,

  async describeOs() {
    const kernel = os.release();
    try {
      // os-release(5): /etc/os-release, falling back to /usr/lib/os-release.
      const text = await readFirst(['/etc/os-release', '/usr/lib/os-release']);
      return { value: describeLinuxOs(parseOsRelease(text), kernel), warnings: [] };
    } catch (error) {
      return {
        value: describeLinuxOs({}, kernel),
        warnings: [`os: could not read /etc/os-release: ${errorMessage(error)}`],
      };
    }
  },

  async availableMemory() {
    // libuv reads MemAvailable from /proc/meminfo: memory new programs can get without swapping.
    return { value: os.freemem(), warnings: [] };
  },

  async diskCandidates() {
    try {
      const text = await fs.promises.readFile('/proc/mounts', 'utf8');
      const mounts = await withoutFileMounts(selectDiskMounts(parseProcMounts(text)));
      return { value: onePerDevice(mounts), warnings: [] };
    } catch (error) {
      return {
        value: [{ drive: '/' }],
        warnings: [`disk: could not read /proc/mounts, showing / only: ${errorMessage(error)}`],
      };
    }
  },

  displays: readLinuxDisplays,

  async defaultRouteInterface() {
    try {
      return parseDefaultRoute(await fs.promises.readFile('/proc/net/route', 'utf8'));
    } catch {
      // No /proc/net/route (a sandbox without /proc): the main address is then picked by name.
      return undefined;
    }
  },
};
