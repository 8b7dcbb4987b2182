import http from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * `reasoning` on a text or tool-call turn: the model thinks first — an Anthropic `thinking` block
 * (in pieces, then its `signature_delta`), or OpenAI-compatible `reasoning_content` pieces
 * (DeepSeek, Qwen, GLM…).
 */

/**
 * A scripted model server on loopback that speaks the Anthropic Messages and the OpenAI chat
 * completions wire formats, so tests exercise the real provider clients (base URLs from
 * ANTHROPIC_BASE_URL / OPENAI_BASE_URL) without a network. In the style of Vercel AI's
 * MockLanguageModel: each POST consumes the next scripted turn, whichever format it uses, and
 * every request is recorded. `GET /v1/models` lists `models` (or answers 404 when it is
 * `'not_found'`), as the model picker asks.
 */

export type ScriptedTurn =
  /**
   * Assistant text, streamed in several deltas when the request says `stream: true`. `stopReason`
   * goes out as is in the format's own field (Anthropic `stop_reason`: `refusal`, `pause_turn`,
   * `model_context_window_exceeded`…; OpenAI `finish_reason`: `content_filter`, `length`…);
   * `refusal` is the refusal's words (OpenAI `delta.refusal` pieces, Anthropic
   * `stop_details.explanation`).
   */
  | { kind: 'text'; text: string; stopReason?: string; refusal?: string; reasoning?: string }
  /** One or several (parallel) tool calls, optionally after some text. */
  | { kind: 'tool_calls'; calls: { name: string; input: unknown; id?: string }[]; text?: string; reasoning?: string }
  /** An API error (429, 500, 401, 529…) with the body in the format's error shape. */
  | { kind: 'error'; status: number; message?: string; retryAfterSeconds?: number }
  /** Anything malformed: sent as is. */
  | { kind: 'raw'; status: number; body: string; contentType?: string }
  /** Never answers (time-out tests); the connection is closed by `close()`. */
  | { kind: 'hang' }
  /**
   * Starts streaming an answer with `text`, then breaks off: `drop` closes the connection,
   * `stall` sends only keep-alives (Anthropic pings, OpenAI-style comments) until closed. With
   * `status`, an error response instead, whose JSON body starts and never ends.
   */
  | { kind: 'broken'; text: string; end: 'drop' | 'stall'; status?: number }
  /** Answers `turn` once `ready` settles: the test decides when the run may go on. */
  | { kind: 'after'; ready: Promise<unknown>; turn: ScriptedTurn }
  /**
   * A recorded response replayed as it was sent (`body`: the raw text, SSE or JSON), delivered
   * `whole`, in `pieces` of 1–23 bytes (split anywhere, inside UTF-8 characters and CRLFs too, each
   * written on its own), or with `crlf` line endings (then also in pieces). `seed` picks the pieces.
   */
  | {
      kind: 'replay';
      body: string;
      status?: number;
      contentType?: string;
      delivery?: Delivery;
      seed?: number;
    };

/** How a replayed response reaches the client (see ScriptedTurn `replay`). */
export type Delivery = 'whole' | 'pieces' | 'crlf';
export const DELIVERIES: readonly Delivery[] = ['whole', 'pieces', 'crlf'];

export interface RecordedRequest {
  format: 'anthropic' | 'openai';
  path: string;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Parsed JSON; the raw text when the body was not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary provider request fields
  body: any;
}

export interface FakeModelServer {
  /** http://127.0.0.1:PORT — what ANTHROPIC_BASE_URL takes (requests go to /v1/messages). */
  anthropicBaseUrl: string;
  /** http://127.0.0.1:PORT/v1 — what OPENAI_BASE_URL takes (requests go to /chat/completions under it). */
  openaiBaseUrl: string;
  requests: RecordedRequest[];
  /**
   * What `GET /v1/models` answers: these ids (OpenAI's list shape, or Anthropic's when the request
   * carries `anthropic-version`), or `'not_found'` for a server that offers no list (HTTP 404).
   * May be changed while the server runs.
   */
  models: string[] | 'not_found';
  /** The `GET /v1/models` requests, in order (not in `requests`: they consume no turn). */
  modelListRequests: { path: string; headers: Record<string, string> }[];
  /** Appends turns to the script. */
  push(...turns: ScriptedTurn[]): void;
  /** Turns not consumed yet. */
  remaining(): number;
  /** Resolves once at least `count` requests have been recorded (e.g. a `hang` turn has been reached). */
  waitForRequests(count: number): Promise<RecordedRequest[]>;
  /** Stops listening and ends every open connection, hanging ones included. */
  close(): Promise<void>;
}

