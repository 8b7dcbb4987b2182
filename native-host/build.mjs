// Bundles the CLI into one file: `nextai host` is started by the browser for every connection,
// so start-up time matters, and one module loads much faster than hundreds.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/entry.ts'],
  outfile: 'dist/nextai.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  // Native addons cannot be bundled; they load from node_modules at run time.
  external: ['better-sqlite3'],
  banner: {
    // Some bundled CommonJS dependencies call require(); give ESM output one.
    js: "import { createRequire as __nextaiCreateRequire } from 'node:module'; const require = __nextaiCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
