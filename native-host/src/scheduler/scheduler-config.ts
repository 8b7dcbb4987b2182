import { z } from 'zod';

import { parseConfigJson, readConfigFile } from '../policy/config-file.js';

/**
 * The `scheduler` section of config.json, read when it is needed so an edit
 * applies at the next look without a restart:
 *
 * ```jsonc
 * "scheduler": {
 *   "enabled": true,                      // false: no scheduled task fires (they stay listed)
 *   "heartbeat": { "enabled": true, "interval_minutes": 30, "project": "default" }
 * }
 * ```
 */
export const schedulerConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    heartbeat: z
      .object({
        enabled: z.boolean().default(true),
        interval_minutes: z
          .number()
          .int()
          .min(1)
          .max(24 * 60)
          .default(30),
        project: z.string().min(1).optional(),
      })
      .strict()
      .default({ enabled: true, interval_minutes: 30 }),
  })
  .strict();
export type SchedulerConfig = z.infer<typeof schedulerConfigSchema>;

export const DEFAULT_SCHEDULER_CONFIG: SchedulerConfig = schedulerConfigSchema.parse({});

/** The section as configured, or the defaults with the problems found (a bad section never stops the daemon). */
export function readSchedulerConfig(file: string): { config: SchedulerConfig; problems: string[] } {
  const read = readConfigFile(file);
  if (read.kind === 'missing') return { config: DEFAULT_SCHEDULER_CONFIG, problems: [] };
  if (read.kind === 'refused') return { config: DEFAULT_SCHEDULER_CONFIG, problems: [read.problem] };
  const json = parseConfigJson(read.text, file);
  if (!json.ok) return { config: DEFAULT_SCHEDULER_CONFIG, problems: json.problems };
  const root = json.value as Record<string, unknown> | null | undefined;
  const parsed = schedulerConfigSchema.safeParse(root?.scheduler ?? {});
  if (!parsed.success) {
    return {
      config: DEFAULT_SCHEDULER_CONFIG,
      problems: parsed.error.issues.map(
        (issue) => `${file}: scheduler.${issue.path.map(String).join('.')}: ${issue.message}`,
      ),
    };
  }
  return { config: parsed.data, problems: [] };
}
