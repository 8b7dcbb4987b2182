import { beforeAll, describe, expect, it } from 'vitest';

import { DANGEROUS_PAYLOADS } from './dangerous-corpus.js';
import { initShellAnalyzer } from './index.js';
import { analyze } from './test-support.js';

beforeAll(async () => {
  await initShellAnalyzer();
});

describe('dangerous payloads', () => {
  it('has at least 300 payloads, none of them twice', () => {
    const all = DANGEROUS_PAYLOADS.flatMap((group) => group.payloads);
    expect(all.length).toBeGreaterThanOrEqual(300);
    expect(new Set(all).size).toBe(all.length);
  });

  for (const group of DANGEROUS_PAYLOADS) {
    describe(group.technique, () => {
      it.each(group.payloads.map((payload) => [JSON.stringify(payload).slice(0, 120), payload]))(
        '%s is critical or blocked',
        (_label, payload) => {
          const result = analyze(payload);
          const verdict = { risk: result.risk, blocked: result.blocked !== undefined, findings: result.findings };
          expect(verdict.risk, JSON.stringify(verdict.findings)).toBe('critical');
          expect(result.findings.some((finding) => finding.risk === 'critical')).toBe(true);
        },
      );
    });
  }
});
