import { collectSystemInfo } from '../platform/system-info/index.js';
import type { HostToolHandler } from './types.js';

/**
 * `system_info`: the summary (OS, architecture, CPUs, memory, displays) plus the detailed
 * sections (os, cpu, memory, disk, network) that were asked for. Parts that cannot be read come
 * back as `warnings`, so the call itself only fails when it is cancelled.
 */
export const systemInfoHandler: HostToolHandler<'system_info'> = (input, context) =>
  collectSystemInfo(input.categories, { env: process.env, signal: context.signal });
