import { beforeAll, describe, expect, it } from 'vitest';

import { BENIGN_COMMANDS } from './benign-corpus.js';
import { initShellAnalyzer } from './index.js';
import { analyze } from './test-support.js';

beforeAll(async () => {
  await initShellAnalyzer();
});

describe('benign development commands', () => {
  it('has at least 60 commands, with an expected level for most', () => {
    expect(BENIGN_COMMANDS.length).toBeGreaterThanOrEqual(60);
    expect(BENIGN_COMMANDS.filter((entry) => entry.expected).length).toBeGreaterThanOrEqual(60);
  });

  it.each(BENIGN_COMMANDS.map((entry) => [JSON.stringify(entry.command), entry]))(
    '%s is usable (never critical, never blocked)',
    (_label, entry) => {
      const result = analyze(entry.command);
      expect(result.parsed).toBe(true);
      expect(result.blocked).toBeUndefined();
      expect(result.risk, JSON.stringify(result.findings)).not.toBe('critical');
      if (entry.expected) expect(result.risk, JSON.stringify(result.findings)).toBe(entry.expected);
    },
  );
});
