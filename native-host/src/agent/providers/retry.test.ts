import { describe, expect, it } from 'vitest';

import {
  decideRetry,
  DEFAULT_RETRY_POLICY,
  errorForResponse,
  fetchWithRetry,
  isTransientStreamError,
  parseRetryAfter,
  type RetryPolicy,
} from './retry.js';

const target = { providerLabel: 'Anthropic', apiKeyEnvironment: 'ANTHROPIC_API_KEY', apiKey: 'sk-ant-secret-1234' };

function policyWith(overrides: Partial<RetryPolicy> = {}): { policy: RetryPolicy; slept: number[] } {
  const slept: number[] = [];
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    sleep: (ms) => {
      slept.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    ...overrides,
  };
  return { policy, slept };
}

/** A fetch that answers from a list, recording how often it was called. */
function scriptedFetch(answers: (Response | Error)[]): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  const fake = (() => {
    const answer = answers[calls];
    calls += 1;
    if (answer === undefined) throw new Error('scriptedFetch: no answer left');
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }) as typeof fetch;
  return { fetch: fake, calls: () => calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('decideRetry', () => {
  it('backs off exponentially with jitter between half and all of the step, capped', () => {
    const { policy } = policyWith({ random: () => 0, maxAttempts: 10 });
    expect([1, 2, 3, 4, 5, 6].map((n) => decideRetry(n, undefined, policy))).toEqual([
      { retry: true, delayMs: 500 },
      { retry: true, delayMs: 1000 },
      { retry: true, delayMs: 2000 },
      { retry: true, delayMs: 4000 },
      { retry: true, delayMs: 8000 },
      { retry: true, delayMs: 10_000 },
    ]);
    const top = policyWith({ random: () => 0.999999, maxAttempts: 10 }).policy;
    expect(decideRetry(2, undefined, top)).toEqual({ retry: true, delayMs: 2000 });
  });

  it('waits what retry-after says, refuses when it is too long, and stops after the last attempt', () => {
    const { policy } = policyWith();
    expect(decideRetry(1, 3000, policy)).toEqual({ retry: true, delayMs: 3000 });
    expect(decideRetry(1, 3_600_000, policy)).toEqual({ retry: false, reason: 'retry_after_too_long' });
    expect(decideRetry(4, undefined, policy)).toEqual({ retry: false, reason: 'attempts' });
  });

  it('reads retry-after-ms, seconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({}), now)).toBeUndefined();
  });
});

describe('fetchWithRetry', () => {
  it('retries 429, 529, 500 and network errors, honouring retry-after, then returns the success', async () => {
    const { policy, slept } = policyWith({ maxAttempts: 5 });
    const script = scriptedFetch([
      json(429, { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }, { 'retry-after': '2' }),
      json(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      new TypeError('fetch failed'),
      json(500, { error: { message: 'boom' } }),
      json(200, { ok: true }),
    ]);
    const response = await fetchWithRetry(
      'http://127.0.0.1:1/v1/messages',
      {},
      { policy, target, fetch: script.fetch },
    );
    expect(response.status).toBe(200);
    expect(script.calls()).toBe(5);
    expect(slept).toEqual([2000, 1500, 3000, 6000]);
  });

  it('gives up after the last attempt with an error that says what happened', async () => {
    const { policy, slept } = policyWith();
    const script = scriptedFetch(Array.from({ length: 4 }, () => json(503, { error: { message: 'down' } })));
    await expect(
      fetchWithRetry('http://127.0.0.1:1/x', {}, { policy, target, fetch: script.fetch }),
    ).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/HTTP 503: down\) after 4 attempts/),
    });
    expect(slept).toHaveLength(3);
  });

  it('does not retry a rejected key, a quota error or a bad request', async () => {
    for (const [status, body] of [
      [401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }],
      [
        429,
        {
          error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' },
        },
      ],
      [400, { type: 'error', error: { type: 'invalid_request_error', message: 'model: not found' } }],
    ] as const) {
      const { policy, slept } = policyWith();
      const script = scriptedFetch([json(status, body)]);
      await expect(
        fetchWithRetry('http://127.0.0.1:1/x', {}, { policy, target, fetch: script.fetch }),
      ).rejects.toThrow();
      expect(script.calls()).toBe(1);
      expect(slept).toEqual([]);
    }
  });

  it('stops waiting when the signal aborts', async () => {
    const controller = new AbortController();
    const { policy } = policyWith({
      sleep: () => {
        controller.abort(new Error('stopped by the person'));
        return Promise.reject(controller.signal.reason as Error);
      },
    });
    const script = scriptedFetch([json(500, {}), json(200, {})]);
    await expect(
      fetchWithRetry('http://127.0.0.1:1/x', {}, { policy, target, fetch: script.fetch, signal: controller.signal }),
    ).rejects.toThrow('stopped by the person');
    expect(script.calls()).toBe(1);
  });

  it('times an attempt out and retries it', async () => {
    const { policy } = policyWith({ attemptTimeoutMs: 20, maxAttempts: 2 });
    let calls = 0;
    const hangThenAnswer = ((_url: string, init: RequestInit) => {
      calls += 1;
      if (calls === 2) return Promise.resolve(json(200, {}));
      return new Promise((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error));
      });
    }) as typeof fetch;
    const response = await fetchWithRetry('http://127.0.0.1:1/x', {}, { policy, target, fetch: hangThenAnswer });
    expect(response.status).toBe(200);
    expect(calls).toBe(2);
  });
});

