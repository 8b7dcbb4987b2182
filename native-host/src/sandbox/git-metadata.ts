import fs from 'node:fs';
import path from 'node:path';

/**
 * Git repositories inside the writable folders. Their hooks and config run commands later, when
 * the person runs git themselves (`core.hooksPath`, `core.fsmonitor`, hooks), outside any
 * sandbox: so they stay read-only, and each repository and its `.git` is pinned where it is (a
 * mount point cannot be renamed), so a command cannot move `.git` aside and plant a new one.
 * Commits, branches and the index still work: they live elsewhere in `.git`.
 */
export interface GitMetadata {
  readOnly: string[];
  pinned: string[];
}

/** How deep below a writable folder repositories are looked for (~/Projects/org/app is 2). */
const MAX_DEPTH = 4;
/** Folders read at most per look, so that a huge tree cannot stall a command's start. */
const MAX_FOLDERS = 4_000;
const MAX_REPOSITORIES = 256;
/** Never repositories of the person's own making, and very large. */
const SKIPPED = new Set(['node_modules', '.venv', 'venv', '__pycache__', 'target', 'dist', 'build', '.cache']);

/** What in a `.git` folder stays read-only (when it exists). */
const PROTECTED = ['hooks', 'config', 'info', 'commondir', 'config.worktree', 'modules', 'worktrees'];

/**
 * Files that, made in a `.git` where there were none, make the person's next `git` there read
 * another config and its hooks (`commondir` names another folder; `config.worktree` adds to the
 * config). They cannot be kept from being made (git needs `.git` writable for its lock files), so
 * each one made in the sandbox is moved aside after every command.
 */
const REDIRECTS = ['commondir', 'config.worktree', 'modules'];

/**
 * Moves aside what a sandboxed command made in a protected `.git` that redirects git
 * (REDIRECTS), into `.git/nextai-quarantine/`; returns what it moved, for the notices.
 */
export function quarantineGitRedirects(metadata: GitMetadata, now = new Date()): string[] {
  const moved: string[] = [];
  for (const gitDir of metadata.pinned.filter((entry) => path.basename(entry) === '.git')) {
    for (const name of REDIRECTS) {
      const planted = path.join(gitDir, name);
      if (metadata.readOnly.includes(planted) || !exists(planted)) continue;
      const aside = path.join(gitDir, 'nextai-quarantine', `${now.toISOString().replace(/[:.]/g, '-')}-${name}`);
      try {
        fs.mkdirSync(path.dirname(aside), { recursive: true, mode: 0o700 });
        fs.renameSync(planted, aside);
        moved.push(planted);
      } catch {
        // Gone meanwhile, or not movable: it is named all the same, so the person knows.
        moved.push(planted);
      }
    }
  }
  return moved;
}

export function findGitMetadata(writable: readonly string[]): GitMetadata {
  const readOnly: string[] = [];
  const pinned: string[] = [];
  let folders = 0;
  let repositories = 0;
  const queue: { dir: string; depth: number }[] = writable.map((dir) => ({ dir, depth: 0 }));
  while (queue.length > 0 && folders < MAX_FOLDERS && repositories < MAX_REPOSITORIES) {
    const { dir, depth } = queue.shift() as { dir: string; depth: number };
    folders += 1;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      // Unreadable or gone: nothing below it can be protected, nor planted by a command that cannot read it either.
      continue;
    }
    const git = entries.find((entry) => entry.name === '.git' && entry.isDirectory());
    if (git) {
      repositories += 1;
      const gitDir = path.join(dir, '.git');
      // The repository folder itself is pinned only below a writable folder (the folder itself is a mount already).
      if (depth > 0) pinned.push(dir);
      pinned.push(gitDir);
      // Hooks and config run commands; `commondir` and `config.worktree` point git at another
      // config; submodules' and worktrees' metadata have configs and hooks of their own.
      for (const name of PROTECTED) {
        if (exists(path.join(gitDir, name))) readOnly.push(path.join(gitDir, name));
      }
    }
    if (depth >= MAX_DEPTH) continue;
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
      queue.push({ dir: path.join(dir, entry.name), depth: depth + 1 });
    }
  }
  return { readOnly, pinned };
}

function exists(target: string): boolean {
  try {
    fs.lstatSync(target);
    return true;
  } catch {
    return false;
  }
}
