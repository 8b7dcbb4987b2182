import dns from 'node:dns';
import type { LookupFunction } from 'node:net';

import { AppError, say, type Localized } from '@nextai/shared';

import { classifyHost, classifyIp, ipLiteral, KIND_TEXT, type NonPublicKind } from './address-class.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name has (dns.lookup with `all`: /etc/hosts and the system resolver). */
export type HostResolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (host) => {
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** A host and the addresses it was judged by: the connection goes to these and no others. */
export interface CheckedDestination {
  host: string;
  addresses: ResolvedAddress[];
}

/**
 * Why a host is refused, and the one way to allow it. Only an entry of security.allowed_domains
 * that names the host exactly counts (see exactHosts in domains.ts): with an empty list or `*`
 * every host would be "allowed", and a wildcard such as `*.example.com` would let anyone who
 * controls a name under it point that name at this computer (DNS rebinding).
 */
export function privateAddressRefusal(host: string, kind: NonPublicKind, resolvedTo?: string): Localized {
  const what = KIND_TEXT[kind];
  const literal = ipLiteral(host) !== undefined;
  const subject =
    resolvedTo !== undefined
      ? { en: `${host} resolves to ${resolvedTo}, ${what.en}`, zh: `${host} 解析到 ${resolvedTo}，这是${what.zh}` }
      : literal
        ? { en: `${host} is ${what.en}`, zh: `${host} 是${what.zh}` }
        : { en: `${host} is a name for ${what.en}`, zh: `${host} 是指向${what.zh}的名称` };
  return say(
    `${subject.en}. NextAI's web tools do not open loopback, link-local, private-network or cloud-metadata ` +
      `addresses unless security.allowed_domains names the host exactly ("*" and wildcards do not count). ` +
      `To allow it, add "${host}" to security.allowed_domains (and "*" beside it if every other site should stay allowed).`,
    `${subject.zh}。除非 security.allowed_domains 明确写出这个主机名（“*”和通配符不算），NextAI 的网页工具不会打开` +
      `回环、链路本地、私有网络或云元数据地址。如要允许，请把“${host}”加入 security.allowed_domains` +
      `（如其他网站也要继续允许，请同时加入“*”）。`,
  );
}

/**
 * Resolves `host` once and judges every address it has: one that is not public refuses the whole
 * host (a resolver may hand out any of them), unless the person named the host exactly. The
 * caller connects to the returned addresses only (pinnedLookup), so a second answer from a
 * rebinding DNS server is never asked for.
 */
export async function checkDestination(
  host: string,
  options: { explicitlyAllowed: boolean; resolve?: HostResolver | undefined },
): Promise<CheckedDestination> {
  const name = host
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.+$/, '');
  const literal = ipLiteral(name);
  const before = classifyHost(name);
  if (before !== undefined && before !== 'public' && !options.explicitlyAllowed) {
    throw new AppError('POLICY_BLOCKED', privateAddressRefusal(name, before));
  }
  if (literal !== undefined)
    return { host: name, addresses: [{ address: literal, family: literal.includes(':') ? 6 : 4 }] };
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolve ?? systemResolver)(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new AppError('TOOL_FAILED', `${name} could not be resolved (${code}).`, { cause: error });
  }
  if (addresses.length === 0) throw new AppError('TOOL_FAILED', `${name} could not be resolved (no address).`);
  if (!options.explicitlyAllowed) {
    for (const { address } of addresses) {
      const kind = classifyIp(address) ?? 'reserved';
      if (kind !== 'public') throw new AppError('POLICY_BLOCKED', privateAddressRefusal(name, kind, address));
    }
  }
  return { host: name, addresses };
}

/**
 * A `lookup` for http.request and net.connect that answers with the checked addresses only, so
 * the connection goes where the policy looked and nowhere a later DNS answer points.
 */
export function pinnedLookup(destination: CheckedDestination): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
    const candidates = destination.addresses.filter((entry) => wanted === undefined || entry.family === wanted);
    const first = candidates[0];
    if (
      hostname
        .replace(/^\[(.*)\]$/, '$1')
        .replace(/\.+$/, '')
        .toLowerCase() !== destination.host ||
      !first
    ) {
      const error: NodeJS.ErrnoException = new Error(`${hostname} was not the checked destination.`);
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
      return;
    }
    if (options.all) callback(null, candidates);
    else callback(null, first.address, first.family);
  };
}