export const SCRIPT_EXHAUSTED_MESSAGE = 'fake model server: script exhausted';

const ANTHROPIC_PATH = '/v1/messages';
const OPENAI_PATH = '/v1/chat/completions';
/** Both formats list their models here (Anthropic's base URL has no /v1, OpenAI's has). */
const MODELS_PATH = '/v1/models';

type Format = RecordedRequest['format'];
type ToolCall = { id: string; name: string; arguments: string; input: unknown };

/**
 * Answers from a function of the request instead of a list, for tests where the number of model
 * calls is not known in advance (a daemon killed and restarted redoes an interrupted call): the
 * "model" decides from what it was sent, as a real one does.
 */
export type Responder = (request: RecordedRequest) => ScriptedTurn;

export interface FakeModelServerOptions {
  /**
   * Anthropic prompt caching as the API does it: each `cache_control` breakpoint writes the prompt
   * up to it (tools, then system, then messages) to a cache; a later request whose prompt starts
   * with a cached prefix — found at a breakpoint or up to 20 blocks before one — reads it. Usage
   * then reports `cache_read_input_tokens` and `cache_creation_input_tokens`, `input_tokens` being
   * the rest. Prefixes under 1024 tokens are not cached, as with the real models.
   */
  promptCache?: boolean;
}

export async function startFakeModelServer(
  script: ScriptedTurn[] | Responder = [],
  options: FakeModelServerOptions = {},
): Promise<FakeModelServer> {
  const cache = options.promptCache ? new Set<string>() : undefined;
  const responder = typeof script === 'function' ? script : undefined;
  const turns = typeof script === 'function' ? [] : [...script];
  const requests: RecordedRequest[] = [];
  const waiters: { count: number; resolve: (requests: RecordedRequest[]) => void }[] = [];
  let served = 0;

  const record = (request: RecordedRequest) => {
    requests.push(request);
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(requests);
      }
    }
  };

  const modelListRequests: FakeModelServer['modelListRequests'] = [];
  const listing: { models: FakeModelServer['models'] } = { models: [...FAKE_MODELS] };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (req.method === 'GET' && path === MODELS_PATH) {
        const headers = flattenHeaders(req.headers);
        modelListRequests.push({ path: req.url ?? path, headers });
        sendModelList(res, listing.models, headers['anthropic-version'] !== undefined);
        return;
      }
      const format: Format | undefined =
        req.method !== 'POST'
          ? undefined
          : path === ANTHROPIC_PATH
            ? 'anthropic'
            : path === OPENAI_PATH
              ? 'openai'
              : undefined;
      if (format === undefined) {
        sendJson(res, 404, {
          error: `fake model server: no route for ${req.method} ${path}; POST ${ANTHROPIC_PATH} or ${OPENAI_PATH}, GET ${MODELS_PATH}`,
        });
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        // Recorded as text so the test can see what the client sent; no turn is consumed.
        record({ format, path, headers: flattenHeaders(req.headers), body: raw });
        sendError(res, format, 400, 'fake model server: the request body is not JSON');
        return;
      }
      const recorded: RecordedRequest = { format, path, headers: flattenHeaders(req.headers), body };
      record(recorded);
      let turn: ScriptedTurn | undefined;
      try {
        turn = responder ? responder(recorded) : turns.shift();
      } catch (error) {
        sendError(res, format, 500, `fake model server: the responder threw: ${(error as Error).message}`);
        return;
      }
      served += 1;
      respond(res, format, turn, body as RequestBody, raw.length, served, cache);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    anthropicBaseUrl: `http://127.0.0.1:${port}`,
    openaiBaseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get models() {
      return listing.models;
    },
    set models(models) {
      listing.models = models;
    },
    modelListRequests,
    push: (...more) => {
      turns.push(...more);
    },
    remaining: () => turns.length,
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve(requests) : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging responses and idle keep-alive sockets would otherwise keep close() waiting.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** What `GET /v1/models` lists unless a test says otherwise: unsorted, one twice, as servers do. */
export const FAKE_MODELS = ['fake-model-large', 'fake-model-small', 'fake-model-reasoner', 'fake-model-small'];

