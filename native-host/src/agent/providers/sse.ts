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
  /** The pieces of the line not ended yet: each chunk is searched once, never the whole line again. */
  private pending: string[] = [];
  private pendingLength = 0;
  /** The last chunk ended in CR: a LF at the start of the next one is the rest of a CRLF. */
  private afterCr = false;
  private data: string[] = [];
  private dataLength = 0;
  private event = '';
  private id: string | undefined;

  /** `maxEventChars`: a line or an event longer than this is refused (a stream gone wrong, or hostile). */
  constructor(private readonly maxEventChars = MAX_EVENT_CHARS) {}

  push(chunk: string): ServerSentEvent[] {
    const events: ServerSentEvent[] = [];
    let start = this.afterCr && chunk.startsWith('\n') ? 1 : 0;
    this.afterCr = false;
    const ends = /\r\n|\r|\n/g;
    ends.lastIndex = start;
    for (let match = ends.exec(chunk); match; match = ends.exec(chunk)) {
      const event = this.line(this.take(chunk.slice(start, match.index)));
      if (event) events.push(event);
      start = match.index + match[0].length;
      // A CR that ends the chunk may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && start === chunk.length) this.afterCr = true;
    }
    if (start < chunk.length) {
      this.pending.push(chunk.slice(start));
      this.pendingLength += chunk.length - start;
      if (this.pendingLength > this.maxEventChars) throw tooLong(this.maxEventChars);
    }
    return events;
  }

  /** The line that `last` ends: the pieces before it joined with it. */
  private take(last: string): string {
    if (this.pending.length === 0) return last;
    const line = this.pending.join('') + last;
    this.pending = [];
    this.pendingLength = 0;
    return line;
  }

  /** Call at end of stream: dispatches a final event that lacked its blank line. */
  end(): ServerSentEvent[] {
    const events = this.pending.length === 0 ? [] : this.push('\n');
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
      this.dataLength = 0;
      this.event = '';
      return hasData ? event : undefined;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.dataLength += value.length + 1;
      if (this.dataLength > this.maxEventChars) throw tooLong(this.maxEventChars);
    } else if (field === 'event') this.event = value;
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

/** No model event is anywhere near this long; a line or event past it is a stream gone wrong. */
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

function tooLong(limit: number): AppError {
  const megabytes = Math.round(limit / (1024 * 1024));
  return new AppError(
    'UNAVAILABLE',
    say(
      `The model API sent a malformed stream (a line or event longer than ${megabytes} MB).`,
      `模型接口发送的数据流格式有误（一行或一个事件超过 ${megabytes} MB）。`,
    ),
    { details: { transient: true } },
  );
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
