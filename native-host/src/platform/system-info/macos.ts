// macOS system information. The parsers are unit-tested with fixtures that follow outputs recorded
// on real Macs; this file itself has not been run on a real Mac yet.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { z } from 'zod';

import { runCommand } from '../../core/subprocess.js';
import {
  SLOW_SUBPROCESS_TIMEOUT_MS,
  SUBPROCESS_TIMEOUT_MS,
  errorMessage,
  roundTo,
  type DiskCandidate,
  type DisplayInfo,
  type OsDescription,
  type Reading,
  type SystemInfoAdapter,
} from './common.js';

export const SW_VERS_COMMAND = { command: 'sw_vers', args: [] } as const;
export const VM_STAT_COMMAND = { command: 'vm_stat', args: [] } as const;
export const DISPLAYS_COMMAND = { command: 'system_profiler', args: ['SPDisplaysDataType', '-json'] } as const;

/** `Key:<tabs>value` lines of `sw_vers` (ProductName, ProductVersion, BuildVersion…). */
export function parseSwVers(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*(\w+):\s*(.*?)\s*$/.exec(line);
    if (match?.[1]) fields[match[1]] = match[2] ?? '';
  }
  return fields;
}

export function describeMacOs(fields: Record<string, string>, kernel: string): OsDescription {
  const product = fields.ProductName || 'macOS';
  const version = fields.ProductVersion;
  if (!version) return { name: `${product} (Darwin ${kernel})`, version: kernel };
  // ProductVersionExtra is the Rapid Security Response suffix, e.g. "(a)".
  const full = fields.ProductVersionExtra ? `${version} ${fields.ProductVersionExtra}` : version;
  return {
    name: `${product} ${full}`,
    version: fields.BuildVersion ? `${full} (${fields.BuildVersion})` : full,
  };
}

/**
 * Bytes available to new programs from `vm_stat`: free + speculative + inactive pages, the figure
 * psutil and Zabbix report. os.freemem() on macOS counts only free pages, which is a small
 * fraction on any machine that has been up for a while (the rest is reclaimable cache).
 */
export function parseVmStat(text: string): number | undefined {
  const pageSize = /page size of (\d+) bytes/.exec(text)?.[1];
  if (!pageSize) return undefined;
  const pages = (label: string): number | undefined => {
    const value = new RegExp(`^Pages ${label}:\\s+(\\d+)\\.?\\s*$`, 'm').exec(text)?.[1];
    return value === undefined ? undefined : Number(value);
  };
  const free = pages('free');
  const inactive = pages('inactive');
  if (free === undefined || inactive === undefined) return undefined;
  return (free + inactive + (pages('speculative') ?? 0)) * Number(pageSize);
}

const profilerSchema = z
  .object({
    SPDisplaysDataType: z
      .array(z.object({ spdisplays_ndrvs: z.array(z.record(z.string(), z.unknown())).optional() }).loose())
      .optional(),
  })
  .loose();

/** "1728 x 1117 @ 120.00Hz", "3456 x 2234" and the "×" some versions print. */
function parseSize(value: unknown): { width: number; height: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /(\d+)\s*[x×]\s*(\d+)/.exec(value);
  return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
}

/**
 * Displays from `system_profiler SPDisplaysDataType -json`. Width and height are the logical
 * size ("looks like", `_spdisplays_resolution`), the space the mouse moves in; scale is backing
 * pixels (`_spdisplays_pixels`) over that, which is what a screenshot is scaled by. When the
 * backing size is missing, a Retina panel counts as 2.
 */
