export { AuditLog, type AuditListOptions } from './audit-log.js';
export { readAnchor, type AuditAnchor } from './anchor.js';
export { GENESIS_HASH, canonicalJson, rowHash } from './chain.js';
export {
  AUDIT_KINDS,
  auditEntrySchema,
  type AuditEntry,
  type AuditKind,
  type AuditProblem,
  type AuditProblemKind,
  type AuditRecord,
  type AuditVerification,
} from './entry.js';
export { REDACTED, isSecretKey, redactSecrets } from './redact.js';
