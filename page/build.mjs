// Bundles the page agent into one self-contained script (no imports) that the daemon injects into
// pages of its headless Chromium. The extension builds the same source as its own unlisted script.
import { build } from 'esbuild';

/** The bundle as text; `outfile` also writes it to disk. */
export async function buildPageAgent(outfile) {
  const result = await build({
    entryPoints: [new URL('./src/index.ts', import.meta.url).pathname],
    bundle: true,
    format: 'iife',
    target: 'chrome116',
    minify: true,
    write: false,
    logLevel: 'warning',
  });
  const text = result.outputFiles[0].text;
  if (outfile) {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    mkdirSync(dirname(outfile), { recursive: true });
    writeFileSync(outfile, text);
  }
  return text;
}

/** web_fetch's HTML conversion for Node (linkedom bundled in), imported as @nextai/page/html-convert. */
export async function buildHtmlConvert() {
  await build({
    entryPoints: [new URL('./src/html-convert.ts', import.meta.url).pathname],
    outfile: new URL('./dist/html-convert.js', import.meta.url).pathname,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: {
      js: "import { createRequire as __nextaiCreateRequire } from 'node:module'; const require = __nextaiCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildPageAgent(new URL('./dist/page-agent.js', import.meta.url).pathname);
  await buildHtmlConvert();
}
