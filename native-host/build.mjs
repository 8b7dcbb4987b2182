// Bundles the CLI: `nextai host` is started by the browser for every connection, so start-up
// time matters, and a few bundled modules load much faster than hundreds of files.
import { build } from 'esbuild';

import { buildPageAgent } from '../page/build.mjs';

// The page agent the headless browser injects, inlined so the CLI needs no file beside it.
const pageAgent = await buildPageAgent();

await build({
  entryPoints: { nextai: 'src/entry.ts' },
  outdir: 'dist',
  // `nextai host` loads a small chunk of its own (see src/entry.ts).
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  // Prefer ES modules: some packages (jsonc-parser) ship a UMD "main" that bundlers cannot follow.
  mainFields: ['module', 'main'],
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  minify: true,
  // Native addons, web-tree-sitter (which finds its .wasm next to its own module), tesseract.js
  // (its worker and wasm) and the OCR language data load from node_modules at run time.
  // playwright-core (the headless browser) loads its own files at run time; koffi (the daemon's
  // one foreign call, for the peer of a socket) picks its prebuilt binary at run time.
  external: [
    'better-sqlite3',
    'web-tree-sitter',
    'node-pty',
    'sharp',
    'tesseract.js',
    '@tesseract.js-data/*',
    'playwright-core',
    'koffi',
  ],
  define: { __NEXTAI_PAGE_AGENT__: JSON.stringify(pageAgent) },
  banner: {
    // Some bundled CommonJS dependencies call require(); give ESM output one.
    js: "import { createRequire as __nextaiCreateRequire } from 'node:module'; const require = __nextaiCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
