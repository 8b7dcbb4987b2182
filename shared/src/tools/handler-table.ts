import type { z } from 'zod';

import type { ToolByName, ToolInput, ToolName } from './catalog.js';

/** A catalogued tool this build cannot run here (it needs the daemon, say); calling it is a clear UNAVAILABLE error. */
export interface UnavailableTool {
  readonly unavailable: string;
}

export function isUnavailable(entry: unknown): entry is UnavailableTool {
  return typeof entry === 'object' && entry !== null && 'unavailable' in entry;
}

export type ToolHandler<N extends ToolName, Context> = (
  input: ToolInput<N>,
  context: Context,
) => Promise<z.input<ToolByName<N>['output']>>;

/**
 * One entry per tool in `Names` — a real handler or an explicit UnavailableTool. Used with
 * `satisfies`, a tool added to the catalog without an entry (or an entry for a tool that does
 * not exist) fails the type check, on whichever side the tool runs.
 */
export type HandlerTable<Names extends ToolName, Context> = {
  readonly [N in Names]: ToolHandler<N, Context> | UnavailableTool;
};
