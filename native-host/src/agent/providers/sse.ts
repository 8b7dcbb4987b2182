/** One server-sent event (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export interface ServerSentEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * Incremental SSE parser: feed it text as it arrives (events may be split anywhere, lines may end
 * in CRLF, LF or CR) and it returns the events completed so far. Comment lines (`:`) are skipped;
 * several `data:` lines join with a newline.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;

  push(chunk: string): ServerSentEvent[] {
    this.buffer += chunk;
    const events: ServerSentEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone CR at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  /** Call at end of stream: dispatches a final event that lacked its blank line. */
  end(): ServerSentEvent[] {
    const events = this.buffer === '' ? [] : this.push('\n');
    const last = this.line('');
    if (last) events.push(last);
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') {
      // An event with no data lines (only `event:` or `id:`) is not dispatched, as in the spec.
      const hasData = this.data.length > 0;
      const event: ServerSentEvent = { event: this.event || 'message', data: this.data.join('\n') };
      if (this.id !== undefined) event.id = this.id;
      this.data = [];
      this.event = '';
      return hasData ? event : undefined;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') this.id = value;
    return undefined;
  }
}

/** Reads a fetch body as server-sent events. */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    // The consumer stopped early (or an error was thrown): close the connection.
    // A stream that already failed rejects `cancel()` with that same failure, which is being
    // thrown here anyway: ignore the second copy.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
