import fs from 'node:fs';

import { parse } from 'jsonc-parser';

import type { Logger } from '../core/logger.js';

/** The `browser` section of config.json: the headless browser the daemon drives. */
export interface BrowserConfig {
  /** A Chrome/Chromium executable; found in the usual places when absent. */
  executable_path?: string | undefined;
  /** A profile for the headless browser; the agent's own isolated one when absent. */
  user_data_dir?: string | undefined;
}

export function readBrowserConfig(file: string, log: Logger): BrowserConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    log.warn('could not read config.json for the browser settings', { error: (error as Error).message });
    return {};
  }
  const section = (parse(text, [], { allowTrailingComma: true }) as { browser?: unknown } | undefined)?.browser;
  if (!section || typeof section !== 'object') return {};
  const { executable_path, user_data_dir } = section as Record<string, unknown>;
  return {
    ...(typeof executable_path === 'string' ? { executable_path } : {}),
    ...(typeof user_data_dir === 'string' ? { user_data_dir } : {}),
  };
}
