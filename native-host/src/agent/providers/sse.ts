import { AppError, say } from '@nextai/shared';

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

export interface ReadEventsOptions {
  /**
   * The answer is abandoned when no event that counts as progress arrives for this long. Comment
   * lines and `ping` events are keep-alives: a server that only sends those is stalled.
   */
  idleMs?: number;
  /** Ends the reading (the connection is closed) with the signal's reason. */
  signal?: AbortSignal;
  /** Names the API in the stall and drop messages. */
  label?: string;
}

/** A keep-alive, not progress: Anthropic's `ping` event (comment lines never become events). */
function isKeepAlive(event: ServerSentEvent): boolean {
  return event.event === 'ping';
}

/**
 * Reads a fetch body as server-sent events. A connection that drops, and a stream with no
 * progress for `idleMs`, end the reading with a transient AppError (the call may be made again);
 * an abort of `signal` ends it with the signal's reason.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  options: ReadEventsOptions = {},
): AsyncGenerator<ServerSentEvent> {
  const { idleMs, signal, label = 'model' } = options;
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let finished = false;
  let stalled: AppError | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    if (idleMs === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      stalled = streamStalled(label, idleMs);
      void reader.cancel(stalled).catch(() => undefined);
    }, idleMs);
  };
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    signal?.throwIfAborted();
    armIdle();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw signal?.aborted ? signal.reason : (stalled ?? connectionDropped(label, error));
      }
      // A cancel (stall or abort) ends the reading as if the stream had ended: say why instead.
      if (signal?.aborted) throw signal.reason;
      if (stalled) throw stalled;
      if (chunk.done) {
        finished = true;
        break;
      }
      const events = parser.push(decoder.decode(chunk.value, { stream: true }));
      if (events.some((event) => !isKeepAlive(event))) armIdle();
      yield* events;
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
  } finally {
    clearTimeout(idleTimer);
    signal?.removeEventListener('abort', onAbort);
    // The consumer stopped early (or an error was thrown): close the connection.
    // A stream that already failed rejects `cancel()` with that same failure, which is being
    // thrown here anyway: ignore the second copy.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** A failure that another attempt of the same call may not have: a drop, a stall, an overload. */
export function isTransientModelError(error: unknown): boolean {
  return error instanceof AppError && (error.details as { transient?: unknown } | undefined)?.transient === true;
}

/** Marks `error` as one another attempt may not have (see isTransientModelError). */
export function transient(error: AppError): AppError {
  return new AppError(error.code, error.message, {
    details: { ...(error.details as object | undefined), transient: true },
    cause: error.cause,
    ...(error.translations ? { translations: error.translations } : {}),
  });
}

function streamStalled(label: string, idleMs: number): AppError {
  const seconds = Math.round(idleMs / 1000);
  return new AppError(
    'TIMEOUT',
    say(
      `The ${label} API stopped sending its answer (nothing for ${seconds} s).`,
      `${label} 接口的回答中断了（${seconds} 秒没有任何内容）。`,
    ),
    { details: { transient: true, stalled_ms: idleMs } },
  );
}

function connectionDropped(label: string, error: unknown): AppError {
  const why = error instanceof Error ? error.message : String(error);
  return new AppError(
    'UNAVAILABLE',
    say(
      `The connection to the ${label} API dropped during the answer (${why}).`,
      `与 ${label} 接口的连接在回答过程中断开了（${why}）。`,
    ),
    { details: { transient: true }, cause: error },
  );
}
