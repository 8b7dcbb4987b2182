import { describe, expect, it } from 'vitest';

import {
  classifyProviderError,
  errorForStreamEvent,
  errorFromClassification,
  modelNamedIn,
  parseErrorBody,
  readErrorBody,
} from './error-causes.js';
import { isTransientStreamError } from './retry.js';

// The recorded responses are replayed in tests/unit/provider-errors.test.ts; these are the shapes
// and edges around them.

const context = { providerLabel: 'OpenAI-compatible', apiKeyEnvironment: 'OPENAI_API_KEY', apiKey: 'sk-live-abcdef12' };
const classify = (status: number | undefined, body: unknown, headers?: Record<string, string>) =>
  classifyProviderError(status, readErrorBody(body), headers ? new Headers(headers) : undefined, 0);
const zh = (error: { translations: { 'zh-CN'?: string } | undefined }) => error.translations?.['zh-CN'] ?? '';

describe('parseErrorBody', () => {
  it('reads every provider’s shape', () => {
    expect(parseErrorBody('{"error":"model \'x\' not found, try pulling it first"}')).toEqual({
      message: "model 'x' not found, try pulling it first",
    });
    expect(parseErrorBody('[{"error":{"code":429,"message":"Slow","status":"RESOURCE_EXHAUSTED"}}]')).toEqual({
      message: 'Slow',
      code: '429',
      status: 'RESOURCE_EXHAUSTED',
    });
    expect(parseErrorBody('{"code":"Arrearage","message":"Access denied.","request_id":"1"}')).toEqual({
      message: 'Access denied.',
      code: 'Arrearage',
    });
    expect(
      parseErrorBody(
        '{"error":{"message":"filtered","type":null,"code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation"}}}',
      ),
    ).toEqual({ message: 'filtered', code: 'content_filter', innerCode: 'ResponsibleAIPolicyViolation' });
    expect(parseErrorBody('{"error":"insufficient balance — top up","type":"billing_error"}')).toEqual({
      message: 'insufficient balance — top up',
      type: 'billing_error',
    });
  });

  it('takes the upstream provider’s own words from OpenRouter’s metadata.raw', () => {
    const raw = JSON.stringify({
      error: {
        message: 'Your account org-1 is suspended due to insufficient balance',
        type: 'exceeded_current_quota_error',
      },
    });
    const body = parseErrorBody(
      JSON.stringify({ error: { message: 'Provider returned error', code: 429, metadata: { raw } } }),
    );
    expect(body).toEqual({
      message: 'Your account org-1 is suspended due to insufficient balance',
      type: 'exceeded_current_quota_error',
      code: '429',
    });
    expect(classifyProviderError(429, body).cause).toBe('quota');
  });

  it('keeps a short plain message from a page that is not JSON', () => {
    expect(parseErrorBody('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>')).toEqual({
      message: '502 Bad Gateway',
    });
    expect(parseErrorBody('upstream connect error')).toEqual({ message: 'upstream connect error' });
    expect(parseErrorBody('   ')).toEqual({});
  });
});

