import type { BrowserCallContext, ExtensionToolName, SensitiveTarget, ToolOutcome } from '@nextai/shared';

import type { ClientConnection } from '../daemon/client-connection.js';

/** What a browser_interact call would act on, asked before the policy decides. */
export interface InspectResult {
  target?: string | undefined;
  sensitive?: SensitiveTarget | undefined;
  error?: { code: string; message: string } | undefined;
}

/**
 * Where browser tools run: the extension in the person's own browser, or a headless Chromium the
 * daemon drives when no browser is connected. Both run the same page agent and get the same
 * call context from the policy.
 */
export interface BrowserBackend {
  readonly kind: 'extension' | 'headless';
  call(
    name: ExtensionToolName,
    input: Record<string, unknown>,
    callId: string,
    context: BrowserCallContext,
    signal: AbortSignal,
  ): Promise<ToolOutcome>;
  inspect(input: Record<string, unknown>, callId: string, context: BrowserCallContext): Promise<InspectResult>;
}

/** A connected extension, reached through its bridge with `extension.tool_call` requests. */
export class ExtensionBackend implements BrowserBackend {
  readonly kind = 'extension';

  constructor(
    private readonly client: ClientConnection,
    private readonly timeoutMs: number,
  ) {}

  async call(
    name: ExtensionToolName,
    input: Record<string, unknown>,
    callId: string,
    context: BrowserCallContext,
  ): Promise<ToolOutcome> {
    const result = await this.client.peer.request(
      'extension.tool_call',
      { name, input, call_id: callId, context },
      { timeoutMs: this.timeoutMs },
    );
    return result.ok ? { ok: true, output: result.output } : { ok: false, error: result.error };
  }

  async inspect(input: Record<string, unknown>, callId: string, context: BrowserCallContext): Promise<InspectResult> {
    return this.client.peer.request('extension.inspect', { input, call_id: callId, context }, { timeoutMs: 15_000 });
  }
}
