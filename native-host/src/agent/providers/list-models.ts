import { AppError, say } from '@nextai/shared';

import { readBody } from './read-body.js';
import type { ProviderName } from './select.js';

// Not the model calls' transport (model-stream.ts and the AI SDK): a model list is one GET, with
// its own short time limit and a bound on what is read.

/** The Messages API version header Anthropic requires on every request, this one included. */
const ANTHROPIC_VERSION = '2023-06-01';

/** How long a person waits on "List models" before being told the server did not answer. */
export const LIST_MODELS_TIMEOUT_MS = 10_000;
/** More than any real list (OpenRouter's, descriptions and prices included, is a few MB). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_ID_LENGTH = 200;
/** Anthropic pages its list; this many pages of 1000 is more than it has. */
const MAX_PAGES = 5;

export interface ListModelsRequest {
  provider: ProviderName;
  /** As the provider takes it: https://api.anthropic.com, https://api.deepseek.com/v1. */
  baseUrl: string;
  apiKey: string | undefined;
  /** The default is LIST_MODELS_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * The models a server offers, sorted and without repeats: `GET <base>/models` for an
 * OpenAI-compatible server, `GET <base>/v1/models` (pages followed) for Anthropic. A server that
 * offers no list, refuses the key, cannot be reached or answers something else is an AppError that
 * says so in both languages and what to do; the key is never in it.
 */
export async function listModels(request: ListModelsRequest): Promise<string[]> {
  const base = request.baseUrl.replace(/\/+$/, '');
  const timeoutMs = request.timeoutMs ?? LIST_MODELS_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.provider === 'anthropic') {
    headers['anthropic-version'] = ANTHROPIC_VERSION;
    if (request.apiKey !== undefined) headers['x-api-key'] = request.apiKey;
  } else if (request.apiKey !== undefined) {
    headers.authorization = `Bearer ${request.apiKey}`;
  }

  const ids: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const url =
      request.provider === 'anthropic'
        ? `${base}/v1/models?limit=1000${after === undefined ? '' : `&after_id=${encodeURIComponent(after)}`}`
        : `${base}/models`;
    const body = await get(url, headers, signal, request, timeoutMs);
    const found = modelIdsOf(body);
    if (found === undefined) {
      throw new AppError(
        'UNAVAILABLE',
        say(
          `${originOf(base)} answered, but not with a list of models. Check the base URL, or type the model name.`,
          `${originOf(base)} 有回应，但不是模型列表。请检查接口地址，或直接输入模型名称。`,
        ),
      );
    }
    ids.push(...found);
    const more = nextPage(body);
    if (request.provider !== 'anthropic' || more === undefined) break;
    after = more;
  }
  return [...new Set(ids)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' }));
}

async function get(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  request: ListModelsRequest,
  timeoutMs: number,
): Promise<unknown> {
  const origin = originOf(request.baseUrl);
  let response: Response;
  let text: string;
  try {
    // Not followed: the key would go along to wherever the redirect points.
    response = await fetch(url, { method: 'GET', headers, signal, redirect: 'manual' });
    text = await readBody(
      response,
      MAX_BODY_BYTES,
      () =>
        new AppError(
          'UNAVAILABLE',
          say(
            `The model list from ${originOf(response.url)} is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB; type the model name.`,
            `${originOf(response.url)} 返回的模型列表超过 ${MAX_BODY_BYTES / 1024 / 1024} MB；请直接输入模型名称。`,
          ),
        ),
    );
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (signal.aborted) {
      throw new AppError(
        'TIMEOUT',
        say(
          `${origin} did not answer within ${timeoutMs / 1000} s. Check the base URL and the network, or type the model name.`,
          `${origin} 在 ${timeoutMs / 1000} 秒内没有回应。请检查接口地址和网络，或直接输入模型名称。`,
        ),
        { cause: error },
      );
    }
    const reason = networkReason(error);
    const local = isLocal(request.baseUrl);
    throw new AppError(
      'UNAVAILABLE',
      say(
        `Could not reach ${origin} (${reason}). ` +
          (local ? 'Is the server running on this computer?' : 'Check the base URL and the network.'),
        `无法连接 ${origin}（${reason}）。` + (local ? '这台电脑上的服务是否已启动？' : '请检查接口地址和网络。'),
      ),
      { cause: error },
    );
  }
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    const target = location ? resolvedOrigin(location, url) : undefined;
    throw new AppError(
      'UNAVAILABLE',
      say(
        `${origin} redirects the model list${target ? ` to ${target}` : ''} (HTTP ${response.status}); set the base URL to where the server is.`,
        `${origin} 将模型列表重定向${target ? `到 ${target}` : ''}（HTTP ${response.status}）；请把接口地址改为服务的实际地址。`,
      ),
      { details: { status: response.status } },
    );
  }
  if (!response.ok) throw statusError(response.status, text, request);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError(
      'UNAVAILABLE',
      say(
        `${origin} answered, but not with JSON. Check the base URL (it usually ends in /v1), or type the model name.`,
        `${origin} 有回应，但不是 JSON。请检查接口地址（通常以 /v1 结尾），或直接输入模型名称。`,
      ),
    );
  }
}

