import {
  AppError,
  getTool,
  isUnavailable,
  toAppError,
  describeZodError,
  type BrowserCallContext,
  type ExtensionToolName,
  type HandlerTable,
  type ToolResult,
} from '@nextai/shared';

import {
  extractPage,
  inspectTab,
  inspectTarget,
  interact,
  manageTabs,
  navigate,
  snapshot,
  type BrowserToolContext,
} from './browser/tab-tools.js';

export type { BrowserToolContext };

/**
 * The tools that run in the extension, one entry each (a missing one fails the type check).
 * The daemon sends them here as `extension.tool_call` requests.
 */
export const extensionHandlers = {
  browser_navigate: navigate,
  browser_interact: interact,
  browser_extract: extractPage,
  browser_snapshot: snapshot,
  browser_tabs: manageTabs,
} satisfies HandlerTable<ExtensionToolName, BrowserToolContext>;

/**
 * `extension.inspect`, asked by the daemon's policy before it decides: what a browser_interact call
 * would act on, or which tab a browser_tabs `attach` would take (pinned into the call it approves).
 */
export async function inspectBrowserCall(
  input: Record<string, unknown>,
  callId: string,
  call: BrowserCallContext | undefined,
  tool: 'browser_interact' | 'browser_tabs' = 'browser_interact',
): Promise<Awaited<ReturnType<typeof inspectTarget>> | Awaited<ReturnType<typeof inspectTab>>> {
  const parsed = getTool(tool)!.input.safeParse(input);
  if (!parsed.success) return { error: { code: 'INVALID_INPUT', message: describeZodError(parsed.error) } };
  if (tool === 'browser_tabs') return inspectTab(parsed.data as Parameters<typeof inspectTab>[0]);
  return inspectTarget(parsed.data as Parameters<typeof inspectTarget>[0], { callId, call });
}

/** Names of the browser tools this build can really run, announced to the daemon in `daemon.hello`. */
export const implementedBrowserTools: string[] = Object.entries(extensionHandlers)
  .filter(([, entry]) => !isUnavailable(entry))
  .map(([name]) => name);

/** Runs one browser tool for the daemon; failures are results, never exceptions. */
export async function runBrowserTool(
  name: string,
  input: Record<string, unknown>,
  callId: string,
  call?: BrowserCallContext,
  signal?: AbortSignal,
): Promise<ToolResult> {
  const started = performance.now();
  const duration = () => Math.round((performance.now() - started) * 100) / 100;
  const tool = getTool(name);
  if (!tool || tool.runsIn !== 'extension') {
    return {
      ok: false,
      error: { code: 'UNKNOWN_TOOL', message: `The extension has no tool named "${name}".` },
      duration_ms: duration(),
    };
  }
  const entry = extensionHandlers[tool.name];
  if (isUnavailable(entry)) {
    return { ok: false, error: { code: 'UNAVAILABLE', message: entry.unavailable }, duration_ms: duration() };
  }
  const parsed = tool.input.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      error: { code: 'INVALID_INPUT', message: describeZodError(parsed.error) },
      duration_ms: duration(),
    };
  }
  try {
    const handler = entry as (input: unknown, context: BrowserToolContext) => Promise<unknown>;
    return { ok: true, output: await handler(parsed.data, { callId, call, signal }), duration_ms: duration() };
  } catch (error) {
    const appError = error instanceof AppError ? error : toAppError(error, 'TOOL_FAILED');
    return { ok: false, error: { code: appError.code, message: appError.message }, duration_ms: duration() };
  }
}
