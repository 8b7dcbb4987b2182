// Windows system information. The command construction and the parser are unit-tested; this
// file has not been run on a real Windows machine yet.
import os from 'node:os';

import { z } from 'zod';

import { runCommand } from '../../core/subprocess.js';
import {
  SLOW_SUBPROCESS_TIMEOUT_MS,
  errorMessage,
  roundTo,
  type DiskCandidate,
  type DisplayInfo,
  type OsDescription,
  type SystemInfoAdapter,
} from './common.js';

/** Builds that are Windows 11 although the registry's ProductName still says "Windows 10". */
const FIRST_WINDOWS_11_BUILD = 22_000;

/**
 * `os.version()` is the registry's ProductName, which Microsoft left at "Windows 10 …" on
 * Windows 11; the build number in `os.release()` ("10.0.22631") tells them apart.
 */
export function describeWindowsOs(productName: string, release: string): OsDescription {
  const build = Number(release.split('.')[2]);
  let name = productName.trim() || 'Windows';
  if (build >= FIRST_WINDOWS_11_BUILD) name = name.replace(/^Windows 10\b/, 'Windows 11');
  return { name: `${name} (${release})`, version: release };
}

/**
 * Screens with their bounds, plus two DPI figures that turn the bounds into pixels: the one this
 * process sees (96 when Windows virtualises coordinates for a DPI-unaware process) and the one
 * the desktop uses (AppliedDPI; per sign-in, so a secondary screen with its own scaling is
 * approximated by it). Single quotes only, and sent as -EncodedCommand, so no quoting can break it.
 */
export const DISPLAYS_SCRIPT = [
  "$ErrorActionPreference = 'Stop'",
  'Add-Type -AssemblyName System.Windows.Forms, System.Drawing',
  '$graphics = [System.Drawing.Graphics]::FromHwnd([IntPtr]::Zero)',
  '$processDpi = $graphics.DpiX',
  '$graphics.Dispose()',
  "$systemDpi = (Get-ItemProperty -Path 'HKCU:\\Control Panel\\Desktop\\WindowMetrics' -Name AppliedDPI -ErrorAction SilentlyContinue).AppliedDPI",
  '$screens = @([System.Windows.Forms.Screen]::AllScreens | ForEach-Object {',
  '  [pscustomobject]@{ name = $_.DeviceName; x = $_.Bounds.X; y = $_.Bounds.Y; width = $_.Bounds.Width; height = $_.Bounds.Height; primary = $_.Primary }',
  '})',
  // -InputObject with @(...) keeps a single screen an array (a pipeline would unwrap it).
  'ConvertTo-Json -Compress -Depth 3 -InputObject ([pscustomobject]@{ processDpi = $processDpi; systemDpi = $systemDpi; screens = $screens })',
].join('\n');

export const POWERSHELL_INSTALL_HINT =
  'Windows PowerShell is part of Windows: check that %SystemRoot%\\System32\\WindowsPowerShell\\v1.0 is on PATH.';

/** powershell.exe arguments for a script: UTF-16LE base64 as -EncodedCommand expects. */
export function powershellCommand(script: string): { command: string; args: string[] } {
  return {
    command: 'powershell.exe',
    args: ['-NoProfile', '-NonInteractive', '-EncodedCommand', Buffer.from(script, 'utf16le').toString('base64')],
  };
}

const screensSchema = z.object({
  processDpi: z.number().nullish(),
  systemDpi: z.number().nullish(),
  screens: z.array(
    z.object({
      name: z.string(),
      x: z.number().int(),
      y: z.number().int(),
      width: z.number().int(),
      height: z.number().int(),
      primary: z.boolean(),
    }),
  ),
});

/** Parses what DISPLAYS_SCRIPT prints; scale is pixels per reported unit (1 when unknown). */
export function parseWindowsScreens(json: string): DisplayInfo[] {
  const parsed = screensSchema.parse(JSON.parse(json));
  const ratio = parsed.systemDpi && parsed.processDpi ? parsed.systemDpi / parsed.processDpi : 1;
  const scale = ratio > 0 ? roundTo(ratio, 2) : 1;
  return parsed.screens.map((screen, index) => ({
    id: index,
    name: screen.name,
    width: screen.width,
    height: screen.height,
    x: screen.x,
    y: screen.y,
    scale,
    primary: screen.primary,
  }));
}

/** Every drive letter; the ones that do not exist fail statfs at once and are skipped. */
export function windowsDriveCandidates(): DiskCandidate[] {
  return Array.from({ length: 26 }, (_unused, index) => {
    const letter = String.fromCharCode('A'.charCodeAt(0) + index);
    return { drive: `${letter}:`, path: `${letter}:\\` };
  });
}

export const windowsSystemInfo: SystemInfoAdapter = {
  platform: 'windows',
  hasLoadAverage: false,

  async describeOs() {
    return { value: describeWindowsOs(os.version(), os.release()), warnings: [] };
  },

  async availableMemory() {
    // GlobalMemoryStatusEx's ullAvailPhys: standby and free pages, what new programs can get.
    return { value: os.freemem(), warnings: [] };
  },

  async diskCandidates() {
    return { value: windowsDriveCandidates(), warnings: [] };
  },

  async displays() {
    const { command, args } = powershellCommand(DISPLAYS_SCRIPT);
    try {
      const result = await runCommand(command, args, {
        timeoutMs: SLOW_SUBPROCESS_TIMEOUT_MS,
        installHint: POWERSHELL_INSTALL_HINT,
      });
      return { value: parseWindowsScreens(result.stdout), warnings: [] };
    } catch (error) {
      return { value: [], warnings: [`displays: ${errorMessage(error)}`] };
    }
  },

  async defaultRouteInterface() {
    // Reading the route table takes another PowerShell start (~0.5 s); pickMainIPv4 skips
    // vEthernet, VirtualBox and VMware adapters by name instead.
    return undefined;
  },
};