function statusError(status: number, text: string, request: ListModelsRequest): AppError {
  const origin = originOf(request.baseUrl);
  const said = serverWords(text, request.apiKey);
  const theirWords = said === '' ? '' : ` ("${said}")`;
  const details = { status };
  if (status === 404 || status === 405 || status === 501) {
    return new AppError(
      'NOT_FOUND',
      say(
        `This server does not list its models (HTTP ${status} from ${origin}); type the model name.`,
        `该服务不提供模型列表（${origin} 返回 HTTP ${status}）；请直接输入模型名称。`,
      ),
      { details },
    );
  }
  if (status === 401 || status === 403) {
    const hint =
      request.apiKey === undefined
        ? say('This server needs an API key: paste it above.', '该服务需要 API 密钥：请在上方填写。')
        : say('Check the API key.', '请检查 API 密钥。');
    return new AppError(
      'PERMISSION_DENIED',
      say(
        `${origin} refused to list its models (HTTP ${status})${theirWords}. ${hint.en}`,
        `${origin} 拒绝列出模型（HTTP ${status}）${theirWords}。${hint['zh-CN']}`,
      ),
      { details },
    );
  }
  if (status === 429) {
    return new AppError(
      'UNAVAILABLE',
      say(
        `${origin} is limiting requests (HTTP 429)${theirWords}. Try again in a minute, or type the model name.`,
        `${origin} 正在限制请求（HTTP 429）${theirWords}。请稍后再试，或直接输入模型名称。`,
      ),
      { details },
    );
  }
  return new AppError(
    'UNAVAILABLE',
    say(
      `${origin} could not list its models (HTTP ${status})${theirWords}. Type the model name, or try again later.`,
      `${origin} 无法列出模型（HTTP ${status}）${theirWords}。请直接输入模型名称，或稍后再试。`,
    ),
    { details },
  );
}

/**
 * The ids in a model list: `{ data: [{ id }] }` (OpenAI, Anthropic and nearly every compatible
 * server), `{ models: [{ name | model | id }] }` (Ollama's own shape, some gateways) or a bare array.
 * Undefined when the body is none of these.
 */
export function modelIdsOf(body: unknown): string[] | undefined {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  const list = Array.isArray(body)
    ? body
    : Array.isArray(record?.data)
      ? record.data
      : Array.isArray(record?.models)
        ? record.models
        : undefined;
  if (list === undefined) return undefined;
  const ids: string[] = [];
  for (const entry of list as unknown[]) {
    const item = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : undefined;
    const id =
      typeof entry === 'string' ? entry : [item?.id, item?.name, item?.model].find((v) => typeof v === 'string');
    const trimmed = typeof id === 'string' ? id.trim() : '';
    if (trimmed !== '' && trimmed.length <= MAX_ID_LENGTH && !/\p{Cc}/u.test(trimmed)) ids.push(trimmed);
  }
  return ids;
}

/**
 * The server's own words about an error, short and without the key: `error.message` (OpenAI,
 * Anthropic), `message`, `error` as text, `detail`; else the page's title or text (a proxy's HTML).
 */
export function serverWords(text: string, apiKey: string | undefined): string {
  let words: unknown;
  try {
    const body = JSON.parse(text) as Record<string, unknown> | null;
    const inner = typeof body?.error === 'object' && body.error !== null ? (body.error as Record<string, unknown>) : {};
    words = [inner.message, body?.message, body?.error, body?.detail].find((value) => typeof value === 'string');
  } catch {
    words = (/<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1] ?? text.replace(/<[^>]*>/g, ' ')).trim();
  }
  let said = typeof words === 'string' ? words.replace(/\s+/g, ' ').trim() : '';
  if (apiKey !== undefined && apiKey.length >= 4) said = said.split(apiKey).join('[redacted]');
  said = said.replace(/\b(sk-[A-Za-z0-9_*.-]{3,}[A-Za-z0-9_*-])/g, '[redacted]');
  return said.length > 300 ? `${said.slice(0, 300)}…` : said;
}

/** Anthropic's `has_more` / `last_id`: the id to continue after, if there is more. */
function nextPage(body: unknown): string | undefined {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  return record.has_more === true && typeof record.last_id === 'string' ? record.last_id : undefined;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function resolvedOrigin(location: string, base: string): string | undefined {
  try {
    return new URL(location, base).origin;
  } catch {
    return undefined;
  }
}

function isLocal(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost');
  } catch {
    return false;
  }
}

/** ECONNREFUSED, ENOTFOUND, a certificate problem…: the cause's code, never a URL with a key in it. */
function networkReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = current.cause;
  }
  return error instanceof Error ? error.message.slice(0, 120) : 'network error';
}
