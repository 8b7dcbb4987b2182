import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { securityConfigSchema } from '@nextai/shared';

import { compileDomainPattern, DomainGuard } from '../policy/guards/domains.js';
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

describe('navigation rules with a task grant', () => {
  const admits = (rules: { allow_only?: string[] | undefined }, url: string) =>
    rules.allow_only === undefined || rules.allow_only.some((source) => new RegExp(source, 'i').test(url));

  it('admit only what both the configuration and the grant admit', () => {
    const security = securityConfigSchema.parse({ allowed_domains: ['a.com', 'b.com', 'c.com'] });
    const rules = navigationRules(security, ['a.com', 'evil.com']);
    expect(admits(rules, 'https://a.com/')).toBe(true);
    // The grant cannot widen the configuration, nor the configuration the grant.
    expect(admits(rules, 'https://evil.com/')).toBe(false);
    expect(admits(rules, 'https://b.com/')).toBe(false);
  });

  it('keep the narrower entry of each pair, whichever list it is in', () => {
    const wide = securityConfigSchema.parse({ allowed_domains: ['*.example.com'] });
    const granted = navigationRules(wide, ['docs.example.com']);
    expect(admits(granted, 'https://docs.example.com/x')).toBe(true);
    expect(admits(granted, 'https://www.example.com/')).toBe(false);
    const narrow = securityConfigSchema.parse({ allowed_domains: ['docs.example.com'] });
    const widerGrant = navigationRules(narrow, ['*.example.com', 'other.org']);
    expect(admits(widerGrant, 'https://docs.example.com/x')).toBe(true);
    expect(admits(widerGrant, 'https://www.example.com/')).toBe(false);
    expect(admits(widerGrant, 'https://other.org/')).toBe(false);
  });

  it('use the grant alone when the configuration has no allow list; an empty grant admits nothing', () => {
    const open = securityConfigSchema.parse({});
    expect(admits(navigationRules(open, ['docs.test']), 'https://docs.test/')).toBe(true);
    expect(admits(navigationRules(open, ['docs.test']), 'https://evil.test/')).toBe(false);
    expect(admits(navigationRules(open, []), 'https://docs.test/')).toBe(false);
    expect(navigationRules(open).allow_only).toBeUndefined();
  });

  it('never admit a host that DomainGuard refuses for the same lists', () => {
    const entries = ['*', '*.a.test', 'b.a.test', 'a.test', 'x*.test', '*.test', 'c.*', 'c.b.*', '*.b.a.test'];
    const hosts = ['a.test', 'b.a.test', 'c.b.a.test', 'xy.test', 'c.test', 'c.b.test', 'z.org', 'c.b.org'];
    fc.assert(
      fc.property(fc.subarray(entries, { minLength: 1 }), fc.subarray(entries), (configured, granted) => {
        const security = securityConfigSchema.parse({ allowed_domains: configured });
        const rules = navigationRules(security, granted);
        const guard = new DomainGuard(security);
        for (const host of hosts) {
          if (admits(rules, `https://${host}/`)) {
            expect(guard.check(`https://${host}/`, { allowed_domains: granted }).allowed).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
