import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';

import { getTool } from '@nextai/shared';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { createLogger } from '../core/logger.js';
import { dataPaths } from '../core/paths.js';
import { currentPlatform } from '../core/current-platform.js';
import { systemInfoHandler } from './system-info.js';
import type { ToolContext } from './types.js';

// `systemInfo` itself is not exported from @nextai/shared; the catalog lookup gives the same spec.
const systemInfo = getTool('system_info');

let dataDir: string;
let context: ToolContext;

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nextai-system-info-'));
  context = {
    signal: new AbortController().signal,
    paths: dataPaths(dataDir),
    log: createLogger({ component: 'test', level: 'error' }),
  };
});

afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('system_info on this machine', () => {
  it('returns real values that match the catalog schema', async () => {
    vi.stubEnv('DISPLAY', undefined);
    const output = systemInfo.output.parse(await systemInfoHandler(systemInfo.input.parse({}), context));

    expect(currentPlatform()).toBe('linux');
    expect(output.cpus).toBe(os.cpus().length);
    expect(output.memory_total).toBe(os.totalmem());
    expect(output.memory_free).toBeGreaterThan(0);
    expect(output.memory_free).toBeLessThanOrEqual(os.totalmem());
    expect(output.arch).toBe(os.arch());

    const prettyName = /^PRETTY_NAME="?(.*?)"?$/m.exec(fs.readFileSync('/etc/os-release', 'utf8'))?.[1];
    expect(output.os).toBe(prettyName);
    expect(output.system).toMatchObject({
      os: prettyName,
      platform: 'linux',
      kernel: os.release(),
      hostname: os.hostname(),
      architecture: os.arch(),
    });
    expect(output.system?.uptime_seconds).toBeGreaterThan(0);

    expect(output.cpu?.cores).toBe(os.cpus().length);
    expect(output.cpu?.name).toBe(os.cpus()[0]?.model.trim());
    expect(output.cpu?.load_average).toHaveLength(3);

    expect(output.memory?.total_gb).toBe(Math.round((os.totalmem() / 1024 ** 3) * 100) / 100);

    const root = output.disk?.find((disk) => disk.drive === '/');
    const rootStats = fs.statfsSync('/');
    expect(root?.total_gb).toBe(Math.round(((rootStats.blocks * rootStats.bsize) / 1024 ** 3) * 100) / 100);

    expect(output.network?.hostname).toBe(os.hostname());
    const ipv4 = Object.values(os.networkInterfaces())
      .flat()
      .filter((address) => address && !address.internal && address.family === 'IPv4')
      .map((address) => address?.address);
    // This machine has a non-loopback IPv4 address, so the main one is one of them.
    expect(ipv4).toContain(output.network?.ip_address);
    expect(output.network?.interfaces.length).toBeGreaterThan(0);

    expect(output.displays).toEqual([]);
    expect(output.warnings).toEqual(['displays: no X display (DISPLAY is not set)']);
  });

  it('includes only the sections asked for', async () => {
    vi.stubEnv('DISPLAY', undefined);
    const output = systemInfo.output.parse(
      await systemInfoHandler(systemInfo.input.parse({ categories: ['cpu'] }), context),
    );
    expect(output.cpu).toBeDefined();
    for (const section of ['system', 'memory', 'disk', 'network'] as const) expect(output).not.toHaveProperty(section);
    expect(output.cpus).toBe(os.cpus().length);
    expect(output.memory_total).toBe(os.totalmem());
  });
});

/**
 * Starts Xvfb and resolves once it accepts clients: with `-displayfd` the server picks a free
 * display number and writes it to that descriptor when it is ready, so there is nothing to poll.
 */
async function startXvfb(): Promise<{ display: string; server: ChildProcess }> {
  const server = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const displayNumber = await new Promise<string>((resolve, reject) => {
    let written = '';
    (server.stdio[3] as Readable).on('data', (chunk: Buffer) => {
      written += chunk.toString();
      if (written.includes('\n')) resolve(written.trim());
    });
    server.once('error', reject);
    server.once('exit', (code, signal) =>
      reject(new Error(`Xvfb exited (${code ?? signal}) before it was ready: ${stderr}`)),
    );
  });
  return { display: `:${displayNumber}`, server };
}

describe('system_info with an X server', () => {
  let xvfb: { display: string; server: ChildProcess };

  beforeAll(async () => {
    xvfb = await startXvfb();
  });

  afterAll(async () => {
    if (xvfb.server.exitCode !== null) return;
    const exited = once(xvfb.server, 'exit');
    xvfb.server.kill('SIGTERM');
    await exited;
  });

  it('reads the screen through xrandr', async () => {
    vi.stubEnv('DISPLAY', xvfb.display);
    const output = systemInfo.output.parse(
      await systemInfoHandler(systemInfo.input.parse({ categories: ['os'] }), context),
    );
    expect(output.displays).toEqual([
      { id: 0, name: 'screen', width: 1280, height: 800, x: 0, y: 0, scale: 1, primary: false },
    ]);
    expect(output).not.toHaveProperty('warnings');
  });
});
