import { BlockList, isIP } from 'node:net';

/**
 * Where an address leads when it is not the public internet. `metadata` is the cloud instance
 * metadata service (credentials of the machine's cloud role live there); it is link-local or
 * private as well, and named apart only so the person is told what it is.
 */
export type NonPublicKind =
  'loopback' | 'link-local' | 'private' | 'metadata' | 'unspecified' | 'multicast' | 'broadcast' | 'reserved';

export type AddressClass = 'public' | NonPublicKind;

type Family = 'ipv4' | 'ipv6';

/*
 * Why net.BlockList: it is Node's own CIDR matcher (no dependency to keep up to date), it parses
 * both families, and it compares by value, so `::ffff:7f00:1` and `::ffff:127.0.0.1` are the
 * same address to it. What it does not know is which IPv6 prefixes carry an IPv4 address inside
 * (IPv4-mapped, NAT64, 6to4): those are unpacked here first and judged by the IPv4 address they
 * lead to. A library such as ipaddr.js knows these ranges too, but would be one more dependency
 * for a few tables, and the odd IPv4 spellings (`2130706433`, `0x7f.1`, `127.1`) are already
 * read by the WHATWG URL parser the guard uses, the same one browsers use.
 *
 * The ranges are the IANA special-purpose registries (RFC 6890 and successors). Anything in them
 * is not a place on the public internet, so it is never a web page the agent should reach
 * without the person naming it.
 */
export const IPV4_RANGES: readonly (readonly [string, number, NonPublicKind])[] = [
  ['0.0.0.0', 8, 'unspecified'], // "this network": Linux and macOS connect 0.0.0.0 to this computer
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'], // shared address space (carrier-grade NAT): the provider's network
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'reserved'], // documentation
  ['192.88.99.0', 24, 'reserved'], // former 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'reserved'], // documentation
  ['203.0.113.0', 24, 'reserved'], // documentation
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // future use; 255.255.255.255 is matched as broadcast before it
];

const IPV6_RANGES: readonly (readonly [string, number, NonPublicKind])[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'private'], // local-use NAT64 (RFC 8215): translated inside a private network
  ['::', 8, 'reserved'], // IPv4-compatible, IPv4-translated and the rest of the reserved first /8
  ['100::', 64, 'reserved'], // discard-only
  ['2001::', 23, 'reserved'], // IETF protocol assignments (Teredo among them)
  ['2001:db8::', 32, 'reserved'], // documentation
  ['3fff::', 20, 'reserved'], // documentation
  ['5f00::', 16, 'reserved'], // SRv6 segment identifiers
  ['fc00::', 7, 'private'], // unique local addresses
  ['fec0::', 10, 'private'], // former site-local addresses
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
];

/**
 * Cloud metadata services: AWS, GCP, Azure and others at 169.254.169.254, AWS ECS task metadata
 * at 169.254.170.2, AWS's IPv6 endpoint, Alibaba Cloud at 100.100.100.200.
 */
const METADATA_ADDRESSES: readonly (readonly [string, Family])[] = [
  ['169.254.169.254', 'ipv4'],
  ['169.254.170.2', 'ipv4'],
  ['100.100.100.200', 'ipv4'],
  ['fd00:ec2::254', 'ipv6'],
];

/** Checked in this order: the first list that holds the address names it. */
const KIND_ORDER: readonly NonPublicKind[] = [
  'metadata',
  'broadcast',
  'unspecified',
  'loopback',
  'link-local',
  'private',
  'multicast',
  'reserved',
];

/*
 * One list per family and kind: a BlockList also matches an IPv4 address against IPv6 rules (as
 * ::ffff:a.b.c.d), which would put every IPv4 address inside the reserved ::/8.
 */
const LISTS: Record<Family, Map<NonPublicKind, BlockList>> = {
  ipv4: new Map(KIND_ORDER.map((kind) => [kind, new BlockList()])),
  ipv6: new Map(KIND_ORDER.map((kind) => [kind, new BlockList()])),
};
for (const [address, family] of METADATA_ADDRESSES) LISTS[family].get('metadata')?.addAddress(address, family);
LISTS.ipv4.get('broadcast')?.addAddress('255.255.255.255', 'ipv4');
for (const [network, prefix, kind] of IPV4_RANGES) LISTS.ipv4.get(kind)?.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix, kind] of IPV6_RANGES) LISTS.ipv6.get(kind)?.addSubnet(network, prefix, 'ipv6');

