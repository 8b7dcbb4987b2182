import { securityConfigSchema, type DomainCategory } from '@nextai/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  compileDomainPattern,
  DOMAIN_CATEGORY_LISTS,
  DomainGuard,
  intersectDomainLists,
  matchDomainPattern,
  patternCovers,
} from './domains.js';

const defaults = securityConfigSchema.parse({});
const guard = new DomainGuard(defaults);

/** [url, allowed, host?, category?] under the default configuration (default blocked list + all categories). */
const DEFAULT_TABLE: [string, boolean, string?, DomainCategory?][] = [
  // Ordinary sites.
  ['https://example.com/', true, 'example.com'],
  ['http://example.com:8080/x?y#z', true, 'example.com'],
  ['https://github.com/login', true, 'github.com'],
  ['https://www.google.com/search?q=bank.com', true, 'www.google.com'],
  ['https://mail.google.com', true, 'mail.google.com'],
  ['example.com', true, 'example.com'],
  ['example.com/path', true, 'example.com'],
  ['https://proton.me/pass', true, 'proton.me'],
  ['https://notbank.com', true, 'notbank.com'],
  ['https://bank.co', true, 'bank.co'],
  ['https://bank.com.evil.net', true, 'bank.com.evil.net'],
  ['https://mybanking.com', true, 'mybanking.com'],
  ['https://banking-news.com', true, 'banking-news.com'],
  ['https://paypal-community.example', true, 'paypal-community.example'],
  ['https://google.com/accounts', true, 'google.com'],
  ['https://accounts.google.com.evil.net', true, 'accounts.google.com.evil.net'],
  ['https://evil.net/accounts.google.com', true, 'evil.net'],
  ['https://evil.net/?u=https://accounts.google.com', true, 'evil.net'],
  ['https://accounts.google.com@evil.net', true, 'evil.net'],
  // A backslash ends the host for http(s), in browsers as in the WHATWG parser used here.
  ['https://evil.net\\@bank.com', true, 'evil.net'],

  // The default blocked_domains list.
  ['https://bank.com', false, 'bank.com'],
  ['https://www.bank.com/login', false, 'www.bank.com'],
  ['https://a.b.c.bank.com', false, 'a.b.c.bank.com'],
  ['https://BANK.COM', false, 'bank.com'],
  ['https://bank.com.', false, 'bank.com'],
  ['https://bank.com..', false, 'bank.com'],
  ['https://www.banking.co.uk', false, 'www.banking.co.uk'],
  ['https://banking.com', false, 'banking.com'],
  ['https://online.banking.example.org', false, 'online.banking.example.org'],
  ['https://accounts.google.com/signin', false, 'accounts.google.com'],
  ['https://ACCOUNTS.Google.com', false, 'accounts.google.com'],
  ['https://id.apple.com', false, 'id.apple.com'],
  ['https://login.microsoftonline.com/common/oauth2', false, 'login.microsoftonline.com'],

  // This computer, the local network and the cloud metadata service: refused unless named exactly.
  ['localhost:3000', false, 'localhost'],
  ['http://127.0.0.1:5173', false, '127.0.0.1'],
  ['http://[::1]:8080/', false, '::1'],
  ['http://2130706433/', false, '127.0.0.1'],
  ['http://0x7f.1/', false, '127.0.0.1'],
  ['http://127.1/', false, '127.0.0.1'],
  ['http://[::ffff:127.0.0.1]/', false, '::ffff:7f00:1'],
  ['http://0.0.0.0:8000/', false, '0.0.0.0'],
  ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', false, '169.254.169.254'],
  ['http://[fd00:ec2::254]/latest/meta-data/', false, 'fd00:ec2::254'],
  ['http://metadata.google.internal/computeMetadata/v1/', false, 'metadata.google.internal'],
  ['http://192.168.1.1/admin', false, '192.168.1.1'],
  ['http://10.0.0.5:9200/', false, '10.0.0.5'],
  ['https://dev.localhost/', false, 'dev.localhost'],
  ['http://printer.local/', false, 'printer.local'],

  // Tricks that still go to a blocked host.
  ['https://evil.net@bank.com', false, 'bank.com'],
  ['https://user:pass@www.bank.com', false, 'www.bank.com'],
  ['https://bank.com\\@evil.net', false, 'bank.com'],
  ['https://bank.com%2e', false, 'bank.com'],
  ['https://www%2ebank.com', false, 'www.bank.com'],
  ['https://ba\tnk.com', false, 'bank.com'],
  ['  https://bank.com  ', false, 'bank.com'],
  ['bank.com:443/x', false, 'bank.com'],
  ['user:123@bank.com', false, 'bank.com'],
  ['HTTPS://WWW.BANK.COM', false, 'www.bank.com'],
  ['https://bank.com:8443', false, 'bank.com'],
  ['https://accounts.google.com./', false, 'accounts.google.com'],
  ['https://ａｃｃｏｕｎｔｓ.google.com', false, 'accounts.google.com'],

  // Built-in categories.
  ['https://www.paypal.com/signin', false, 'www.paypal.com', 'banking'],
  ['https://paypal.com', false, 'paypal.com', 'banking'],
  ['https://secure.chase.com', false, 'secure.chase.com', 'banking'],
  ['https://www.hsbc.co.uk', false, 'www.hsbc.co.uk', 'banking'],
  ['https://hsbc.com.hk', false, 'hsbc.com.hk', 'banking'],
  ['https://www.barclays.co.uk', false, 'www.barclays.co.uk', 'banking'],
  ['https://mybank.icbc.com.cn', false, 'mybank.icbc.com.cn', 'banking'],
  ['https://www.alipay.com', false, 'www.alipay.com', 'banking'],
  ['https://pay.weixin.qq.com/index.php', false, 'pay.weixin.qq.com', 'banking'],
  ['https://dashboard.stripe.com/payments', false, 'dashboard.stripe.com', 'banking'],
  ['https://www.coinbase.com', false, 'www.coinbase.com', 'banking'],
  ['https://wise.com', false, 'wise.com', 'banking'],
  ['https://my.1password.com', false, 'my.1password.com', 'password_managers'],
  ['https://vault.bitwarden.com', false, 'vault.bitwarden.com', 'password_managers'],
  ['https://lastpass.com', false, 'lastpass.com', 'password_managers'],
  ['https://pass.proton.me', false, 'pass.proton.me', 'password_managers'],
  ['https://passwords.google.com', false, 'passwords.google.com', 'password_managers'],
  ['https://myaccount.google.com/security', false, 'myaccount.google.com', 'identity_providers'],
  ['https://appleid.apple.com', false, 'appleid.apple.com', 'identity_providers'],
  ['https://login.live.com', false, 'login.live.com', 'identity_providers'],
  ['https://acme.okta.com/app', false, 'acme.okta.com', 'identity_providers'],
  ['https://acme.eu.auth0.com', false, 'acme.eu.auth0.com', 'identity_providers'],
  ['https://passport.baidu.com', false, 'passport.baidu.com', 'identity_providers'],
  ['https://account.aliyun.com', false, 'account.aliyun.com', 'identity_providers'],
  ['https://stripe.com', true, 'stripe.com'],
  ['https://docs.stripe.com', true, 'docs.stripe.com'],
  ['https://apple.com', true, 'apple.com'],
  ['https://www.okta.com.evil.net', true, 'www.okta.com.evil.net'],
  ['https://chase.com.evil.net', true, 'chase.com.evil.net'],
  ['https://notpaypal.com', true, 'notpaypal.com'],

  // Not web addresses.
  ['file:///etc/passwd', false],
  ['javascript:alert(1)', false],
  ['JavaScript:alert(1)', false],
  ['data:text/html,<script>alert(1)</script>', false],
  ['vbscript:msgbox', false],
  ['blob:https://example.com/uuid', false],
  ['ftp://example.com/file', false],
  ['chrome://settings', false],
  ['mailto:someone@example.com', false],
  ['', false],
  ['   ', false],
  ['http://', false],
  ['https://exa mple.com', false],
  ['https://[::1', false],
];

