import { fileURLToPath } from 'node:url';

/**
 * Absolute path of the CLI program: what the daemon launcher spawns and what the installed
 * launcher runs. Built, every module is part of the one-file bundle (`native-host/dist/nextai.js`)
 * and shares its `import.meta.url`. Run from sources (tsx, tests), plain node could not load the
 * `.ts` file, so it is the bundle built next to the sources.
 */
export function cliProgramPath(): string {
  const self = fileURLToPath(import.meta.url);
  return self.endsWith('.ts') ? fileURLToPath(new URL('../../dist/nextai.js', import.meta.url)) : self;
}
