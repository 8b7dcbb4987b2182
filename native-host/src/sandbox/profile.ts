import fs from 'node:fs';
import path from 'node:path';

import { say, type Localized, type SandboxNetwork } from '@nextai/shared';

import { inside, secretPlaces, tooBroadToWrite, type SandboxPlatform } from './places.js';

/**
 * What one sandboxed process may do, independent of the mechanism that enforces it (bubblewrap
 * on Linux, Seatbelt on macOS). Every path is absolute and real (symlinks resolved), so the
 * mechanism confines what the kernel will really open.
 */
export interface SandboxProfile {
  homeDir: string;
  /** Folders it may change. Everything else is read-only, or hidden. */
  writable: string[];
  /** Inside the writable folders: kept read-only (git hooks and config, start-up files). */
  readOnly: string[];
  /**
   * Inside the writable folders: each stays where it is (a project, its `.git`), so that a
   * command cannot move it aside and put a folder of its own making in its place.
   */
  pinned: string[];
  /** Not visible at all: folders appear empty, files empty. */
  hidden: string[];
  network: SandboxNetwork;
  /** A folder on the host that the process sees as /tmp (its private temporary folder). */
  tmpDir: string;
  /** Other host paths it sees at the same place, read-only (a shell session's own call files). */
  visible: string[];
  /** For a graphical app: the X display it may draw on. */
  display?: { name: string; socket: string; xauthority?: string | undefined } | undefined;
  /**
   * For a graphical app: folders of its own (on the host, private to it) shown where apps keep
   * their settings (`~/.config`…), so it starts fresh, can save its settings, and sees none of
   * the person's.
   */
  overlays?: { source: string; target: string }[] | undefined;
  /** Its host name, by which an app's windows are recognised (pids.ts). */
  hostname?: string | undefined;
  /** Where the process starts. */
  cwd: string;
}

/** What the policy knows of a sandbox before anything runs: enough to judge and to explain. */
export interface SandboxFolders {
  /** Real paths of the folders that are writable. */
  writable: string[];
  /** Places hidden (existing or not): a read of one needs to leave the sandbox. */
  hidden: string[];
  /** Folders left out of the writable list, and why, in words a person reads on the card. */
  notes: Localized[];
}

export interface SandboxFolderSettings {
  platform: SandboxPlatform;
  homeDir: string;
  /** `security.allowed_directories`, `~` allowed. */
  allowed: readonly string[];
  /** A task's grant: the writable folders are narrowed to these (never widened). */
  granted?: readonly string[] | undefined;
  /** `security.denied_patterns`: the ones naming a place in the home folder are hidden too. */
  denied: readonly string[];
  /** NextAI's own files (data directory, manifests, service units). */
  own: readonly string[];
}

/** The file-system calls the profile needs, so that tests can give it a tree of their own. */
export interface ProfileFs {
  realpath(target: string): string;
  isDirectory(target: string): boolean;
  exists(target: string): boolean;
}

export const realProfileFs: ProfileFs = {
  realpath: (target) => fs.realpathSync.native(target),
  isDirectory: (target) => {
    try {
      return fs.statSync(target).isDirectory();
    } catch {
      return false;
    }
  },
  exists: (target) => {
    try {
      fs.lstatSync(target);
      return true;
    } catch {
      return false;
    }
  },
};

/**
 * The writable and hidden folders for a configuration. A folder that does not exist, is not a
 * folder, or is far too broad (`/`, the home folder, a link to either, a system folder) is left
 * out with a note: the sandbox then gives less access, never more than the settings say.
 */
