import type {
  BrowserCallContext,
  ClientInfo,
  DaemonSidePeer,
  ExtensionToolName,
  SensitiveTarget,
  ToolOutcome,
} from '@nextai/shared';

/** The browser tools whose target is looked at before the policy decides. */
export type InspectedTool = 'browser_interact' | 'browser_tabs';

/** What a browser_interact (or browser_tabs attach) call would act on, asked before the policy decides. */
export interface InspectResult {
  target?: string | undefined;
  sensitive?: SensitiveTarget | undefined;
  /** browser_tabs: the tab the call would take, pinned into the call so it acts on that one. */
  tab_id?: number | undefined;
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
  inspect(
    input: Record<string, unknown>,
    callId: string,
    context: BrowserCallContext,
    tool?: InspectedTool,
  ): Promise<InspectResult>;
  /**
   * Keeps the backend's browser open until the returned function is called (a call waiting for a
   * person's approval); absent where the browser is not the daemon's to close.
   */
  hold?(): () => void;
}

/**
 * A browser extension connected to the daemon, as the browser tools need it: the tools it said it
 * runs, and the peer its requests go through. (The daemon's own connections are these.)
 */
export interface ExtensionClient {
  readonly info: ClientInfo | undefined;
  readonly peer: Pick<DaemonSidePeer, 'request'>;
}

/** A connected extension, reached through its bridge with `extension.tool_call` requests. */
export class ExtensionBackend implements BrowserBackend {
  readonly kind = 'extension';

  constructor(
    private readonly client: ExtensionClient,
    private readonly timeoutMs: number,
  ) {}

  async call(
    name: ExtensionToolName,
    input: Record<string, unknown>,
    callId: string,
    context: BrowserCallContext,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    // Aborted (the emergency stop, the run stopped): the extension is told at once (rpc.cancel)
    // and does nothing more in the tab.
    const result = await this.client.peer.request(
      'extension.tool_call',
      { name, input, call_id: callId, context },
      { timeoutMs: this.timeoutMs, signal },
    );
    return result.ok ? { ok: true, output: result.output } : { ok: false, error: result.error };
  }

  async inspect(
    input: Record<string, unknown>,
    callId: string,
    context: BrowserCallContext,
    tool: InspectedTool = 'browser_interact',
  ): Promise<InspectResult> {
    return this.client.peer.request(
      'extension.inspect',
      // `tool` is sent only when it is not the default, so older extensions see what they know.
      { input, call_id: callId, context, ...(tool === 'browser_interact' ? {} : { tool }) },
      { timeoutMs: 15_000 },
    );
  }
}
