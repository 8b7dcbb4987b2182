import { createHash } from 'node:crypto';

import type { NavigationRules, SecurityConfig } from '@nextai/shared';

import {
  compileDomainPattern,
  DOMAIN_CATEGORY_LISTS,
  intersectDomainLists,
  type CompiledPattern,
} from '../policy/guards/domains.js';

/**
 * The domain policy as URL regular expressions (RE2, as declarativeNetRequest takes them), so the
 * browser itself refuses a blocked site on any navigation of the agent's tabs — redirects and
 * clicked links included — with the same label-wise matching as DomainGuard.
 */
export function navigationRules(security: SecurityConfig, allowedByGrant?: string[]): NavigationRules {
  const block = [
    ...security.blocked_domains,
    ...security.blocked_domain_categories.flatMap((category) => DOMAIN_CATEGORY_LISTS[category]),
  ]
    .map(compileDomainPattern)
    .filter((pattern): pattern is CompiledPattern => pattern !== undefined)
    .map(urlRegex);
  const allow = allowList(security.allowed_domains, allowedByGrant)
    ?.map(compileDomainPattern)
    .filter((pattern): pattern is CompiledPattern => pattern !== undefined)
    .map(urlRegex);
  const version = createHash('sha256').update(JSON.stringify({ block, allow })).digest('hex').slice(0, 16);
  return { version, block, ...(allow ? { allow_only: allow } : {}) };
}

/**
 * The hosts a navigation may reach: both the configuration's list (when it has one; empty means
 * no limit) and the task's grant (when there is one; empty means none) have to admit a host, as
 * DomainGuard.check requires. The browser takes a single allow list, so it carries the
 * intersection — exact where one entry covers the other, narrower (fail closed) otherwise.
 */
function allowList(configured: readonly string[], granted: readonly string[] | undefined): string[] | undefined {
  if (granted === undefined) return configured.length > 0 ? [...configured] : undefined;
  if (configured.length === 0) return [...granted];
  return intersectDomainLists(configured, granted);
}

/** `*.bank.com` → `^[a-z][a-z0-9+.-]*://([^/@]*@)?([^./:?#]+\.)*bank\.com(:\d+)?([/?#]|$)` */
export function urlRegex(pattern: CompiledPattern): string {
  const prefix = '^[a-z][a-z0-9+.-]*://([^/@]*@)?';
  const suffix = '(:[0-9]+)?([/?#]|$)';
  if (pattern.ipv6 !== undefined) return `${prefix}\\[${escape(pattern.ipv6)}\\]${suffix}`;
  const label = '[^./:?#@]+';
  const parts = pattern.labels.map((part, index) => {
    const last = index === pattern.labels.length - 1;
    if (part === '*') {
      if (index === 0) return `(${label}\\.)*`;
      return last ? `${label}(\\.${label})*` : `${label}\\.`;
    }
    const text =
      typeof part === 'string'
        ? escape(part)
        : part.source.replace(/^\^|\$$/g, '').replace(/\[\^\.\]\*/g, '[^./:?#@]*');
    return last ? text : `${text}\\.`;
  });
  return `${prefix}${parts.join('')}\\.?${suffix}`;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
