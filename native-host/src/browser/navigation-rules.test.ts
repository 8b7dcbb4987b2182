import { describe, expect, it } from 'vitest';

import { securityConfigSchema } from '@nextai/shared';

import { compileDomainPattern } from '../policy/guards/domains.js';
import { navigationRules, urlRegex } from './navigation-rules.js';

const matches = (pattern: string, url: string) => new RegExp(urlRegex(compileDomainPattern(pattern)!), 'i').test(url);

describe('navigation rules', () => {
  it('match hosts label by label, as the domain guard does', () => {
    expect(matches('*.bank.com', 'https://bank.com/')).toBe(true);
    expect(matches('*.bank.com', 'https://www.bank.com:8443/login')).toBe(true);
    expect(matches('*.bank.com', 'https://notbank.com/')).toBe(false);
    expect(matches('*.bank.com', 'https://bank.com.evil.org/')).toBe(false);
    expect(matches('*.banking.*', 'https://www.banking.co.uk/')).toBe(true);
    expect(matches('127.0.0.2', 'http://127.0.0.2:8080/landing.html')).toBe(true);
    expect(matches('127.0.0.2', 'http://127.0.0.20/')).toBe(false);
    expect(matches('accounts.google.com', 'https://user@accounts.google.com/')).toBe(true);
  });

  it('carry the blocked lists and categories, an allow list when there is one, and a version', () => {
    const security = securityConfigSchema.parse({ blocked_domains: ['evil.test'], allowed_domains: ['docs.test'] });
    const rules = navigationRules(security);
    expect(rules.block.some((source) => new RegExp(source).test('https://evil.test/'))).toBe(true);
    expect(rules.block.some((source) => new RegExp(source).test('https://www.paypal.com/'))).toBe(true);
    expect(rules.allow_only).toHaveLength(1);
    expect(navigationRules(security).version).toBe(rules.version);
    expect(navigationRules(securityConfigSchema.parse({})).version).not.toBe(rules.version);
  });
});
