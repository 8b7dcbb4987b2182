import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { classifyHost, classifyIp, ipLiteral, specialUseName, type AddressClass } from './address-class.js';

/** [host as a URL may carry it, what it is] */
const HOSTS: [string, AddressClass | undefined][] = [
  // Loopback, in every spelling the URL parser (and so every browser) reads as 127.0.0.1.
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['2130706433', 'loopback'],
  ['0x7f000001', 'loopback'],
  ['017700000001', 'loopback'],
  ['0x7f.1', 'loopback'],
  ['0x7F.0.0.1', 'loopback'],
  ['0177.0.0.1', 'loopback'],
  ['127.1', 'loopback'],
  ['127.0.1', 'loopback'],
  ['%31%32%37.0.0.1', 'loopback'],
  ['127。0。0。1', 'loopback'],
  ['[::1]', 'loopback'],
  ['::1', 'loopback'],
  ['[0:0:0:0:0:0:0:1]', 'loopback'],
  ['[::ffff:127.0.0.1]', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback'],
  ['[0:0:0:0:0:ffff:7f00:1]', 'loopback'],
  ['[64:ff9b::127.0.0.1]', 'loopback'], // NAT64 of a loopback address
  ['[2002:7f00:1::]', 'loopback'], // 6to4 of 127.0.0.1
  ['localhost', 'loopback'],
  ['LOCALHOST', 'loopback'],
  ['localhost.', 'loopback'],
  ['app.localhost', 'loopback'],
  // The unspecified address: connecting to it reaches this computer.
  ['0.0.0.0', 'unspecified'],
  ['0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['[::]', 'unspecified'],
  // Cloud metadata and the rest of link-local.
  ['169.254.169.254', 'metadata'],
  ['2852039166', 'metadata'],
  ['0xa9fea9fe', 'metadata'],
  ['0251.0376.0251.0376', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['[fd00:ec2::254]', 'metadata'],
  ['[::ffff:169.254.169.254]', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['metadata.google.internal', 'metadata'],
  ['metadata.goog', 'metadata'],
  ['169.254.1.1', 'link-local'],
  ['[fe80::1]', 'link-local'],
  ['[febf::1]', 'link-local'],
  ['printer.local', 'link-local'],
  // Private networks.
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['3232235777', 'private'],
  ['0xc0.0xa8.1.1', 'private'],
  ['100.64.0.1', 'private'],
  ['100.127.255.255', 'private'],
  ['[fc00::1]', 'private'],
  ['[fdff:ffff::1]', 'private'],
  ['[fec0::1]', 'private'],
  ['[64:ff9b:1::a00:1]', 'private'],
  ['[::ffff:10.0.0.1]', 'private'],
  ['router.internal', 'private'],
  ['nas.home.arpa', 'private'],
  // Multicast, broadcast, reserved.
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['[ff02::1]', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['[2001:db8::1]', 'reserved'],
  ['[2001::1]', 'reserved'], // Teredo
  ['[100::1]', 'reserved'],
  ['[::127.0.0.1]', 'reserved'], // the deprecated IPv4-compatible form
  ['[4000::1]', 'reserved'], // outside 2000::/3, not handed out
  ['[3fff::1]', 'reserved'],
  // Public.
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['172.32.0.1', 'public'],
  ['172.15.255.255', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.1', 'public'],
  ['169.253.255.255', 'public'],
  ['192.169.0.1', 'public'],
  ['11.0.0.1', 'public'],
  ['[2606:4700:4700::1111]', 'public'],
  ['[2001:4860:4860::8888]', 'public'],
  ['[::ffff:8.8.8.8]', 'public'],
  ['[64:ff9b::808:808]', 'public'], // NAT64 networks reach public sites through this prefix
  ['[2002:808:808::1]', 'public'],
  // Ordinary names: only their DNS answers can tell.
  ['example.com', undefined],
  ['localhost.example.com', undefined],
  ['127.0.0.1.nip.io', undefined],
  ['internal.example.com', undefined],
  ['notlocalhost', undefined],
];

describe('classifying a URL host', () => {
  it.each(HOSTS)('%s is %s', (host, expected) => {
    expect(classifyHost(host)).toBe(expected);
  });

  it('reads odd IPv4 and IPv6 spellings as their canonical address', () => {
    expect(ipLiteral('0x7f.1')).toBe('127.0.0.1');
    expect(ipLiteral('2130706433')).toBe('127.0.0.1');
    expect(ipLiteral('[::ffff:127.0.0.1]')).toBe('::ffff:7f00:1');
    expect(ipLiteral('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(ipLiteral('example.com')).toBeUndefined();
    expect(ipLiteral('1.2.3.4.5')).toBeUndefined();
    expect(ipLiteral('')).toBeUndefined();
  });

  it('names special-use names, not names that merely contain them', () => {
    expect(specialUseName('db.localhost.')).toBe('loopback');
    expect(specialUseName('localhost.evil.com')).toBeUndefined();
    expect(specialUseName('mylocal')).toBeUndefined();
  });
});

describe('classifying a resolved address', () => {
  it('takes an IPv6 zone and says undefined for what is not an address', () => {
    expect(classifyIp('fe80::1%eth0')).toBe('link-local');
    expect(classifyIp('localhost')).toBeUndefined();
    expect(classifyIp('0x7f.1')).toBeUndefined();
  });

  it('judges an IPv4-mapped IPv6 address exactly as its IPv4 address, for any address', () => {
    fc.assert(
      fc.property(fc.ipV4(), (address) => {
        const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
        const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
        expect(classifyIp(`::ffff:${address}`)).toBe(classifyIp(address));
        expect(classifyIp(`::ffff:${hex(a, b)}:${hex(c, d)}`)).toBe(classifyIp(address));
        expect(classifyIp(`64:ff9b::${address}`)).toBe(classifyIp(address));
      }),
      { numRuns: 500 },
    );
  });
});
