import { createRequire } from 'node:module';

import { AppError } from '@nextai/shared';
import { Language, Parser, type Tree } from 'web-tree-sitter';

import type { ShellPhrase } from './phrases.js';

/** Commands longer than this are not analysed at all: the analysis fails closed. */
export const MAX_COMMAND_BYTES = 64 * 1024;

let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the tree-sitter runtime and the bash grammar once. Safe to call many times and from
 * concurrent callers: they all wait for the same load, and a failed load can be retried.
 */
export function initShellAnalyzer(): Promise<void> {
  if (parser) return Promise.resolve();
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw new AppError(
      'UNAVAILABLE',
      'Cannot load the bash grammar for the shell command analyser; reinstall NextAI (npm install) so that ' +
        'web-tree-sitter and tree-sitter-bash are present.',
      { cause: error },
    );
  });
  return loading;
}

async function load(): Promise<void> {
  const require = createRequire(import.meta.url);
  await Parser.init();
  const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const instance = new Parser();
  instance.setLanguage(bash);
  parser = instance;
}

export function isShellAnalyzerReady(): boolean {
  return parser !== undefined;
}

/** Throws the error a caller sees when it analyses before `initShellAnalyzer()` has finished. */
export function assertShellAnalyzerReady(): void {
  if (!parser) {
    throw new AppError(
      'UNAVAILABLE',
      'The shell analyser is not initialised: await initShellAnalyzer() once at start-up before analysing commands.',
    );
  }
}

export type ParseResult = { ok: true; tree: Tree } | { ok: false; reason: ShellPhrase };

/**
 * Parses `text` as bash, giving up at `deadline` (a `performance.now()` time). The caller owns
 * the returned tree and must `delete()` it: trees live in WebAssembly memory.
 */
export function parseBash(text: string, deadline: number): ParseResult {
  assertShellAnalyzerReady();
  const ready = parser as Parser;
  let tree: Tree | null;
  try {
    tree = ready.parse(text, null, { progressCallback: () => performance.now() > deadline });
  } finally {
    // A cancelled parse would otherwise resume where it stopped on the next call.
    ready.reset();
  }
  if (!tree) return { ok: false, reason: 'parsing the command took too long' };
  if (tree.rootNode.hasError) {
    tree.delete();
    return { ok: false, reason: 'the command is not valid bash (or uses syntax the analyser does not know)' };
  }
  return { ok: true, tree };
}
