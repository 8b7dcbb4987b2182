import os from 'node:os';

import { AppError, getTool } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { currentPlatform } from '../../core/current-platform.js';
import type { SystemInfoAdapter } from './common.js';
import { collectSystemInfo, systemInfoAdapter } from './index.js';
import { linuxSystemInfo } from './linux.js';
import { macosSystemInfo } from './macos.js';
import { windowsSystemInfo } from './windows.js';

/** An adapter with fixed answers, so the assembly can be checked apart from this machine. */
function fakeAdapter(overrides: Partial<SystemInfoAdapter> = {}): SystemInfoAdapter {
  return {
    platform: 'windows',
    hasLoadAverage: false,
    describeOs: async () => ({ value: { name: 'Windows 11 Pro (10.0.22631)', version: '10.0.22631' }, warnings: [] }),
    availableMemory: async () => ({ value: 1024, warnings: [] }),
    diskCandidates: async () => ({ value: [{ drive: 'C:', path: '/' }], warnings: [] }),
    displays: async () => ({
      value: [{ id: 0, name: '\\\\.\\DISPLAY1', width: 1920, height: 1080, x: 0, y: 0, scale: 1.25, primary: true }],
      warnings: [],
    }),
    defaultRouteInterface: async () => undefined,
    ...overrides,
  };
}

const signal = new AbortController().signal;
// `systemInfo` itself is not exported from @nextai/shared; the catalog lookup gives the same spec.
const systemInfo = getTool('system_info');

describe('collectSystemInfo', () => {
  it('assembles the summary and every section from the adapter and node:os', async () => {
    const output = await collectSystemInfo(undefined, { env: {}, signal, adapter: fakeAdapter() });
    expect(systemInfo.output.parse(output)).toEqual(output);
    expect(output).toMatchObject({
      os: 'Windows 11 Pro (10.0.22631)',
      arch: os.arch(),
      cpus: os.cpus().length,
      memory_total: os.totalmem(),
      memory_free: 1024,
      displays: [{ id: 0, width: 1920, height: 1080, scale: 1.25 }],
      system: { os: 'Windows 11 Pro (10.0.22631)', platform: 'windows', version: '10.0.22631' },
      disk: [{ drive: 'C:' }],
    });
    // Windows has no load average.
    expect(output.cpu).not.toHaveProperty('load_average');
    expect(output).not.toHaveProperty('warnings');
  });

  it('includes only the sections asked for, and the summary always', async () => {
    const output = await collectSystemInfo(['memory', 'network'], { env: {}, signal, adapter: fakeAdapter() });
    expect(Object.keys(output).sort()).toEqual(
      ['arch', 'cpus', 'displays', 'memory', 'memory_free', 'memory_total', 'network', 'os'].sort(),
    );
    expect(output.memory?.usage_percent).toBe(Math.round(((os.totalmem() - 1024) / os.totalmem()) * 1000) / 10);
  });

  it('gathers the warnings of every part', async () => {
    const adapter = fakeAdapter({
      platform: 'linux',
      hasLoadAverage: true,
      describeOs: async () => ({ value: { name: 'Linux 6.1.0', version: '6.1.0' }, warnings: ['os: no os-release'] }),
      displays: async () => ({ value: [], warnings: ['displays: no X display (DISPLAY is not set)'] }),
      diskCandidates: async () => ({ value: [{ drive: '/no/such/disk' }], warnings: [] }),
    });
    const output = await collectSystemInfo(['cpu', 'disk'], { env: {}, signal, adapter });
    expect(systemInfo.output.parse(output)).toEqual(output);
    expect(output.displays).toEqual([]);
    expect(output.disk).toEqual([]);
    expect(output.cpu?.load_average).toHaveLength(3);
    expect(output.warnings).toEqual([
      'os: no os-release',
      'displays: no X display (DISPLAY is not set)',
      expect.stringMatching(/^disk: no filesystem could be read \(\/no\/such\/disk: ENOENT/),
    ]);
  });

  it('never reports more memory free than there is', async () => {
    const adapter = fakeAdapter({ availableMemory: async () => ({ value: Number.MAX_SAFE_INTEGER, warnings: [] }) });
    const output = await collectSystemInfo(['memory'], { env: {}, signal, adapter });
    expect(output.memory_free).toBe(os.totalmem());
    expect(output.memory?.usage_percent).toBe(0);
  });

  it('stops with the reason of a cancelled call', async () => {
    const controller = new AbortController();
    const reason = new AppError('DISCONNECTED', 'The daemon is shutting down.');
    controller.abort(reason);
    await expect(
      collectSystemInfo(undefined, { env: {}, signal: controller.signal, adapter: fakeAdapter() }),
    ).rejects.toBe(reason);
  });
});

describe('systemInfoAdapter', () => {
  it('has one adapter per platform and picks the running one by default', () => {
    expect(systemInfoAdapter('linux')).toBe(linuxSystemInfo);
    expect(systemInfoAdapter('macos')).toBe(macosSystemInfo);
    expect(systemInfoAdapter('windows')).toBe(windowsSystemInfo);
    expect(systemInfoAdapter().platform).toBe(currentPlatform());
  });
});
