import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import type { Platform } from '@nextai/shared';

import { createSandbox } from '../sandbox/select.js';
import type { SandboxStatus } from '../sandbox/types.js';
import { resolveDataDir } from '../core/paths.js';
import { runCommand } from '../core/subprocess.js';
import { networkFileSystemAt, type NetworkFileSystem } from '../storage/network-file-system.js';
import { describeNetworkFileSystem } from '../storage/storage-problem.js';
import { requireDisplay } from './linux/display.js';

/**
 * `nextai doctor`: what the desktop tools need on this machine, what is missing, and the exact
 * command or setting that fixes it. Checks are probes of the real machine; `DoctorProbes` lets
 * tests describe other machines (and other operating systems) without having them.
 */
export type CheckStatus = 'ok' | 'missing' | 'warning';

export interface DoctorCheck {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
  /** The command or setting that fixes it (absent when nothing needs fixing). */
  fix?: string;
  /** Which tools stop working without it. */
  needed_for: string;
}

export interface DoctorProbes {
  /** Absolute path of a program on PATH, or undefined. */
  which(program: string): string | undefined;
  /** Whether a package can be loaded from the host's node_modules. */
  hasPackage(name: string): boolean;
  /** Resolves when the X display is usable; throws with the reason otherwise. */
  display(env: NodeJS.ProcessEnv): Promise<string>;
  /** Whether an EWMH window manager runs on the display. */
  windowManager(env: NodeJS.ProcessEnv): Promise<boolean>;
  /** macOS: runs a JXA snippet and returns its output (permission checks). */
  jxa(script: string): Promise<string>;
  /** Whether the operating-system sandbox can start here (sandbox/select.ts). */
  sandbox(platform: Platform): SandboxStatus;
  /** The network file system the folder is on, if it is on one (storage/network-file-system.ts). */
  networkFileSystem(dir: string, platform: Platform): Promise<NetworkFileSystem | undefined>;
}

interface ProgramNeed {
  programs: string[];
  debianPackage: string;
  neededFor: string;
}

const LINUX_PROGRAMS: ProgramNeed[] = [
  { programs: ['xdotool'], debianPackage: 'xdotool', neededFor: 'typing, keys, mouse, window focus' },
  { programs: ['wmctrl'], debianPackage: 'wmctrl', neededFor: 'app_list, app_switch, window_manage' },
  { programs: ['xprop'], debianPackage: 'x11-utils', neededFor: 'window titles and states' },
  { programs: ['xwininfo'], debianPackage: 'x11-utils', neededFor: 'window bounds' },
  { programs: ['xclip', 'xsel'], debianPackage: 'xclip', neededFor: 'clipboard_read, clipboard_write' },
  { programs: ['notify-send'], debianPackage: 'libnotify-bin', neededFor: 'notification_send, approval notifications' },
  { programs: ['xrandr'], debianPackage: 'x11-xserver-utils', neededFor: 'display list in system_info' },
];

const OCR_PACKAGES = ['tesseract.js', 'tesseract.js-core', '@tesseract.js-data/eng', '@tesseract.js-data/chi_sim'];

