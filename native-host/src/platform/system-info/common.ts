import fs from 'node:fs';
import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';

import type { Platform, SYSTEM_INFO_CATEGORIES, ToolOutput } from '@nextai/shared';

export type SystemInfoOutput = ToolOutput<'system_info'>;
export type SystemInfoCategory = (typeof SYSTEM_INFO_CATEGORIES)[number];
export type DisplayInfo = SystemInfoOutput['displays'][number];
export type DiskInfo = NonNullable<SystemInfoOutput['disk']>[number];
export type NetworkInterfaceSummary = NonNullable<SystemInfoOutput['network']>['interfaces'][number];

/** Every helper program gets this long; they all answer in milliseconds when healthy. */
export const SUBPROCESS_TIMEOUT_MS = 3_000;
/** PowerShell and system_profiler start slowly on a cold machine (a second or two is normal). */
export const SLOW_SUBPROCESS_TIMEOUT_MS = 5_000;
/** A local filesystem answers statfs at once; one that does not is skipped rather than awaited. */
export const STATFS_TIMEOUT_MS = 2_000;
/** Long enough for a meaningful CPU usage figure, short enough to keep the call well under 1 s. */
export const CPU_SAMPLE_MS = 100;

/** A value read from the system, with what could not be read on the way (and why). */
export interface Reading<T> {
  value: T;
  warnings: string[];
}

