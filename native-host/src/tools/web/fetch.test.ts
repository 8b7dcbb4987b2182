import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import zlib from 'node:zlib';

import { securityConfigSchema, type SecurityConfig } from '@nextai/shared';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../core/logger.js';
import { dataPaths } from '../../core/paths.js';
import type { HostResolver } from '../../policy/guards/destination.js';
import type { ToolContext } from '../types.js';
import { webFetch } from './fetch.js';

/**
 * One real server on 127.0.0.1. It records the host every request named, so a test can tell
 * which requests reached it; `/to?url=…` redirects anywhere.
 */
let server: http.Server;
let port: number;
const hosts: string[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    hosts.push(host);
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname === '/away') {
      response.writeHead(302, { location: `http://localhost:${port}/landing` }).end();
      return;
    }
    if (url.pathname === '/to') {
      response.writeHead(302, { location: url.searchParams.get('url') ?? '/' }).end();
      return;
    }
    if (url.pathname === '/gzip') {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(zlib.gzipSync(`compressed hello from ${host}`));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/plain' }).end(`hello from ${host}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  hosts.length = 0;
});

const defaults: SecurityConfig = securityConfigSchema.parse({});
/** The escape hatch: every public site ("*") and the hosts named exactly. */
const naming = (...named: string[]): SecurityConfig => securityConfigSchema.parse({ allowed_domains: ['*', ...named] });
const context = (grantedDomains?: string[]): ToolContext => ({
  signal: new AbortController().signal,
  paths: dataPaths(os.tmpdir(), 'linux'),
  log: createLogger({ component: 'test', level: 'error' }),
  ...(grantedDomains ? { grantedDomains } : {}),
});
const input = (url: string) => ({ url, format: 'text' as const, max_bytes: 100_000 });
const fetchWith = (url: string, security: SecurityConfig, resolve?: HostResolver, grantedDomains?: string[]) =>
  webFetch(input(url), context(grantedDomains), { security: () => security }, resolve);

/** A DNS server under the test's control: public-looking names that answer 127.0.0.1. */
function resolverOf(answers: Record<string, string>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve: HostResolver = (host) => {
    calls.push(host);
    const address = answers[host];
    if (address === undefined) return Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
    return Promise.resolve([{ address, family: 4 }]);
  };
  return Object.assign(resolve, { calls });
}

describe('web_fetch and this computer, the local network, the cloud metadata service', () => {
  it('refuses 127.0.0.1 and localhost by default, before any request reaches them', async () => {
    for (const url of [
      `http://127.0.0.1:${port}/hello`,
      `http://localhost:${port}/hello`,
      `http://2130706433:${port}/hello`,
      `http://0x7f.1:${port}/hello`,
      `http://[::ffff:127.0.0.1]:${port}/hello`,
    ]) {
      await expect(fetchWith(url, defaults), url).rejects.toMatchObject({
        code: 'POLICY_BLOCKED',
        message: expect.stringMatching(/loopback address.*security\.allowed_domains/),
      });
    }
    expect(hosts).toEqual([]);
  });

  it('refuses the metadata address, saying how to allow it, in English and Chinese', async () => {
    const refused = fetchWith('http://169.254.169.254/latest/meta-data/iam/security-credentials/', defaults);
    await expect(refused).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
      message: expect.stringContaining('add "169.254.169.254" to security.allowed_domains'),
      translations: { 'zh-CN': expect.stringContaining('云元数据服务') },
    });
  });

  it('refuses a public-looking name that resolves to 127.0.0.1', async () => {
    const dns = resolverOf({ 'intranet-rebind.test': '127.0.0.1' });
    await expect(fetchWith(`http://intranet-rebind.test:${port}/hello`, defaults, dns)).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
      message: expect.stringContaining('intranet-rebind.test resolves to 127.0.0.1, a loopback address'),
    });
    // Neither "*" nor a wildcard that covers it names it.
    await expect(fetchWith(`http://intranet-rebind.test:${port}/hello`, naming('*.test'), dns)).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
    });
    expect(hosts).toEqual([]);
  });

  it('fetches a loopback host the configuration names exactly', async () => {
    expect((await fetchWith(`http://127.0.0.1:${port}/hello`, naming('127.0.0.1'))).content).toBe(
      'hello from 127.0.0.1',
    );
    expect((await fetchWith(`http://localhost:${port}/gzip`, naming('localhost'))).content).toBe(
      'compressed hello from localhost',
    );
    expect(hosts).toEqual(['127.0.0.1', 'localhost']);
  });

  it('connects to the address it checked: a named host is fetched through that address, resolved once', async () => {
    // No DNS server knows intranet.test: the fetch succeeds only if the connection goes to the
    // address the check was made on, not to a second lookup's answer.
    const dns = resolverOf({ 'intranet.test': '127.0.0.1' });
    const result = await fetchWith(`http://intranet.test:${port}/hello`, naming('intranet.test'), dns);
    expect(result.content).toBe('hello from intranet.test');
    expect(dns.calls).toEqual(['intranet.test']);
  });

  it('checks every redirect: a named host cannot lead to the metadata service or to another loopback name', async () => {
    const toMetadata = `http://localhost:${port}/to?url=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`;
    await expect(fetchWith(toMetadata, naming('localhost'))).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
      message: expect.stringMatching(
        /^The address redirected to http:\/\/169\.254\.169\.254\/latest\/meta-data\/: .*metadata/,
      ),
    });
    const toLoopback = `http://localhost:${port}/to?url=${encodeURIComponent(`http://127.0.0.1:${port}/hello`)}`;
    await expect(fetchWith(toLoopback, naming('localhost'))).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
      message: expect.stringContaining(`redirected to http://127.0.0.1:${port}/hello`),
    });
    expect(hosts).toEqual(['localhost', 'localhost']);
  });

  it('checks every redirect after DNS: a named host cannot lead to a name that resolves to 127.0.0.1', async () => {
    const dns = resolverOf({ 'named.test': '127.0.0.1', 'elsewhere.test': '127.0.0.1' });
    const url = `http://named.test:${port}/to?url=${encodeURIComponent(`http://elsewhere.test:${port}/hello`)}`;
    await expect(fetchWith(url, naming('named.test'), dns)).rejects.toMatchObject({
      code: 'POLICY_BLOCKED',
      message: expect.stringContaining('elsewhere.test resolves to 127.0.0.1'),
    });
    expect(hosts).toEqual(['named.test']);
  });
});

describe('web_fetch redirects', () => {
  it('follows a redirect the policy allows', async () => {
    const result = await fetchWith(`http://127.0.0.1:${port}/away`, naming('127.0.0.1', 'localhost'));
    expect(result).toMatchObject({ url: `http://localhost:${port}/landing`, content: 'hello from localhost' });
  });

  it("stops a redirect that leaves the call's granted domains, before contacting the new host", async () => {
    await expect(
      fetchWith(`http://127.0.0.1:${port}/away`, naming('127.0.0.1', 'localhost'), undefined, ['127.0.0.1']),
    ).rejects.toMatchObject({ code: 'POLICY_BLOCKED', message: expect.stringContaining('redirected to') });
    expect(hosts).toEqual(['127.0.0.1']);
  });

  it('gives up after ten redirects', async () => {
    let url = `http://127.0.0.1:${port}/hello`;
    for (let hop = 0; hop < 11; hop += 1) url = `http://127.0.0.1:${port}/to?url=${encodeURIComponent(url)}`;
    await expect(fetchWith(url, naming('127.0.0.1'))).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('redirected more than 10 times'),
    });
  });
});
