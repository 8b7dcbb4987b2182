import { domainToASCII } from 'node:url';

import { say, type DomainCategory, type Localized, type SecurityConfig } from '@nextai/shared';

import type { GuardVerdict } from '../verdicts.js';
import { classifyHost, ipLiteral } from './address-class.js';
import { privateAddressRefusal } from './destination.js';

export interface DomainVerdict {
  allowed: boolean;
  /** The host the address really goes to (lower case, punycode, no trailing dot, no IPv6 brackets). */
  host?: string;
  reason?: Localized;
  /** Set when a built-in category blocked it. */
  category?: DomainCategory;
  /**
   * The person named this host exactly in security.allowed_domains, so it may be (or resolve to)
   * a loopback, link-local, private or metadata address; otherwise such addresses are refused.
   */
  explicitlyAllowed?: boolean;
}

/** A coordinator grant's narrowing; it can only take domains away. */
export interface DomainRestrictions {
  allowed_domains?: string[] | undefined;
}

/**
 * Built-in host lists, switched on per category by `security.blocked_domain_categories`.
 * Matching is by host only: a path-level entry (github.com/login, proton.me/pass) cannot be
 * expressed, so only hosts that serve nothing else are listed. `*.x.com` covers x.com itself.
 */
export const DOMAIN_CATEGORY_LISTS: Readonly<Record<DomainCategory, readonly string[]>> = {
  banking: [
    // Payments and wallets.
    '*.paypal.com', '*.paypal.me', 'dashboard.stripe.com', 'connect.stripe.com', '*.alipay.com', 'pay.weixin.qq.com',
    '*.tenpay.com', '*.wise.com', '*.transferwise.com', '*.revolut.com', '*.venmo.com', '*.cash.app', '*.zellepay.com',
    '*.klarna.com', '*.payoneer.com', '*.skrill.com', '*.americanexpress.com', '*.discover.com', '*.unionpay.com',
    '*.95516.com',
    // Crypto exchanges.
    '*.coinbase.com', '*.binance.com', '*.kraken.com', '*.okx.com', '*.bybit.com', '*.crypto.com', '*.gemini.com',
    '*.bitstamp.net', '*.blockchain.com',
    // Banks and brokers (United States, Canada, Europe).
    '*.chase.com', '*.bankofamerica.com', '*.wellsfargo.com', '*.citi.com', '*.citibank.com', '*.usbank.com',
    '*.capitalone.com', '*.pnc.com', '*.truist.com', '*.ally.com', '*.schwab.com', '*.fidelity.com', '*.vanguard.com',
    '*.etrade.com', '*.robinhood.com', '*.td.com', '*.tdbank.com', '*.rbc.com', '*.rbcroyalbank.com',
    '*.scotiabank.com', '*.bmo.com', '*.hsbc.*', '*.barclays.*', '*.lloydsbank.com', '*.natwest.com',
    '*.santander.*', '*.bnpparibas.*', '*.societegenerale.*', '*.deutsche-bank.*', '*.commerzbank.*', '*.ing.com',
    '*.ing.de', '*.ing.nl', '*.unicredit.*', '*.n26.com', '*.monzo.com', '*.starlingbank.com', '*.ubs.com',
    '*.credit-suisse.com', '*.raiffeisen.*',
    // China, Japan, Korea, Australia, India.
    '*.icbc.com.cn', '*.ccb.com', '*.boc.cn', '*.bankofchina.com', '*.abchina.com', '*.cmbchina.com',
    '*.bankcomm.com', '*.psbc.com', '*.spdb.com.cn', '*.cib.com.cn', '*.citicbank.com', '*.cebbank.com',
    '*.pingan.com', '*.webank.com', '*.mybank.cn', '*.mufg.jp', '*.smbc.co.jp', '*.mizuhobank.co.jp',
    '*.kbstar.com', '*.shinhan.com', '*.commbank.com.au', '*.westpac.com.au', '*.anz.com', '*.nab.com.au',
    '*.onlinesbi.sbi', '*.hdfcbank.com', '*.icicibank.com',
  ],
  password_managers: [
    '*.1password.com', '*.1password.ca', '*.1password.eu', '*.bitwarden.com', '*.bitwarden.eu', '*.lastpass.com',
    '*.dashlane.com', '*.keepersecurity.com', '*.keepersecurity.eu', 'pass.proton.me', '*.nordpass.com',
    '*.roboform.com', 'vault.zoho.com', 'vault.zoho.eu', 'passwords.google.com',
    'passwords.google', '*.enpass.io', '*.passbolt.com', '*.keeper.io',
  ],
  identity_providers: [
    'accounts.google.com', 'myaccount.google.com', 'login.microsoftonline.com', 'login.microsoft.com',
    'login.live.com', 'account.live.com', 'account.microsoft.com', 'mysignins.microsoft.com', 'id.apple.com',
    'appleid.apple.com', 'account.apple.com', 'iforgot.apple.com', 'idmsa.apple.com', '*.okta.com',
    '*.oktapreview.com', '*.okta-emea.com', '*.auth0.com', '*.onelogin.com', '*.duosecurity.com', '*.pingone.com',
    'login.yahoo.com', 'passport.baidu.com', 'account.aliyun.com', 'signin.aliyun.com', 'login.taobao.com',
    'passport.alibaba.com', 'xui.ptlogin2.qq.com', 'ssl.ptlogin2.qq.com', 'signin.aws.amazon.com',
    '*.signin.aws.amazon.com', 'account.proton.me', 'accounts.firefox.com', 'login.salesforce.com',
    'id.atlassian.com', 'account.samsung.com', 'login.gov', 'secure.login.gov',
  ],
}; // prettier-ignore

