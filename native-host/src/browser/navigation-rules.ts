import { createHash } from 'node:crypto';

import type { NavigationRules, SecurityConfig } from '@nextai/shared';

import {
  compileDomainPattern,
  DOMAIN_CATEGORY_LISTS,
  DomainPatternSet,
  exactHosts,
  intersectDomainLists,
  type CompiledPattern,
} from '../policy/guards/domains.js';
import { classifyHost } from '../policy/guards/address-class.js';
import { PRIVATE_ADDRESS_URL_REGEXES } from './private-address-rules.js';
import { urlRegex } from './url-regex.js';

export { urlRegex } from './url-regex.js';

/**
 * The domain policy as URL regular expressions (RE2, as declarativeNetRequest takes them), so the
 * browser itself refuses a blocked site on any navigation of the agent's tabs — redirects and
 * clicked links included — with the same label-wise matching as DomainGuard. Loopback, private,
 * link-local and metadata addresses are refused as far as the URL shows them (the browser does
 * its own DNS, which these rules cannot see), except the hosts the person named exactly.
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
  const privateAllow = privateExceptions(security.allowed_domains, allowedByGrant).map(urlRegex);
  const privateBlock = [...PRIVATE_ADDRESS_URL_REGEXES];
  const version = createHash('sha256')
    .update(JSON.stringify({ block, allow, privateBlock, privateAllow }))
    .digest('hex')
    .slice(0, 16);
  return {
    version,
    block,
    ...(allow ? { allow_only: allow } : {}),
    private_block: privateBlock,
    ...(privateAllow.length > 0 ? { private_allow: privateAllow } : {}),
  };
}

/**
 * The non-public hosts the configuration names exactly (DomainGuard's explicitlyAllowed), less
 * those a task's grant does not admit: a grant narrows this exception like everything else.
 */
function privateExceptions(configured: readonly string[], granted: readonly string[] | undefined): CompiledPattern[] {
  const grant = granted === undefined ? undefined : new DomainPatternSet(granted);
  return [...exactHosts(configured)]
    .filter((host) => {
      const kind = classifyHost(host);
      return kind !== undefined && kind !== 'public' && (grant === undefined || grant.find(host) !== undefined);
    })
    .map(compileDomainPattern)
    .filter((pattern): pattern is CompiledPattern => pattern !== undefined);
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