/**
 * Names that never lead to the public internet, whatever a resolver says: `localhost` and its
 * subdomains are this computer (RFC 6761), `.local` is multicast DNS on the local network
 * (RFC 6762), `.internal` is reserved for private networks (ICANN, 2024; GCP's metadata server is
 * metadata.google.internal, AWS's instance names end in .internal), `.home.arpa` is for home
 * networks (RFC 8375), metadata.goog is GCP's other name for its metadata server.
 * Each entry covers the name and every name under it.
 */
export const SPECIAL_NAMES: readonly (readonly [string, NonPublicKind])[] = [
  ['localhost', 'loopback'],
  ['metadata.google.internal', 'metadata'],
  ['metadata.goog', 'metadata'],
  ['local', 'link-local'],
  ['internal', 'private'],
  ['home.arpa', 'private'],
];

/**
 * What `address` (an IPv4 or IPv6 address, an IPv6 zone such as `%eth0` allowed) is; undefined
 * when it is not an IP address at all. An IPv6 address that carries an IPv4 one (`::ffff:a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is what that IPv4 address is, so a NAT64 network's
 * public sites stay public and `::ffff:127.0.0.1` stays loopback.
 */
export function classifyIp(address: string): AddressClass | undefined {
  const bare = address.replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return classifyIn(bare, 'ipv4');
  if (version !== 6) return undefined;
  const groups = ipv6Groups(bare);
  const embedded = embeddedIpv4(groups);
  if (embedded !== undefined) return classifyIn(embedded, 'ipv4');
  const kind = classifyIn(bare, 'ipv6');
  if (kind !== 'public') return kind;
  // Only 2000::/3 is handed out for the internet; everything else is unassigned.
  return ((groups[0] ?? 0) & 0xe000) === 0x2000 ? 'public' : 'reserved';
}

/**
 * The canonical address when `host` is an IP address in any spelling the WHATWG URL parser (and
 * so every browser) accepts — `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`, `[::ffff:127.0.0.1]`
 * — otherwise undefined. IPv6 comes without brackets, compressed (`::ffff:7f00:1`).
 */
export function ipLiteral(host: string): string | undefined {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  if (bare.length === 0) return undefined;
  try {
    const parsed = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
    const address = parsed.replace(/^\[(.*)\]$/, '$1');
    return isIP(address) ? address : undefined;
  } catch {
    // Not a host the parser accepts: not an IP address either.
    return undefined;
  }
}

/** The kind of a special-use name (`localhost`, `x.localhost`, `nas.local`, `metadata.google.internal`…). */
export function specialUseName(host: string): NonPublicKind | undefined {
  const name = host.trim().toLowerCase().replace(/\.+$/, '');
  for (const [suffix, kind] of SPECIAL_NAMES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return kind;
  }
  return undefined;
}

/**
 * What a URL's host is before any DNS lookup: an IP literal in any spelling is classified, a
 * special-use name is what it names; undefined for an ordinary name, which only its resolved
 * addresses can tell.
 */
export function classifyHost(host: string): AddressClass | undefined {
  const literal = ipLiteral(host);
  if (literal !== undefined) return classifyIp(literal);
  return specialUseName(host);
}

/** The address names of the kinds, for people (English and Chinese). */
export const KIND_TEXT: Readonly<Record<NonPublicKind, { en: string; zh: string }>> = {
  loopback: { en: 'a loopback address (this computer itself)', zh: '回环地址（这台电脑本身）' },
  'link-local': { en: 'a link-local address (the local network segment)', zh: '链路本地地址（本地网段）' },
  private: { en: 'a private-network address', zh: '私有网络地址' },
  metadata: {
    en: "the cloud metadata service (it hands out the machine's cloud credentials)",
    zh: '云元数据服务（它会给出这台机器的云凭据）',
  },
  unspecified: {
    en: 'the unspecified address (0.0.0.0 or ::, which reaches this computer)',
    zh: '未指定地址（0.0.0.0 或 ::，会连到这台电脑）',
  },
  multicast: { en: 'a multicast address', zh: '组播地址' },
  broadcast: { en: 'the broadcast address', zh: '广播地址' },
  reserved: { en: 'a reserved address, not on the public internet', zh: '保留地址，不在公共互联网上' },
};

function classifyIn(address: string, family: Family): AddressClass {
  for (const kind of KIND_ORDER) if (LISTS[family].get(kind)?.check(address, family)) return kind;
  return 'public';
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string) => (part.length === 0 ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head = '', tail] = text.split('::');
  if (tail === undefined) return parse(head);
  const first = parse(head);
  const last = parse(tail);
  return [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/** The IPv4 address inside an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
function embeddedIpv4(groups: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const quad = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return quad(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return quad(g6, g7);
  if (g0 === 0x2002) return quad(g1, g2);
  return undefined;
}
