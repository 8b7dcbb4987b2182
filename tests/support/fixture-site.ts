import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { build } from 'esbuild';

import { REPO_ROOT } from './paths.js';

const SITE_DIR = path.join(REPO_ROOT, 'tests/fixtures/site');

/** The host the tests put on the domain block list: the same server, on another loopback address. */
export const BLOCKED_HOST = '127.0.0.2';

export interface RecordedRequest {
  method: string;
  host: string;
  path: string;
  body: string;
}

export interface FixtureSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  url(page: string): string;
  /** Every request the site received, in order. */
  requests: RecordedRequest[];
  /** Requests that reached the blocked host. */
  blockedHits(): RecordedRequest[];
  /** Form posts received under /submit/<name>. */
  submissions(name: string): RecordedRequest[];
  /**
   * `/never`: a page that starts and never finishes loading. How many such loads are open now, and
   * how many the browser gave up on (closed before the page ended).
   */
  neverLoads(): { open: number; abandoned: number };
  close(): Promise<void>;
}

let reactBundle: Promise<string> | undefined;

/** The React fixture, bundled once per process with the repository's own React. */
function reactForm(): Promise<string> {
  reactBundle ??= build({
    entryPoints: [path.join(SITE_DIR, 'react-form.tsx')],
    bundle: true,
    format: 'iife',
    minify: true,
    write: false,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  }).then((result) => result.outputFiles[0]!.text);
  return reactBundle;
}

const ITEMS_PER_PAGE = 20;
const ITEM_PAGES = 5;

/**
 * The local fixture site of the browser tools' tests, on 127.0.0.1 and — as the
 * "blocked" partner host — 127.0.0.2, same port; `localhost` serves as another origin for frames.
 */
export async function startFixtureSite(): Promise<FixtureSite> {
  const requests: RecordedRequest[] = [];
  const never = { open: 0, abandoned: 0 };
  const handler = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
    requests.push({
      method: request.method ?? 'GET',
      host: url.hostname,
      path: `${url.pathname}${url.search}`,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    // `?cacheable`: a page the browser may keep in its back/forward cache (no-store pages are not).
    const caching = url.searchParams.has('cacheable') ? {} : { 'cache-control': 'no-store' };
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': type, ...caching, ...headers });
      response.end(body);
    };
    const port = (server.address() as AddressInfo).port;
    if (url.pathname === '/') return send(302, 'text/plain', '', { location: '/index.html' });
    if (url.pathname === '/react-form.js') return send(200, 'text/javascript', await reactForm());
    if (url.pathname === '/api/items') {
      const page = Number(url.searchParams.get('page') ?? 0);
      const items = Array.from({ length: ITEMS_PER_PAGE }, (_, i) => `Story ${page * ITEMS_PER_PAGE + i + 1}`);
      return send(200, 'application/json', JSON.stringify({ items, last: page >= ITEM_PAGES - 1 }));
    }
    if (url.pathname === '/js-hop') {
      // A page that sends itself on with script, `n` times, then arrives.
      const left = Number(url.searchParams.get('n') ?? 0);
      if (left <= 0) return send(200, 'text/html', '<!doctype html><title>Arrived</title><h1>Arrived</h1>');
      return send(
        200,
        'text/html',
        `<!doctype html><title>Hop ${left}</title><script>location.replace('/js-hop?n=${left - 1}')</script>`,
      );
    }
    if (url.pathname === '/never') {
      // A page whose body never ends (a stuck server, a stream): the browser keeps loading it.
      never.open += 1;
      response.writeHead(200, { 'content-type': 'text/html' });
      response.write('<!doctype html><title>Loading forever</title><p>Still loading');
      response.on('close', () => {
        never.open -= 1;
        never.abandoned += 1;
      });
      return;
    }
    if (url.pathname === '/slow') {
      await new Promise((resolve) => setTimeout(resolve, Number(url.searchParams.get('ms') ?? 500)));
      return send(200, 'application/json', JSON.stringify({ total: 42 }));
    }
    if (url.pathname === '/redirect') {
      const to =
        url.searchParams.get('to') === 'blocked'
          ? `http://${BLOCKED_HOST}:${port}/landing.html`
          : (url.searchParams.get('to') ?? '/');
      return send(302, 'text/plain', '', { location: to });
    }
    if (url.pathname.startsWith('/submit/')) {
      return send(200, 'text/html', '<!doctype html><title>Received</title><h1>Received</h1>');
    }
    if (url.pathname === '/download/fix.sh') {
      return send(200, 'application/x-sh', '#!/bin/sh\necho pwned\n', {
        'content-disposition': 'attachment; filename="fix.sh"',
      });
    }
    const file = path.join(SITE_DIR, path.normalize(url.pathname).replace(/^[/\\]+/, ''));
    if (file.startsWith(SITE_DIR) && file.endsWith('.html') && fs.existsSync(file)) {
      return send(200, 'text/html; charset=utf-8', fs.readFileSync(file, 'utf8'));
    }
    return send(404, 'text/plain', 'not found');
  };
  const serve = (request: http.IncomingMessage, response: http.ServerResponse) => {
    handler(request, response).catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  };
  const server = http.createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const blocked = http.createServer(serve);
  await new Promise<void>((resolve) => blocked.listen(port, BLOCKED_HOST, resolve));
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    url: (page) => `${origin}/${page.replace(/^\//, '')}`,
    requests,
    blockedHits: () => requests.filter((request) => request.host === BLOCKED_HOST),
    submissions: (name) => requests.filter((request) => request.path === `/submit/${name}`),
    neverLoads: () => ({ ...never }),
    close: async () => {
      server.closeAllConnections();
      blocked.closeAllConnections();
      await Promise.all([
        new Promise((resolve) => server.close(resolve)),
        new Promise((resolve) => blocked.close(resolve)),
      ]);
    },
  };
}
