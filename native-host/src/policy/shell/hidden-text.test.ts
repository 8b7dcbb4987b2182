import { describe, expect, it } from 'vitest';

import { analyze, useShellAnalyzer } from './test-support.js';

useShellAnalyzer();

describe('hidden characters', () => {
  it.each([
    ['carriage return', 'ls\rrm -rf ~'],
    ['escape character', 'echo \u001b[31mred'],
    ['NUL', 'echo a\u0000b'],
    ['backspace', 'ls\u0008'],
    ['right-to-left override', 'echo \u202eabc'],
    ['left-to-right isolate', 'echo \u2066abc\u2069'],
    ['zero-width space', 'ls\u200b'],
    ['zero-width joiner', 'ls\u200d'],
    ['right-to-left mark', 'ls\u200f'],
    ['byte order mark', '\ufeffls'],
    ['line separator', 'ls\u2028'],
  ])('a %s makes it critical', (_what, command) => {
    const result = analyze(command);
    expect(result.risk).toBe('critical');
    expect(result.findings.some((finding) => /can hide what really runs/.test(finding.reason.en))).toBe(true);
  });

  it('allows tabs, newlines and ordinary Unicode text', () => {
    expect(analyze('echo "héllo wörld 你好 😀"\n\techo ok').risk).toBe('low');
  });
});