/** OpenAI's list (`{ object: 'list', data: [{ id, object, created, owned_by }] }`) or Anthropic's (paged), or a 404. */
function sendModelList(res: http.ServerResponse, models: string[] | 'not_found', anthropic: boolean): void {
  if (models === 'not_found') {
    sendJson(res, 404, { error: { message: 'fake model server: this server lists no models', type: 'not_found' } });
    return;
  }
  const created = 1_700_000_000;
  if (anthropic) {
    sendJson(res, 200, {
      data: models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' })),
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    });
    return;
  }
  sendJson(res, 200, {
    object: 'list',
    data: models.map((id) => ({ id, object: 'model', created, owned_by: 'fake' })),
  });
}

interface RequestBody {
  model?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown };
}

function respond(
  res: http.ServerResponse,
  format: Format,
  turn: ScriptedTurn | undefined,
  body: RequestBody,
  requestLength: number,
  sequence: number,
  cache?: Set<string>,
): void {
  if (turn === undefined) {
    sendError(res, format, 500, SCRIPT_EXHAUSTED_MESSAGE);
    return;
  }
  switch (turn.kind) {
    case 'hang':
      return;
    case 'after': {
      const go = () => respond(res, format, turn.turn, body, requestLength, sequence, cache);
      turn.ready.then(go, go);
      return;
    }
    case 'raw':
      res.writeHead(turn.status, { 'content-type': turn.contentType ?? 'application/json' });
      res.end(turn.body);
      return;
    case 'replay':
      void sendReplay(res, turn);
      return;
    case 'error': {
      // A client that honours retry-after always finds one on a 429, as from the real APIs.
      const retryAfter = turn.retryAfterSeconds ?? (turn.status === 429 ? 0 : undefined);
      sendError(
        res,
        format,
        turn.status,
        turn.message ?? `fake model server: scripted ${turn.status} error`,
        retryAfter,
      );
      return;
    }
    case 'broken': {
      if (turn.status !== undefined) {
        res.writeHead(turn.status, { 'content-type': 'application/json' });
        res.write('{"error": {"message": "overloaded, and this body never ends');
        if (turn.end === 'drop') res.write('', () => setTimeout(() => res.socket?.destroy(), 50));
        return;
      }
      const reply: Reply = {
        id: `broken-${sequence}`,
        model: typeof body.model === 'string' ? body.model : 'fake-model',
        text: turn.text,
        calls: [],
        inputTokens: estimateTokens(requestLength),
        outputTokens: estimateTokens(turn.text.length),
      };
      const events = format === 'anthropic' ? anthropicEvents(reply) : openaiChunks(reply, true);
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // The start of the answer, up to and including its first piece of text.
      for (const event of events.slice(0, format === 'anthropic' ? 4 : 2)) res.write(event);
      if (turn.end === 'drop') {
        // Once the start has reached the client: a connection cut mid-answer, not before it.
        res.write('', () => setTimeout(() => res.socket?.destroy(), 50));
        return;
      }
      const keepAlive = format === 'anthropic' ? 'event: ping\ndata: {"type":"ping"}\n\n' : ': keep-alive\n\n';
      const timer = setInterval(() => res.write(keepAlive), 200);
      res.on('close', () => clearInterval(timer));
      return;
    }
    case 'text':
    case 'tool_calls': {
      const text = turn.kind === 'text' ? turn.text : (turn.text ?? '');
      const calls: ToolCall[] =
        turn.kind === 'tool_calls'
          ? turn.calls.map((call, index) => ({
              id: call.id ?? `${format === 'anthropic' ? 'toolu' : 'call'}_fake_${sequence}_${index}`,
              name: call.name,
              arguments: JSON.stringify(call.input ?? {}),
              input: call.input ?? {},
            }))
          : [];
      const reply: Reply = {
        id: format === 'anthropic' ? `msg_fake_${sequence}` : `chatcmpl-fake-${sequence}`,
        model: typeof body.model === 'string' ? body.model : 'fake-model',
        text,
        calls,
        inputTokens: estimateTokens(requestLength),
        outputTokens: estimateTokens(text.length + calls.reduce((sum, call) => sum + call.arguments.length, 0)),
        ...(cache && format === 'anthropic' ? promptCacheUsage(body, estimateTokens(requestLength), cache) : {}),
        ...(turn.reasoning !== undefined ? { reasoning: turn.reasoning } : {}),
        ...(turn.kind === 'text' && turn.stopReason !== undefined ? { stopReason: turn.stopReason } : {}),
        ...(turn.kind === 'text' && turn.refusal !== undefined ? { refusal: turn.refusal } : {}),
      };
      const stream = body.stream === true;
      if (format === 'anthropic') {
        if (stream) sendSse(res, anthropicEvents(reply));
        else sendJson(res, 200, anthropicMessage(reply));
      } else if (stream) {
        sendSse(res, openaiChunks(reply, body.stream_options?.include_usage === true));
      } else {
        sendJson(res, 200, openaiCompletion(reply));
      }
      return;
    }
  }
}

