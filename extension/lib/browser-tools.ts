import {
  AppError,
  getTool,
  isUnavailable,
  notImplementedYet,
  toAppError,
  describeZodError,
  type ExtensionToolName,
  type HandlerTable,
  type ToolResult,
} from '@nextai/shared';

/** What a browser tool handler gets besides its input (grows with issue #7). */
export interface BrowserToolContext {
  callId: string;
}

const inPage = (what: string) => notImplementedYet(7, what);

/**
 * The tools that run in the extension, one entry each (a missing one fails the type check).
 * The daemon sends them here as `extension.tool_call` requests.
 */
export const extensionHandlers = {
  browser_navigate: inPage('Navigating tabs'),
  browser_interact: inPage('Acting on pages'),
  browser_extract: inPage('Reading pages'),
  browser_snapshot: inPage('Page snapshots'),
  browser_tabs: inPage('Managing tabs'),
} satisfies HandlerTable<ExtensionToolName, BrowserToolContext>;

/** Names of the browser tools this build can really run, announced to the daemon in `daemon.hello`. */
export const implementedBrowserTools: string[] = Object.entries(extensionHandlers)
  .filter(([, entry]) => !isUnavailable(entry))
  .map(([name]) => name);

/** Runs one browser tool for the daemon; failures are results, never exceptions. */
export async function runBrowserTool(
  name: string,
  input: Record<string, unknown>,
  callId: string,
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
    return { ok: true, output: await handler(parsed.data, { callId }), duration_ms: duration() };
  } catch (error) {
    const appError = error instanceof AppError ? error : toAppError(error, 'TOOL_FAILED');
    return { ok: false, error: { code: appError.code, message: appError.message }, duration_ms: duration() };
  }
}
