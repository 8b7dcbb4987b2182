import os from 'node:os';

import { SYSTEM_INFO_CATEGORIES, type Platform } from '@nextai/shared';

import { currentPlatform } from '../../core/current-platform.js';
import {
  gibibytes,
  listInterfaces,
  percentOf,
  pickMainIPv4,
  readDisks,
  roundTo,
  sampleCpuUsage,
  type DiskInfo,
  type ReadOptions,
  type Reading,
  type SystemInfoAdapter,
  type SystemInfoCategory,
  type SystemInfoOutput,
} from './common.js';
import { linuxSystemInfo } from './linux.js';
import { macosSystemInfo } from './macos.js';
import { windowsSystemInfo } from './windows.js';

export type { SystemInfoAdapter, SystemInfoCategory, SystemInfoOutput } from './common.js';

const ADAPTERS: Record<Platform, SystemInfoAdapter> = {
  linux: linuxSystemInfo,
  macos: macosSystemInfo,
  windows: windowsSystemInfo,
};

export function systemInfoAdapter(platform: Platform = currentPlatform()): SystemInfoAdapter {
  return ADAPTERS[platform];
}

export interface CollectOptions extends ReadOptions {
  /** The running OS's adapter unless a test picks one. */
  adapter?: SystemInfoAdapter;
}

const withoutWarnings = <T>(value: T): Promise<Reading<T>> => Promise.resolve({ value, warnings: [] });

/**
 * Everything `system_info` returns. The parts run side by side, so the call takes about as long
 * as its slowest part: the 100 ms CPU sample when `cpu` is asked for, else a helper process
 * for the displays. Anything that cannot be read becomes a warning, never a failure.
 */
export async function collectSystemInfo(
  categories: readonly SystemInfoCategory[] | undefined,
  options: CollectOptions,
): Promise<SystemInfoOutput> {
  options.signal.throwIfAborted();
  const adapter = options.adapter ?? systemInfoAdapter();
  const wanted = new Set<SystemInfoCategory>(categories ?? SYSTEM_INFO_CATEGORIES);

  const [osDescription, availableMemory, displays, cpuUsage, disks, defaultRoute] = await Promise.all([
    adapter.describeOs(options),
    adapter.availableMemory(options),
    adapter.displays(options),
    wanted.has('cpu') ? sampleCpuUsage() : Promise.resolve(0),
    wanted.has('disk')
      ? adapter.diskCandidates(options).then(async (candidates): Promise<Reading<DiskInfo[]>> => {
          const read = await readDisks(candidates.value);
          return { value: read.value, warnings: [...candidates.warnings, ...read.warnings] };
        })
      : withoutWarnings<DiskInfo[]>([]),
    wanted.has('network') ? adapter.defaultRouteInterface(options) : Promise.resolve(undefined),
  ]);
  options.signal.throwIfAborted();

  const cpus = os.cpus();
  const memoryTotal = os.totalmem();
  const memoryFree = Math.min(availableMemory.value, memoryTotal);
  const hostname = os.hostname();
  const output: SystemInfoOutput = {
    os: osDescription.value.name,
    arch: os.arch(),
    cpus: cpus.length,
    memory_total: memoryTotal,
    memory_free: memoryFree,
    displays: displays.value,
  };
  const warnings = [...osDescription.warnings, ...availableMemory.warnings, ...displays.warnings];

  if (wanted.has('os')) {
    output.system = {
      os: osDescription.value.name,
      platform: adapter.platform,
      version: osDescription.value.version,
      kernel: os.release(),
      hostname,
      architecture: os.arch(),
      uptime_seconds: Math.floor(os.uptime()),
    };
  }
  if (wanted.has('cpu')) {
    output.cpu = {
      // Some ARM kernels leave the model name empty.
      name: cpus[0]?.model.trim() || `${os.arch()} processor`,
      cores: cpus.length,
      usage_percent: cpuUsage,
      ...(adapter.hasLoadAverage ? { load_average: os.loadavg().map((load) => roundTo(load, 2)) } : {}),
    };
  }
  if (wanted.has('memory')) {
    output.memory = {
      total_gb: gibibytes(memoryTotal),
      available_gb: gibibytes(memoryFree),
      usage_percent: percentOf(memoryTotal - memoryFree, memoryTotal),
    };
  }
  if (wanted.has('disk')) {
    output.disk = disks.value;
    warnings.push(...disks.warnings);
  }
  if (wanted.has('network')) {
    const interfaces = listInterfaces();
    output.network = { hostname, ip_address: pickMainIPv4(interfaces, defaultRoute), interfaces };
  }
  if (warnings.length > 0) output.warnings = warnings;
  return output;
}
