import { z } from 'zod';

import type { ToolSpec } from './define-tool.js';

export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema a model sees for a tool's input. Defaults are kept (the model learns them) and
 * fields with defaults are optional, since the input is validated — and defaults applied — again
 * on the host.
 */
export function toInputJsonSchema(tool: ToolSpec): JsonSchema {
  return tidy(z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input', unrepresentable: 'throw' }));
}

export function toOutputJsonSchema(tool: ToolSpec): JsonSchema {
  return tidy(z.toJSONSchema(tool.output, { target: 'draft-7', io: 'output', unrepresentable: 'throw' }));
}

/**
 * Drops what only costs the model tokens: the `$schema` URI, and the ±2^53 bounds zod adds to
 * every integer (they say "integer", which `type` already does).
 */
function tidy(schema: JsonSchema): JsonSchema {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value !== 'object' || value === null) return value;
    const result: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === '$schema') continue;
      if (key === 'maximum' && child === Number.MAX_SAFE_INTEGER) continue;
      if (key === 'minimum' && child === Number.MIN_SAFE_INTEGER) continue;
      result[key] = walk(child);
    }
    return result;
  };
  return walk(schema) as JsonSchema;
}

/** Tool definition in the shape of the Anthropic Messages API `tools` array. */
export interface ModelToolDefinition {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

export function toModelTool(tool: ToolSpec): ModelToolDefinition {
  return { name: tool.name, description: tool.description, input_schema: toInputJsonSchema(tool) };
}

/** MCP `ToolAnnotations`, derived from what the tool declares about its effect. */
export interface McpToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export function toMcpAnnotations(tool: ToolSpec): McpToolAnnotations {
  return {
    title: tool.title,
    readOnlyHint: tool.effect === 'read',
    destructiveHint: tool.effect === 'destructive',
    // Reading twice is harmless; any write may not be (a second click, a second append).
    idempotentHint: tool.effect === 'read',
    // Browser and web tools reach content the person does not control.
    openWorldHint: tool.category === 'browser' || tool.category === 'web',
  };
}