describe('DomainGuard.check with the defaults', () => {
  it('has at least 60 cases', () => {
    expect(DEFAULT_TABLE.length).toBeGreaterThanOrEqual(60);
  });

  it.each(DEFAULT_TABLE)('%s → allowed %s (%s)', (url, allowed, host, category) => {
    const verdict = guard.check(url);
    expect(verdict.allowed, verdict.reason?.en).toBe(allowed);
    if (host !== undefined) expect(verdict.host).toBe(host);
    if (category !== undefined) expect(verdict.category).toBe(category);
    if (!allowed) expect(verdict.reason).toBeTruthy();
  });

  it('explains refusals, naming the setting', () => {
    expect(guard.check('https://www.bank.com').reason?.en).toMatch(/"\*\.bank\.com" in security\.blocked_domains/);
    expect(guard.check('https://www.paypal.com').reason?.en).toMatch(/bank, payment.*blocked_domain_categories/);
    expect(guard.check('file:///x').reason?.en).toMatch(/file tools/);
    expect(guard.check('javascript:x').reason?.en).toMatch(/run code/);
    expect(guard.check('ftp://x').reason?.en).toMatch(/Only http/);
  });
});

describe('DomainGuard: loopback, private and metadata addresses', () => {
  const withAllowed = (allowed_domains: string[]) => new DomainGuard(securityConfigSchema.parse({ allowed_domains }));

  it('says what the address is and how to allow it, in English and Chinese', () => {
    const verdict = guard.check('http://169.254.169.254/latest/meta-data/');
    expect(verdict.reason?.en).toMatch(/169\.254\.169\.254 is the cloud metadata service/);
    expect(verdict.reason?.en).toMatch(/add "169\.254\.169\.254" to security\.allowed_domains/);
    expect(verdict.reason?.['zh-CN']).toMatch(/云元数据服务.*security\.allowed_domains/);
    expect(guard.check('http://localhost:3000').reason?.en).toMatch(/localhost is a name for a loopback address/);
  });

  it('opens a host the allow list names exactly, in any spelling of the same address', () => {
    const named = withAllowed(['*', 'localhost', '127.0.0.1', 'http://192.168.1.10:8080/', '[::1]', 'nas.internal']);
    for (const url of [
      'http://localhost:3000/',
      'http://LOCALHOST./',
      'http://127.0.0.1:5173/',
      'http://2130706433/',
      'http://127.1/',
      'http://192.168.1.10/',
      'http://[::1]:8080/',
      'http://[0:0:0:0:0:0:0:1]/',
      'https://nas.internal/',
    ]) {
      const verdict = named.check(url);
      expect(verdict, url).toMatchObject({ allowed: true, explicitlyAllowed: true });
    }
    // Other loopback and private addresses stay refused; public sites are allowed ("*") but not named.
    expect(named.check('http://127.0.0.2/').allowed).toBe(false);
    expect(named.check('http://192.168.1.11/').allowed).toBe(false);
    expect(named.check('http://app.localhost/').allowed).toBe(false);
    expect(named.check('http://169.254.169.254/').allowed).toBe(false);
    expect(named.check('https://example.com/')).toMatchObject({ allowed: true, explicitlyAllowed: false });
  });

  it('does not count "*", wildcards or an empty list as naming a host', () => {
    expect(withAllowed([]).check('http://127.0.0.1/').allowed).toBe(false);
    expect(withAllowed(['*']).check('http://127.0.0.1/').allowed).toBe(false);
    expect(withAllowed(['*.*.*.*']).check('http://127.0.0.1/').allowed).toBe(false);
    expect(withAllowed(['127.*']).check('http://127.0.0.1/').allowed).toBe(false);
    expect(withAllowed(['*.localhost']).check('http://app.localhost/').allowed).toBe(false);
    expect(withAllowed(['*.internal']).check('http://metadata.google.internal/').allowed).toBe(false);
    expect(withAllowed(['local*']).check('http://localhost/').allowed).toBe(false);
  });

  it('lets a grant narrow a named host away, never name one itself', () => {
    const named = withAllowed(['*', 'localhost']);
    expect(named.check('http://localhost/', { allowed_domains: ['example.com'] }).allowed).toBe(false);
    expect(named.check('http://localhost/', { allowed_domains: ['localhost'] }).allowed).toBe(true);
    expect(guard.check('http://127.0.0.1/', { allowed_domains: ['127.0.0.1'] }).allowed).toBe(false);
  });

  it('keeps blocked_domains above a host named in the allow list', () => {
    const both = new DomainGuard(
      securityConfigSchema.parse({ allowed_domains: ['*', '127.0.0.2'], blocked_domains: ['127.0.0.2'] }),
    );
    expect(both.check('http://127.0.0.2/').reason?.en).toMatch(/security\.blocked_domains/);
  });
});

