import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { ClientConnection } from './client-connection.js';

const log = createLogger({ component: 'test', level: 'error' });

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A ClientConnection on the daemon's end of a real Unix socket, and the raw client end. */
async function connected(maxPending: number) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-conn-'));
  const socketPath = path.join(dir, 's.sock');
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const client = net.connect(socketPath);
  const connection = new ClientConnection(await accepted, log, () => undefined, { maxPending });
  cleanups.push(() => {
    client.destroy();
    connection.close();
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const received: Record<string, unknown>[] = [];
  let buffer = Buffer.alloc(0);
  client.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= 4 && buffer.length >= 4 + buffer.readUInt32LE(0)) {
      const length = buffer.readUInt32LE(0);
      received.push(JSON.parse(buffer.toString('utf8', 4, 4 + length)) as Record<string, unknown>);
      buffer = buffer.subarray(4 + length);
    }
  });
  const send = (...messages: unknown[]) =>
    client.write(
      Buffer.concat(
        messages.map((message) => {
          const payload = Buffer.from(JSON.stringify(message));
          const header = Buffer.alloc(4);
          header.writeUInt32LE(payload.length, 0);
          return Buffer.concat([header, payload]);
        }),
      ),
    );
  return { connection, received, send };
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'daemon.ping', params: {} });

describe('ClientConnection', () => {
  it('answers BUSY at once past its limit of requests waiting or running, and serves on as they finish', async () => {
    const { connection, received, send } = await connected(4);
    const finishers: (() => void)[] = [];
    connection.peer.handle('daemon.ping', () => new Promise((resolve) => finishers.push(() => resolve({ time: 1 }))));
    send(...[1, 2, 3, 4, 5, 6].map(ping));
    await expect.poll(() => received.length).toBe(2);
    expect(received).toEqual([
      expect.objectContaining({
        id: 5,
        error: expect.objectContaining({ code: -32014, data: expect.objectContaining({ code: 'BUSY' }) }),
      }),
      expect.objectContaining({
        id: 6,
        error: expect.objectContaining({ data: expect.objectContaining({ code: 'BUSY' }) }),
      }),
    ]);
    expect(received[0]?.error).toMatchObject({
      message: expect.stringContaining('already has 4 requests waiting or running'),
    });
    await expect.poll(() => finishers.length).toBe(4);
    expect(connection.pending).toBe(4);

    finishers.shift()!();
    await expect.poll(() => connection.pending).toBe(3);
    send(ping(7));
    await expect.poll(() => finishers.length).toBe(4);
    for (const finish of finishers.splice(0)) finish();
    await expect
      .poll(() => received.filter((message) => 'result' in message).map((message) => message.id))
      .toEqual([1, 2, 3, 4, 7]);
    expect(connection.pending).toBe(0);
  });

  it("lets a browser's bridge, which carries all its panels and tools, have more in flight", async () => {
    const { connection, received, send } = await connected(2);
    connection.peer.handle('daemon.ping', () => new Promise(() => undefined));
    connection.allowPending(5);
    send(...[1, 2, 3, 4, 5, 6].map(ping));
    await expect.poll(() => received.map((message) => message.id)).toEqual([6]);
    expect(received[0]?.error).toMatchObject({ message: expect.stringContaining('already has 5 requests') });
    expect(connection.pending).toBe(5);
  });

  it("still takes the client's answers to the daemon's own requests when it is at its limit", async () => {
    const { connection, received, send } = await connected(2);
    connection.peer.handle('daemon.ping', () => new Promise(() => undefined));
    send(ping(1), ping(2), ping(3));
    await expect.poll(() => received.map((message) => message.id)).toEqual([3]);
    // A browser's tool result comes back on the same connection as its requests: never refused.
    const asked = connection.peer.request('extension.surfaces', {});
    await expect.poll(() => connection.peer.pendingCount).toBe(1);
    send({ jsonrpc: '2.0', id: 1, result: { surfaces: [] } });
    await expect(asked).resolves.toEqual({ surfaces: [] });
  });
});
