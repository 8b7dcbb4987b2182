import { describe, expect, it } from 'vitest';

import { initShellAnalyzer, isShellAnalyzerReady } from './parser.js';
import { useShellAnalyzer } from './test-support.js';

useShellAnalyzer();

describe('initialisation', () => {
  it('is idempotent and safe to call concurrently', async () => {
    await Promise.all([initShellAnalyzer(), initShellAnalyzer(), initShellAnalyzer()]);
    expect(isShellAnalyzerReady()).toBe(true);
  });
});
