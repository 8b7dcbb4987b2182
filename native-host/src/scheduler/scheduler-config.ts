import fs from 'node:fs';

import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';

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
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { config: DEFAULT_SCHEDULER_CONFIG, problems: [] };
    return { config: DEFAULT_SCHEDULER_CONFIG, problems: [`${file}: ${(error as Error).message}`] };
  }
  const errors: ParseError[] = [];
  const root = parse(text, errors, { allowTrailingComma: true }) as Record<string, unknown> | undefined;
  if (errors.length > 0) {
    return {
      config: DEFAULT_SCHEDULER_CONFIG,
      problems: errors.map((error) => `${file}: ${printParseErrorCode(error.error)} at offset ${error.offset}`),
    };
  }
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
