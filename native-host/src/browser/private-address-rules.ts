import { IPV4_RANGES, SPECIAL_NAMES } from '../policy/guards/address-class.js';
import { compileDomainPattern } from '../policy/guards/domains.js';
import { hostUrlRegex, urlRegex } from './url-regex.js';

/** One number of a dotted IPv4 address (canonical: no leading zeros). */
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';

/** `169.254.0.0/16` → `169\.254\.OCTET\.OCTET`: whole octets fixed, a partial one as its values. */
function ipv4CidrHost(network: string, prefix: number): string {
  const octets = network.split('.').map(Number);
  const parts = octets.map((octet, index) => {
    const bitsHere = Math.min(8, Math.max(0, prefix - index * 8));
    if (bitsHere === 8) return String(octet);
    if (bitsHere === 0) return OCTET;
    const size = 1 << (8 - bitsHere);
    const values = Array.from({ length: size }, (_, offset) => String(octet + offset));
    return `(${values.join('|')})`;
  });
  return parts.join('\\.');
}

/**
 * IPv6 hosts as browsers write them in URLs (RFC 5952: lower case, compressed, no leading zeros),
 * by their first groups. Coarser than classifyIp where that unpacks an IPv4 address (IPv4-mapped,
 * NAT64, 6to4): in a URL those are refused whole, which no public site needs.
 */
const IPV6_HOSTS = [
  // Outside 2000::/3 (the only block handed out for the internet): ::1, ::, ::ffff:…, 64:ff9b::…,
  // fc00::/7, fe80::/10, ff00::/8, 100::/64 and the rest. The first group is empty (`::…`),
  // shorter than four digits, or four digits that do not start with 2 or 3.
  '\\[(:|[0-9a-f]{1,3}:|[14-9a-f][0-9a-f]{3}:)',
  // 2001::/23 (IETF assignments, Teredo) and 2001:db8::/32 (documentation).
  '\\[2001:(:|[0-9a-f]{1,2}:|1[0-9a-f]{2}:|db8:)',
  // 6to4, which carries an IPv4 address of any kind.
  '\\[2002:',
  // 3fff::/20 (documentation).
  '\\[3fff:(:|[0-9a-f]{1,3}:)',
].map((host) => `${host}[^\\]]*\\]`);

/**
 * Loopback, link-local, private, metadata, multicast and reserved addresses as URL regular
 * expressions (RE2): IPv4 and IPv6 literals as browsers canonicalise them (`http://0x7f.1/` is
 * already `http://127.0.0.1/` when the rules see it) and the special-use names (localhost…).
 * What a name resolves to in the person's browser is not visible here.
 */
export const PRIVATE_ADDRESS_URL_REGEXES: readonly string[] = [
  ...IPV4_RANGES.map(([network, prefix]) => hostUrlRegex(ipv4CidrHost(network, prefix))),
  ...IPV6_HOSTS.map(hostUrlRegex),
  ...SPECIAL_NAMES.flatMap(([suffix]) => {
    const pattern = compileDomainPattern(`*.${suffix}`);
    return pattern ? [urlRegex(pattern)] : [];
  }),
];
