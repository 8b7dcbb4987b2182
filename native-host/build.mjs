// Bundles the CLI: `nextai host` is started by the browser for every connection, so start-up
// time matters, and a few bundled modules load much faster than hundreds of files.
import { build } from 'esbuild';

await build({
  entryPoints: { nextai: 'src/entry.ts' },
  outdir: 'dist',
  // `nextai host` loads a small chunk of its own (see src/entry.ts).
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  minify: true,
  // Native addons cannot be bundled; they load from node_modules at run time.
  external: ['better-sqlite3'],
  banner: {
    // Some bundled CommonJS dependencies call require(); give ESM output one.
    js: "import { createRequire as __nextaiCreateRequire } from 'node:module'; const require = __nextaiCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
