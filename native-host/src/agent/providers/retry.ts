import { AppError, say } from '@nextai/shared';
import { sleep } from '../../core/sleep.js';
import {
  classifyProviderError,
  errorFromClassification,
  isRetryableCause,
  parseErrorBody,
  redactSecrets,
} from './error-causes.js';

export { parseErrorBody, parseRetryAfter, redactSecrets, type ProviderErrorBody } from './error-causes.js';

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
  // An HTTP status as the code (OpenRouter's stream errors): a client error other than a time-out
  // or a rate limit is the request's own, and asking again gets it again.
  if (/^4\d\d$/.test(code)) return code === '408' || code === '429';
  if (/^(authentication|permission|not_found|request_too_large|billing)_error$/.test(type)) return false;
  if (/context_length|content_filter|insufficient_quota|invalid_api_key|model_not_found/.test(code)) return false;
  // The same, in other providers' words: no balance (Kimi, DashScope, GLM 1113), a filter (Qwen, GLM 1301).
  if (/^(exceeded_current_quota_error|arrearage|data_inspection_failed)$/i.test(type)) return false;
  if (/^(1113|1301|arrearage|datainspectionfailed|data_inspection_failed)$/i.test(code)) return false;
  if (type === 'invalid_request_error') return false;
  return !/maximum context length|context window|too many tokens|content (management )?policy|content_filter/i.test(
    message,
  );
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

export interface RequestTarget {
  /** "Anthropic" or "OpenAI-compatible": used in messages. */
  providerLabel: string;
  /** Environment variable that also holds the key, named in the 401 message. */
  apiKeyEnvironment: string;
  apiKey: string | undefined;
  /** The model the request asks for, named when the server says only "not found". */
  model?: string | undefined;
}

/**
 * The AppError for a final non-2xx response, by cause (error-causes.ts): a rejected key, no
 * balance, a rate limit, a missing model, a context too long, a content filter, a bad request.
 * Never contains the key.
 */
export function errorForResponse(
  status: number,
  bodyText: string,
  target: RequestTarget,
  attempts: number,
  retryAfterMs?: number,
  headers?: Headers,
): AppError {
  const classification = classifyProviderError(status, parseErrorBody(bodyText), headers);
  if (retryAfterMs !== undefined) classification.retryAfterMs ??= retryAfterMs;
  return errorFromClassification(classification, { ...target, attempts });
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
    // Only a rate limit or a server error may pass; no balance, a bad key or a bad request will not.
    const classification = classifyProviderError(response.status, parseErrorBody(bodyText), response.headers);
    if (isRetryableCause(classification.cause)) {
      const decision = decideRetry(attempt, classification.retryAfterMs, policy);
      if (decision.retry) {
        await policy.sleep(decision.delayMs, signal);
        continue;
      }
    }
    throw errorFromClassification(classification, { ...target, attempts: attempt });
  }
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // undici puts the useful part (ECONNREFUSED, ENOTFOUND) in `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
