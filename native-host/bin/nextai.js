#!/usr/bin/env node
// The `nextai` command. The real program is the bundle built by `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/nextai.js', import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write('nextai is not built yet. Run `npm run build` in the repository root first.\n');
  process.exit(1);
}
await import(bundle);
