import { fileURLToPath } from 'node:url';

let entryPath: string | undefined;

/** Called once by the entry module (`dist/nextai.js`) with its own path. */
export function setCliProgramPath(path: string): void {
  entryPath = path;
}

/**
 * Absolute path of the CLI program: what the daemon launcher spawns and what the installed
 * launcher runs. The built CLI is split into chunks, so a module cannot use its own
 * `import.meta.url`; the entry module records its path at start. Run from sources (tsx, tests),
 * it is the bundle built next to the sources.
 */
export function cliProgramPath(): string {
  return entryPath ?? fileURLToPath(new URL('../../dist/nextai.js', import.meta.url));
}
