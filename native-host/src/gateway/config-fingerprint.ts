import { createHash } from 'node:crypto';

import { readConfigFile } from '../policy/config-file.js';
import type { AuditEntry, AuditRecord } from './audit/index.js';

/**
 * sha256 of config.json as it is on disk, "missing", or "unreadable" for what config.json may
 * not be (a named pipe, a directory, a file past the size limit…), which is never read.
 */
export function configFingerprint(file: string): string {
  const read = readConfigFile(file);
  if (read.kind === 'missing') return 'missing';
  if (read.kind === 'refused') return 'unreadable';
  return createHash('sha256').update(read.bytes).digest('hex');
}

interface PolicyChain {
  append(entry: AuditEntry): unknown;
  latest(kind: 'policy'): AuditRecord | undefined;
}

/** The fingerprint the newest policy row of the chain recorded (undefined: none recorded yet). */
function recordedFingerprint(chain: PolicyChain): string | undefined {
  const details = chain.latest('policy')?.entry.details as { config_sha256?: unknown } | undefined;
  return typeof details?.config_sha256 === 'string' ? details.config_sha256 : undefined;
}

/**
 * Every policy row of the audit chain carries the fingerprint of config.json after the change, so
 * a change made outside the daemon — the file edited by hand, by `nextai config set`, or by some
 * other program, while the daemon ran or while it was down — shows in the chain as such, and the
 * daemon's own writes are not recorded twice when the file watcher sees them.
 */
export class PolicyChangeRecorder {
  constructor(
    private readonly chain: PolicyChain,
    private readonly file: string,
  ) {}

  /** A change the daemon made on someone's behalf (`actor`: who asked). */
  recordOwn(summary: string, actor: string): void {
    this.chain.append({
      kind: 'policy',
      result: 'changed',
      actor,
      reason: summary,
      details: { config_sha256: configFingerprint(this.file) },
    });
  }

  /**
   * The file changed on disk (the watcher saw it, or the daemon starts). Recorded when it is not
   * what the chain last recorded; `when` says in words when it was seen.
   */
  recordIfOutside(outcome: { accepted: boolean; problems: string[] }, when: string): void {
    const now = configFingerprint(this.file);
    const recorded = recordedFingerprint(this.chain);
    if (recorded === now) return;
    const first = recorded === undefined;
    this.chain.append({
      kind: 'policy',
      result: outcome.accepted ? (first ? 'in_force' : 'changed') : 'rejected',
      actor: first ? 'config.json' : 'config.json edited directly, not through the daemon',
      reason: outcome.accepted
        ? first
          ? `config.json as the daemon found it ${when}`
          : `config.json was changed directly in the file, not through the daemon, ${when}; the change is in force`
        : outcome.problems.join('\n'),
      details: { config_sha256: now },
    });
  }
}