describe('DomainGuard with other configurations', () => {
  it('treats a non-empty allow list as the only sites', () => {
    const only = new DomainGuard(securityConfigSchema.parse({ allowed_domains: ['*.example.com', 'docs.rs'] }));
    expect(only.check('https://example.com').allowed).toBe(true);
    expect(only.check('https://a.example.com').allowed).toBe(true);
    expect(only.check('https://docs.rs/picomatch').allowed).toBe(true);
    expect(only.check('https://www.docs.rs').allowed).toBe(false);
    expect(only.check('https://example.org').reason?.en).toMatch(/not in security\.allowed_domains/);
    expect(only.check('https://notexample.com').allowed).toBe(false);
  });

  it('lets blocked win over allowed', () => {
    const both = new DomainGuard(
      securityConfigSchema.parse({ allowed_domains: ['*.bank.com', '*.paypal.com'], blocked_domains: ['*.bank.com'] }),
    );
    expect(both.check('https://www.bank.com').allowed).toBe(false);
    expect(both.check('https://www.paypal.com').allowed).toBe(false);
  });

  it('switches categories off', () => {
    const open = new DomainGuard(securityConfigSchema.parse({ blocked_domain_categories: [] }));
    expect(open.check('https://www.paypal.com').allowed).toBe(true);
    expect(open.check('https://accounts.google.com').allowed).toBe(false);
    const bankingOnly = new DomainGuard(securityConfigSchema.parse({ blocked_domain_categories: ['banking'] }));
    expect(bankingOnly.check('https://my.1password.com').allowed).toBe(true);
    expect(bankingOnly.check('https://www.chase.com').allowed).toBe(false);
  });

  it('narrows with a grant, never widens', () => {
    expect(guard.check('https://example.com', { allowed_domains: ['example.com'] }).allowed).toBe(true);
    expect(guard.check('https://example.org', { allowed_domains: ['example.com'] }).reason?.en).toMatch(/granted/);
    expect(guard.check('https://example.com', { allowed_domains: [] }).allowed).toBe(false);
    expect(guard.check('https://www.bank.com', { allowed_domains: ['*.bank.com'] }).allowed).toBe(false);
  });

  it('normalises configured patterns: case, scheme, path, port, trailing dot, IDN', () => {
    const configured = new DomainGuard(
      securityConfigSchema.parse({
        blocked_domains: [
          'HTTPS://Evil.Example/path',
          'tracker.example:8080',
          'dot.example.',
          'bücher.example',
          '[2606:4700::2]',
        ],
        blocked_domain_categories: [],
      }),
    );
    expect(configured.check('https://evil.example/other').allowed).toBe(false);
    expect(configured.check('https://tracker.example').allowed).toBe(false);
    expect(configured.check('https://dot.example').allowed).toBe(false);
    expect(configured.check('https://xn--bcher-kva.example').allowed).toBe(false);
    expect(configured.check('https://BÜCHER.example').allowed).toBe(false);
    expect(configured.check('http://[2606:4700::2]/').allowed).toBe(false);
    expect(configured.check('http://[2606:4700::3]/').allowed).toBe(true);
  });
});

