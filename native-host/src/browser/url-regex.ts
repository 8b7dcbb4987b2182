import type { CompiledPattern } from '../policy/guards/domains.js';

/** Any scheme, an optional user part: what comes before the host in a URL the browser checks. */
const BEFORE_HOST = '^[a-z][a-z0-9+.-]*://([^/@]*@)?';
/** An optional port, then the end of the host. */
const AFTER_HOST = '(:[0-9]+)?([/?#]|$)';

/** A URL regular expression (RE2, as declarativeNetRequest takes them) for a host regular expression. */
export function hostUrlRegex(host: string): string {
  return `${BEFORE_HOST}${host}${AFTER_HOST}`;
}

/** `*.bank.com` → `^[a-z][a-z0-9+.-]*://([^/@]*@)?([^./:?#]+\.)*bank\.com(:\d+)?([/?#]|$)` */
export function urlRegex(pattern: CompiledPattern): string {
  if (pattern.ipv6 !== undefined) return hostUrlRegex(`\\[${escapeRegex(pattern.ipv6)}\\]`);
  const label = '[^./:?#@]+';
  const parts = pattern.labels.map((part, index) => {
    const last = index === pattern.labels.length - 1;
    if (part === '*') {
      // `*` alone is every host (zero or more labels, as matchDomainPattern reads it).
      if (index === 0 && last) return `(${label}(\\.${label})*)?`;
      if (index === 0) return `(${label}\\.)*`;
      return last ? `${label}(\\.${label})*` : `${label}\\.`;
    }
    const text =
      typeof part === 'string'
        ? escapeRegex(part)
        : part.source.replace(/^\^|\$$/g, '').replace(/\[\^\.\]\*/g, '[^./:?#@]*');
    return last ? text : `${text}\\.`;
  });
  return hostUrlRegex(`${parts.join('')}\\.?`);
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
