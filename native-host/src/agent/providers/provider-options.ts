import { AppError, say } from '@nextai/shared';

import { readBody } from './read-body.js';
import { DEFAULT_RETRY_POLICY, fetchWithRetry, type RequestTarget, type RetryPolicy } from './retry.js';
import { endAtDone, jsonAnswerAsEvents, limitLines } from './sse.js';

export interface ProviderOptions {
  /** Without a trailing slash, e.g. https://api.anthropic.com or https://api.openai.com/v1. */
  baseUrl: string;
  apiKey: string | undefined;
  retry?: Partial<RetryPolicy>;
  /** Anthropic: cache breakpoints in each request (default true; `model.prompt_cache off` turns them off). */
  promptCache?: boolean;
  /** Injected by tests; the global fetch otherwise. */
  fetch?: typeof fetch;
}

export function retryPolicy(options: ProviderOptions): RetryPolicy {
  return { ...DEFAULT_RETRY_POLICY, ...options.retry };
}

/**
 * The signal of one model call: the caller's (pause, stop, steer) joined with the call's overall
 * deadline, which ends the call with a transient TIMEOUT. `done()` clears the deadline.
 */
export function callSignal(
  policy: RetryPolicy,
  caller: AbortSignal | undefined,
  label: string,
): { signal: AbortSignal; done: () => void } {
  const deadline = new AbortController();
  const seconds = Math.round(policy.callDeadlineMs / 1000);
  const [en, zh] =
    seconds < 120
      ? [`${seconds} s`, `${seconds} 秒`]
      : [`${Math.round(seconds / 60)} min`, `${Math.round(seconds / 60)} 分钟`];
  const timer = setTimeout(() => {
    deadline.abort(
      new AppError(
        'TIMEOUT',
        say(`The ${label} API did not finish its answer within ${en}.`, `${label} 接口在 ${zh}内没有完成回答。`),
        { details: { transient: true, deadline_ms: policy.callDeadlineMs } },
      ),
    );
  }, policy.callDeadlineMs);
  return {
    signal: caller ? AbortSignal.any([caller, deadline.signal]) : deadline.signal,
    done: () => clearTimeout(timer),
  };
}

export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** What the transport of one model call needs (see modelFetch). */
export interface CallTransport {
  policy: RetryPolicy;
  target: RequestTarget;
  /** Called once the response's headers have arrived: from then on the idle limit applies. */
  onResponse: () => void;
  /**
   * Chat completions: a server that answers a streamed request with one JSON body is read as a
   * stream, and a stream ends at its `data: [DONE]` line.
   */
  chatCompletions?: boolean;
}

/**
 * The `fetch` the AI SDK's provider is given: our retry policy and the errors by cause
 * (fetchWithRetry: only a 2xx comes back, anything else is an AppError that says why), and a JSON
 * answer to a streamed request turned into a stream (jsonAnswerAsEvents). The request's signal
 * is the call's (the caller's, the deadline and the idle limit joined).
 */
export function modelFetch(options: ProviderOptions, transport: CallTransport): typeof fetch {
  return async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers = new Headers(init.headers);
    // A local server without a key: the provider would send an empty one.
    if (transport.target.apiKey === undefined) headers.delete('x-api-key');
    const response = await fetchWithRetry(
      url,
      { ...init, headers },
      {
        ...(init.signal ? { signal: init.signal } : {}),
        policy: transport.policy,
        target: transport.target,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      },
    );
    transport.onResponse();
    const type = response.headers.get('content-type') ?? '';
    const label = transport.target.providerLabel;
    if (/\btext\/html\b/i.test(type)) throw await webPageInstead(response, url, label);
    if (!transport.chatCompletions) return limitLines(response, label);
    return /\bapplication\/json\b/i.test(type)
      ? jsonAnswerAsEvents(response, label)
      : endAtDone(limitLines(response, label));
  };
}

/**
 * A web page where the API should be: a base URL that is a site rather than its API, or a sign-in
 * page (a hotel's Wi-Fi, a company proxy) in the way. Asking again would get the same page, so the
 * person is told what to check, with the page's title to recognise it.
 */
async function webPageInstead(response: Response, url: string, label: string): Promise<AppError> {
  // The title is near the top; a page that goes on without end is not read further.
  const head = await readBody(response, 16 * 1024).catch(() => '');
  // Shown in the panel and printed by `nextai run`: no control characters (a terminal would obey them).
  const title = /<title[^>]*>([^<]{1,200})/iu
    .exec(head)?.[1]
    ?.replace(/[\p{Cc}\p{Cf}]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  const named = title ? ` ("${title}")` : '';
  // The origin only: the rest of the address may carry a key in its query (some gateways take one).
  const where = originOf(url);
  return new AppError(
    'UNAVAILABLE',
    say(
      `${where} answered with a web page${named}, not the ${label} API. Check the model base URL (Settings → ` +
        'Model), or whether a sign-in page or a proxy is in the way.',
      `${where} 返回的是一个网页${title ? `（“${title}”）` : ''}，而不是 ${label} 接口。请检查模型接口地址（设置 → 模型），` +
        '或是否有登录页面、代理挡在中间。',
    ),
    { details: { status: response.status, content_type: 'text/html' } },
  );
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'The model server';
  }
}
