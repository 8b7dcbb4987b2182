import { z } from 'zod';

import type { Logger } from '../core/logger.js';
import { parseConfigJson, readConfigFile } from '../policy/config-file.js';

/** How long a stop lets running tool calls finish when config.json does not say. */
export const DEFAULT_STOP_GRACE_SECONDS = 30;
/** The longest grace period config.json may set (the service units give a stop this long and more). */
export const MAX_STOP_GRACE_SECONDS = 600;

/**
 * The `daemon` section of config.json, read when a stop begins, so an edit applies without a
 * restart:
 *
 * ```jsonc
 * "daemon": {
 *   "stop_grace_seconds": 30   // running tool calls may finish this long before a stop aborts them; 0: never wait
 * }
 * ```
 *
 * A service manager waits for the longest of these and 15 s more before it kills the daemon
 * (service-units.ts): the daemon itself keeps to the grace period set here.
 */
export const daemonConfigSchema = z
  .object({
    stop_grace_seconds: z.number().int().min(0).max(MAX_STOP_GRACE_SECONDS).default(DEFAULT_STOP_GRACE_SECONDS),
  })
  .strict();
export type DaemonConfig = z.infer<typeof daemonConfigSchema>;

const DEFAULT_DAEMON_CONFIG: DaemonConfig = daemonConfigSchema.parse({});

/** The section as configured, or the defaults with the problems found (a bad section never stops a stop). */
export function readDaemonConfig(file: string): { config: DaemonConfig; problems: string[] } {
  const read = readConfigFile(file);
  if (read.kind === 'missing') return { config: DEFAULT_DAEMON_CONFIG, problems: [] };
  if (read.kind === 'refused') return { config: DEFAULT_DAEMON_CONFIG, problems: [read.problem] };
  const json = parseConfigJson(read.text, file);
  if (!json.ok) return { config: DEFAULT_DAEMON_CONFIG, problems: json.problems };
  const root = json.value as Record<string, unknown> | null | undefined;
  const parsed = daemonConfigSchema.safeParse(root?.daemon ?? {});
  if (!parsed.success) {
    return {
      config: DEFAULT_DAEMON_CONFIG,
      problems: parsed.error.issues.map(
        (issue) => `${file}: daemon.${issue.path.map(String).join('.')}: ${issue.message}`,
      ),
    };
  }
  return { config: parsed.data, problems: [] };
}

/** The grace period a stop gives running tool calls, in ms; the default (said in the log) when the section is not valid. */
export function stopGraceMs(configFile: string, log: Logger): number {
  const { config, problems } = readDaemonConfig(configFile);
  if (problems.length > 0) log.warn('the daemon section of config.json is not valid; using defaults', { problems });
  return config.stop_grace_seconds * 1000;
}
