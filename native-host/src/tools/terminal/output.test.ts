import { describe, expect, it } from 'vitest';

import { completeUtf8Length, leadingContinuationBytes, OutputCollector, withoutByteOrderMark } from './output.js';

describe('OutputCollector', () => {
  it('keeps everything up to the cap', () => {
    const collector = new OutputCollector(10);
    collector.push(Buffer.from('hello '));
    collector.push(Buffer.from('you!'));
    expect(collector.result()).toEqual({ text: 'hello you!', truncated: false, totalBytes: 10 });
  });

  it('keeps the head and the tail of longer output, with a notice of what was left out', () => {
    const collector = new OutputCollector(10);
    for (const chunk of ['01234', '56789', 'abcde', 'fghij', 'KLMNO']) collector.push(Buffer.from(chunk));
    const result = collector.result();
    expect(result.truncated).toBe(true);
    expect(result.totalBytes).toBe(25);
    expect(result.text).toMatch(/^01234\n\[… 15 bytes omitted: the output was 25 bytes; the first 5 and the last 5 /);
    expect(result.text.endsWith('…]\nKLMNO')).toBe(true);
  });

  it('does not cut a UTF-8 character in half at either end', () => {
    const collector = new OutputCollector(8);
    collector.push(Buffer.from('aa中bb文字cc'));
    const { text } = collector.result();
    // 4 bytes each side: 中 and 字 would be cut, so they are left out whole.
    expect(text.startsWith('aa\n[… 11 bytes omitted')).toBe(true);
    expect(text.endsWith('…]\ncc')).toBe(true);
    expect(text).not.toContain('\uFFFD');
  });

  it('counts the middle of a file read by head and tail', () => {
    const collector = new OutputCollector(4);
    collector.pushHeadAndTail(Buffer.from('ab'), Buffer.from('yz'), 1_000);
    expect(collector.result()).toMatchObject({ truncated: true, totalBytes: 1_000 });
    expect(collector.result().text).toMatch(/^ab\n\[… 996 bytes omitted.*\nyz$/s);
  });
});

describe('UTF-8 helpers', () => {
  it('finds cut sequences at the end and the start', () => {
    const bytes = Buffer.from('a中');
    expect(completeUtf8Length(bytes.subarray(0, 3))).toBe(1);
    expect(completeUtf8Length(bytes)).toBe(4);
    expect(leadingContinuationBytes(bytes.subarray(2))).toBe(2);
    expect(withoutByteOrderMark('\uFEFFx')).toBe('x');
  });
});
