import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { FrameReader, encodeFrame, type FrameEvent } from './frame-codec.js';

const LIMIT = 1024;

/** Feeds `bytes` to a reader in pieces cut at `cuts` and returns everything it reported. */
function readAll(
  bytes: Uint8Array,
  cuts: number[],
  maxBytes = LIMIT,
): { events: FrameEvent[]; end: FrameEvent | undefined } {
  const reader = new FrameReader(maxBytes);
  const events: FrameEvent[] = [];
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  let start = 0;
  for (const point of [...points, bytes.length]) {
    events.push(...reader.push(bytes.subarray(start, point)));
    start = point;
  }
  return { events, end: reader.end() };
}

function header(length: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(length, 0);
  return buffer;
}

describe('encodeFrame', () => {
  it('writes a little-endian length prefix followed by UTF-8 JSON', () => {
    const frame = encodeFrame({ text: '你好' }, LIMIT);
    const payload = Buffer.from(JSON.stringify({ text: '你好' }), 'utf8');
    expect(frame.readUInt32LE(0)).toBe(payload.length);
    expect(frame.subarray(4).equals(payload)).toBe(true);
  });

  it('refuses a message over the limit instead of writing it', () => {
    expect(() => encodeFrame({ data: 'x'.repeat(LIMIT) }, LIMIT)).toThrow(
      expect.objectContaining({ code: 'FRAME_TOO_LARGE' }),
    );
  });

  it('counts the limit in UTF-8 bytes, not characters', () => {
    const fits = '中'.repeat(300); // 900 bytes of payload + quotes
    const overflows = '中'.repeat(350); // 1050 bytes
    expect(() => encodeFrame(fits, LIMIT)).not.toThrow();
    expect(() => encodeFrame(overflows, LIMIT)).toThrow(expect.objectContaining({ code: 'FRAME_TOO_LARGE' }));
  });
});

describe('FrameReader', () => {
  it('returns messages split across arbitrary chunk boundaries, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (messages, cuts) => {
          const frames = messages.map((message) => encodeFrame(message, 1 << 20));
          const { events, end } = readAll(Buffer.concat(frames), cuts, 1 << 20);
          expect(end).toBeUndefined();
          expect(events.map((event) => (event.type === 'message' ? event.value : event))).toEqual(
            // JSON round trip: -0 becomes 0, as it would on the wire.
            messages.map((message) => JSON.parse(JSON.stringify(message))),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never throws on random bytes, and every report is a message or an error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.array(fc.nat(), { maxLength: 10 }), (bytes, cuts) => {
        const { events, end } = readAll(bytes, cuts);
        for (const event of [...events, ...(end ? [end] : [])]) {
          expect(['message', 'error']).toContain(event.type);
        }
        // After a fatal error nothing more is reported.
        const fatal = events.findIndex((event) => event.type === 'error' && event.fatal);
        expect(events.slice(fatal === -1 ? events.length : fatal + 1)).toEqual([]);
      }),
      { numRuns: 5000 },
    );
  });

  it('never throws on frames with plausible lengths and random payloads, and stays in step', () => {
    const frame = fc
      .tuple(fc.nat({ max: LIMIT + 10 }), fc.uint8Array({ maxLength: LIMIT + 10 }))
      .map(([length, bytes]) => {
        // Mostly well-formed lengths over random bytes; now and then a length that lies.
        const payload = bytes.subarray(0, Math.min(length, bytes.length));
        return Buffer.concat([header(length), payload]);
      });
    fc.assert(
      fc.property(
        fc.array(frame, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (frames, cuts) => {
          const bytes = Buffer.concat([...frames, encodeFrame({ sentinel: true }, LIMIT)]);
          const { events } = readAll(bytes, cuts);
          const fatal = events.findIndex((event) => event.type === 'error' && event.fatal);
          expect(events.slice(fatal === -1 ? events.length : fatal + 1)).toEqual([]);
          for (const event of events) {
            expect(
              event.type === 'message' ||
                (event.type === 'error' && ['PARSE_ERROR', 'FRAME_TOO_LARGE'].includes(event.error.code)),
            ).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('decodes a valid frame after any number of undecodable ones', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 200 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (payloads, cuts) => {
          // Payloads that cannot be JSON (a lone 0xFF byte is neither valid UTF-8 nor JSON).
          const junk = payloads.map((payload) =>
            Buffer.concat([header(payload.length + 1), Buffer.from([0xff]), payload]),
          );
          const { events } = readAll(Buffer.concat([...junk, encodeFrame({ sentinel: true }, LIMIT)]), cuts);
          expect(
            events.filter((event) => event.type === 'error').map((event) => event.type === 'error' && event.fatal),
          ).toEqual(junk.map(() => false));
          expect(events.at(-1)).toMatchObject({ type: 'message', value: { sentinel: true } });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps reading after a frame that is not JSON or not UTF-8', () => {
    const garbage = Buffer.from('{not json', 'utf8');
    const badUtf8 = Buffer.from([0xff, 0xfe, 0xfd]);
    const good = encodeFrame({ ok: true }, LIMIT);
    const bytes = Buffer.concat([header(garbage.length), garbage, header(badUtf8.length), badUtf8, good]);
    const { events } = readAll(bytes, []);
    expect(events).toHaveLength(3);
    expect(events[0]).toMatchObject({ type: 'error', fatal: false, error: { code: 'PARSE_ERROR' } });
    expect(events[1]).toMatchObject({ type: 'error', fatal: false, error: { code: 'PARSE_ERROR' } });
    expect(events[2]).toMatchObject({ type: 'message', value: { ok: true } });
  });

  it('stops at a declared length over the limit, without waiting for the payload', () => {
    const { events } = readAll(Buffer.concat([header(LIMIT + 1), Buffer.from('{}')]), []);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'error',
        fatal: true,
        error: expect.objectContaining({ code: 'FRAME_TOO_LARGE' }),
      }),
    ]);
  });

  it('reports a stream that ends inside a frame', () => {
    const frame = encodeFrame({ hello: 'world' }, LIMIT);
    const truncatedPayload = readAll(frame.subarray(0, frame.length - 3), []);
    expect(truncatedPayload.events).toEqual([]);
    expect(truncatedPayload.end).toMatchObject({ type: 'error', fatal: true, error: { code: 'FRAME_MALFORMED' } });
    const truncatedHeader = readAll(frame.subarray(0, 2), []);
    expect(truncatedHeader.end).toMatchObject({ type: 'error', error: { code: 'FRAME_MALFORMED' } });
  });

  it('treats an empty frame as a parse error, not a message', () => {
    const { events } = readAll(Buffer.concat([header(0), encodeFrame(1, LIMIT)]), []);
    expect(events[0]).toMatchObject({ type: 'error', fatal: false });
    expect(events[1]).toMatchObject({ type: 'message', value: 1 });
  });
});