describe('matchDomainPattern: labels, never substrings', () => {
  const table: [string, string, boolean][] = [
    ['*.bank.com', 'bank.com', true],
    ['*.bank.com', 'a.bank.com', true],
    ['*.bank.com', 'a.b.bank.com', true],
    ['*.bank.com', 'notbank.com', false],
    ['*.bank.com', 'bank.com.evil.net', false],
    ['*.bank.com', 'bank.co', false],
    ['*.banking.*', 'banking.com', true],
    ['*.banking.*', 'www.banking.co.uk', true],
    ['*.banking.*', 'banking', false],
    ['*.banking.*', 'mybanking.com', false],
    ['bank*.com', 'bank.com', true],
    ['bank*.com', 'bankofx.com', true],
    ['bank*.com', 'a.bankofx.com', false],
    ['bank*.com', 'bank.x.com', false],
    ['www.*.com', 'www.x.com', true],
    ['www.*.com', 'www.x.y.com', false],
    ['*', 'anything.at.all', true],
    ['example.com', 'example.com', true],
    ['example.com', 'www.example.com', false],
    ['192.168.*', '192.168.1.1', true],
    ['192.168.*', '192.169.1.1', false],
    ['[::1]', '::1', true],
    ['::1', '::1', true],
    ['*.bank.com', '::1', false],
  ];
  it.each(table)('%s vs %s: %s', (pattern, host, expected) => {
    const compiled = compileDomainPattern(pattern);
    expect(compiled).toBeDefined();
    expect(matchDomainPattern(compiled as NonNullable<typeof compiled>, host)).toBe(expected);
  });

  it('never matches a host that merely contains a blocked name', () => {
    const patterns = ['*.bank.com', 'accounts.google.com', '*.paypal.com'].map((p) => compileDomainPattern(p)!);
    fc.assert(
      fc.property(fc.domain(), (domain) => {
        for (const [index, name] of ['bank.com', 'accounts.google.com', 'paypal.com'].entries()) {
          const pattern = patterns[index]!;
          // Glued on without a dot: the label differs, so no match.
          expect(matchDomainPattern(pattern, `${domain}${name}`)).toBe(`${domain}${name}` === name);
          // As a subdomain of another site: no match.
          expect(matchDomainPattern(pattern, `${name}.${domain}`)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('lists only host-level entries, all parseable', () => {
    for (const list of Object.values(DOMAIN_CATEGORY_LISTS)) {
      for (const entry of list) {
        expect(entry).not.toMatch(/[/:@]/);
        expect(compileDomainPattern(entry)).toBeDefined();
      }
    }
  });
});

describe('DomainGuard.checkUrl: addresses in shell commands', () => {
  it('blocks blocked hosts whatever the scheme', () => {
    for (const url of [
      'https://www.bank.com',
      'bank.com/x',
      'ftp://bank.com/f',
      'wss://bank.com/s',
      'www.paypal.com',
    ]) {
      expect(guard.checkUrl(url), url).toMatchObject({ block: true, risk: 'critical', layer: 'network' });
    }
  });

  it('says nothing about ordinary hosts or non-addresses', () => {
    for (const url of ['https://example.com', 'registry.npmjs.org', 'file:///etc/passwd', 'not a url', '']) {
      expect(guard.checkUrl(url), url).toBeUndefined();
    }
  });

  it('raises hosts outside a configured allow list to high', () => {
    const only = new DomainGuard(securityConfigSchema.parse({ allowed_domains: ['example.com'] }));
    expect(only.checkUrl('https://example.org')).toMatchObject({ block: false, risk: 'high', layer: 'network' });
    expect(only.checkUrl('https://example.com')).toBeUndefined();
  });
});

describe('patternCovers and intersectDomainLists: allow lists that must both admit a host', () => {
  const compiled = (pattern: string) => compileDomainPattern(pattern)!;
  const covers = (general: string, specific: string) => patternCovers(compiled(general), compiled(specific));

  it('tells a narrower entry inside a wider one', () => {
    expect(covers('*.example.com', 'docs.example.com')).toBe(true);
    expect(covers('*.example.com', '*.docs.example.com')).toBe(true);
    expect(covers('*', 'anything.test')).toBe(true);
    expect(covers('*.example.*', 'www.example.co.uk')).toBe(true);
    expect(covers('bank*.com', 'bankofx.com')).toBe(true);
    expect(covers('www.*.com', 'www.x.com')).toBe(true);
    expect(covers('a.com', 'a.com')).toBe(true);
    expect(covers('[::1]', '::1')).toBe(true);
    expect(covers('docs.example.com', '*.example.com')).toBe(false);
    expect(covers('*.example.com', 'example.org')).toBe(false);
    expect(covers('*.com', '*')).toBe(false);
    expect(covers('example.*', 'example.com.evil')).toBe(true);
    expect(covers('example.com', 'example.*')).toBe(false);
    expect(covers('*', '::1')).toBe(false);
  });

  it('never claims a cover that a host contradicts', () => {
    const patterns = ['*', '*.a.test', 'b.a.test', 'a.test', 'x*.test', '*.test', 'c.*', 'c.b.*', 'b.*.test', '*.b.*'];
    const label = fc.constantFrom('a', 'b', 'c', 'xy', 'x', 'test', 'org');
    const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
    fc.assert(
      fc.property(fc.constantFrom(...patterns), fc.constantFrom(...patterns), host, (general, specific, name) => {
        if (covers(general, specific) && matchDomainPattern(compiled(specific), name)) {
          expect(matchDomainPattern(compiled(general), name)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('intersects two lists entry by entry, keeping the narrower of each pair', () => {
    expect(intersectDomainLists(['a.com', 'b.com', 'c.com'], ['a.com', 'evil.com'])).toEqual(['a.com']);
    expect(intersectDomainLists(['*.example.com', 'x.org'], ['docs.example.com', '*.org'])).toEqual([
      'docs.example.com',
      'x.org',
    ]);
    // Overlapping without either covering the other: left out (fail closed), not guessed.
    expect(intersectDomainLists(['a*.com'], ['*b.com'])).toEqual([]);
  });
});
