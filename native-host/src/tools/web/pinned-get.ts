import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

import { pinnedLookup, type CheckedDestination } from '../../policy/guards/destination.js';

export interface PinnedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body, decompressed when the server compressed it. */
  body: Readable;
  /** Stops reading and closes the connection. */
  discard(): void;
}

/**
 * One GET of `url`, connected to the addresses its host was checked at and no others: Node's
 * fetch resolves the host again by itself, and a DNS server that answers a public address to the
 * check and 127.0.0.1 to the connection would walk straight past the policy. A fresh connection
 * every time (no pooled socket from an earlier answer); TLS still verifies the host name.
 */
export function pinnedGet(
  url: URL,
  destination: CheckedDestination,
  options: { signal: AbortSignal; headers: Record<string, string> },
): Promise<PinnedResponse> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'GET',
        host: destination.host,
        headers: { ...options.headers, 'accept-encoding': 'gzip, deflate, br' },
        lookup: pinnedLookup(destination),
        agent: false,
        signal: options.signal,
      },
      (response) => {
        const body = decoded(response);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body,
          discard: () => {
            body.destroy();
            response.destroy();
          },
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** What fetch did for us: undo the content encoding the server chose from the ones we offered. */
function decoded(response: http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return response;
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}
