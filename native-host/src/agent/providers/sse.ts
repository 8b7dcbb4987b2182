import { AppError, say } from '@nextai/shared';

import { readBody } from './read-body.js';

/**
 * The answer's stream around the AI SDK's parsers: how it fails (a stall, a drop, a malformed
 * stream, all transient: the call may be made again), and a server that answered a streamed
 * request with one JSON body (Ollama in some set-ups ignores `stream: true`) made to look streamed.
 */

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

export function streamStalled(label: string, idleMs: number): AppError {
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

export function connectionDropped(label: string, error: unknown): AppError {
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

/** A stream that broke the format (a chunk that is not JSON, a known event in an unknown shape). */
export function malformedStream(label: string, what: string, cause?: unknown): AppError {
  return new AppError(
    'UNAVAILABLE',
    say(`The ${label} API sent a malformed answer (${what}).`, `${label} 接口发送的回答格式有误（${what}）。`),
    { details: { transient: true }, ...(cause === undefined ? {} : { cause }) },
  );
}

/** The answer ended before the provider said it was complete (no `message_stop`, no finish reason). */
export function endedEarly(label: string): AppError {
  return new AppError(
    'UNAVAILABLE',
    say(`The ${label} API stream ended before the answer was complete.`, `${label} 接口的回答还没完成，连接就结束了。`),
    { details: { transient: true } },
  );
}

/**
 * A chat-completions server that ignored `stream: true` and answered with one JSON body: the
 * same answer as the one chunk of a stream, so that the streaming parser reads it.
 */
export async function jsonAnswerAsEvents(response: Response, label: string): Promise<Response> {
  const text = await readBody(response, MAX_JSON_ANSWER_BYTES, () =>
    malformedStream(label, `an answer of more than ${MAX_JSON_ANSWER_BYTES / 1024 / 1024} MB`),
  );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw malformedStream(label, 'an answer that is not JSON', error);
  }
  const body = (parsed ?? {}) as {
    choices?: { message?: Record<string, unknown>; finish_reason?: unknown }[];
  } & Record<string, unknown>;
  const choice = body.choices?.[0] ?? {};
  const message = choice.message ?? {};
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as object[]) : undefined;
  const delta = { ...message, ...(calls ? { tool_calls: calls.map((call, index) => ({ index, ...call })) } : {}) };
  const chunk = {
    ...body,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: choice.finish_reason ?? null }],
  };
  return new Response(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`, {
    status: response.status,
    headers: { 'content-type': 'text/event-stream' },
  });
}

/** The longest line of a stream (one event's data): far above any real one, far below harm. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** The largest whole JSON answer to a streamed request. */
export const MAX_JSON_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * A stream whose lines may be at most `maxLineBytes` long: the SDK's parser keeps an unfinished
 * line in memory, and a server that never sends a newline would otherwise fill it for as long as
 * the idle limit lets it (the bytes keep coming, but no event does).
 */
export function limitLines(response: Response, label: string, maxLineBytes = MAX_LINE_BYTES): Response {
  /** Bytes since the last newline. */
  let open = 0;
  return watchedBody(response, (chunk) => {
    const newline = chunk.lastIndexOf(10);
    open = newline === -1 ? open + chunk.byteLength : chunk.byteLength - newline - 1;
    return open > maxLineBytes
      ? malformedStream(label, `a line of more than ${Math.round(maxLineBytes / 1024 / 1024)} MB`)
      : 'pass';
  });
}

/** The `data: [DONE]` line that ends a chat-completions stream (CRLF or LF). */
const DONE_LINE = /(?:^|[\r\n])data: ?\[DONE\][\r\n]/;

/**
 * A chat-completions stream that ends at its `data: [DONE]` line: a server that keeps the body
 * open after it is not waited for (the SDK reads on to the end of the body). The bytes pass as
 * they come.
 */
export function endAtDone(response: Response): Response {
  const decoder = new TextDecoder();
  // The end of what came before: the line may arrive split across chunks.
  let tail = '';
  return watchedBody(response, (chunk) => {
    const text = tail + decoder.decode(chunk, { stream: true });
    tail = text.slice(-16);
    return DONE_LINE.test(text) ? 'last' : 'pass';
  });
}

/**
 * The response with its body passed through `watch`, chunk by chunk: each chunk goes on
 * (`pass`), goes on and ends the body (`last`: the rest is not read), or fails the body instead
 * (an error). The headers and status stay.
 */
function watchedBody(response: Response, watch: (chunk: Uint8Array) => 'pass' | 'last' | Error): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      const verdict = watch(value);
      if (verdict instanceof Error) {
        void reader.cancel().catch(() => undefined);
        controller.error(verdict);
        return;
      }
      controller.enqueue(value);
      if (verdict === 'last') {
        controller.close();
        void reader.cancel().catch(() => undefined);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
