import { collectSystemInfo } from '../platform/system-info/index.js';
import type { HostToolHandler } from './types.js';

/**
 * `system_info`: the summary of seed 000 §3.9.3 plus the sections of seed 002 §3.3 that were
 * asked for. Parts that cannot be read come back as `warnings`, so the call itself only fails
 * when it is cancelled.
 */
export const systemInfoHandler: HostToolHandler<'system_info'> = (input, context) =>
  collectSystemInfo(input.categories, { env: process.env, signal: context.signal });
