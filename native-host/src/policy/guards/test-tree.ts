/**
 * Test support (not shipped code): a throw-away directory tree with a fake home folder, allowed
 * folders, NextAI's own files and every kind of symlink the file guard must see through. Nothing
 * outside `os.tmpdir()` is touched.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { securityConfigSchema, type SecurityConfig } from '@nextai/shared';

export interface TestTree {
  /** The temporary root (real path: os.tmpdir() may itself be a symlink, as on macOS). */
  root: string;
  home: string;
  protectedPaths: string[];
  /** The default security settings plus two patterns that reach inside an allowed folder. */
  narrow: SecurityConfig;
  /** The whole home folder allowed: the denied patterns and protected paths must still hold. */
  wide: SecurityConfig;
  hardLinkMade: boolean;
  /** Longest chain link name: `chain-${k}` takes 46 - k hops to reach `app`. */
  chainLength: number;
  remove(): void;
}

export const CHAIN_LENGTH = 45;

export function buildTestTree(): TestTree {
  const root = fs.realpathSync.native(fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-guards-')));
  const home = path.join(root, 'home');
  const at = (...parts: string[]) => path.join(root, ...parts);
  const inHome = (...parts: string[]) => path.join(home, ...parts);
  const write = (file: string, content = 'x') => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  };
  const link = (target: string, location: string) => {
    fs.mkdirSync(path.dirname(location), { recursive: true });
    fs.symlinkSync(target, location);
  };

  write(inHome('Projects/app/src/index.ts'));
  write(inHome('Projects/app/README.md'));
  write(inHome('Projects/app/node_modules/pkg/index.js'));
  write(inHome('Projects/app/.env'));
  write(inHome('Projects/app/certs/server.pem'));
  fs.mkdirSync(inHome('Projects/app/sub'), { recursive: true });
  write(inHome('Projects/%2e%2e/file.txt'));
  write(inHome('Projects/..foo/x'));
  write(inHome('Projects/.../x'));
  write(inHome('Projects/upper/File.TXT'));
  write(inHome('Documents/NextAI/doc.md'));
  write(inHome('ProjectsX/secret.txt'));
  write(inHome('projects/x.txt'));
  write(inHome('.ssh/id_rsa'));
  write(inHome('.ssh/config'));
  write(inHome('.aws/credentials'));
  write(inHome('.gnupg/pubring.kbx'));
  write(inHome('.bashrc'));
  write(inHome('.nextai-agent/config.json'), '{"apiKey":"secret"}');
  write(inHome('.nextai-agent/data.db'));
  write(inHome('.nextai-agent/audit-anchor.json'));
  write(inHome('.config/systemd/user/nextai-agent.service'));
  write(inHome('.config/google-chrome/NativeMessagingHosts/com.nextai.agent.json'));
  write(inHome('.config/google-chrome/Default/Cookies'));
  fs.mkdirSync(inHome('.config/autostart'), { recursive: true });
  write(at('outside/secret.txt'));
  write(at('desktop-real/note.txt'));
  write(at('work/w.txt'));

  link(at('desktop-real'), inHome('Desktop'));
  const projects = (name: string) => inHome('Projects', name);
  link(at('outside'), projects('link-out'));
  link(at('outside/secret.txt'), projects('link-file-out'));
  link(inHome('Projects/app'), projects('link-in'));
  link('app', projects('link-in-rel'));
  link('../../outside', projects('rel-up'));
  link('..', projects('link-home'));
  link('/', projects('link-root'));
  link('/etc', projects('link-etc'));
  link(root, projects('link-tmp'));
  link(inHome('.nextai-agent'), projects('link-protected'));
  link(inHome('.nextai-agent/config.json'), projects('link-config'));
  link(inHome('.ssh'), projects('link-ssh'));
  link(inHome('.bashrc'), projects('link-bashrc'));
  link(inHome('Desktop'), projects('link-desktop'));
  link(at('outside/nope/new.txt'), projects('dangling-out'));
  link(inHome('Projects/app/new.txt'), projects('dangling-in'));
  link('../../outside/made-later', projects('dangling-rel-out'));
  link('loop-b', projects('loop-a'));
  link('loop-a', projects('loop-b'));
  link('self', projects('self'));
  for (let index = 1; index < CHAIN_LENGTH; index += 1) link(`chain-${index + 1}`, projects(`chain-${index}`));
  link('app', projects(`chain-${CHAIN_LENGTH}`));
  link('chain-out-2', projects('link-chain-out'));
  link(at('outside'), projects('chain-out-2'));
  link('app/src', projects('link-src'));
  link('../../../../outside', inHome('Projects/app/sub/link-up'));

  let hardLinkMade = true;
  try {
    fs.linkSync(inHome('.nextai-agent/config.json'), projects('hardlink-config'));
  } catch {
    // Some temporary file systems refuse hard links; the hard-link case is skipped there.
    hardLinkMade = false;
  }

  const narrow = securityConfigSchema.parse({
    denied_patterns: [...securityConfigSchema.parse({}).denied_patterns, '**/*.pem', '**/.env'],
  });
  const wide = securityConfigSchema.parse({ allowed_directories: ['~'] });
  return {
    root,
    home,
    protectedPaths: [
      inHome('.nextai-agent'),
      inHome('.config/systemd/user/nextai-agent.service'),
      inHome('.config/google-chrome/NativeMessagingHosts/com.nextai.agent.json'),
      inHome('Library/LaunchAgents/com.nextai-agent.plist'),
    ],
    narrow,
    wide,
    hardLinkMade,
    chainLength: CHAIN_LENGTH,
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * Where the kernel would put `joined` (absolute, `..` still in it), found without the guard's
 * code: fs.realpathSync.native (the C library's realpath) on each existing prefix, names after a
 * missing one taken as text. A dangling symlink stands for its target (the place a write through
 * it creates, and what `link/..` means once the target exists); a loop counts as missing. This is
 * at most as strict as the guard — enough to prove the guard never allows something outside.
 */
export function independentReal(joined: string, depth = 0): { real: string; complete: boolean } {
  let current = '/';
  let complete = true;
  for (const name of joined.split('/')) {
    if (name === '' || name === '.') continue;
    if (name === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, name);
    try {
      current = fs.realpathSync.native(next);
    } catch {
      complete = false;
      const target = danglingTarget(next);
      // Missing or looping: keep the name as text, like a file that is about to be created.
      current = target !== undefined && depth < 40 ? independentReal(target, depth + 1).real : next;
    }
  }
  return { real: current, complete };
}

/** The absolute text a dangling symlink points at, or undefined when `at` is not a symlink. */
function danglingTarget(at: string): string | undefined {
  try {
    if (!fs.lstatSync(at).isSymbolicLink()) return undefined;
    return path.resolve(path.dirname(at), fs.readlinkSync(at));
  } catch {
    return undefined;
  }
}

/** The allowed folders as the C library resolves them (missing ones as text). */
export function independentRoots(directories: readonly string[], home: string): string[] {
  return directories.map((directory) => {
    const expanded =
      directory === '~' ? home : directory.startsWith('~/') ? path.join(home, directory.slice(2)) : directory;
    return independentReal(path.isAbsolute(expanded) ? expanded : path.join(home, expanded)).real;
  });
}

export function insideAny(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => real === root || real.startsWith(root.endsWith('/') ? root : `${root}/`));
}
