import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { isRetryableCause, type ErrorCause } from '../../native-host/src/agent/providers/error-causes.js';
import {
  DEFAULT_RETRY_POLICY,
  errorForResponse,
  fetchWithRetry,
  type RetryPolicy,
} from '../../native-host/src/agent/providers/retry.js';

/** One recorded error response (tests/fixtures/provider-errors/README.md). */
interface Fixture {
  file: string;
  provider: string;
  source: string;
  licence: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  expected: { cause: ErrorCause; words: string; model?: string; hint?: string; toolCall?: boolean };
}

const folder = fileURLToPath(new URL('../fixtures/provider-errors/', import.meta.url));
const fixtures: Fixture[] = readdirSync(folder)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((name) => ({ file: name, ...(JSON.parse(readFileSync(join(folder, name), 'utf8')) as Omit<Fixture, 'file'>) }));

const target = {
  providerLabel: 'OpenAI-compatible',
  apiKeyEnvironment: 'OPENAI_API_KEY',
  apiKey: 'sk-test-0123456789',
};

function translation(error: { translations: { 'zh-CN'?: string } | undefined }): string {
  return error.translations?.['zh-CN'] ?? '';
}

describe('the recorded provider errors', () => {
  it('are at hand, each naming its source and licence, with a body as sent', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(25);
    for (const fixture of fixtures) {
      expect(fixture.source, fixture.file).toMatch(/^https:\/\//);
      expect(fixture.licence, fixture.file).not.toBe('');
      expect(fixture.file).toMatch(/^[a-z]+-\d{3,4}-[a-z0-9-]+\.json$/);
      expect(typeof fixture.body, fixture.file).toBe('string');
    }
    // Every cause but the model's own refusal (a stop reason, not an error) is covered.
    const causes = new Set(fixtures.map((fixture) => fixture.expected.cause));
    expect([...causes].sort()).toEqual(
      [
        'auth',
        'bad_request',
        'content_filter',
        'context_too_long',
        'model_not_found',
        'quota',
        'rate_limit',
        'server',
        'too_large',
      ].sort(),
    );
  });
});

describe.each(fixtures)('$file', (fixture) => {
  const headers = new Headers(fixture.headers);
  const error = errorForResponse(fixture.status, fixture.body, target, 1, undefined, headers);
  const details = error.details as Record<string, unknown>;
  const { cause } = fixture.expected;

  it(`is read as ${fixture.expected.cause}, in the provider's words, in both languages`, () => {
    expect(details).toMatchObject({ cause, status: fixture.status });
    expect(error.message).toContain(fixture.expected.words);
    expect(translation(error)).toContain(fixture.expected.words);
    expect(error.message).toContain(`HTTP ${fixture.status}`);
    if (fixture.expected.model !== undefined) expect(details.model).toBe(fixture.expected.model);
    if (fixture.expected.hint !== undefined) {
      expect(error.message).toContain(fixture.expected.hint);
      expect(translation(error)).toContain(fixture.expected.hint);
    }
    if (fixture.expected.toolCall) expect(error.message).toMatch(/tool call/);
  });

  it('says "check the model name" only when a model is missing, and never leaks a key', () => {
    const checksModel = /Check the model name/.test(error.message);
    expect(checksModel).toBe(cause === 'model_not_found' && fixture.expected.hint === undefined);
    expect(error.message).not.toMatch(/sk-[A-Za-z0-9]{4}/);
    expect(JSON.stringify(error.toWire())).not.toContain(target.apiKey);
  });

  it(isRetryableCause(cause) ? 'is retried, and transient' : 'is not retried, nor transient', async () => {
    expect(details.transient === true).toBe(isRetryableCause(cause));
    const slept: number[] = [];
    const policy: RetryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      maxAttempts: 3,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
      random: () => 0.5,
    };
    let calls = 0;
    const replay = (() => {
      calls += 1;
      return Promise.resolve(new Response(fixture.body, { status: fixture.status, headers: fixture.headers }));
    }) as typeof fetch;
    const failure = await fetchWithRetry(
      'http://127.0.0.1:1/v1/chat/completions',
      {},
      { policy, target, fetch: replay },
    )
      .then(() => undefined)
      .catch((caught: unknown) => caught);
    expect(failure).toMatchObject({ details: { cause } });
    expect(calls).toBe(isRetryableCause(cause) ? 3 : 1);
    expect(slept).toHaveLength(calls - 1);
  });
});
