import type { Logger } from '../core/logger.js';
import { parseConfigJson, readConfigFile } from '../policy/config-file.js';

/** The `browser` section of config.json: the headless browser the daemon drives. */
export interface BrowserConfig {
  /** A Chrome/Chromium executable; found in the usual places when absent. */
  executable_path?: string | undefined;
  /** A profile for the headless browser; the agent's own isolated one when absent. */
  user_data_dir?: string | undefined;
}

export function readBrowserConfig(file: string, log: Logger): BrowserConfig {
  const read = readConfigFile(file);
  if (read.kind === 'missing') return {};
  if (read.kind === 'refused') {
    log.warn('could not read config.json for the browser settings', { error: read.problem });
    return {};
  }
  const json = parseConfigJson(read.text, file);
  if (!json.ok) {
    log.warn('config.json is not valid JSON; the browser settings are the defaults', { problems: json.problems });
    return {};
  }
  const section = (json.value as { browser?: unknown } | null | undefined)?.browser;
  if (!section || typeof section !== 'object') return {};
  const { executable_path, user_data_dir } = section as Record<string, unknown>;
  return {
    ...(typeof executable_path === 'string' ? { executable_path } : {}),
    ...(typeof user_data_dir === 'string' ? { user_data_dir } : {}),
  };
}
