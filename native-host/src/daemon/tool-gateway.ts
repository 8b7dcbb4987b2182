import { randomUUID } from 'node:crypto';

import {
  AppError,
  TOOL_CATALOG,
  TOOL_NAMES,
  describeZodError,
  getTool,
  toAppError,
  toInputJsonSchema,
  toMcpAnnotations,
  type AnyTool,
  type Platform,
  type ToolInfo,
  type ToolOutcome,
  type ToolResult,
} from '@nextai/shared';

import type { Logger } from '../logger.js';
import type { DataPaths } from '../paths.js';
import { isUnavailable, type HostHandlers, type HostToolHandler, type ToolContext } from '../tools/types.js';
import type { ClientConnection } from './client-connection.js';
import type { EventLog } from './event-log.js';

export interface ToolCallRequest {
  name: string;
  input: Record<string, unknown>;
  call_id?: string | undefined;
}

export interface ToolGatewayOptions {
  handlers: HostHandlers;
  platform: Platform;
  paths: DataPaths;
  log: Logger;
  events: EventLog;
  /** Connected clients that can run browser tools, most recent first. */
  browserClients: () => ClientConnection[];
  /** How long a browser tool may take before the call gives up. */
  extensionTimeoutMs?: number;
}

type Availability = { available: true } | { available: false; reason: string };

/**
 * The one way a tool runs. Every call — from the side panel, the CLI, later agent runs, schedules
 * and MCP clients — comes through `call()`: validate the input, (decide and ask: issue #3),
 * execute, validate the output, record events. No handler is reachable around it.
 */
export class ToolGateway {
  private readonly inFlight = new Set<AbortController>();

  constructor(private readonly options: ToolGatewayOptions) {}

  list(): ToolInfo[] {
    return TOOL_CATALOG.map((tool) => {
      const availability = this.availability(tool);
      return {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        category: tool.category,
        risk: tool.risk,
        effect: tool.effect,
        runs_in: tool.runsIn,
        platforms: [...tool.platforms],
        available: availability.available,
        ...(availability.available ? {} : { unavailable_reason: availability.reason }),
        input_schema: toInputJsonSchema(tool),
        annotations: toMcpAnnotations(tool),
      };
    });
  }

  /**
   * Runs one tool call. An unknown tool name is the caller's mistake and throws UNKNOWN_TOOL;
   * everything that happens to a known tool — bad input, unavailable, failure — is a result.
   */
  async call(request: ToolCallRequest, source: string): Promise<ToolResult> {
    const tool = getTool(request.name);
    if (!tool) {
      throw new AppError(
        'UNKNOWN_TOOL',
        `There is no tool named "${request.name}". Available tools: ${TOOL_NAMES.join(', ')}.`,
        {
          details: { tools: TOOL_NAMES },
        },
      );
    }
    const callId = request.call_id ?? randomUUID();
    const started = performance.now();
    const finish = (result: ToolOutcome): ToolResult => {
      const duration_ms = Math.round((performance.now() - started) * 100) / 100;
      const final: ToolResult = result.ok ? { ...result, duration_ms } : { ...result, duration_ms };
      this.options.events.append('tool.finished', {
        call_id: callId,
        tool: tool.name,
        ok: final.ok,
        duration_ms,
        ...(final.ok ? {} : { error_code: final.error.code }),
      });
      return final;
    };

    this.options.events.append('tool.started', { call_id: callId, tool: tool.name, source });
    const input = tool.input.safeParse(request.input);
    if (!input.success) {
      return finish(failure('INVALID_INPUT', `Invalid input for ${tool.name}: ${describeZodError(input.error)}`));
    }
    // TODO(#3): the policy decision, the approval wait and the audit record go here.
    const controller = new AbortController();
    this.inFlight.add(controller);
    try {
      const output =
        tool.runsIn === 'host'
          ? await this.runOnHost(tool, input.data, controller.signal)
          : await this.runInBrowser(tool, input.data as Record<string, unknown>, callId);
      if (!output.ok) return finish(output);
      const checked = tool.output.safeParse(output.output);
      if (!checked.success) {
        this.options.log.error('tool returned output that does not match its schema', {
          tool: tool.name,
          issues: describeZodError(checked.error),
        });
        return finish(
          failure('INTERNAL', `${tool.name} produced a malformed result (a bug): ${describeZodError(checked.error)}`),
        );
      }
      return finish({ ok: true, output: checked.data });
    } catch (error) {
      const appError = toAppError(error, 'TOOL_FAILED');
      return finish(failure(appError.code, appError.message, appError.details));
    } finally {
      this.inFlight.delete(controller);
    }
  }

  /** Aborts every running call (daemon shutdown; later, the emergency stop). */
  abortAll(reason: string): void {
    for (const controller of this.inFlight) controller.abort(new AppError('DISCONNECTED', reason));
  }

  private availability(tool: AnyTool): Availability {
    if (!tool.platforms.includes(this.options.platform)) {
      return { available: false, reason: `${tool.title} is not supported on ${this.options.platform}.` };
    }
    if (tool.runsIn === 'host') {
      const entry = this.options.handlers[tool.name];
      return isUnavailable(entry) ? { available: false, reason: entry.unavailable } : { available: true };
    }
    const clients = this.options.browserClients();
    if (clients.length === 0) {
      return { available: false, reason: 'No browser with the NextAI extension is connected to run it.' };
    }
    if (!clients.some((client) => client.info?.tools.includes(tool.name))) {
      return {
        available: false,
        reason: 'The connected browser extension cannot run it yet (tracked in issue #7).',
      };
    }
    return { available: true };
  }

  private async runOnHost(
    tool: Extract<AnyTool, { runsIn: 'host' }>,
    input: unknown,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    const availability = this.availability(tool);
    if (!availability.available) return failure('UNAVAILABLE', availability.reason);
    const handler = this.options.handlers[tool.name] as HostToolHandler<typeof tool.name>;
    const context: ToolContext = { signal, paths: this.options.paths, log: this.options.log.child(tool.name) };
    const output = await (handler as (input: unknown, context: ToolContext) => Promise<unknown>)(input, context);
    return { ok: true, output };
  }

  private async runInBrowser(
    tool: Extract<AnyTool, { runsIn: 'extension' }>,
    input: Record<string, unknown>,
    callId: string,
  ): Promise<ToolOutcome> {
    if (!tool.platforms.includes(this.options.platform)) {
      return failure('UNAVAILABLE', `${tool.title} is not supported on ${this.options.platform}.`);
    }
    const client = this.options.browserClients()[0];
    if (!client) {
      // TODO(#7): fall back to a headless browser driven from the daemon.
      return failure('UNAVAILABLE', `${tool.title} needs a browser with the NextAI extension, and none is connected.`);
    }
    const result = await client.peer.request(
      'extension.tool_call',
      { name: tool.name, input, call_id: callId },
      { timeoutMs: this.options.extensionTimeoutMs ?? 120_000 },
    );
    return result.ok ? { ok: true, output: result.output } : { ok: false, error: result.error };
  }
}

function failure(code: AppError['code'], message: string, details?: unknown): ToolOutcome {
  return { ok: false, error: details === undefined ? { code, message } : { code, message, details } };
}