export async function runDoctor(
  platform: Platform,
  env: NodeJS.ProcessEnv,
  probes: DoctorProbes = realProbes,
): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [sandboxCheck(platform, probes), await dataFolderCheck(platform, env, probes)];
  if (platform === 'linux') {
    checks.push(await displayCheck(env, probes));
    for (const need of LINUX_PROGRAMS) checks.push(programCheck(need, probes));
  }
  if (platform === 'macos') checks.push(...(await macosPermissionChecks(probes)));
  if (platform === 'windows') {
    checks.push(
      programCheck(
        { programs: ['powershell.exe', 'pwsh.exe'], debianPackage: '', neededFor: 'every desktop tool' },
        probes,
        'PowerShell ships with Windows; make sure C:\\Windows\\System32\\WindowsPowerShell\\v1.0 is on PATH.',
      ),
    );
  }
  const missingOcr = OCR_PACKAGES.filter((name) => !probes.hasPackage(name));
  checks.push({
    id: 'ocr-data',
    title: 'OCR engine and language data (English, Simplified Chinese)',
    status: missingOcr.length === 0 ? 'ok' : 'missing',
    detail: missingOcr.length === 0 ? 'installed, works offline' : `missing packages: ${missingOcr.join(', ')}`,
    ...(missingOcr.length > 0 ? { fix: 'npm install (in the NextAI directory)' } : {}),
    needed_for: 'screen_ocr, element_locate',
  });
  for (const [name, neededFor] of [
    ['node-pty', 'bash_execute, bash_session'],
    ['sharp', 'screenshot'],
    // Without it the daemon cannot tell the person's CLI and panel from the agent's processes, and
    // refuses them the person's authority (answering approvals, resetting the stop).
    ...(platform === 'windows'
      ? []
      : ([['koffi', 'answering approvals, resetting the stop, changing settings']] as const)),
  ] as const) {
    const present = probes.hasPackage(name);
    checks.push({
      id: name,
      title: `${name} (native module)`,
      status: present ? 'ok' : 'missing',
      detail: present ? 'installed' : 'not installed or not built for this Node.js',
      ...(present
        ? {}
        : {
            fix: 'npm install (in the NextAI directory); it needs a C/C++ toolchain: apt install build-essential python3',
          }),
      needed_for: neededFor,
    });
  }
  return checks;
}

/** Everything the agent starts runs in the sandbox; without one, each command asks the person. */
function sandboxCheck(platform: Platform, probes: DoctorProbes): DoctorCheck {
  const status = probes.sandbox(platform);
  const neededFor = 'running commands and apps without asking (bash_execute, bash_session, app_launch)';
  if (status.available) {
    return {
      id: 'sandbox',
      title: 'Sandbox',
      status: 'ok',
      detail: `${status.mechanism}${status.version ? ` ${status.version}` : ''} works: commands run confined, and ask only to leave`,
      needed_for: neededFor,
    };
  }
  return {
    id: 'sandbox',
    title: 'Sandbox',
    // Windows has none yet: that is how NextAI is there, not something to fix.
    status: platform === 'windows' ? 'warning' : 'missing',
    detail: `${status.reason.en}: every command and app asks you first, and nothing runs unconfined without you`,
    ...(status.fix ? { fix: status.fix } : {}),
    needed_for: neededFor,
  };
}

/** SQLite's locking is unreliable on a network file system: said, not refused (network-file-system.ts). */
async function dataFolderCheck(platform: Platform, env: NodeJS.ProcessEnv, probes: DoctorProbes): Promise<DoctorCheck> {
  const dir = resolveDataDir(env);
  const neededFor = 'keeping runs, approvals and the audit log safe in data.db';
  const network = await probes.networkFileSystem(dir, platform).catch(() => undefined);
  if (!network) {
    return {
      id: 'data-folder',
      title: 'Data folder',
      status: 'ok',
      detail: `${dir} is on a local disk`,
      needed_for: neededFor,
    };
  }
  const { message, fix } = describeNetworkFileSystem(dir, network.type, network.mountPoint);
  return {
    id: 'data-folder',
    title: 'Data folder',
    status: 'warning',
    detail: message.en,
    fix: fix.en,
    needed_for: neededFor,
  };
}

async function displayCheck(env: NodeJS.ProcessEnv, probes: DoctorProbes): Promise<DoctorCheck> {
  const neededFor = 'screenshot, mouse, keyboard, windows, OCR of the screen';
  try {
    const display = await probes.display(env);
    const managed = await probes.windowManager(env);
    return {
      id: 'display',
      title: 'X display',
      status: managed ? 'ok' : 'warning',
      detail: managed
        ? `${display} is reachable, with an EWMH window manager`
        : `${display} is reachable, but no EWMH window manager runs: windows have no titles, focus or states`,
      ...(managed ? {} : { fix: 'run a window manager (your desktop has one; under Xvfb: openbox &)' }),
      needed_for: neededFor,
    };
  } catch (error) {
    return {
      id: 'display',
      title: 'X display',
      status: 'missing',
      detail: (error as Error).message,
      fix: env.WAYLAND_DISPLAY
        ? 'log in with an "Xorg" session, or enable XWayland'
        : 'start the daemon from your desktop session (or set DISPLAY, e.g. DISPLAY=:0 nextai daemon --detach)',
      needed_for: neededFor,
    };
  }
}

