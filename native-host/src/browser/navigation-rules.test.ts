import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { securityConfigSchema, type NavigationRules } from '@nextai/shared';

import { classifyIp } from '../policy/guards/address-class.js';
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

  it('read "*" alone as every host, as the domain guard does (the allow list "*" plus named hosts)', () => {
    expect(matches('*', 'https://example.com/')).toBe(true);
    expect(matches('*', 'https://a.b.example.com:8443/x')).toBe(true);
    expect(matches('*', 'http://127.0.0.1:8080/')).toBe(true);
    expect(matches('*', 'http://localhost/')).toBe(true);
    // An IPv6 host is matched only by an IPv6 entry, as matchDomainPattern does.
    expect(matches('*', 'http://[2606:4700::1111]/')).toBe(false);
    const security = securityConfigSchema.parse({ allowed_domains: ['*', 'localhost'] });
    const rules = navigationRules(security);
    expect(refuses(rules, 'https://example.com/')).toBe(false);
    expect(refuses(rules, 'http://localhost:3000/')).toBe(false);
    expect(refuses(rules, 'http://127.0.0.1:3000/')).toBe(true);
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

  it('never open a loopback or private host that DomainGuard refuses, named or granted or not', () => {
    const entries = ['*', 'localhost', '127.0.0.1', '*.localhost', '127.*', '10.0.0.5', 'a.test', '*.test'];
    const hosts = ['localhost', 'app.localhost', '127.0.0.1', '127.0.0.2', '10.0.0.5', '10.0.0.6', 'a.test'];
    fc.assert(
      fc.property(fc.subarray(entries), fc.option(fc.subarray(entries)), (configured, granted) => {
        const security = securityConfigSchema.parse({ allowed_domains: configured });
        const rules = navigationRules(security, granted ?? undefined);
        const guard = new DomainGuard(security);
        for (const host of hosts) {
          const url = `http://${host}:8080/`;
          if (!refuses(rules, url)) {
            const restrictions = granted ? { allowed_domains: granted } : undefined;
            expect(guard.check(url, restrictions).allowed, `${host} in ${JSON.stringify(rules)}`).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

/** The order the extension's rules and the headless browser apply: block, private (unless named), allow list. */
function refuses(rules: NavigationRules, url: string): boolean {
  const matches = (source: string) => new RegExp(source, 'i').test(url);
  if (rules.block.some(matches)) return true;
  if (rules.private_block?.some(matches) && !rules.private_allow?.some(matches)) return true;
  return rules.allow_only !== undefined && !rules.allow_only.some(matches);
}

describe('navigation rules for loopback, private and metadata addresses', () => {
  const defaults = navigationRules(securityConfigSchema.parse({}));

  it('refuse them by default as the URL shows them', () => {
    for (const url of [
      'http://127.0.0.1:3000/',
      'http://localhost/',
      'http://LOCALHOST:8080/x',
      'http://localhost./',
      'http://app.localhost/',
      'http://169.254.169.254/latest/meta-data/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://192.168.1.1/',
      'https://user@10.0.0.1/',
      'http://172.20.0.1/',
      'http://100.100.100.200/',
      'http://0.0.0.0/',
      'http://[::1]:8080/',
      'http://[::]/',
      'http://[::ffff:7f00:1]/',
      'http://[fe80::1]/',
      'http://[fd00:ec2::254]/',
      'http://[fc00::1]/',
      'http://printer.local/',
      'http://router.home.arpa/',
    ]) {
      expect(refuses(defaults, url), url).toBe(true);
    }
    for (const url of [
      'https://example.com/',
      'https://8.8.8.8/',
      'http://172.32.0.1/',
      'http://[2606:4700:4700::1111]/',
      'http://[2001:4860:4860::8888]/',
      'https://localhost.example.com/',
      'https://127.0.0.1.example.com/',
      'https://example.com/?next=http://127.0.0.1/',
    ]) {
      expect(refuses(defaults, url), url).toBe(false);
    }
  });

  it('match every IPv4 address the classifier refuses, and no other', () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        const url = `http://${address}:8080/x`;
        expect(refuses(defaults, url), address).toBe(classifyIp(address) !== 'public');
      }),
      { numRuns: 2000 },
    );
  });

  it('match every IPv6 address the classifier refuses, as browsers write it', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const url = new URL(`http://[${address}]:8080/x`).href;
        if (classifyIp(address) !== 'public') expect(refuses(defaults, url), url).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('except the non-public hosts the configuration names exactly, and only those a grant admits', () => {
    const security = securityConfigSchema.parse({
      allowed_domains: ['*', '127.0.0.1', 'localhost', '[::1]', 'example.com', '*.internal'],
    });
    const named = navigationRules(security);
    expect(named.private_allow).toHaveLength(3);
    expect(refuses(named, 'http://127.0.0.1:5173/')).toBe(false);
    expect(refuses(named, 'http://localhost:3000/')).toBe(false);
    expect(refuses(named, 'http://[::1]/')).toBe(false);
    expect(refuses(named, 'http://127.0.0.2/')).toBe(true);
    expect(refuses(named, 'http://app.localhost/')).toBe(true);
    expect(refuses(named, 'http://metadata.google.internal/')).toBe(true);
    const granted = navigationRules(security, ['localhost']);
    expect(refuses(granted, 'http://localhost:3000/')).toBe(false);
    expect(refuses(granted, 'http://127.0.0.1:5173/')).toBe(true);
    expect(granted.version).not.toBe(named.version);
  });
});
