import { AppError, say } from '@nextai/shared';
import { sleep } from '../../core/sleep.js';

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A `retry-after` longer than this is not waited for: the call fails and says when to retry. */
  maxRetryAfterMs: number;
  /** Time allowed for the response headers of one attempt. */
  attemptTimeoutMs: number;
  /** An answer with no progress for this long (keep-alives do not count) is abandoned. */
  streamIdleMs: number;
  /** The longest one model call may take, every attempt and the whole answer included. */
  callDeadlineMs: number;
  /** Waits `ms`; rejects when `signal` aborts. Injected by tests. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1): the jitter. Injected by tests. */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 1000,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
  attemptTimeoutMs: 120_000,
  streamIdleMs: 90_000,
  callDeadlineMs: 20 * 60_000,
  sleep,
  random: Math.random,
};

/**
 * Whether an error the server sent inside an answer (after HTTP 200) may not come again: an
 * overload or a server fault may pass, and so may a malformed tool call the model made (Groq's
 * `tool_use_failed`); a request that is too long, refused by a filter, unauthorised or naming
 * nothing that exists will fail the same way each time.
 */
export function isTransientStreamError(error: { type?: unknown; code?: unknown; message?: unknown }): boolean {
  const type = typeof error.type === 'string' ? error.type : '';
  const code = typeof error.code === 'string' || typeof error.code === 'number' ? String(error.code) : '';
  const message = typeof error.message === 'string' ? error.message : '';
  if (code === 'tool_use_failed') return true;
  if (/^(authentication|permission|not_found|request_too_large|billing)_error$/.test(type)) return false;
  if (/context_length|content_filter|insufficient_quota|invalid_api_key|model_not_found/.test(code)) return false;
  if (type === 'invalid_request_error') return false;
  return !/maximum context length|context window|too many tokens|content (management )?policy|content_filter/i.test(
    message,
  );
}

/** Statuses worth another attempt: rate limits, server errors, Anthropic's 529 "overloaded". */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
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

export type RetryDecision =
  { retry: true; delayMs: number } | { retry: false; reason: 'attempts' | 'retry_after_too_long' };

/**
 * Whether to try again after failed attempt number `attempt` (1-based), and how long to wait:
 * the server's `retry-after` when it sent one, otherwise exponential back-off with jitter
 * (between half and all of base·2^(attempt-1), capped).
 */
export function decideRetry(attempt: number, retryAfterMs: number | undefined, policy: RetryPolicy): RetryDecision {
  if (attempt >= policy.maxAttempts) return { retry: false, reason: 'attempts' };
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxRetryAfterMs) return { retry: false, reason: 'retry_after_too_long' };
    return { retry: true, delayMs: retryAfterMs };
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return { retry: true, delayMs: Math.round(ceiling / 2 + (ceiling / 2) * policy.random()) };
}

export interface ProviderErrorBody {
  message?: string;
  type?: string;
  code?: string;
}

/** Reads `{error:{message,type,code}}` (OpenAI) or `{type:"error", error:{type,message}}` (Anthropic). */
export function parseErrorBody(text: string): ProviderErrorBody {
  try {
    const parsed: unknown = JSON.parse(text);
    const record = (value: unknown): Record<string, unknown> | undefined =>
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
    const root = record(parsed);
    const inner = record(root?.error) ?? root;
    const pick = (key: string): string | undefined => {
      const value = inner?.[key];
      return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
    };
    const result: ProviderErrorBody = {};
    const message = pick('message');
    const type = pick('type');
    const code = pick('code');
    if (message !== undefined) result.message = message;
    if (type !== undefined) result.type = type;
    if (code !== undefined) result.code = code;
    return result;
  } catch {
    // Not JSON (a proxy's HTML page, say): keep a short piece of it as the message.
    const trimmed = text.trim().slice(0, 300);
    return trimmed === '' ? {} : { message: trimmed };
  }
}

/** Removes the API key, and anything shaped like one, from text that may be shown or logged. */
export function redactSecrets(text: string, apiKey: string | undefined): string {
  let result = text;
  if (apiKey !== undefined && apiKey.length >= 4) result = result.split(apiKey).join('[redacted]');
  return result.replace(/\b(sk-[A-Za-z0-9_*.-]{4,})/g, '[redacted]');
}

function isQuotaError(status: number, body: ProviderErrorBody): boolean {
  if (body.code === 'insufficient_quota' || body.type === 'insufficient_quota' || body.type === 'billing_error') {
    return true;
  }
  if (status === 402) return true;
  return /credit balance|quota|billing/i.test(body.message ?? '');
}

export interface RequestTarget {
  /** "Anthropic" or "OpenAI-compatible": used in messages. */
  providerLabel: string;
  /** Environment variable that also holds the key, named in the 401 message. */
  apiKeyEnvironment: string;
  apiKey: string | undefined;
}