export function sandboxFolders(settings: SandboxFolderSettings, files: ProfileFs = realProfileFs): SandboxFolders {
  const notes: Localized[] = [];
  const home = realOrSelf(settings.homeDir, files);
  const hidden = hiddenPlaces(settings, home, files);
  const usable = (configured: string, list: 'allowed' | 'granted'): string | undefined => {
    const shown = configured;
    let absolute: string;
    if (configured === '~' || configured.startsWith('~/'))
      absolute = path.posix.join(settings.homeDir, configured.slice(1));
    else if (path.posix.isAbsolute(configured)) absolute = path.posix.normalize(configured);
    else {
      notes.push(
        say(
          `${shown} is not an absolute folder, so the sandbox does not make it writable.`,
          `${shown} 不是绝对路径，沙箱不会让它可写。`,
        ),
      );
      return undefined;
    }
    let real: string;
    try {
      real = files.realpath(absolute);
    } catch {
      if (list === 'allowed') {
        notes.push(
          say(
            `${shown} does not exist, so nothing there is writable until it is created.`,
            `${shown} 不存在；在它被创建之前，那里没有可写的内容。`,
          ),
        );
      }
      return undefined;
    }
    if (!files.isDirectory(real)) {
      notes.push(say(`${shown} is not a folder, so it is not writable.`, `${shown} 不是文件夹，所以不可写。`));
      return undefined;
    }
    const link = real === absolute ? '' : ` (a link to ${real})`;
    const linkZh = real === absolute ? '' : `（指向 ${real} 的链接）`;
    const broad = tooBroadToWrite(real, home);
    if (broad) {
      const what = {
        root: say('the whole file system', '整个文件系统'),
        home: say(
          'your home folder or a folder holding it (its start-up files and keys)',
          '你的主目录或包含它的文件夹（其中有启动文件和密钥）',
        ),
        system: say('a system folder', '系统文件夹'),
      }[broad];
      notes.push(
        say(
          `${shown}${link} is ${what.en}: the sandbox never makes that writable. Allow folders inside it instead.`,
          `${shown}${linkZh} 是${what['zh-CN']}：沙箱从不让它可写。请改为允许其中的文件夹。`,
        ),
      );
      return undefined;
    }
    if (hidden.some((place) => inside(real, place))) {
      notes.push(
        say(
          `${shown}${link} is inside a place the sandbox hides (NextAI's own files or your keys and passwords).`,
          `${shown}${linkZh} 位于沙箱隐藏的位置（NextAI 自身文件或你的密钥和密码）中。`,
        ),
      );
      return undefined;
    }
    return real;
  };
  let writable = settings.allowed.map((entry) => usable(entry, 'allowed')).filter((entry) => entry !== undefined);
  if (settings.granted !== undefined) {
    const granted = settings.granted.map((entry) => usable(entry, 'granted')).filter((entry) => entry !== undefined);
    // Both lists must admit a folder: the deeper of each overlapping pair.
    writable = writable.flatMap((allowed) =>
      granted.flatMap((grant) => (inside(grant, allowed) ? [grant] : inside(allowed, grant) ? [allowed] : [])),
    );
  }
  if (settings.allowed.length === 0) {
    notes.push(
      say(
        'No folders are allowed (security.allowed_directories is empty): the sandbox writes only to its private temporary folder.',
        '没有允许的文件夹（security.allowed_directories 为空）：沙箱只能写入它自己的临时文件夹。',
      ),
    );
  }
  return { writable: outermost(writable), hidden, notes };
}

/** Every hidden place: NextAI's own files, secrets, and denied patterns that name a home folder. */
function hiddenPlaces(settings: SandboxFolderSettings, home: string, files: ProfileFs): string[] {
  const places = new Set<string>();
  const add = (place: string) => {
    places.add(place);
    // A symlinked ~/.ssh is hidden where it really is too.
    const real = realOrSelf(place, files);
    if (real !== place) places.add(real);
  };
  for (const own of settings.own) add(path.posix.normalize(own));
  for (const secret of secretPlaces(settings.homeDir, settings.platform)) add(secret);
  for (const pattern of settings.denied) {
    const base = deniedBase(pattern, settings.homeDir);
    // Denied system folders (/etc/**) stay visible: the sandbox keeps them read-only, and
    // programs cannot run without them.
    if (base && base !== settings.homeDir && (inside(base, settings.homeDir) || inside(base, home))) add(base);
  }
  return [...places];
}

/** `~/.ssh/*` → `/home/u/.ssh`; undefined for patterns without a fixed folder (`**\/node_modules/**`). */
function deniedBase(pattern: string, homeDir: string): string | undefined {
  let expanded = pattern;
  if (pattern === '~' || pattern.startsWith('~/')) expanded = path.posix.join(homeDir, pattern.slice(1));
  if (!expanded.startsWith('/')) return undefined;
  const glob = expanded.search(/[*?[{]/);
  const fixed = glob < 0 ? expanded : expanded.slice(0, glob);
  const folder = glob < 0 ? fixed : fixed.slice(0, fixed.lastIndexOf('/'));
  const normal = path.posix.normalize(folder || '/');
  return normal === '/' ? undefined : normal.replace(/\/$/, '');
}

/** Drops folders already inside another one of the list; the rest keep their order. */
function outermost(folders: string[]): string[] {
  const unique = [...new Set(folders)];
  return unique.filter((folder) => !unique.some((outer) => outer !== folder && inside(folder, outer)));
}

function realOrSelf(target: string, files: ProfileFs): string {
  try {
    return files.realpath(target);
  } catch {
    return target;
  }
}

/** The places hidden, for people: `~/.ssh` rather than `/home/u/.ssh`; only those that exist. */
export function describeHidden(hidden: readonly string[], homeDir: string, files: ProfileFs = realProfileFs): string[] {
  return hidden.filter((place) => files.exists(place)).map((place) => describeFolder(place, homeDir));
}

/** A folder for people: `~/Projects` rather than `/home/u/Projects` (the home folder itself in full). */
export function describeFolder(folder: string, homeDir: string): string {
  return inside(folder, homeDir) && folder !== homeDir ? `~${folder.slice(homeDir.length)}` : folder;
}