function programCheck(need: ProgramNeed, probes: DoctorProbes, windowsFix?: string): DoctorCheck {
  const found = need.programs.map((program) => probes.which(program)).find(Boolean);
  const names = need.programs.join(' or ');
  return {
    id: need.programs[0] ?? names,
    title: names,
    status: found ? 'ok' : 'missing',
    detail: found ? found : 'not found on PATH',
    ...(found ? {} : { fix: windowsFix ?? `sudo apt install ${need.debianPackage}` }),
    needed_for: need.neededFor,
  };
}

async function macosPermissionChecks(probes: DoctorProbes): Promise<DoctorCheck[]> {
  // Not run on a real Mac: CGPreflightScreenCaptureAccess and AXIsProcessTrusted answer for the
  // process that asks (osascript here, which inherits the terminal's or the daemon's grant).
  const ask = async (script: string): Promise<boolean | undefined> => {
    try {
      return (await probes.jxa(script)).trim() === 'true';
    } catch {
      return undefined;
    }
  };
  const screen = await ask("ObjC.import('CoreGraphics'); $.CGPreflightScreenCaptureAccess()");
  const accessibility = await ask("ObjC.import('ApplicationServices'); $.AXIsProcessTrusted()");
  const permission = (
    id: string,
    title: string,
    granted: boolean | undefined,
    pane: string,
    neededFor: string,
  ): DoctorCheck => ({
    id,
    title,
    status: granted === true ? 'ok' : granted === false ? 'missing' : 'warning',
    detail: granted === true ? 'granted' : granted === false ? 'not granted' : 'could not be checked',
    ...(granted === true
      ? {}
      : { fix: `System Settings › Privacy & Security › ${pane}: allow the app that runs NextAI (Terminal or node)` }),
    needed_for: neededFor,
  });
  return [
    permission('screen-recording', 'Screen Recording permission', screen, 'Screen Recording', 'screenshot, OCR'),
    permission('accessibility', 'Accessibility permission', accessibility, 'Accessibility', 'mouse, keyboard, windows'),
    programCheck({ programs: ['screencapture'], debianPackage: '', neededFor: 'screenshot' }, probes, 'part of macOS'),
  ];
}

const requireFromHere = createRequire(import.meta.url);

export const realProbes: DoctorProbes = {
  sandbox: (platform) => createSandbox(platform).status(),
  networkFileSystem: (dir, platform) => networkFileSystemAt(dir, platform),
  which(program) {
    for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
      if (!directory) continue;
      const candidate = path.join(directory, program);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        if (fs.statSync(candidate).isFile()) return candidate;
      } catch {
        // Not in this directory; try the next.
      }
    }
    return undefined;
  },
  hasPackage(name) {
    // Packages with an "exports" map may hide package.json; their main entry then resolves.
    for (const specifier of [`${name}/package.json`, name]) {
      try {
        requireFromHere.resolve(specifier);
        return true;
      } catch {
        // Try the next form.
      }
    }
    return false;
  },
  display: (env) => requireDisplay(env),
  async windowManager(env) {
    try {
      const { stdout } = await runCommand('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], {
        env: { DISPLAY: env.DISPLAY ?? '' },
        timeoutMs: 2000,
      });
      return stdout.includes('window id');
    } catch {
      return false;
    }
  },
  async jxa(script) {
    const { stdout } = await runCommand('osascript', ['-l', 'JavaScript', '-e', script], { timeoutMs: 5000 });
    return stdout;
  },
};