/** The AppError for a final non-2xx response. Never contains the key. */
export function errorForResponse(
  status: number,
  bodyText: string,
  target: RequestTarget,
  attempts: number,
  retryAfterMs?: number,
): AppError {
  const body = parseErrorBody(bodyText);
  const said = body.message === undefined ? '' : `: ${redactSecrets(body.message, target.apiKey)}`;
  const details = { status, type: body.type, code: body.code };
  const label = target.providerLabel;
  if (status === 401 || status === 403) {
    return new AppError(
      'UNAVAILABLE',
      say(
        `The ${label} API rejected the API key (HTTP ${status}${said}). Set a valid key with ` +
          `\`nextai config set model.api_key <key>\` or the ${target.apiKeyEnvironment} environment variable.`,
        `${label} 接口拒绝了 API 密钥（HTTP ${status}${said}）。请在“设置”中填写有效的密钥，或用 ` +
          `\`nextai config set model.api_key <key>\` 或环境变量 ${target.apiKeyEnvironment} 设置。`,
      ),
      { details },
    );
  }
  if (isQuotaError(status, body)) {
    return new AppError(
      'UNAVAILABLE',
      say(
        `The ${label} account has no quota or credit left (HTTP ${status}${said}). ` +
          `Add credit or raise the limit with the provider; retrying will not help.`,
        `${label} 账户的额度或余额已用完（HTTP ${status}${said}）。请在服务商处充值或提高额度；重试没有用。`,
      ),
      { details },
    );
  }
  if (isRetryableStatus(status)) {
    const wait = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
    // Worth trying later, not at once: the attempts (or the server's wait) are used up.
    const later = { ...details, transient: true, attempts };
    return new AppError(
      'UNAVAILABLE',
      say(
        `The ${label} API is rate-limited or unavailable (HTTP ${status}${said}) after ${attempts} attempt${attempts === 1 ? '' : 's'}. ` +
          (wait !== undefined ? `The server asks to wait ${wait} s before retrying.` : 'Try again in a minute.'),
        `${label} 接口限流或不可用（HTTP ${status}${said}），已尝试 ${attempts} 次。` +
          (wait !== undefined ? `服务器要求等待 ${wait} 秒后再试。` : '请过一分钟再试。'),
      ),
      { details: later },
    );
  }
  return new AppError(
    'INVALID_ARGUMENT',
    say(
      `The ${label} API refused the request (HTTP ${status}${said}). Check the model name and base URL in the config (\`nextai config set model.name …\`).`,
      `${label} 接口拒绝了请求（HTTP ${status}${said}）。请检查设置中的模型名称和接口地址（\`nextai config set model.name …\`）。`,
    ),
    { details },
  );
}

export interface FetchWithRetryOptions {
  signal?: AbortSignal;
  policy: RetryPolicy;
  target: RequestTarget;
  fetch?: typeof fetch;
}

/**
 * POSTs `init` to `url`, retrying rate limits, server errors, network errors and time-outs. Returns
 * the first 2xx response (its body unread, for streaming); anything else becomes an AppError.
 * Aborting `signal` ends the waiting at once and rethrows the abort reason.
 */
export async function fetchWithRetry(
  url: string,
  init: RequestInit,
  options: FetchWithRetryOptions,
): Promise<Response> {
  const { policy, signal, target } = options;
  const doFetch = options.fetch ?? fetch;
  for (let attempt = 1; ; attempt += 1) {
    signal?.throwIfAborted();
    const timeout = new AbortController();
    const timer = setTimeout(() => {
      timeout.abort(new AppError('TIMEOUT', `No answer within ${policy.attemptTimeoutMs} ms.`));
    }, policy.attemptTimeoutMs);
    const attemptSignal = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    let response: Response;
    try {
      response = await doFetch(url, { ...init, signal: attemptSignal });
    } catch (error) {
      clearTimeout(timer);
      if (signal?.aborted) throw signal.reason;
      const timedOut = timeout.signal.aborted;
      const decision = decideRetry(attempt, undefined, policy);
      if (decision.retry) {
        await policy.sleep(decision.delayMs, signal);
        continue;
      }
      const reason = timedOut
        ? `no answer within ${policy.attemptTimeoutMs / 1000} s`
        : redactSecrets(describeNetworkError(error), target.apiKey);
      const origin = new URL(url).origin;
      throw new AppError(
        timedOut ? 'TIMEOUT' : 'UNAVAILABLE',
        say(
          `Could not reach the ${target.providerLabel} API at ${origin} (${reason}) after ${attempt} attempts. ` +
            'Check the network and the base URL (`nextai config set model.base_url …`).',
          `尝试 ${attempt} 次后仍无法连接 ${origin} 上的 ${target.providerLabel} 接口（${reason}）。` +
            '请检查网络和接口地址（`nextai config set model.base_url …`）。',
        ),
        { cause: error, details: { transient: true, attempts: attempt } },
      );
    }
    if (response.ok) {
      clearTimeout(timer);
      return response;
    }
    // The attempt's time limit covers the error's body too: a body that never ends is cut off.
    const bodyText = await response
      .text()
      .catch((error: unknown) => `(body unreadable: ${describeNetworkError(error)})`);
    clearTimeout(timer);
    if (signal?.aborted) throw signal.reason;
    const body = parseErrorBody(bodyText);
    const retryAfterMs = parseRetryAfter(response.headers, Date.now());
    if (isRetryableStatus(response.status) && !isQuotaError(response.status, body)) {
      const decision = decideRetry(attempt, retryAfterMs, policy);
      if (decision.retry) {
        await policy.sleep(decision.delayMs, signal);
        continue;
      }
    }
    throw errorForResponse(response.status, bodyText, target, attempt, retryAfterMs);
  }
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici puts the useful part (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
