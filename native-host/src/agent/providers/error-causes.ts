import { AppError, say, type ErrorCode, type Localized } from '@nextai/shared';

/**
 * Why a model API refused or failed a call, read from what it answered: the HTTP status, the error
 * body (whichever provider's shape it has) and the headers. Each cause has its own message, in
 * English and Chinese, saying what to do; the provider's own words go in it.
 *
 * The classification is a pure function (classifyProviderError) so that it can be tested against
 * recorded responses (tests/fixtures/provider-errors/); errorFromClassification builds the AppError.
 */
export type ErrorCause =
  /** The key is missing, wrong, expired or may not do this (401, 403). */
  | 'auth'
  /** No balance, credit or quota left on the account: retrying will not help. */
  | 'quota'
  /** Too many requests for now: worth retrying later. */
  | 'rate_limit'
  /** The model (or the URL) does not exist on this server. */
  | 'model_not_found'
  /** The conversation no longer fits the model's context window. */
  | 'context_too_long'
  /** The provider's content filter refused the request. */
  | 'content_filter'
  /** The provider refused a request NextAI made (or a tool call the model made). */
  | 'bad_request'
  /** The request is larger than the API accepts. */
  | 'too_large'
  /** The provider is down, overloaded or failed: worth retrying. */
  | 'server';

/** What an error body says, whichever provider's shape it has. */
export interface ProviderErrorBody {
  message?: string;
  type?: string;
  code?: string;
  /** Azure OpenAI's `innererror.code` (ResponsibleAIPolicyViolation). */
  innerCode?: string;
  /** Google's status word (RESOURCE_EXHAUSTED, INVALID_ARGUMENT). */
  status?: string;
}

export interface ErrorClassification {
  cause: ErrorCause;
  /** The HTTP status; absent for an error sent inside an answer after HTTP 200. */
  status?: number;
  type?: string;
  code?: string;
  innerCode?: string;
  /** The provider's own words, as sent (not yet redacted). */
  message?: string;
  /** The model the provider named (a missing model), when it named one. */
  model?: string;
  /** Ollama's "try pulling it first": the model is known but not downloaded. */
  pullable?: boolean;
  /** Groq's `tool_use_failed`: the model wrote a tool call the server could not parse. */
  toolCall?: boolean;
  /** How long the server asked to wait (retry-after headers), in milliseconds. */
  retryAfterMs?: number;
}

/** The causes another attempt of the same call may not have. */
export function isRetryableCause(cause: ErrorCause): boolean {
  return cause === 'rate_limit' || cause === 'server';
}

type JsonRecord = Record<string, unknown>;