export function parseSystemProfilerDisplays(json: string): DisplayInfo[] {
  const root = profilerSchema.parse(JSON.parse(json));
  const displays: DisplayInfo[] = [];
  for (const gpu of root.SPDisplaysDataType ?? []) {
    for (const entry of gpu.spdisplays_ndrvs ?? []) {
      const logical = parseSize(entry._spdisplays_resolution) ?? parseSize(entry.spdisplays_resolution);
      if (!logical) continue;
      const pixels = parseSize(entry._spdisplays_pixels);
      const retina = [
        entry.spdisplays_pixelresolution,
        entry.spdisplays_display_type,
        entry.spdisplays_resolution,
      ].some((value) => typeof value === 'string' && /retina/i.test(value));
      const scale = pixels && pixels.width >= logical.width ? roundTo(pixels.width / logical.width, 2) : retina ? 2 : 1;
      displays.push({
        id: displays.length,
        ...(typeof entry._name === 'string' ? { name: entry._name } : {}),
        width: logical.width,
        height: logical.height,
        scale,
        primary: entry.spdisplays_main === 'spdisplays_yes',
      });
    }
  }
  return displays;
}

/**
 * `/` plus every volume mounted under /Volumes. The startup disk appears there too, as a symlink
 * to `/`; a plain folder left behind by an unmounted volume sits on the root device — both skipped.
 */
async function macDiskCandidates(): Promise<Reading<DiskCandidate[]>> {
  const candidates: DiskCandidate[] = [{ drive: '/' }];
  try {
    const rootDevice = (await fs.promises.stat('/')).dev;
    const entries = await fs.promises.readdir('/Volumes', { withFileTypes: true });
    const mountPoints = entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map((entry) => path.posix.join('/Volumes', entry.name));
    const stats = await Promise.allSettled(mountPoints.map((mountPoint) => fs.promises.stat(mountPoint)));
    mountPoints.forEach((mountPoint, index) => {
      const stat = stats[index];
      // One that cannot be stat'ed stays a candidate: readDisks then records why it is missing.
      if (stat?.status === 'fulfilled' && stat.value.dev === rootDevice) return;
      candidates.push({ drive: mountPoint });
    });
    return { value: candidates, warnings: [] };
  } catch (error) {
    return { value: candidates, warnings: [`disk: could not list /Volumes, showing / only: ${errorMessage(error)}`] };
  }
}

export const macosSystemInfo: SystemInfoAdapter = {
  platform: 'macos',
  hasLoadAverage: true,

  async describeOs() {
    const kernel = os.release();
    try {
      const result = await runCommand(SW_VERS_COMMAND.command, SW_VERS_COMMAND.args, {
        timeoutMs: SUBPROCESS_TIMEOUT_MS,
      });
      return { value: describeMacOs(parseSwVers(result.stdout), kernel), warnings: [] };
    } catch (error) {
      return { value: describeMacOs({}, kernel), warnings: [`os: ${errorMessage(error)}`] };
    }
  },

  async availableMemory() {
    try {
      const result = await runCommand(VM_STAT_COMMAND.command, VM_STAT_COMMAND.args, {
        timeoutMs: SUBPROCESS_TIMEOUT_MS,
      });
      const available = parseVmStat(result.stdout);
      if (available !== undefined) return { value: available, warnings: [] };
      return {
        value: os.freemem(),
        warnings: ['memory: vm_stat printed no page counts; available memory counts free pages only'],
      };
    } catch (error) {
      return {
        value: os.freemem(),
        warnings: [`memory: ${errorMessage(error)}; available memory counts free pages only`],
      };
    }
  },

  diskCandidates: macDiskCandidates,

  async displays() {
    try {
      const result = await runCommand(DISPLAYS_COMMAND.command, DISPLAYS_COMMAND.args, {
        timeoutMs: SLOW_SUBPROCESS_TIMEOUT_MS,
      });
      const displays = parseSystemProfilerDisplays(result.stdout);
      // A Mac mini or a closed-lid MacBook without an external screen has no display at all.
      return { value: displays, warnings: displays.length === 0 ? ['displays: system_profiler reported none'] : [] };
    } catch (error) {
      return { value: [], warnings: [`displays: ${errorMessage(error)}`] };
    }
  },

  async defaultRouteInterface() {
    // `route -n get default` would tell, at the cost of another process; the name heuristic in
    // pickMainIPv4 (en0 over bridges, utun and awdl) is right on ordinary Macs.
    return undefined;
  },
};