interface Reply {
  id: string;
  model: string;
  text: string;
  calls: ToolCall[];
  inputTokens: number;
  outputTokens: number;
  /** The format's own stop reason, instead of end_turn / tool_use (stop / tool_calls). */
  stopReason?: string;
  /** The words of a refusal. */
  refusal?: string;
  /** The model's thinking before it answers. */
  reasoning?: string;
  /** Input read from and written to the prompt cache (parts of `inputTokens`; FakeModelServerOptions). */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

function anthropicStopReason(reply: Reply): string {
  return reply.stopReason ?? (reply.calls.length > 0 ? 'tool_use' : 'end_turn');
}

function anthropicStopDetails(reply: Reply) {
  return reply.refusal === undefined ? {} : { stop_details: { type: 'refusal', explanation: reply.refusal } };
}

function openaiFinishReason(reply: Reply): string {
  return reply.stopReason ?? (reply.calls.length > 0 ? 'tool_calls' : 'stop');
}

/** A deterministic estimate: about four characters a token. */
function estimateTokens(characters: number): number {
  return Math.max(1, Math.ceil(characters / 4));
}

/** Splits a string into up to `count` non-empty pieces on code-point boundaries. */
export function splitIntoPieces(value: string, count = 3): string[] {
  const points = Array.from(value);
  const size = Math.max(1, Math.ceil(points.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < points.length; start += size) pieces.push(points.slice(start, start + size).join(''));
  return pieces;
}

// --- Anthropic Messages ------------------------------------------------------------------------

function anthropicMessage(reply: Reply) {
  return {
    id: reply.id,
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content: [
      ...(reply.text === '' ? [] : [{ type: 'text', text: reply.text }]),
      ...reply.calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input })),
    ],
    stop_reason: anthropicStopReason(reply),
    stop_sequence: null,
    ...anthropicStopDetails(reply),
    usage: { ...anthropicInputUsage(reply), output_tokens: reply.outputTokens },
  };
}

/** Anthropic's input counts: `input_tokens` leaves out what was read from or written to the cache. */
function anthropicInputUsage(reply: Reply) {
  const read = reply.cacheReadTokens ?? 0;
  const written = reply.cacheWriteTokens ?? 0;
  if (read === 0 && written === 0) return { input_tokens: reply.inputTokens };
  return {
    input_tokens: Math.max(0, reply.inputTokens - read - written),
    cache_read_input_tokens: read,
    cache_creation_input_tokens: written,
  };
}

