import { fileURLToPath } from 'node:url';

/**
 * Absolute path of the CLI program itself. In the built bundle every module shares one
 * `import.meta.url` — the bundle's — which is what the daemon launcher and the installer need.
 * Tests that run from sources point NEXTAI_CLI_PATH at a built bundle.
 */
export function cliProgramPath(): string {
  return process.env.NEXTAI_CLI_PATH ?? fileURLToPath(import.meta.url);
}
