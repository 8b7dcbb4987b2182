import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

import { AppError } from '@nextai/shared';

import type { Logger } from '../../core/logger.js';
import {
  checkDestination,
  pinnedLookup,
  type CheckedDestination,
  type HostResolver,
} from '../../policy/guards/destination.js';

export interface HostVerdict {
  allowed: boolean;
  reason?: string | undefined;
  /**
   * The person named this host exactly in security.allowed_domains: it may resolve to a loopback,
   * link-local, private or metadata address. Absent or false, such addresses are refused.
   */
  explicitlyAllowed?: boolean | undefined;
}

export type HostCheck = (url: string) => HostVerdict;

export interface BlockedRequest {
  url: string;
  host: string;
  reason: string;
  at: number;
}

const KEEP_BLOCKED = 100;

/**
 * A loopback HTTP proxy every request of the headless browser goes through (Chromium's
 * `--proxy-server`, loopback included): each request — navigations, redirects, frames, the page's
 * own requests — is checked against the domain policy, and a blocked host never gets a packet.
 * Playwright's routing does not see redirects, so the check sits where nothing passes around it.
 * Behind a proxy Chromium does no DNS of its own: the proxy resolves each host, refuses it when
 * an address is loopback, link-local, private or metadata (unless the person named the host),
 * and connects to the very addresses it judged, so a rebinding DNS answer has nothing to change.
 */
export class PolicyProxy {
  readonly blocked: BlockedRequest[] = [];
  private server: http.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    private readonly check: HostCheck,
    private readonly log: Logger,
    private readonly resolve?: HostResolver,
  ) {}

  async start(): Promise<string> {
    const server = http.createServer((request, response) => this.forward(request, response));
    server.on('connect', (request, socket, head) => this.tunnel(request, socket as net.Socket, head));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  blockedSince(at: number): BlockedRequest[] {
    return this.blocked.filter((entry) => entry.at >= at);
  }

  private refuse(url: string, host: string, reason: string): void {
    this.blocked.push({ url, host, reason, at: performance.now() });
    if (this.blocked.length > KEEP_BLOCKED) this.blocked.shift();
    this.log.info('headless browser request blocked by the domain policy', { host });
  }

  /**
   * The addresses `host` may be reached at, or undefined after refusing the request (`url`,
   * for the record) through `deny`.
   */
  private async destination(
    url: string,
    host: string,
    verdict: HostVerdict,
    deny: (status: number, reason: string) => void,
  ): Promise<CheckedDestination | undefined> {
    try {
      return await checkDestination(host, {
        explicitlyAllowed: verdict.explicitlyAllowed === true,
        resolve: this.resolve,
      });
    } catch (error) {
      const refused = error instanceof AppError && error.code === 'POLICY_BLOCKED';
      if (refused) this.refuse(url, host, error.message);
      deny(refused ? 403 : 502, (error as Error).message);
      return undefined;
    }
  }

  private forward(request: http.IncomingMessage, response: http.ServerResponse): void {
    const url = request.url ?? '';
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      response.writeHead(400).end('NextAI proxy: not a proxy request');
      return;
    }
    const deny = (status: number, reason: string) => {
      if (status === 403) {
        response.writeHead(403, { 'content-type': 'text/html; charset=utf-8', 'x-nextai-blocked': '1' });
        response.end(
          `<!doctype html><title>Blocked</title><h1>Blocked by NextAI's domain policy</h1><p>${escapeHtml(reason)}</p>`,
        );
      } else {
        response.writeHead(status).end(`NextAI proxy: ${reason}`);
      }
    };
    const verdict = this.check(url);
    if (!verdict.allowed) {
      this.refuse(url, target.hostname, verdict.reason ?? 'blocked');
      deny(403, verdict.reason ?? '');
      return;
    }
    void this.destination(url, target.hostname, verdict, deny).then((destination) => {
      if (!destination) return;
      const upstream = http.request(
        {
          host: destination.host,
          port: target.port || 80,
          method: request.method,
          path: `${target.pathname}${target.search}`,
          headers: withoutProxyHeaders(request.headers),
          lookup: pinnedLookup(destination),
        },
        (answer) => {
          // A server or a page that hangs up mid-answer must not take the daemon down with it.
          answer.on('error', () => response.destroy());
          response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', (error) => {
        if (response.headersSent) {
          response.destroy();
          return;
        }
        response.writeHead(502);
        response.end(`NextAI proxy: ${error.message}`);
      });
      request.on('error', () => upstream.destroy());
      response.on('error', () => upstream.destroy());
      request.pipe(upstream);
    });
  }

  private tunnel(request: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const [host = '', port = '443'] = splitHostPort(request.url ?? '');
    const url = `https://${host.includes(':') ? `[${host}]` : host}:${port}/`;
    const verdict = this.check(url);
    if (!verdict.allowed) {
      this.refuse(`https://${host}/`, host, verdict.reason ?? 'blocked');
      client.end('HTTP/1.1 403 Forbidden\r\nX-NextAI-Blocked: 1\r\n\r\n');
      return;
    }
    // While the host resolves, a browser that hangs up must not leave an unhandled 'error'
    // behind; what it sends meanwhile waits in the socket until it is piped.
    client.on('error', () => client.destroy());
    const deny = (status: number) =>
      client.end(
        status === 403
          ? 'HTTP/1.1 403 Forbidden\r\nX-NextAI-Blocked: 1\r\n\r\n'
          : `HTTP/1.1 ${status} Bad Gateway\r\n\r\n`,
      );
    void this.destination(`https://${host}/`, host, verdict, deny).then((destination) => {
      if (!destination || client.destroyed) return;
      const upstream = net.connect(
        { host: destination.host, port: Number(port), lookup: pinnedLookup(destination) },
        () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        },
      );
      const close = () => {
        upstream.destroy();
        client.destroy();
      };
      upstream.on('error', close);
      client.on('error', close);
    });
  }
}

function splitHostPort(authority: string): [string, string] {
  const ipv6 = /^\[([^\]]+)\]:(\d+)$/.exec(authority);
  if (ipv6) return [ipv6[1] as string, ipv6[2] as string];
  const index = authority.lastIndexOf(':');
  return index > 0 ? [authority.slice(0, index), authority.slice(index + 1)] : [authority, '443'];
}

function withoutProxyHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = { ...headers };
  delete out['proxy-connection'];
  delete out['proxy-authorization'];
  return out;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char] as string);
}