function anthropicEvents(reply: Reply): string[] {
  const events: string[] = [];
  const event = (type: string, data: object) =>
    events.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', {
    message: {
      ...anthropicMessage(reply),
      content: [],
      stop_reason: null,
      usage: { ...anthropicInputUsage(reply), output_tokens: 1 },
    },
  });
  let index = 0;
  if (reply.reasoning !== undefined) {
    event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const piece of splitIntoPieces(reply.reasoning)) {
      event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
    }
    event('content_block_delta', { index, delta: { type: 'signature_delta', signature: `sig-${reply.id}` } });
    event('content_block_stop', { index });
    index += 1;
  }
  if (reply.text !== '' || reply.calls.length === 0) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } });
    event('ping', {});
    for (const piece of splitIntoPieces(reply.text)) {
      event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    }
    event('content_block_stop', { index });
    index += 1;
  }
  for (const call of reply.calls) {
    event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    for (const piece of splitIntoPieces(call.arguments)) {
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    event('content_block_stop', { index });
    index += 1;
  }
  event('message_delta', {
    delta: { stop_reason: anthropicStopReason(reply), stop_sequence: null, ...anthropicStopDetails(reply) },
    usage: { output_tokens: reply.outputTokens },
  });
  event('message_stop', {});
  return events;
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

// --- OpenAI chat completions -------------------------------------------------------------------

function openaiCompletion(reply: Reply) {
  return {
    id: reply.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reply.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text === '' && (reply.calls.length > 0 || reply.refusal !== undefined) ? null : reply.text,
          refusal: reply.refusal ?? null,
          ...(reply.calls.length > 0
            ? {
                tool_calls: reply.calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: openaiFinishReason(reply),
      },
    ],
    usage: openaiUsage(reply),
  };
}

function openaiChunks(reply: Reply, includeUsage: boolean): string[] {
  const created = Math.floor(Date.now() / 1000);
  const chunks: string[] = [];
  const chunk = (choices: object[], usage?: object) =>
    chunks.push(
      `data: ${JSON.stringify({
        id: reply.id,
        object: 'chat.completion.chunk',
        created,
        model: reply.model,
        choices,
        ...(includeUsage ? { usage: usage ?? null } : {}),
      })}\n\n`,
    );
  const delta = (value: object) => chunk([{ index: 0, delta: value, logprobs: null, finish_reason: null }]);
  delta({ role: 'assistant', content: '' });
  for (const piece of splitIntoPieces(reply.reasoning ?? '')) delta({ reasoning_content: piece });
  for (const piece of splitIntoPieces(reply.text)) delta({ content: piece });
  // As from OpenAI: a refusal comes in pieces of its own field, the content staying empty.
  for (const piece of splitIntoPieces(reply.refusal ?? '')) delta({ refusal: piece });
  reply.calls.forEach((call, index) => {
    // As from OpenAI: id, type and name come once, in the call's first chunk.
    delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
    for (const piece of splitIntoPieces(call.arguments)) {
      delta({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  });
  chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: openaiFinishReason(reply) }]);
  if (includeUsage) chunk([], openaiUsage(reply));
  chunks.push('data: [DONE]\n\n');
  return chunks;
}

function openaiUsage(reply: Reply) {
  return {
    prompt_tokens: reply.inputTokens,
    completion_tokens: reply.outputTokens,
    total_tokens: reply.inputTokens + reply.outputTokens,
  };
}

function openaiError(status: number, message: string) {
  const [type, code] =
    status === 401
      ? ['invalid_request_error', 'invalid_api_key']
      : status === 404
        ? ['invalid_request_error', 'model_not_found']
        : status === 429
          ? ['requests', 'rate_limit_exceeded']
          : status >= 500
            ? ['server_error', null]
            : ['invalid_request_error', null];
  return { error: { message, type, param: null, code } };
}

// --- Prompt caching (Anthropic) ------------------------------------------------------------------

/** Blocks are found at most this far before a breakpoint when looking for a cached prefix. */
const CACHE_LOOKBACK_BLOCKS = 20;
const MIN_CACHEABLE_TOKENS = 1024;

/**
 * The cache reads and writes of one request: its prompt as blocks in cache order (tools, system,
 * then each message's content), cumulative prefixes keyed by their text without `cache_control`.
 * Token counts are the prefix's share of `inputTokens`, by characters.
 */
function promptCacheUsage(
  body: RequestBody,
  inputTokens: number,
  cache: Set<string>,
): { cacheReadTokens: number; cacheWriteTokens: number } {
  const request = body as {
    tools?: unknown[];
    system?: unknown;
    messages?: { content?: unknown }[];
  };
  const blocks: unknown[] = [
    ...(request.tools ?? []),
    ...(Array.isArray(request.system)
      ? request.system
      : typeof request.system === 'string'
        ? [{ type: 'text', text: request.system }]
        : []),
    ...(request.messages ?? []).flatMap((message) =>
      Array.isArray(message.content) ? message.content : [{ type: 'text', text: String(message.content) }],
    ),
  ];
  const texts = blocks.map((block) => {
    const { cache_control: _ignored, ...rest } = block as Record<string, unknown>;
    return JSON.stringify(rest);
  });
  const total = texts.reduce((sum, text) => sum + text.length, 0) || 1;
  const keys: string[] = [];
  const chars: number[] = [];
  let prefix = '';
  for (const text of texts) {
    prefix += text;
    keys.push(prefix);
    chars.push(prefix.length);
  }
  const tokensUpTo = (index: number) => Math.floor((inputTokens * (chars[index] ?? 0)) / total);
  const breakpoints = blocks.flatMap((block, index) =>
    typeof block === 'object' && block !== null && 'cache_control' in block ? [index] : [],
  );
  let readUpTo = -1;
  for (const point of breakpoints) {
    for (let index = point; index >= Math.max(0, point - CACHE_LOOKBACK_BLOCKS); index -= 1) {
      if (cache.has(keys[index] ?? '')) {
        readUpTo = Math.max(readUpTo, index);
        break;
      }
    }
  }
  const last = breakpoints.at(-1) ?? -1;
  const read = readUpTo >= 0 ? tokensUpTo(readUpTo) : 0;
  let written = 0;
  if (last > readUpTo && tokensUpTo(last) >= MIN_CACHEABLE_TOKENS) {
    written = tokensUpTo(last) - read;
    for (const point of breakpoints) if (tokensUpTo(point) >= MIN_CACHEABLE_TOKENS) cache.add(keys[point] ?? '');
  }
  return { cacheReadTokens: read, cacheWriteTokens: written };
}

// --- Replayed recordings --------------------------------------------------------------------------

/** Splits `bytes` into pieces of 1–23 bytes, chosen by a small seeded generator. */
export function bytePieces(bytes: Uint8Array, seed = 1): Uint8Array[] {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: the same pieces for the same seed.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = 1 + Math.floor(next() * 23);
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return pieces;
}

async function sendReplay(res: http.ServerResponse, turn: Extract<ScriptedTurn, { kind: 'replay' }>): Promise<void> {
  const delivery = turn.delivery ?? 'whole';
  const text = delivery === 'crlf' ? turn.body.replace(/\r?\n/g, '\r\n') : turn.body;
  const bytes = Buffer.from(text, 'utf8');
  res.writeHead(turn.status ?? 200, { 'content-type': turn.contentType ?? 'text/event-stream' });
  if (delivery === 'whole') {
    res.end(bytes);
    return;
  }
  res.socket?.setNoDelay(true);
  for (const piece of bytePieces(bytes, turn.seed)) {
    if (res.destroyed) return;
    res.write(piece);
    // A turn of the event loop between pieces, so that each leaves on its own.
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
}

// --- Plumbing ----------------------------------------------------------------------------------

function sendError(res: http.ServerResponse, format: Format, status: number, message: string, retryAfter?: number) {
  const headers: http.OutgoingHttpHeaders = retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) };
  const body =
    format === 'anthropic'
      ? { type: 'error', error: { type: ANTHROPIC_ERROR_TYPES[status] ?? 'api_error', message } }
      : openaiError(status, message);
  sendJson(res, status, body, headers);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendSse(res: http.ServerResponse, events: string[]) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) res.write(event);
  res.end();
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * `turns` model turns of `callsPerTurn` parallel `todo_write` calls each ("Step 3.41"): a long run
 * that needs no approval, no display and no files, for tests of how the panel copes with length.
 */
export function planningTurns(turns: number, callsPerTurn: number): ScriptedTurn[] {
  return Array.from({ length: turns }, (_, index) => ({
    kind: 'tool_calls' as const,
    calls: Array.from({ length: callsPerTurn }, (_, call) => ({
      name: 'todo_write',
      input: { items: [{ id: `t${index + 1}-${call}`, content: `Step ${index + 1}.${call}`, status: 'completed' }] },
    })),
  }));
}
