import type { LookupAddress } from 'node:dns';

import { describe, expect, it } from 'vitest';

import { checkDestination, pinnedLookup, type HostResolver, type ResolvedAddress } from './destination.js';

/** A resolver with fixed answers that counts its lookups. */
function resolver(answers: Record<string, string[]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const found = answers[host];
    if (!found) return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return Object.assign(resolve, { calls });
}

describe('checking where a host leads', () => {
  const dns = resolver({
    'public.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'rebind.test': ['127.0.0.1'],
    'mixed.test': ['93.184.215.14', '10.0.0.7'],
    'metadata.test': ['169.254.169.254'],
    'mapped.test': ['::ffff:192.168.0.1'],
  });

  it('keeps the addresses of a public host, resolved once', async () => {
    const before = dns.calls.length;
    const destination = await checkDestination('public.test', { explicitlyAllowed: false, resolve: dns });
    expect(destination.addresses.map((entry) => entry.address)).toEqual([
      '93.184.215.14',
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
    ]);
    expect(dns.calls.slice(before)).toEqual(['public.test']);
  });

  it('refuses a name that resolves to a loopback, private or metadata address — any one of its addresses', async () => {
    for (const [host, pattern] of [
      ['rebind.test', /rebind\.test resolves to 127\.0\.0\.1, a loopback address/],
      ['mixed.test', /mixed\.test resolves to 10\.0\.0\.7, a private-network address/],
      ['metadata.test', /resolves to 169\.254\.169\.254, the cloud metadata service/],
      ['mapped.test', /resolves to ::ffff:192\.168\.0\.1, a private-network address/],
    ] as const) {
      await expect(checkDestination(host, { explicitlyAllowed: false, resolve: dns }), host).rejects.toMatchObject({
        code: 'POLICY_BLOCKED',
        message: expect.stringMatching(pattern),
      });
    }
  });

  it('refuses IP literals and special-use names without asking DNS', async () => {
    const before = dns.calls.length;
    for (const host of ['127.0.0.1', '[::1]', 'localhost', 'metadata.google.internal', '169.254.169.254']) {
      await expect(checkDestination(host, { explicitlyAllowed: false, resolve: dns }), host).rejects.toMatchObject({
        code: 'POLICY_BLOCKED',
      });
    }
    expect(dns.calls.length).toBe(before);
  });

  it('lets a host the person named reach what it resolves to', async () => {
    const destination = await checkDestination('rebind.test', { explicitlyAllowed: true, resolve: dns });
    expect(destination.addresses).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await checkDestination('[::1]', { explicitlyAllowed: true, resolve: dns })).toEqual({
      host: '::1',
      addresses: [{ address: '::1', family: 6 }],
    });
  });

  it('says when a name does not resolve', async () => {
    await expect(checkDestination('nowhere.test', { explicitlyAllowed: false, resolve: dns })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('ENOTFOUND'),
    });
  });
});

describe('the pinned lookup', () => {
  const destination = {
    host: 'public.test',
    addresses: [
      { address: '93.184.215.14', family: 4 as const },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 as const },
    ],
  };
  const lookup = (hostname: string, options: { all?: boolean; family?: number }) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>(
      (resolve) =>
        pinnedLookup(destination)(hostname, options, (error, address, family) => resolve({ error, address, family })),
    );

  it('answers with the checked addresses only, by family, one or all', async () => {
    expect(await lookup('public.test', {})).toMatchObject({ error: null, address: '93.184.215.14', family: 4 });
    expect(await lookup('PUBLIC.TEST.', { family: 6 })).toMatchObject({
      address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      family: 6,
    });
    expect((await lookup('public.test', { all: true })).address).toEqual(destination.addresses);
  });

  it('answers nothing for another host', async () => {
    expect((await lookup('other.test', {})).error?.code).toBe('ENOTFOUND');
  });
});
