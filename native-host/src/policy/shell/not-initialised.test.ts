import { expect, it } from 'vitest';

import { analyzeShellCommand, isShellAnalyzerReady } from './index.js';
import { HOME, PROJECT, fakeGuards } from './test-support.js';

// Vitest gives each test file its own module state, so nothing here has loaded the grammar.
it('says clearly that it must be initialised first', () => {
  expect(isShellAnalyzerReady()).toBe(false);
  expect(() => analyzeShellCommand('ls', fakeGuards(), { cwd: PROJECT, homeDir: HOME })).toThrow(
    /await initShellAnalyzer\(\)/,
  );
});
