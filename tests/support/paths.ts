import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI_BUNDLE = path.join(REPO_ROOT, 'native-host/dist/nextai.js');
export const CHROME_EXTENSION_DIR = path.join(REPO_ROOT, '.output/chrome-mv3');
export const FIREFOX_EXTENSION_DIR = path.join(REPO_ROOT, '.output/firefox-mv2');

/** Cross-package tests run the built programs; say how to build them instead of failing obscurely. */
export function requireBuilt(...files: string[]): void {
  for (const file of files) {
    if (!fs.existsSync(file))
      throw new Error(`${path.relative(REPO_ROOT, file)} is missing: run \`npm run build\` first.`);
  }
}
