import { describe, expect, it } from 'vitest';

import { AppError } from '@nextai/shared';

import { isTransientModelError, readServerSentEvents, SseParser } from './sse.js';

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]): Promise<{ event: string; data: string }[]> {
  const events = [];
  for await (const event of readServerSentEvents(streamOf(chunks)))
    events.push({ event: event.event, data: event.data });
  return events;
}

describe('SseParser', () => {
  it('reads events split anywhere across chunks', async () => {
    const text = 'event: message_start\ndata: {"a":1}\n\nevent: ping\ndata: {}\n\n';
    for (let cut = 1; cut < text.length; cut += 1) {
      expect(await collect([text.slice(0, cut), text.slice(cut)])).toEqual([
        { event: 'message_start', data: '{"a":1}' },
        { event: 'ping', data: '{}' },
      ]);
    }
  });

  it('handles CRLF and CR line endings, including a CRLF split between chunks', async () => {
    expect(await collect(['data: one\r', '\n\r\ndata: two\r\rdata: three\n\n'])).toEqual([
      { event: 'message', data: 'one' },
      { event: 'message', data: 'two' },
      { event: 'message', data: 'three' },
    ]);
  });

  it('skips comments, joins multi-line data, keeps the value after a single space', async () => {
    expect(await collect([': keep-alive\n', 'data: first\ndata:second\ndata:  third\n\n'])).toEqual([
      { event: 'message', data: 'first\nsecond\n third' },
    ]);
  });

  it('decodes UTF-8 split inside a character', async () => {
    const bytes = new TextEncoder().encode('data: 你好\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 8));
        controller.enqueue(bytes.slice(8));
        controller.close();
      },
    });
    const events = [];
    for await (const event of readServerSentEvents(stream)) events.push(event.data);
    expect(events).toEqual(['你好']);
  });

  it('dispatches a last event without its blank line at the end, and none without data', () => {
    const parser = new SseParser();
    expect(parser.push('event: only-a-name\n\ndata: [DONE]')).toEqual([]);
    expect(parser.end()).toEqual([{ event: 'message', data: '[DONE]' }]);
  });
});

/** A body that sends `chunks` at `everyMs` apart and then stays open (a stalled server), or errors. */
function slowStream(chunks: string[], everyMs: number, end: 'open' | 'error' = 'open'): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let index = 0;
  let timer: NodeJS.Timeout | undefined;
  return new ReadableStream({
    start(controller) {
      const next = () => {
        if (index < chunks.length) {
          controller.enqueue(encoder.encode(chunks[index] ?? ''));
          index += 1;
          timer = setTimeout(next, everyMs);
        } else if (end === 'error') {
          controller.error(new TypeError('terminated'));
        }
      };
      next();
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array>, options: Parameters<typeof readServerSentEvents>[1]) {
  const data: string[] = [];
  try {
    for await (const event of readServerSentEvents(body, options)) data.push(event.data);
  } catch (error) {
    return { data, error: error as AppError };
  }
  return { data, error: undefined };
}

describe('readServerSentEvents: a stream that stops or drops', () => {
  it('abandons a stream with no progress for the idle limit, keep-alive comments and pings included', async () => {
    const keepAlives = Array.from({ length: 20 }, (_, index) =>
      index % 2 ? ': keep-alive\n\n' : 'event: ping\ndata: {}\n\n',
    );
    const { data, error } = await readAll(slowStream(['data: one\n\n', ...keepAlives], 20), {
      idleMs: 150,
      label: 'Test',
    });
    expect(data[0]).toBe('one');
    expect(error).toBeInstanceOf(AppError);
    expect(error?.code).toBe('TIMEOUT');
    expect(error?.message).toBe('The Test API stopped sending its answer (nothing for 0 s).');
    expect(isTransientModelError(error)).toBe(true);
  });

  it('keeps reading while events keep coming, however long the whole answer takes', async () => {
    const chunks = Array.from({ length: 12 }, (_, index) => `data: ${index}\n\n`);
    const { data, error } = await readAll(slowStream(chunks, 30), { idleMs: 100 });
    expect(data).toHaveLength(12);
    // The stream stays open after its last event: the limit applies from there.
    expect(error?.code).toBe('TIMEOUT');
  });

  it('turns a dropped connection into a transient UNAVAILABLE naming the API', async () => {
    const { data, error } = await readAll(slowStream(['data: a\n\n'], 5, 'error'), { label: 'Anthropic' });
    expect(data).toEqual(['a']);
    expect(error?.code).toBe('UNAVAILABLE');
    expect(error?.message).toContain('The connection to the Anthropic API dropped during the answer (terminated)');
    expect(isTransientModelError(error)).toBe(true);
  });

  it('ends with the abort reason when the caller aborts (a pause or a stop), not as a failure of the model', async () => {
    const controller = new AbortController();
    const reason = new Error('paused');
    setTimeout(() => controller.abort(reason), 30);
    const { error } = await readAll(slowStream(['data: a\n\n'], 5), { idleMs: 5000, signal: controller.signal });
    expect(error).toBe(reason);
    expect(isTransientModelError(error)).toBe(false);
  });
});

describe('SseParser: lines that never end', () => {
  it('refuses a line or an event past its limit as a malformed stream another attempt may not send', () => {
    const parser = new SseParser(1000);
    expect(parser.push(`: ${'x'.repeat(500)}`)).toEqual([]);
    expect(() => parser.push('x'.repeat(600))).toThrow(/malformed stream \(a line or event longer than/);
    const events = new SseParser(1000);
    const error = (() => {
      try {
        for (let i = 0; i < 20; i += 1) events.push(`data: ${'y'.repeat(90)}\n`);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(isTransientModelError(error)).toBe(true);
  });

  it('reads a long line sent in many small pieces whole, and a CR at a chunk end followed by text', () => {
    const parser = new SseParser();
    const long = 'z'.repeat(100_000);
    const events = [];
    for (let at = 0; at < long.length; at += 7)
      events.push(...parser.push(`${at === 0 ? 'data: ' : ''}${long.slice(at, at + 7)}`));
    events.push(...parser.push('\r'), ...parser.push('data: next\r\r'));
    expect(events.map((event) => event.data)).toEqual([`${long}\nnext`]);
  });
});
