import { AppError, say } from '@nextai/shared';

import { DEFAULT_RETRY_POLICY, fetchWithRetry, type RetryPolicy } from './retry.js';
import { readServerSentEvents, type ServerSentEvent } from './sse.js';

export interface ProviderOptions {
  /** Without a trailing slash, e.g. https://api.anthropic.com or https://api.openai.com/v1. */
  baseUrl: string;
  apiKey: string | undefined;
  retry?: Partial<RetryPolicy>;
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

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * POSTs a JSON body for a streamed answer, with the retry policy and the provider's key-aware
 * errors (fetchWithRetry), and returns the response body to read events from.
 */
async function postForStream(
  options: ProviderOptions,
  request: {
    path: string;
    headers: Record<string, string>;
    body: unknown;
    signal: AbortSignal | undefined;
    providerLabel: string;
    apiKeyEnvironment: string;
  },
): Promise<ReadableStream<Uint8Array>> {
  const response = await fetchWithRetry(
    joinUrl(options.baseUrl, request.path),
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...request.headers },
      body: JSON.stringify(request.body),
    },
    {
      ...(request.signal ? { signal: request.signal } : {}),
      policy: retryPolicy(options),
      target: {
        providerLabel: request.providerLabel,
        apiKeyEnvironment: request.apiKeyEnvironment,
        apiKey: options.apiKey,
        model: asString(asRecord(request.body).model),
      },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    },
  );
  if (!response.body)
    throw new AppError('UNAVAILABLE', `The ${request.providerLabel} API answered without a body. Try again.`);
  return response.body;
}

/**
 * The server-sent events of one streamed model call: POSTed with the retry policy
 * (postForStream), read with the policy's idle limit, and ended by the caller's signal or the
 * call's overall deadline, whichever comes first.
 */
export async function* streamEvents(
  options: ProviderOptions,
  request: Parameters<typeof postForStream>[1],
): AsyncGenerator<ServerSentEvent> {
  const policy = retryPolicy(options);
  const call = callSignal(policy, request.signal, request.providerLabel);
  try {
    const body = await postForStream(options, { ...request, signal: call.signal });
    yield* readServerSentEvents(body, {
      idleMs: policy.streamIdleMs,
      signal: call.signal,
      label: request.providerLabel,
    });
  } finally {
    call.done();
  }
}