export interface ReadOptions {
  /** The environment to honour (DISPLAY, PATH…): the daemon's, or a test's. */
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

export interface OsDescription {
  /** Name and version as a person would say it: "Debian GNU/Linux 12 (bookworm)", "macOS 14.5". */
  name: string;
  version: string;
}

export interface DiskCandidate {
  /** Mount point or drive letter, as reported. */
  drive: string;
  /** What to stat when it differs from `drive`: `C:\\` for `C:` (bare `C:` means "the current folder on C"). */
  path?: string;
  filesystem?: string;
}

/** What differs per operating system; everything node:os answers alike stays in index.ts. */
export interface SystemInfoAdapter {
  readonly platform: Platform;
  /** Windows has no load average (os.loadavg() returns zeros there). */
  readonly hasLoadAverage: boolean;
  describeOs(options: ReadOptions): Promise<Reading<OsDescription>>;
  /** Bytes available to start new programs without swapping. */
  availableMemory(options: ReadOptions): Promise<Reading<number>>;
  diskCandidates(options: ReadOptions): Promise<Reading<DiskCandidate[]>>;
  displays(options: ReadOptions): Promise<Reading<DisplayInfo[]>>;
  /** The interface that carries the default route, when the OS tells cheaply. */
  defaultRouteInterface(options: ReadOptions): Promise<string | undefined>;
}

export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

export function gibibytes(bytes: number): number {
  return roundTo(bytes / 1024 ** 3, 2);
}

/** `part / whole` as a percentage with one decimal, clamped to 0–100 (0 when whole is 0). */
export function percentOf(part: number, whole: number): number {
  if (!(whole > 0)) return 0;
  return roundTo(Math.min(100, Math.max(0, (part / whole) * 100)), 1);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Busy share of all cores between two os.cpus() samples. */
export function cpuUsagePercent(before: readonly os.CpuInfo[], after: readonly os.CpuInfo[]): number {
  let busy = 0;
  let total = 0;
  const count = Math.min(before.length, after.length);
  for (let index = 0; index < count; index += 1) {
    const first = before[index]?.times;
    const second = after[index]?.times;
    if (!first || !second) continue;
    const idle = second.idle - first.idle;
    const all =
      second.user -
      first.user +
      (second.nice - first.nice) +
      (second.sys - first.sys) +
      (second.irq - first.irq) +
      idle;
    busy += all - idle;
    total += all;
  }
  return percentOf(busy, total);
}

export async function sampleCpuUsage(intervalMs: number = CPU_SAMPLE_MS): Promise<number> {
  const before = os.cpus();
  await delay(intervalMs);
  return cpuUsagePercent(before, os.cpus());
}

export interface FilesystemSize {
  blocks: number;
  bfree: number;
  bavail: number;
  bsize: number;
}

/**
 * One disk row from statfs numbers, computed the way `df` does: free is what an unprivileged
 * user may still write (bavail), and usage leaves the root-reserved blocks out of the total.
 * Undefined for a filesystem with no blocks (a pseudo filesystem that slipped through).
 */
export function diskInfo(candidate: DiskCandidate, size: FilesystemSize): DiskInfo | undefined {
  const total = size.blocks * size.bsize;
  if (!(total > 0)) return undefined;
  const used = (size.blocks - size.bfree) * size.bsize;
  const available = size.bavail * size.bsize;
  return {
    drive: candidate.drive,
    ...(candidate.filesystem === undefined ? {} : { filesystem: candidate.filesystem }),
    total_gb: gibibytes(total),
    free_gb: gibibytes(available),
    usage_percent: percentOf(used, used + available),
  };
}

/** Rejects after `timeoutMs`; the work itself cannot be cancelled and runs on to its end. */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * statfs for every candidate at once. A mount point that cannot be read (gone, no permission, a
 * drive letter with no medium) is skipped; only when nothing at all could be read is that a
 * warning. A statfs that hangs is abandoned after STATFS_TIMEOUT_MS — it keeps one libuv thread
 * busy until the kernel gives up, which is why network filesystems are not candidates at all.
 */
export async function readDisks(
  candidates: readonly DiskCandidate[],
  timeoutMs: number = STATFS_TIMEOUT_MS,
): Promise<Reading<DiskInfo[]>> {
  const failures: string[] = [];
  const rows = await Promise.all(
    candidates.map(async (candidate): Promise<DiskInfo | undefined> => {
      try {
        const target = candidate.path ?? candidate.drive;
        const size = await withTimeout(fs.promises.statfs(target), timeoutMs, `statfs ${target}`);
        return diskInfo(candidate, size);
      } catch (error) {
        failures.push(`${candidate.drive}: ${errorMessage(error)}`);
        return undefined;
      }
    }),
  );
  const disks = rows.filter((row): row is DiskInfo => row !== undefined);
  const warnings =
    disks.length === 0
      ? [
          candidates.length === 0
            ? 'disk: no mounted filesystem was found'
            : `disk: no filesystem could be read${failures.length > 0 ? ` (${failures.slice(0, 3).join('; ')})` : ''}`,
        ]
      : [];
  return { value: disks, warnings };
}

/** Non-internal addresses of every interface, in the order the OS lists them. */
export function listInterfaces(
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): NetworkInterfaceSummary[] {
  const list: NetworkInterfaceSummary[] = [];
  for (const [name, addresses] of Object.entries(interfaces)) {
    for (const address of addresses ?? []) {
      if (address.internal) continue;
      list.push({ name, address: address.address, family: address.family, mac: address.mac });
    }
  }
  return list;
}

/**
 * Interfaces that exist for containers, VMs and VPNs rather than for the machine's own network:
 * their addresses are rarely what a person means by "my IP address".
 */
const VIRTUAL_INTERFACE = new RegExp(
  [
    // Linux: containers, VM bridges, VPN tunnels.
    '^(docker|br-|veth|virbr|vboxnet|vmnet|lxc|lxd|cni|flannel|podman|kube|tun|tap|wg|zt|tailscale)',
    // macOS: VPN tunnels, AirDrop, Internet sharing and VM bridges, Apple silicon's internal links.
    '^(utun|awdl|llw|bridge|anpi|ap\\d)',
    // Windows adapters are named after what created them.
    'vEthernet|VirtualBox|VMware|Hyper-V|Loopback',
  ].join('|'),
  'i',
);

/**
 * The machine's main IPv4 address: the one on the default-route interface when known, otherwise
 * the first on an interface that does not look virtual, otherwise any. Link-local (169.254/16)
 * addresses never count. Null when there is none.
 */
export function pickMainIPv4(interfaces: readonly NetworkInterfaceSummary[], defaultRoute?: string): string | null {
  const candidates = interfaces.filter((entry) => entry.family === 'IPv4' && !entry.address.startsWith('169.254.'));
  const onRoute = defaultRoute === undefined ? undefined : candidates.find((entry) => entry.name === defaultRoute);
  const physical = candidates.find((entry) => !VIRTUAL_INTERFACE.test(entry.name));
  return (onRoute ?? physical ?? candidates[0])?.address ?? null;
}
