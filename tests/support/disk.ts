import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A small tmpfs over `dir`: a disk of its own that can be filled. Root only (and only where the
 * container lets root mount); returns why it could not be mounted, or undefined once it is.
 */
export function mountTmpfs(dir: string, size: string): string | undefined {
  if (process.getuid?.() !== 0) {
    return 'filling a disk needs a tmpfs of its own, which only root may mount (and a read-only folder does not stop root)';
  }
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    return `mount -t tmpfs failed here: ${(error as Error).message}`;
  }
  return undefined;
}

export function unmount(dir: string): void {
  execFileSync('umount', [dir]);
}

/** Writes zeros to `file` until its disk is full; returns once it is. */
export function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const chunk of [1024 * 1024, 4096, 512]) {
      const zeros = Buffer.alloc(chunk);
      try {
        for (;;) fs.writeSync(fd, zeros);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A `notify-send` in `dir` (put it first on PATH) that appends what it was asked to show to `log`:
 * one JSON object a line, `{ at, args }`, `at` in ms since the epoch.
 */
export function fakeNotifySend(dir: string, log: string): void {
  const script = path.join(dir, 'notify-send');
  fs.writeFileSync(
    script,
    `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({ at: Date.now(), args: process.argv.slice(2) }) + '\\n');\n`,
    { mode: 0o755 },
  );
}

/** The notifications the fake notify-send showed, oldest first. */
export function notificationsShown(log: string): { at: number; title: string; body: string }[] {
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const { at, args } = JSON.parse(line) as { at: number; args: string[] };
      return { at, title: args.at(-2) ?? '', body: args.at(-1) ?? '' };
    });
}
