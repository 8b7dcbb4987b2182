import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';

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