describe('classifyProviderError', () => {
  it('tells a rate limit (retry later) from no balance (never retry) at the same 429', () => {
    expect(classify(429, { error: { code: '1113', message: '余额不足或无可用资源包,请充值。' } }).cause).toBe('quota');
    expect(classify(429, { error: { code: '1302', message: '您当前使用该API的并发数过高，请降低并发' } }).cause).toBe(
      'rate_limit',
    );
    expect(
      classify(429, { error: { message: 'Rate limit reached for gpt-4o. Please try again in 6s.' } }),
    ).toMatchObject({ cause: 'rate_limit' });
    // Gemini's free tier: a per-minute limit in billing words, with a wait.
    expect(
      classify(429, {
        error: {
          code: 429,
          message:
            'You exceeded your current quota, please check your plan and billing details. Please retry in 58.2s.',
          status: 'RESOURCE_EXHAUSTED',
        },
      }).cause,
    ).toBe('rate_limit');
    // One request above the per-minute token limit: waiting does not help.
    expect(
      classify(429, {
        error: {
          message:
            'Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 41000.',
          type: 'tokens',
          code: 'rate_limit_exceeded',
        },
      }).cause,
    ).toBe('too_large');
  });

  it('reads the wait from retry-after and says it', () => {
    const limited = classify(429, { error: { message: 'slow down' } }, { 'retry-after': '20' });
    expect(limited).toMatchObject({ cause: 'rate_limit', retryAfterMs: 20_000 });
    const error = errorFromClassification(limited, { ...context, attempts: 1 });
    expect(error.message).toMatch(/asks to wait 20 s/);
    expect(zh(error)).toMatch(/等待 20 秒/);
    expect(error.details).toMatchObject({ cause: 'rate_limit', retry_after_ms: 20_000, transient: true, attempts: 1 });
  });

  it('reads server faults, overloads and time-outs as the server’s', () => {
    for (const status of [500, 502, 503, 529, 408, 409]) expect(classify(status, {}).cause).toBe('server');
  });

  it('checks the base URL only when a bare 404 names no model', () => {
    const bare = classify(404, '<html>Not Found</html>');
    expect(bare).toEqual({ cause: 'model_not_found', status: 404 });
    const error = errorFromClassification(bare, { ...context, model: 'glm-4.6' });
    expect(error.message).toMatch(
      /does not have the model `glm-4.6`.*model\.name.*and the base URL \(`nextai config set model\.base_url/,
    );
    expect(error.code).toBe('NOT_FOUND');
    expect(error.details).toMatchObject({ cause: 'model_not_found', model: 'glm-4.6' });
  });

  it('tells a key that is missing from one that is wrong or may not do this', () => {
    const unset = errorFromClassification(
      classify(401, { error: { message: 'No auth credentials found', code: 401 } }),
      {
        ...context,
        apiKey: undefined,
      },
    );
    expect(unset.message).toMatch(/needs an API key and none is set/);
    const forbidden = errorFromClassification(
      classify(403, { type: 'error', error: { type: 'permission_error', message: 'not allowed' } }),
      context,
    );
    expect(forbidden.message).toMatch(/rejected the API key for this request.*may use this model/);
    // A project without access to a model: the model, not the key.
    expect(
      classify(403, {
        error: { message: 'Project `proj_1` does not have access to model `gpt-5`', code: 'model_not_found' },
      }),
    ).toMatchObject({ cause: 'model_not_found', model: 'gpt-5' });
  });

  it('reads a moderation refusal at 403 as the filter’s, not the key’s', () => {
    expect(
      classify(403, {
        error: { message: 'Your chosen model requires moderation and your input was flagged', code: 403 },
      }).cause,
    ).toBe('content_filter');
  });

  it('calls any other refusal a bad request NextAI made, in the provider’s words', () => {
    const refused = classify(400, {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'max_tokens: 21333 > 4096, which is the maximum allowed number of output tokens',
      },
    });
    expect(refused.cause).toBe('bad_request');
    const error = errorFromClassification(refused, context);
    expect(error.message).toMatch(/compatibility problem between NextAI and this provider.*report it/);
    expect(error.message).toContain('max_tokens: 21333 > 4096');
    expect(error.message).not.toMatch(/Check the model name/);
    expect(classify(422, { detail: 'nope' }).cause).toBe('bad_request');
    expect(classify(413, {}).cause).toBe('too_large');
  });

  it('names the model a message names', () => {
    expect(modelNamedIn('The model `gpt-4o-mini` does not exist')).toBe('gpt-4o-mini');
    expect(modelNamedIn('model "qwen2.5:7b" not found, try pulling it first')).toBe('qwen2.5:7b');
    expect(modelNamedIn('model: claude-opus-4-1')).toBe('claude-opus-4-1');
    expect(modelNamedIn("This model's maximum context length is 8192 tokens")).toBeUndefined();
  });

  it('never shows the key, and cuts a very long body short', () => {
    const error = errorFromClassification(
      classify(400, { error: { message: `bad key sk-live-abcdef12 and sk-other-key-999. ${'x'.repeat(2000)}` } }),
      context,
    );
    expect(error.message).not.toContain('sk-live');
    expect(error.message).not.toContain('sk-other');
    expect(error.message).toContain('[redacted].');
    expect(error.message.length).toBeLessThan(1200);
  });
});

describe('errors inside an answer (after HTTP 200)', () => {
  const stream = (event: unknown, error: Record<string, unknown>) =>
    errorForStreamEvent(event, { ...context, transient: isTransientStreamError(error) });

  it('an Anthropic overload is the server’s, transient, and said as happening during the answer', () => {
    const error = { type: 'overloaded_error', message: 'Overloaded' };
    const failure = stream({ type: 'error', error }, error);
    expect(failure.code).toBe('UNAVAILABLE');
    expect(failure.details).toEqual({ cause: 'server', type: 'overloaded_error', transient: true });
    expect(failure.message).toMatch(/unavailable or overloaded \(overloaded_error during the answer: Overloaded\)/);
    expect(zh(failure)).toMatch(/回答过程中 overloaded_error：Overloaded/);
  });

  it('a context that is too long is said so, and not retried', () => {
    const error = {
      message: "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens.",
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
    };
    const failure = stream({ error }, error);
    expect(failure.details).toMatchObject({ cause: 'context_too_long', code: 'context_length_exceeded' });
    expect((failure.details as { transient?: unknown }).transient).toBeUndefined();
    expect(failure.message).toMatch(/too long for the model's context window/);
  });

  it('Groq’s tool_use_failed stays retryable and says the model wrote a bad tool call', () => {
    const error = { message: 'Failed to call a function.', type: 'invalid_request_error', code: 'tool_use_failed' };
    const failure = stream({ error }, error);
    expect(failure.details).toMatchObject({ cause: 'bad_request', code: 'tool_use_failed', transient: true });
    expect(failure.message).toMatch(/model wrote a tool call .* could not read.*Trying again usually works/);
  });

  it('no balance or a filter in other providers’ words is not retried either', () => {
    for (const error of [
      { message: 'Your account is suspended due to insufficient balance', type: 'exceeded_current_quota_error' },
      { code: '1113', message: '余额不足或无可用资源包,请充值。' },
      { code: '1301', message: '系统检测到输入或生成内容可能包含不安全或敏感内容' },
    ]) {
      expect(isTransientStreamError(error)).toBe(false);
      const failure = stream({ error }, error);
      expect(['quota', 'content_filter']).toContain((failure.details as { cause: string }).cause);
      expect((failure.details as { transient?: unknown }).transient).toBeUndefined();
    }
  });

  it('an error with no type at all is taken for the server’s, as before', () => {
    const failure = stream({ error: { message: 'upstream connect error' } }, { message: 'upstream connect error' });
    expect(failure.details).toEqual({ cause: 'server', transient: true });
  });
});
