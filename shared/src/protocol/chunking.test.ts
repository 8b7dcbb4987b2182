import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { ChunkAssembler, splitIntoChunks } from './chunking.js';

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

describe('splitIntoChunks / ChunkAssembler', () => {
  it('reassembles any text exactly, in any arrival order', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.integer({ min: 2, max: 50 }),
        fc.infiniteStream(fc.nat()),
        (text, size, shuffle) => {
          const chunks = splitIntoChunks(text, 'm1', size);
          const order = chunks.map((_, index) => index);
          for (let i = order.length - 1; i > 0; i--) {
            const j = shuffle.next().value % (i + 1);
            [order[i], order[j]] = [order[j]!, order[i]!];
          }
          const assembler = new ChunkAssembler();
          const results = order.map((index) => assembler.add(chunks[index]!, 0)).filter((value) => value !== undefined);
          expect(results).toEqual(text.length === 0 ? [] : [text]);
          expect(assembler.inFlight).toBe(0);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never cuts a surrogate pair in half', () => {
    const text = '😀'.repeat(10);
    const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    const chunks = splitIntoChunks(text, 'emoji', 3);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.filter((chunk) => loneSurrogate.test(chunk.data))).toEqual([]);
  });

  it('keeps each chunk of the default size under 1 MiB once sent', () => {
    const worst = '"'.repeat(300_000) + '中'.repeat(300_000);
    for (const chunk of splitIntoChunks(worst, 'big')) {
      const frame = JSON.stringify({ jsonrpc: '2.0', method: 'bridge.chunk', params: chunk });
      expect(utf8Bytes(frame)).toBeLessThanOrEqual(1024 * 1024);
    }
  });

  it('refuses messages over its size limit and forgets them', () => {
    const assembler = new ChunkAssembler({ maxChars: 10, maxInFlight: 2, staleAfterMs: 1000 });
    expect(() => assembler.add({ message_id: 'a', index: 0, count: 2, data: 'x'.repeat(11) }, 0)).toThrow(
      expect.objectContaining({ code: 'FRAME_TOO_LARGE' }),
    );
    expect(assembler.inFlight).toBe(0);
  });

  it('drops a message whose pieces stop arriving', () => {
    const assembler = new ChunkAssembler({ maxChars: 100, maxInFlight: 1, staleAfterMs: 1000 });
    assembler.add({ message_id: 'a', index: 0, count: 2, data: 'ab' }, 0);
    expect(() => assembler.add({ message_id: 'b', index: 0, count: 2, data: 'cd' }, 500)).toThrow(
      expect.objectContaining({ code: 'FRAME_TOO_LARGE' }),
    );
    expect(assembler.add({ message_id: 'b', index: 0, count: 2, data: 'cd' }, 2000)).toBeUndefined();
    expect(assembler.add({ message_id: 'b', index: 1, count: 2, data: 'ef' }, 2000)).toBe('cdef');
  });

  it('rejects a chunk index outside its message', () => {
    const assembler = new ChunkAssembler();
    expect(() => assembler.add({ message_id: 'a', index: 2, count: 2, data: '' }, 0)).toThrow(
      expect.objectContaining({ code: 'FRAME_MALFORMED' }),
    );
  });
});