function record(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

function word(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;
}

/**
 * Reads an already-parsed error: `{error:{message,type,code}}` (OpenAI and the compatible servers),
 * `{type:"error", error:{type,message}}` (Anthropic), `{error:"…"}` (Ollama), `[{error:{…}}]`
 * (Google), `{code,message}` at the top (DashScope), Azure's `innererror`, and OpenRouter's
 * `metadata.raw` (the upstream provider's own body, which says more than "Provider returned error").
 */
export function readErrorBody(parsed: unknown): ProviderErrorBody {
  const root = record(Array.isArray(parsed) ? parsed[0] : parsed);
  if (root === undefined) return {};
  const nested = record(root.error);
  const inner = nested ?? root;
  const result: ProviderErrorBody = {};
  const message = word(inner.message) ?? (typeof root.error === 'string' ? word(root.error) : undefined);
  // Some servers put the type beside a string `error`; Anthropic's top-level type is just "error".
  const type = word(inner.type) ?? word(root.type === 'error' ? undefined : root.type);
  const code = word(inner.code);
  const innerCode = word(record(inner.innererror)?.code);
  const status = typeof inner.status === 'string' ? word(inner.status) : undefined;
  if (message !== undefined) result.message = message;
  if (type !== undefined) result.type = type;
  if (code !== undefined) result.code = code;
  if (innerCode !== undefined) result.innerCode = innerCode;
  if (status !== undefined) result.status = status;
  const raw = record(inner.metadata)?.raw;
  if (typeof raw === 'string') {
    const upstream = parseErrorBody(raw);
    if (upstream.message !== undefined) {
      return { ...result, ...upstream, ...(upstream.code === undefined && code ? { code } : {}) };
    }
  }
  return result;
}

/** Reads an error body's text; one that is not JSON (a proxy's HTML page) becomes a short message. */
export function parseErrorBody(text: string): ProviderErrorBody {
  try {
    return readErrorBody(JSON.parse(text));
  } catch {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
    const plain = (title ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim().slice(0, 300);
    return plain === '' ? {} : { message: plain };
  }
}

/** Milliseconds from `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date). */
export function parseRetryAfter(headers: Headers, now: number): number | undefined {
  const milliseconds = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Removes the API key, and anything shaped like one, from text that may be shown or logged. */
export function redactSecrets(text: string, apiKey: string | undefined): string {
  let result = text;
  if (apiKey !== undefined && apiKey.length >= 4) result = result.split(apiKey).join('[redacted]');
  // A key-like word ends before a full stop: "…wjh3." keeps its stop.
  return result.replace(/\b(sk-[A-Za-z0-9_*.-]{3,}[A-Za-z0-9_*-])/g, '[redacted]');
}

// --- What each cause looks like -----------------------------------------------------------------
// Codes and types are compared in lower case. Each list names where it comes from.

const QUOTA_CODES = new Set([
  'insufficient_quota', // OpenAI 429; also OpenAI-compatible gateways
  'billing_error', // Anthropic 402
  'exceeded_current_quota_error', // Kimi / Moonshot (429, or 403 for an inactive account)
  'arrearage', // Qwen / DashScope
  'insufficient_balance',
  'insufficient_credits',
  '1113', // GLM / Z.ai: 余额不足或无可用资源包
]);

const QUOTA_WORDS =
  /insufficient[ _](account )?balance|insufficient credits|credit balance|余额不足|欠费|请充值|无可用资源包|recharge|arrear|account is in good standing|check your plan and billing|purchase (more )?credits|requires more credits|exceeded your current quota/i;

/** Words that say the wait is short: then even billing words describe a rate limit (Gemini's free tier). */
const RETRY_HINT = /retry in|try again in|retry after|try again later|please wait/i;

const AUTH_CODES = new Set([
  'authentication_error', // Anthropic 401
  'permission_error', // Anthropic 403
  'invalid_api_key', // OpenAI 401
  'invalid_authentication_error', // Kimi 401
  'permission_denied_error', // Kimi 403
  'invalidapikey', // DashScope
  'unauthorized',
  '1000', // GLM: 身份验证失败
  '1001', // GLM: Header 中未收到 Authorization 参数
  '1002', // GLM: Authorization Token 非法
  '1003', // GLM: Authorization Token 已过期
  '1004', // GLM: Authorization Token 验证失败
]);

const RATE_LIMIT_CODES = new Set([
  'rate_limit_error', // Anthropic
  'rate_limit_exceeded', // OpenAI
  'rate_limit_reached_error', // Kimi
  'resource_exhausted', // Google (Gemini, Vertex): per-minute limits, in billing words
  'throttling', // DashScope
  '1302', // GLM: 并发数过高
  '1303', // GLM: 频率过高
  '1305', // GLM: 请求过多
]);

const SERVER_CODES = new Set([
  'overloaded_error', // Anthropic 529
  'api_error', // Anthropic 500
  'server_error', // OpenAI 500
  'internal_server_error',
  'engine_overloaded_error', // Kimi
  'service_unavailable',
]);

const FILTER_CODES = new Set([
  'content_filter', // Azure OpenAI 400, Kimi 400
  'responsibleaipolicyviolation', // Azure `innererror.code`
  'datainspectionfailed', // Qwen / DashScope
  'data_inspection_failed', // Qwen, OpenAI-compatible mode
  'content_policy_violation', // OpenAI images, gateways
  '1301', // GLM: 系统检测到输入或生成内容可能包含不安全或敏感内容
]);

const FILTER_WORDS =
  /content management policy|content[_ ]filter|content policy|inappropriate content|DataInspectionFailed|不安全或敏感内容|considered high risk|input was flagged|flagged by (the )?moderation/i;

const MODEL_CODES = new Set([
  'model_not_found', // OpenAI 404 (403 for a project without access)
  'not_found_error', // Anthropic 404
  'resource_not_found_error', // Kimi 404
  'modelnotfound',
  '1211', // GLM: 模型不存在
]);

const MODEL_WORDS =
  /\bmodel\b[^.\n]{0,120}?\b(does not exist|doesn't exist|not found|not exist)|no such model|unknown model|invalid model|模型不存在|try pulling it first/i;

const CONTEXT_CODES = new Set([
  'context_length_exceeded', // OpenAI
  'tokens_too_long',
  'string_above_max_length',
  '1261', // GLM: Prompt exceeds max length
]);

const CONTEXT_WORDS =
  /prompt is too long|maximum context length|context length|context[_ ]window|exceeds the maximum number of tokens|input token count|too many (input )?tokens|reduce the length of the messages|prompt exceeds max length|input token length too long|input is too long|上下文长度|超出最大长度/i;

const TOO_LARGE_CODES = new Set(['request_too_large']); // Anthropic 413

/** OpenAI's 429 for a single request above the per-minute token limit: waiting does not help. */
const TOO_LARGE_FOR_LIMIT = /request too large for/i;

const TOOL_CALL_CODES = new Set(['tool_use_failed']); // Groq

function codesOf(body: ProviderErrorBody): string[] {
  return [body.type, body.code, body.innerCode, body.status].flatMap((value) =>
    value === undefined ? [] : [value.toLowerCase()],
  );
}

/** The model a message names: `gpt-4`, 'mistral', "llama3", model: claude-3-5-sonnet… */
export function modelNamedIn(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  const quoted = /\bmodel\b[:\s]*[`'"“]([^`'"”\s]{1,120})[`'"”]/i.exec(message);
  if (quoted?.[1]) return quoted[1];
  const bare = /\bmodel:\s*([\w.:/@-]{1,120})/i.exec(message);
  return bare?.[1];
}

/**
 * Why the provider refused or failed a call. `status` is the HTTP status, absent for an error
 * event inside an answer after HTTP 200 (then the body alone decides, and an unknown error counts
 * as the server's). Pure: the same inputs always give the same answer.
 */
export function classifyProviderError(
  status: number | undefined,
  body: ProviderErrorBody,
  headers?: Headers,
  now: number = Date.now(),
): ErrorClassification {
  const codes = codesOf(body);
  const has = (set: Set<string>) => codes.some((code) => set.has(code));
  const words = body.message ?? '';
  const retryAfterMs = headers ? parseRetryAfter(headers, now) : undefined;
  const base: Omit<ErrorClassification, 'cause'> = {};
  if (status !== undefined) base.status = status;
  if (body.type !== undefined) base.type = body.type;
  if (body.code !== undefined) base.code = body.code;
  if (body.innerCode !== undefined) base.innerCode = body.innerCode;
  if (body.message !== undefined) base.message = body.message;
  const as = (cause: ErrorCause, extra: Partial<ErrorClassification> = {}): ErrorClassification => ({
    cause,
    ...base,
    ...extra,
  });

  const googleLimit = codes.includes('resource_exhausted');
  const quotaWords = QUOTA_WORDS.test(words) && !googleLimit && retryAfterMs === undefined && !RETRY_HINT.test(words);
  if (status === 402 || has(QUOTA_CODES) || quotaWords) return as('quota');

  if (has(FILTER_CODES) || FILTER_WORDS.test(words)) return as('content_filter');

  const model = modelNamedIn(words);
  const named = model === undefined ? {} : { model };
  if (has(MODEL_CODES) || MODEL_WORDS.test(words)) {
    return as('model_not_found', { ...named, ...(/try pulling it first/i.test(words) ? { pullable: true } : {}) });
  }

  if (status === 401 || status === 403 || has(AUTH_CODES)) return as('auth');

  if (status === 429 && TOO_LARGE_FOR_LIMIT.test(words)) return as('too_large');
  const wait = retryAfterMs === undefined ? {} : { retryAfterMs };
  if (status === 429 || ((status === undefined || status >= 500) && has(RATE_LIMIT_CODES))) {
    return as('rate_limit', wait);
  }
  if (status !== undefined && (status >= 500 || status === 408 || status === 409)) return as('server', wait);

  if (has(CONTEXT_CODES) || CONTEXT_WORDS.test(words)) return as('context_too_long');
  if (status === 413 || has(TOO_LARGE_CODES)) return as('too_large');
  if (status === 404) return as('model_not_found', named);
  if (has(TOOL_CALL_CODES)) return as('bad_request', { toolCall: true });
  if (status === undefined && (has(SERVER_CODES) || !codes.includes('invalid_request_error'))) {
    // Inside an answer: an overload, a server fault, or something unknown the server went through.
    return as('server');
  }
  return as('bad_request');
}

// --- The AppError for a cause ---------------------------------------------------------------------

export interface ErrorContext {
  /** "Anthropic" or "OpenAI-compatible": used in messages. */
  providerLabel: string;
  /** Environment variable that also holds the key, named in the key's message. */
  apiKeyEnvironment: string;
  apiKey: string | undefined;
  /** The model asked for, when known: named when the server does not say which model is missing. */
  model?: string | undefined;
  /** Attempts made, for the final HTTP error of a call that was retried. */
  attempts?: number | undefined;
  /** Whether another attempt may succeed, for an error inside an answer (isTransientStreamError). */
  transient?: boolean | undefined;
}

const MAX_WORDS = 600;

function providerWords(classification: ErrorClassification, apiKey: string | undefined): string {
  const words = classification.message?.replace(/\s+/g, ' ').trim();
  if (words === undefined || words === '') return '';
  const redacted = redactSecrets(words, apiKey);
  return redacted.length > MAX_WORDS ? `${redacted.slice(0, MAX_WORDS)}…` : redacted;
}

const CODES: Record<ErrorCause, ErrorCode> = {
  auth: 'UNAVAILABLE',
  quota: 'UNAVAILABLE',
  rate_limit: 'UNAVAILABLE',
  server: 'UNAVAILABLE',
  model_not_found: 'NOT_FOUND',
  context_too_long: 'INVALID_ARGUMENT',
  content_filter: 'INVALID_ARGUMENT',
  bad_request: 'INVALID_ARGUMENT',
  too_large: 'INVALID_ARGUMENT',
};

/** The message for a cause: what happened, the provider's words, and what to do. */
function messageFor(classification: ErrorClassification, context: ErrorContext): Localized {
  const label = context.providerLabel;
  const env = context.apiKeyEnvironment;
  const words = providerWords(classification, context.apiKey);
  const { status } = classification;
  // "HTTP 429: 余额不足…" for a response; "overloaded_error during the answer: Overloaded" inside one.
  const kind = classification.type ?? classification.code ?? 'error';
  const [head, headZh] =
    status !== undefined ? [`HTTP ${status}`, `HTTP ${status}`] : [`${kind} during the answer`, `回答过程中 ${kind}`];
  const said = words === '' ? head : `${head}: ${words}`;
  const saidZh = words === '' ? headZh : `${headZh}：${words}`;
  const attempts = context.attempts;
  const after = attempts === undefined ? '' : ` after ${attempts} attempt${attempts === 1 ? '' : 's'}`;
  const afterZh = attempts === undefined ? '' : `，已尝试 ${attempts} 次`;
  const wait =
    classification.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(classification.retryAfterMs / 1000));
  const setKey = `\`nextai config set model.api_key <key>\``;
  const setModel = '`nextai config set model.name …`';
  const setUrl = '`nextai config set model.base_url …`';
  switch (classification.cause) {
    case 'auth': {
      if (context.apiKey === undefined) {
        return say(
          `The ${label} API needs an API key and none is set (${said}). Set one in Settings, with ${setKey} or the ${env} environment variable.`,
          `${label} 接口需要 API 密钥，但还没有设置（${saidZh}）。请在“设置”中填写，或用 ${setKey} 或环境变量 ${env} 设置。`,
        );
      }
      const permission = status === 403 || /permission/i.test(classification.type ?? '');
      return permission
        ? say(
            `The ${label} API rejected the API key for this request (${said}). Check in the provider's console that the key may use this model, or set another key with ${setKey} or the ${env} environment variable.`,
            `${label} 接口拒绝了 API 密钥的这次请求（${saidZh}）。请在服务商的控制台确认该密钥可以使用这个模型，或用 ${setKey} 或环境变量 ${env} 换一个密钥。`,
          )
        : say(
            `The ${label} API rejected the API key (${said}). Set a valid key in Settings, with ${setKey} or the ${env} environment variable.`,
            `${label} 接口拒绝了 API 密钥（${saidZh}）。请在“设置”中填写有效的密钥，或用 ${setKey} 或环境变量 ${env} 设置。`,
          );
    }
    case 'quota':
      return say(
        `The ${label} account has no quota or credit left (${said}). Add credit or raise the limit in the provider's console; retrying will not help.`,
        `${label} 账户的额度或余额已用完（${saidZh}）。请在服务商的控制台充值或提高额度；重试没有用。`,
      );
    case 'rate_limit':
      return say(
        `The ${label} API is rate-limiting requests (${said})${after}. ` +
          (wait !== undefined
            ? `The server asks to wait ${wait} s before retrying.`
            : 'Try again in a minute; if it keeps happening, raise the limit with the provider.'),
        `${label} 接口限制了请求频率（${saidZh}）${afterZh}。` +
          (wait !== undefined
            ? `服务器要求等待 ${wait} 秒后再试。`
            : '请过一分钟再试；如果反复出现，请在服务商处提高限额。'),
      );
    case 'server':
      return say(
        `The ${label} API is unavailable or overloaded (${said})${after}. ` +
          (wait !== undefined ? `The server asks to wait ${wait} s before retrying.` : 'Try again in a minute.'),
        `${label} 接口暂时不可用或过载（${saidZh}）${afterZh}。` +
          (wait !== undefined ? `服务器要求等待 ${wait} 秒后再试。` : '请过一分钟再试。'),
      );
    case 'model_not_found': {
      const model = classification.model ?? context.model;
      const named = model === undefined ? '' : ` \`${model}\``;
      if (classification.pullable && model !== undefined) {
        return say(
          `Ollama does not have the model \`${model}\` (${said}). Download it with \`ollama pull ${model}\`, or choose one that \`ollama list\` shows (${setModel}).`,
          `Ollama 里没有模型 \`${model}\`（${saidZh}）。请用 \`ollama pull ${model}\` 下载，或改用 \`ollama list\` 列出的模型（${setModel}）。`,
        );
      }
      // A bare 404 that names no model may as well be a wrong base URL.
      const unnamed = classification.model === undefined && !MODEL_WORDS.test(classification.message ?? '');
      return say(
        `The ${label} API does not have the model${named} (${said}). Check the model name in Settings or with ${setModel}` +
          (unnamed ? `, and the base URL (${setUrl}).` : '.'),
        `${label} 接口没有模型${named}（${saidZh}）。请在“设置”中或用 ${setModel} 检查模型名称` +
          (unnamed ? `，以及接口地址（${setUrl}）。` : '。'),
      );
    }
    case 'context_too_long':
      return say(
        `The conversation is too long for the model's context window (${said}). Start a new chat, give the task with less material (fewer or smaller files, pages and screenshots), or choose a model with a larger context window.`,
        `对话内容超出了模型的上下文长度（${saidZh}）。请开始新的对话，减少提供的材料（更少、更小的文件、网页和截图），或换用上下文更长的模型。`,
      );
    case 'content_filter':
      return say(
        `The content filter of the ${label} API refused the request (${said}). Rephrase the task or leave out the flagged material (a page or file the agent read may have set it off); the same request will be refused again.`,
        `${label} 的内容审核拒绝了这次请求（${saidZh}）。请换一种说法，或去掉被标记的内容（智能体读取的网页或文件也可能触发审核）；原样重试仍会被拒绝。`,
      );
    case 'too_large':
      return say(
        `The request is too large for the ${label} API (${said}). It is usually many or large screenshots, images or files in the conversation: start a new chat, or give less material at once.`,
        `请求超出了 ${label} 接口允许的大小（${saidZh}）。通常是对话中的截图、图片或文件太多太大：请开始新的对话，或一次少提供一些材料。`,
      );
    case 'bad_request':
      if (classification.toolCall) {
        return say(
          `The model wrote a tool call the ${label} API could not read (${said}). Trying again usually works; if it keeps happening, choose another model.`,
          `模型生成的工具调用 ${label} 接口无法解析（${saidZh}）。重试通常可以解决；如果反复出现，请换用其他模型。`,
        );
      }
      return say(
        `The ${label} API refused the request NextAI sent (${said}). This is a compatibility problem between NextAI and this provider or model, not something you did: please report it to the NextAI developers with these words. Another model or provider may work meanwhile.`,
        `${label} 接口拒绝了 NextAI 发送的请求（${saidZh}）。这是 NextAI 与该服务商或模型之间的兼容性问题，不是您的操作有误：请把这段信息反馈给 NextAI 的开发者。在此期间可以换用其他模型或服务商。`,
      );
  }
}

/**
 * The AppError for a classified failure. Its details carry the cause, the status, the provider's
 * type and code, and `transient: true` when another attempt may succeed: for a response, only a
 * rate limit or a server error; inside an answer, what `context.transient` says.
 */
export function errorFromClassification(
  classification: ErrorClassification,
  context: ErrorContext,
  options: { cause?: unknown } = {},
): AppError {
  const transient = context.transient ?? isRetryableCause(classification.cause);
  const details: Record<string, unknown> = { cause: classification.cause };
  if (classification.status !== undefined) details.status = classification.status;
  if (classification.type !== undefined) details.type = classification.type;
  if (classification.code !== undefined) details.code = classification.code;
  if (classification.innerCode !== undefined) details.inner_code = classification.innerCode;
  const model = classification.model ?? (classification.cause === 'model_not_found' ? context.model : undefined);
  if (model !== undefined) details.model = model;
  if (classification.retryAfterMs !== undefined) details.retry_after_ms = classification.retryAfterMs;
  if (transient) {
    details.transient = true;
    if (context.attempts !== undefined) details.attempts = context.attempts;
  }
  return new AppError(CODES[classification.cause], messageFor(classification, context), {
    details,
    ...(options.cause === undefined ? {} : { cause: options.cause }),
  });
}

/**
 * The AppError for an `error` event inside an answer, after HTTP 200 (Anthropic's `event: error`,
 * an OpenAI-compatible chunk with `error`): classified by its body alone. `context.transient`
 * (isTransientStreamError) decides whether the call may be made again.
 */
export function errorForStreamEvent(event: unknown, context: ErrorContext & { transient: boolean }): AppError {
  return errorFromClassification(classifyProviderError(undefined, readErrorBody(event)), context);
}
