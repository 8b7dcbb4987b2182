import { describe, expect, it } from 'vitest';

import { readServerSentEvents, SseParser } from './sse.js';

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
