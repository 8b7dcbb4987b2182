import { AppError, say } from '@nextai/shared';

import { PolicyChangeRecorder } from '../gateway/config-fingerprint.js';
import type { AuditLog } from '../gateway/audit/index.js';
import type { EventLog } from '../storage/event-log.js';

/**
 * Records a policy change the daemon made on someone's behalf: the `policy.changed` event and the
 * audit record. The change is in force already (config.json says so), so the event is announced
 * even when the database cannot be written — the terminals a narrower policy no longer allows are
 * ended all the same — and an audit record that cannot be written is a STORAGE_ERROR that says
 * the change stands but is not recorded. The handlers refuse a change before making it while the
 * database is known not to take writes (DaemonStorage.requireWritable), so this is the rare race.
 */
export function recordPolicyChange(
  parts: { events: EventLog; audit: AuditLog; configFile: string },
  summary: string,
  by: string,
): void {
  parts.events.announce('policy.changed', { source: by, summary });
  try {
    new PolicyChangeRecorder(parts.audit, parts.configFile).recordOwn(summary, by);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'STORAGE_ERROR') throw error;
    const why = say(error.message, error.translations?.['zh-CN'] ?? error.message);
    throw new AppError(
      'STORAGE_ERROR',
      say(
        `The change is in force (config.json was saved), but it is not in the audit log. ${why.en}`,
        `更改已生效（config.json 已保存），但未写入审计日志。${why['zh-CN']}`,
      ),
      { cause: error, details: error.details },
    );
  }
}
