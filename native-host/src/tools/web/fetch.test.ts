import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';

import { securityConfigSchema, type SecurityConfig } from '@nextai/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../logger.js';
import { dataPaths } from '../../paths.js';
import type { ToolContext } from '../types.js';
import { webFetch } from './fetch.js';

/** One server on 127.0.0.1 that redirects to itself under another host name (localhost). */
let server: http.Server;
let port: number;
const hosts: string[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '');
    hosts.push(host);
    if (request.url === '/away') {
      response.writeHead(302, { location: `http://localhost:${port}/landing` }).end();
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

const security: SecurityConfig = securityConfigSchema.parse({});
const context = (grantedDomains?: string[]): ToolContext => ({
  signal: new AbortController().signal,
  paths: dataPaths(os.tmpdir(), 'linux'),
  log: createLogger({ component: 'test', level: 'error' }),
  ...(grantedDomains ? { grantedDomains } : {}),
});
const input = (url: string) => ({ url, format: 'text' as const, max_bytes: 100_000 });

describe('web_fetch redirects', () => {
  it('follows a redirect the policy allows', async () => {
    const result = await webFetch(input(`http://127.0.0.1:${port}/away`), context(), { security: () => security });
    expect(result.content).toBe('hello from localhost');
  });

  it("stops a redirect that leaves the call's granted domains, before contacting the new host", async () => {
    hosts.length = 0;
    await expect(
      webFetch(input(`http://127.0.0.1:${port}/away`), context(['127.0.0.1']), { security: () => security }),
    ).rejects.toMatchObject({ code: 'POLICY_BLOCKED', message: expect.stringContaining('redirected to') });
    expect(hosts).toEqual(['127.0.0.1']);
  });
});
