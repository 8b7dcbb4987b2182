// Test helpers for the Windows adapters: a PowerShell host that records requests and answers with
// scripted values, going through the same reply parsing as the real hosts.
import { parseReplyJson, type PowerShellHost, type ScriptOptions } from './powershell.js';

export interface RecordedCall {
  script: string;
  request: Record<string, unknown>;
  options: ScriptOptions | undefined;
}

/** Strings that must stay data: quotes, PowerShell and shell syntax, newlines, Unicode, length. */
export const HOSTILE_STRINGS = [
  `it's "quoted" \`backtick\``,
  '$(Remove-Item -Recurse C:\\) ; & calc.exe | Out-Null',
  "'@\nWrite-Output pwned\n@'",
  'line one\r\nline two\n\ttabbed',
  '中文 😀 é ﬁ \u200b \u202e',
  '\\"\\\\" trailing backslash \\',
  'x'.repeat(100_000),
];

/**
 * `answer(request)` returns the script's value, or a reply object `{ ok: false, … }` to simulate
 * a script failure (mapped exactly as a real reply would be).
 */
export function fakePowerShell(
  answer: (request: Record<string, unknown>, script: string) => unknown | Promise<unknown>,
): PowerShellHost & { calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  return {
    calls,
    async run(script, request, options) {
      const parsed = JSON.parse(JSON.stringify(request)) as Record<string, unknown>;
      calls.push({ script, request: parsed, options });
      const value = await answer(parsed, script);
      if (value && typeof value === 'object' && 'ok' in value && (value as { ok: unknown }).ok === false) {
        return parseReplyJson(JSON.stringify(value));
      }
      return parseReplyJson(JSON.stringify({ ok: true, value: value ?? null }));
    },
    dispose() {},
  };
}
