import fs from 'node:fs';
import type os from 'node:os';

import { describe, expect, it } from 'vitest';

import {
  cpuUsagePercent,
  diskInfo,
  gibibytes,
  listInterfaces,
  percentOf,
  pickMainIPv4,
  readDisks,
  withTimeout,
  type NetworkInterfaceSummary,
} from './common.js';

const cpu = (user: number, sys: number, idle: number): os.CpuInfo => ({
  model: 'Test CPU',
  speed: 3000,
  times: { user, nice: 0, sys, idle, irq: 0 },
});

describe('numbers', () => {
  it('rounds GiB to two decimals and percentages to one, clamped', () => {
    expect(gibibytes(16 * 1024 ** 3)).toBe(16);
    expect(gibibytes(1_500_000_000)).toBe(1.4);
    expect(percentOf(1, 3)).toBe(33.3);
    expect(percentOf(5, 0)).toBe(0);
    expect(percentOf(-1, 10)).toBe(0);
    expect(percentOf(11, 10)).toBe(100);
  });

  it('computes CPU usage over all cores between two samples', () => {
    const before = [cpu(100, 50, 1000), cpu(200, 0, 2000)];
    // Core 0: 30 busy of 100; core 1: 70 busy of 100.
    const after = [cpu(120, 60, 1070), cpu(270, 0, 2030)];
    expect(cpuUsagePercent(before, after)).toBe(50);
    expect(cpuUsagePercent(before, before)).toBe(0);
  });

  it('computes disk rows the way df does', () => {
    // The numbers of an ext4 root with a large reservation: df says 23 % used.
    const size = { blocks: 66_053_021, bfree: 59_961_877, bavail: 20_506_584, bsize: 4096 };
    expect(diskInfo({ drive: '/', filesystem: 'ext4' }, size)).toEqual({
      drive: '/',
      filesystem: 'ext4',
      total_gb: 251.97,
      free_gb: 78.23,
      usage_percent: 22.9,
    });
    expect(
      diskInfo({ drive: 'C:', path: 'C:\\' }, { blocks: 1000, bfree: 250, bavail: 250, bsize: 1024 ** 2 }),
    ).toEqual({
      drive: 'C:',
      total_gb: 0.98,
      free_gb: 0.24,
      usage_percent: 75,
    });
    expect(diskInfo({ drive: '/proc' }, { blocks: 0, bfree: 0, bavail: 0, bsize: 4096 })).toBeUndefined();
  });
});

describe('readDisks', () => {
  it('reads real filesystems and skips the ones that cannot be read', async () => {
    const reading = await readDisks([{ drive: '/', filesystem: 'ext4' }, { drive: '/no/such/mount/point' }]);
    expect(reading.warnings).toEqual([]);
    expect(reading.value).toHaveLength(1);
    const root = fs.statfsSync('/');
    expect(reading.value[0]).toMatchObject({ drive: '/', total_gb: gibibytes(root.blocks * root.bsize) });
  });

  it('warns only when nothing could be read, and says why', async () => {
    const reading = await readDisks([{ drive: '/no/such/mount/point' }]);
    expect(reading.value).toEqual([]);
    expect(reading.warnings).toHaveLength(1);
    expect(reading.warnings[0]).toMatch(/^disk: no filesystem could be read \(\/no\/such\/mount\/point: ENOENT/);
    expect(await readDisks([])).toEqual({ value: [], warnings: ['disk: no mounted filesystem was found'] });
  });

  it('gives up on work that does not finish in time', async () => {
    const never = new Promise<never>(() => undefined);
    await expect(withTimeout(never, 10, 'statfs /stuck')).rejects.toThrow('statfs /stuck did not answer within 10 ms');
    await expect(withTimeout(Promise.resolve(7), 10, 'quick')).resolves.toBe(7);
  });
});

describe('network', () => {
  const address = (family: 'IPv4' | 'IPv6', value: string, internal = false): os.NetworkInterfaceInfo =>
    family === 'IPv4'
      ? { family, address: value, internal, netmask: '255.255.255.0', mac: '02:00:00:00:00:01', cidr: null }
      : { family, address: value, internal, netmask: 'ffff::', mac: '02:00:00:00:00:01', cidr: null, scopeid: 0 };

  it('lists non-internal addresses', () => {
    expect(
      listInterfaces({
        lo: [address('IPv4', '127.0.0.1', true), address('IPv6', '::1', true)],
        eth0: [address('IPv4', '192.168.1.20'), address('IPv6', 'fe80::1')],
      }),
    ).toEqual([
      { name: 'eth0', address: '192.168.1.20', family: 'IPv4', mac: '02:00:00:00:00:01' },
      { name: 'eth0', address: 'fe80::1', family: 'IPv6', mac: '02:00:00:00:00:01' },
    ]);
  });

  const entry = (name: string, value: string, family: 'IPv4' | 'IPv6' = 'IPv4'): NetworkInterfaceSummary => ({
    name,
    address: value,
    family,
    mac: '02:00:00:00:00:01',
  });

  it('prefers the default-route interface, then a physical one, and never link-local', () => {
    const interfaces = [
      entry('docker0', '172.17.0.1'),
      entry('wlp2s0', '192.168.1.20'),
      entry('enp0s31f6', '10.0.0.5'),
      entry('tailscale0', '100.64.0.3'),
    ];
    expect(pickMainIPv4(interfaces, 'enp0s31f6')).toBe('10.0.0.5');
    expect(pickMainIPv4(interfaces)).toBe('192.168.1.20');
    expect(pickMainIPv4([entry('vEthernet (WSL)', '172.28.0.1'), entry('Wi-Fi', '192.168.0.7')])).toBe('192.168.0.7');
    expect(pickMainIPv4([entry('en0', '169.254.10.2'), entry('utun3', '10.8.0.2')])).toBe('10.8.0.2');
    expect(pickMainIPv4([entry('en0', 'fe80::1', 'IPv6')])).toBeNull();
    expect(pickMainIPv4([])).toBeNull();
  });
});