const CATEGORY_TEXT: Record<DomainCategory, Localized> = {
  banking: say('a bank, payment or crypto site', '银行、支付或加密货币网站'),
  password_managers: say('a password manager', '密码管理器'),
  identity_providers: say('an account sign-in page (identity provider)', '账号登录页面（身份提供方）'),
};

/** A host pattern split into labels; `*` labels and `*` inside labels are wildcards. */
export interface CompiledPattern {
  source: string;
  /** An IPv6 literal is compared whole. */
  ipv6?: string;
  labels: (string | RegExp)[];
}

/**
 * Normalises a configured entry to host labels: lower case, punycode, no scheme, user, port,
 * path or trailing dot. Only the host counts, so `https://example.com/x` means example.com.
 */
export function compileDomainPattern(source: string): CompiledPattern | undefined {
  let host = source.trim().toLowerCase();
  const scheme = host.indexOf('://');
  if (scheme >= 0) host = host.slice(scheme + 3);
  host = host.split(/[/?#]/)[0] ?? '';
  host = host.slice(host.lastIndexOf('@') + 1);
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end > 1 ? { source, ipv6: host.slice(1, end), labels: [] } : undefined;
  }
  if ((host.match(/:/g) ?? []).length > 1) return { source, ipv6: host, labels: [] };
  host = host.replace(/:\d*$/, '').replace(/\.+$/, '');
  if (host.length === 0) return undefined;
  const labels = host.split('.').map((label): string | RegExp => {
    if (label === '*' || label === '**') return '*';
    if (label.includes('*')) return new RegExp(`^${label.split('*').map(punycode).map(escapeRegExp).join('[^.]*')}$`);
    return punycode(label);
  });
  return { source, labels };
}

/**
 * Label-wise matching, never substrings. A leading `*` label stands for zero or more labels
 * (`*.bank.com` is bank.com and every subdomain), a trailing one for one or more (`*.banking.*`
 * covers www.banking.co.uk), one in the middle for exactly one; `bank*` matches within its label.
 */
export function matchDomainPattern(pattern: CompiledPattern, host: string): boolean {
  if (pattern.ipv6 !== undefined) return host === pattern.ipv6;
  if (host.includes(':')) return false;
  const labels = host.split('.');
  const { labels: want } = pattern;
  const matchFrom = (i: number, j: number): boolean => {
    if (i === want.length) return j === labels.length;
    const label = want[i] as string | RegExp;
    if (label === '*') {
      if (i === 0) {
        for (let k = j; k <= labels.length; k += 1) if (matchFrom(i + 1, k)) return true;
        return false;
      }
      if (i === want.length - 1) return labels.length - j >= 1;
      return j < labels.length && matchFrom(i + 1, j + 1);
    }
    if (j >= labels.length) return false;
    const actual = labels[j] as string;
    const ok = typeof label === 'string' ? label === actual : label.test(actual);
    return ok && matchFrom(i + 1, j + 1);
  };
  return matchFrom(0, 0);
}

/** A pattern as a sequence of label matchers; `many` is zero or more labels of any kind. */
type LabelItem =
  { kind: 'many' } | { kind: 'one' } | { kind: 'literal'; text: string } | { kind: 'glob'; pattern: RegExp };

function labelItems(pattern: CompiledPattern): LabelItem[] {
  return pattern.labels.flatMap((label, index): LabelItem[] => {
    if (label === '*') {
      // The same reading as matchDomainPattern: leading `*` zero or more labels, trailing one or
      // more, in the middle exactly one.
      if (index === 0) return [{ kind: 'many' }];
      if (index === pattern.labels.length - 1) return [{ kind: 'one' }, { kind: 'many' }];
      return [{ kind: 'one' }];
    }
    return typeof label === 'string' ? [{ kind: 'literal', text: label }] : [{ kind: 'glob', pattern: label }];
  });
}

function labelCovers(general: LabelItem, specific: LabelItem): boolean {
  if (general.kind === 'one') return specific.kind !== 'many';
  if (general.kind === 'literal') return specific.kind === 'literal' && specific.text === general.text;
  if (general.kind === 'glob') {
    if (specific.kind === 'literal') return general.pattern.test(specific.text);
    return specific.kind === 'glob' && specific.pattern.source === general.pattern.source;
  }
  return true;
}

/**
 * Whether every host `specific` matches is also matched by `general` (`*.example.com` covers
 * `docs.example.com`). Sound but not complete: `false` may also mean "could not tell" — callers
 * that intersect allow lists with it fail closed.
 */
export function patternCovers(general: CompiledPattern, specific: CompiledPattern): boolean {
  if (specific.ipv6 !== undefined || general.ipv6 !== undefined) return specific.ipv6 === general.ipv6;
  const g = labelItems(general);
  const s = labelItems(specific);
  const covers = (i: number, j: number): boolean => {
    if (j === s.length) return g.slice(i).every((item) => item.kind === 'many');
    const item = s[j] as LabelItem;
    const want = g[i];
    if (item.kind === 'many') {
      // Any number of labels here: only a `many` of the general pattern can take them all.
      return want?.kind === 'many' && (covers(i, j + 1) || covers(i + 1, j + 1));
    }
    if (want === undefined) return false;
    if (want.kind === 'many') return covers(i, j + 1) || covers(i + 1, j);
    return labelCovers(want, item) && covers(i + 1, j + 1);
  };
  return covers(0, 0);
}

/**
 * The hosts both lists admit, as one list: for each pair of entries the narrower one when one
 * covers the other. A pair that overlaps without either covering the other (`a*.com` and
 * `*b.com`) is left out, so the result may admit less than both lists do, never more.
 */
export function intersectDomainLists(first: readonly string[], second: readonly string[]): string[] {
  const compile = (list: readonly string[]) =>
    list.map(compileDomainPattern).filter((pattern): pattern is CompiledPattern => pattern !== undefined);
  const out = new Set<string>();
  const seconds = compile(second);
  for (const a of compile(first)) {
    for (const b of seconds) {
      if (patternCovers(b, a)) out.add(a.source);
      else if (patternCovers(a, b)) out.add(b.source);
    }
  }
  return [...out];
}

/**
 * Patterns indexed by one literal label each, so a host is matched only against the few
 * patterns that share a label with it — not against every entry of the category lists.
 */
export class DomainPatternSet {
  readonly patterns: readonly CompiledPattern[];
  private readonly byLabel = new Map<string, number[]>();
  private readonly unindexed: number[] = [];

  constructor(sources: readonly string[]) {
    this.patterns = sources
      .map(compileDomainPattern)
      .filter((pattern): pattern is CompiledPattern => pattern !== undefined);
    this.patterns.forEach((pattern, index) => {
      const key =
        pattern.ipv6 ?? pattern.labels.find((label): label is string => typeof label === 'string' && label !== '*');
      if (key === undefined) this.unindexed.push(index);
      else this.byLabel.set(key, [...(this.byLabel.get(key) ?? []), index]);
    });
  }

  get size(): number {
    return this.patterns.length;
  }

  /** The first configured pattern the host matches. */
  find(host: string): CompiledPattern | undefined {
    const candidates = new Set(this.unindexed);
    for (const label of host.includes(':') ? [host] : host.split('.')) {
      for (const index of this.byLabel.get(label) ?? []) candidates.add(index);
    }
    for (const index of [...candidates].sort((a, b) => a - b)) {
      const pattern = this.patterns[index] as CompiledPattern;
      if (matchDomainPattern(pattern, host)) return pattern;
    }
    return undefined;
  }
}

const CATEGORY_SETS = Object.fromEntries(
  Object.entries(DOMAIN_CATEGORY_LISTS).map(([category, list]) => [category, new DomainPatternSet(list)]),
) as Record<DomainCategory, DomainPatternSet>;

/** `host` on a refusal is the host a non-web address (ftp:, ws:) still names. */
type Parsed = { ok: true; host: string } | { ok: false; reason: Localized; host?: string };

/**
 * Parses what a tool call navigates to. `host:port` without a scheme (`localhost:3000`) and a
 * bare host (`example.com/x`) are read as https, as browsers' address bars do; anything else
 * with a scheme keeps it.
 */
export function parseWebAddress(url: string): Parsed {
  if (typeof url !== 'string' || url.trim().length === 0) {
    return { ok: false, reason: say('The address is empty.', '地址为空。') };
  }
  const text = url.trim();
  const hasScheme = /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(text);
  let parsed: URL;
  try {
    parsed = new URL(hasScheme ? text : `https://${text}`);
  } catch {
    // The WHATWG parser is the one browsers use; what it rejects cannot be opened there either.
    return { ok: false, reason: say(`"${url}" is not a valid web address.`, `“${url}”不是有效的网址。`) };
  }
  switch (parsed.protocol) {
    case 'http:':
    case 'https:':
      break;
    case 'file:':
      return {
        ok: false,
        reason: say(
          `${url} is a file, not a web page. Use the file tools (file_read), which check the folders NextAI may use.`,
          `${url} 是文件，不是网页。请用文件工具（file_read），它会检查 NextAI 可以使用的目录。`,
        ),
      };
    case 'javascript:':
    case 'data:':
    case 'vbscript:':
    case 'blob:':
      return {
        ok: false,
        reason: say(
          `${parsed.protocol} addresses run code or content carried in the address itself; NextAI does not open them.`,
          `${parsed.protocol} 地址会运行地址里自带的代码或内容；NextAI 不会打开它们。`,
        ),
      };
    default: {
      const reason = say(
        `Only http:// and https:// addresses can be opened, not ${parsed.protocol}. Put https:// in front of a host name.`,
        `只能打开 http:// 和 https:// 地址，不能打开 ${parsed.protocol}。请在主机名前加上 https://。`,
      );
      const host = normalHost(parsed.hostname);
      return host ? { ok: false, reason, host } : { ok: false, reason };
    }
  }
  const host = normalHost(parsed.hostname);
  if (host.length === 0) return { ok: false, reason: say(`${url} has no host name.`, `${url} 没有主机名。`) };
  return { ok: true, host };
}

/** Lower case, no IPv6 brackets, no trailing dot (`bank.com.` is bank.com). */
function normalHost(hostname: string): string {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return host.toLowerCase().replace(/\.+$/, '');
}

/**
 * The hosts a list names exactly — no `*` anywhere, IP addresses in their canonical spelling
 * (`127.1` is 127.0.0.1, `[0:0::1]` is ::1) — as the hosts parseWebAddress gives.
 */
export function exactHosts(list: readonly string[]): Set<string> {
  const hosts = new Set<string>();
  for (const entry of list) {
    const pattern = compileDomainPattern(entry);
    if (!pattern) continue;
    if (pattern.ipv6 !== undefined) {
      hosts.add(ipLiteral(pattern.ipv6) ?? pattern.ipv6);
      continue;
    }
    if (!pattern.labels.every((label): label is string => typeof label === 'string' && label !== '*')) continue;
    const host = pattern.labels.join('.');
    hosts.add(ipLiteral(host) ?? host);
  }
  return hosts;
}

/**
 * Decides which web addresses browser and fetch tools may open, so the agent stays away from
 * banking, sign-in and password pages and from this computer's own network: blocked
 * domains and the built-in categories always refuse; a non-empty `allowed_domains` (and a
 * grant's list) admit only what they name. Loopback, link-local, private and metadata addresses
 * — IP literals in any spelling and special-use names such as localhost — are refused unless
 * `allowed_domains` names the host exactly; names that only DNS can tell about are judged again
 * on their resolved addresses by checkDestination, where the connection is made.
 */
export class DomainGuard {
  private readonly blocked: DomainPatternSet;
  private readonly allowed: DomainPatternSet;
  private readonly categories: readonly DomainCategory[];
  /** Hosts the person named exactly: the only ones that may be non-public addresses. */
  private readonly named: Set<string>;

  constructor(security: SecurityConfig) {
    this.blocked = new DomainPatternSet(security.blocked_domains);
    this.allowed = new DomainPatternSet(security.allowed_domains);
    this.categories = security.blocked_domain_categories;
    this.named = exactHosts(security.allowed_domains);
  }

  check(url: string, restrictions?: DomainRestrictions): DomainVerdict {
    const parsed = parseWebAddress(url);
    if (!parsed.ok) return { allowed: false, reason: parsed.reason };
    const { host } = parsed;
    const blocked = this.blockedBy(host);
    if (blocked) return { allowed: false, host, ...blocked };
    if (this.allowed.size > 0 && !this.allowed.find(host)) {
      const allowed = this.allowed.patterns.map((p) => p.source).join(', ');
      return {
        allowed: false,
        host,
        reason: say(
          `${host} is not in security.allowed_domains (${allowed}).`,
          `${host} 不在允许的域名（security.allowed_domains：${allowed}）中。`,
        ),
      };
    }
    const granted = restrictions?.allowed_domains;
    if (granted !== undefined && !new DomainPatternSet(granted).find(host)) {
      return {
        allowed: false,
        host,
        reason: say(
          `${host} is not among the domains this task was granted (${granted.join(', ') || 'none'}).`,
          `${host} 不在这个任务获授权的域名（${granted.join(', ') || '无'}）中。`,
        ),
      };
    }
    const explicitlyAllowed = this.named.has(host);
    const kind = classifyHost(host);
    if (kind !== undefined && kind !== 'public' && !explicitlyAllowed) {
      return { allowed: false, host, reason: privateAddressRefusal(host, kind) };
    }
    return { allowed: true, host, explicitlyAllowed };
  }

  /**
   * For addresses found in shell commands (curl, wget…): blocked ones can never be let through;
   * one outside a configured allow list is high risk, since commands are not confined to it.
   */
  checkUrl(url: string): GuardVerdict | undefined {
    const parsed = parseWebAddress(url);
    // Commands also speak ftp:// or wss://; their host is judged all the same.
    const host = parsed.host;
    if (host === undefined) return undefined;
    const blocked = this.blockedBy(host);
    if (blocked) return { block: true, risk: 'critical', layer: 'network', reason: blocked.reason };
    if (this.allowed.size > 0 && !this.allowed.find(host)) {
      return {
        block: false,
        risk: 'high',
        layer: 'network',
        reason: say(
          `${host} is not in security.allowed_domains.`,
          `${host} 不在允许的域名（security.allowed_domains）中。`,
        ),
      };
    }
    return undefined;
  }

  private blockedBy(host: string): { reason: Localized; category?: DomainCategory } | undefined {
    const own = this.blocked.find(host);
    if (own) {
      return {
        reason: say(
          `${host} is blocked by "${own.source}" in security.blocked_domains.`,
          `${host} 被禁止的域名（security.blocked_domains）中的“${own.source}”阻止。`,
        ),
      };
    }
    for (const category of this.categories) {
      const hit = CATEGORY_SETS[category].find(host);
      if (hit) {
        return {
          category,
          reason: say(
            `${host} is ${CATEGORY_TEXT[category].en} (built-in list "${category}"); NextAI does not open these. ` +
              `To allow it, remove "${category}" from security.blocked_domain_categories.`,
            `${host} 是${CATEGORY_TEXT[category]['zh-CN']}（内置列表“${category}”）；NextAI 不会打开这类网站。` +
              `如要允许，请从 security.blocked_domain_categories 中移除“${category}”。`,
          ),
        };
      }
    }
    return undefined;
  }
}

/** One label to its ASCII form (`bücher` → `xn--bcher-kva`); ASCII labels stay as they are. */
function punycode(label: string): string {
  // domainToASCII reads a lone number as an IPv4 address (`192` → `0.0.0.192`), so ASCII is left alone.
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(label)) return label;
  return domainToASCII(label) || label;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