describe('errorForResponse', () => {
  it('says the key was rejected and how to set it, without the key', () => {
    const error = errorForResponse(
      401,
      JSON.stringify({ error: { message: 'Incorrect API key provided: sk-ant-secret-1234.' } }),
      target,
      1,
    );
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toMatch(/rejected the API key.*nextai config set model\.api_key.*ANTHROPIC_API_KEY/);
    expect(error.message).not.toContain('secret');
  });

  it('reports a quota or billing problem plainly', () => {
    const error = errorForResponse(
      400,
      JSON.stringify({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'Your credit balance is too low' },
      }),
      target,
      1,
    );
    expect(error.message).toMatch(/no quota or credit left.*credit balance is too low.*retrying will not help/);
  });
});

describe('isTransientStreamError', () => {
  it('retries an overload, a server fault and a malformed tool call, not what will fail again', () => {
    expect(isTransientStreamError({ type: 'overloaded_error', message: 'Overloaded' })).toBe(true);
    expect(isTransientStreamError({ type: 'api_error', message: 'Internal server error' })).toBe(true);
    expect(
      isTransientStreamError({
        type: 'invalid_request_error',
        code: 'tool_use_failed',
        message: 'Failed to call a function',
      }),
    ).toBe(true);
    expect(isTransientStreamError({ message: 'upstream connect error' })).toBe(true);
    expect(isTransientStreamError({ type: 'invalid_request_error', message: 'prompt is too long' })).toBe(false);
    expect(isTransientStreamError({ message: "This model's maximum context length is 32768 tokens" })).toBe(false);
    expect(isTransientStreamError({ code: 'context_length_exceeded' })).toBe(false);
    expect(isTransientStreamError({ type: 'authentication_error', message: 'invalid x-api-key' })).toBe(false);
    expect(isTransientStreamError({ code: 'content_filter', message: 'filtered' })).toBe(false);
  });

  it('reads an HTTP status given as the code (OpenRouter): a client error is not retried, a time-out or rate limit is', () => {
    // Recorded: tests/fixtures/provider-streams/recorded/openrouter-error-after-finish.json.
    expect(isTransientStreamError({ code: 400, message: 'Token limit reached' })).toBe(false);
    expect(isTransientStreamError({ code: 403, message: 'Input was flagged by moderation' })).toBe(false);
    expect(isTransientStreamError({ code: 408, message: 'Request timed out' })).toBe(true);
    expect(isTransientStreamError({ code: 429, message: 'Rate limited' })).toBe(true);
    expect(isTransientStreamError({ code: 502, message: 'Provider returned error' })).toBe(true);
    // GLM's four-digit codes are not HTTP statuses.
    expect(isTransientStreamError({ code: '1234', message: 'Network error' })).toBe(true);
  });
});
