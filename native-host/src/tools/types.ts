import type { HandlerTable, HostToolName, ToolHandler } from '@nextai/shared';

import type { Logger } from '../logger.js';
import type { DataPaths } from '../paths.js';

export { isUnavailable, notImplementedYet, type UnavailableTool } from '@nextai/shared';

/** What a host tool handler may use besides its input. */
export interface ToolContext {
  /** Aborted when the call is cancelled (emergency stop, time-out, the caller went away). */
  signal: AbortSignal;
  paths: DataPaths;
  log: Logger;
}

export type HostToolHandler<N extends HostToolName> = ToolHandler<N, ToolContext>;

/** Every host tool of the catalog with its handler (see HandlerTable). */
export type HostHandlers = HandlerTable<HostToolName, ToolContext>;
