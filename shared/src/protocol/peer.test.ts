import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { AppError } from '../errors.js';
import type { JsonRpcMessage } from './jsonrpc.js';
import type { MethodTable } from './methods.js';
import { JsonRpcPeer } from './peer.js';

const SERVER_METHODS = {
  add: { params: z.object({ a: z.number(), b: z.number() }), result: z.object({ sum: z.number() }) },
  fail: { params: z.object({}), result: z.object({}) },
  broken: { params: z.object({}), result: z.object({ value: z.string() }) },
  slow: { params: z.object({}), result: z.object({}) },
  /** Waits until withdrawn, then answers anyway (an answer nobody may send). */
  stoppable: { params: z.object({}), result: z.object({ finished: z.boolean() }) },
} as const satisfies MethodTable;

const NOTIFICATIONS = { tick: z.object({ n: z.number() }) } as const;

/** Two peers joined by an in-memory link that delivers through JSON, like a real transport. */
function linkedPair(options: { timeoutMs?: number } = {}) {
  const toServer: unknown[] = [];
  const toClient: unknown[] = [];
  /** The signals the server's `stoppable` handler was given, with why each was aborted. */
  const stoppable: { signal: AbortSignal; reason?: unknown }[] = [];
  const ticks: number[] = [];
  const protocolErrors: AppError[] = [];
  const server = new JsonRpcPeer({
    send: (message: JsonRpcMessage) => {
      toClient.push(message);
      queueMicrotask(() => client.receive(JSON.parse(JSON.stringify(message))));
    },
    outgoing: {},
    incoming: SERVER_METHODS,
    outgoingNotifications: NOTIFICATIONS,
    incomingNotifications: {},
    handlers: {
      add: ({ a, b }) => ({ sum: a + b }),
      fail: () => {
        throw new AppError('UNAVAILABLE', 'Not today.');
      },
      broken: () => ({ value: 42 }) as unknown as { value: string },
      slow: () => new Promise<Record<string, never>>(() => undefined),
      stoppable: (_params, { signal }) => {
        const entry: { signal: AbortSignal; reason?: unknown } = { signal };
        stoppable.push(entry);
        return new Promise((resolve) =>
          signal.addEventListener('abort', () => {
            entry.reason = signal.reason;
            resolve({ finished: false });
          }),
        );
      },
    },
  });
  const client = new JsonRpcPeer({
    send: (message: JsonRpcMessage) => {
      toServer.push(message);
      queueMicrotask(() => server.receive(JSON.parse(JSON.stringify(message))));
    },
    outgoing: SERVER_METHODS,
    incoming: {},
    outgoingNotifications: {},
    incomingNotifications: NOTIFICATIONS,
    notificationHandlers: { tick: ({ n }) => ticks.push(n) },
    onProtocolError: (error) => protocolErrors.push(error),
    requestTimeoutMs: options.timeoutMs ?? 1000,
  });
  return { server, client, toServer, toClient, ticks, protocolErrors, stoppable };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('withdrawing a request (rpc.cancel)', () => {
  it('rejects at once with the reason, and the handler on the other side is aborted and sends no answer', async () => {
    const { client, server, toServer, toClient, stoppable, protocolErrors } = linkedPair();
    const stop = new AbortController();
    const answer = client.request('stoppable', {}, { signal: stop.signal });
    await settle();
    expect(stoppable).toHaveLength(1);
    expect(stoppable[0]?.signal.aborted).toBe(false);

    stop.abort(new AppError('EMERGENCY_STOPPED', 'The emergency stop is on.'));
    await expect(answer).rejects.toMatchObject({ code: 'EMERGENCY_STOPPED', message: 'The emergency stop is on.' });
    await settle();
    expect(toServer.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'rpc.cancel',
      params: { id: 1, reason: 'The emergency stop is on.' },
    });
    expect(stoppable[0]?.signal.aborted).toBe(true);
    expect(stoppable[0]?.reason).toMatchObject({ code: 'CANCELLED', message: 'The emergency stop is on.' });
    // The handler's late answer is not sent: nobody waits for it.
    expect(toClient.filter((message) => (message as { id?: unknown }).id === 1)).toEqual([]);
    expect(protocolErrors).toEqual([]);
    expect(client.pendingCount).toBe(0);
    void server;
  });

  it('an already aborted signal sends nothing; an abort after the answer changes nothing', async () => {
    const { client, toServer } = linkedPair();
    const gone = new AbortController();
    gone.abort();
    await expect(client.request('add', { a: 1, b: 1 }, { signal: gone.signal })).rejects.toMatchObject({
      code: 'CANCELLED',
    });
    expect(toServer).toEqual([]);

    const late = new AbortController();
    await expect(client.request('add', { a: 1, b: 2 }, { signal: late.signal })).resolves.toEqual({ sum: 3 });
    late.abort();
    await settle();
    // Only the second request went, and no rpc.cancel after its answer.
    expect(toServer.map((message) => (message as { method?: string }).method)).toEqual(['add']);
  });

  it('a closed connection aborts the requests being handled; a cancel for an unknown id is ignored', async () => {
    const { client, server, stoppable } = linkedPair();
    void client.request('stoppable', {}).catch(() => undefined);
    await settle();
    await server.receive({ jsonrpc: '2.0', method: 'rpc.cancel', params: { id: 999, reason: 'no such request' } });
    expect(stoppable[0]?.signal.aborted).toBe(false);
    server.close(new AppError('DISCONNECTED', 'The client went away.'));
    expect(stoppable[0]?.signal.aborted).toBe(true);
    expect(stoppable[0]?.reason).toMatchObject({ code: 'DISCONNECTED' });
  });
});

describe('JsonRpcPeer', () => {
  it('answers a request with its validated result', async () => {
    const { client } = linkedPair();
    await expect(client.request('add', { a: 2, b: 3 })).resolves.toEqual({ sum: 5 });
  });

  it('rejects invalid params with INVALID_PARAMS naming the field', async () => {
    const { client } = linkedPair();
    await expect(client.request('add', { a: 2, b: 'three' } as never)).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringContaining('b:'),
    });
  });

  it('answers an unknown method with METHOD_NOT_FOUND listing the known ones', async () => {
    const { client } = linkedPair();
    await expect(client.request('nope' as never, {} as never)).rejects.toMatchObject({
      code: 'METHOD_NOT_FOUND',
      message: expect.stringContaining('add, fail, broken, slow'),
    });
  });

  it('carries an AppError code from the handler across the wire', async () => {
    const { client } = linkedPair();
    await expect(client.request('fail', {})).rejects.toMatchObject({ code: 'UNAVAILABLE', message: 'Not today.' });
  });

  it('refuses to send a result that does not match its own schema', async () => {
    const { client } = linkedPair();
    await expect(client.request('broken', {})).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('times out a request nobody answers', async () => {
    const { client } = linkedPair({ timeoutMs: 20 });
    await expect(client.request('slow', {})).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(client.pendingCount).toBe(0);
  });

  it('rejects every pending request when closed, and later ones at once', async () => {
    const { client } = linkedPair();
    const pending = client.request('slow', {});
    client.close(new AppError('DISCONNECTED', 'gone'));
    await expect(pending).rejects.toMatchObject({ code: 'DISCONNECTED' });
    await expect(client.request('add', { a: 1, b: 1 })).rejects.toMatchObject({ code: 'DISCONNECTED' });
  });

  it('delivers validated notifications and reports invalid ones', async () => {
    const { server, ticks, protocolErrors } = linkedPair();
    server.notify('tick', { n: 1 });
    server.notify('tick', { n: 'two' } as never);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(ticks).toEqual([1]);
    expect(protocolErrors.map((error) => error.code)).toEqual(['INVALID_PARAMS']);
  });

  it('reports a notification handler that throws instead of throwing from receive()', () => {
    const errors: AppError[] = [];
    const peer = new JsonRpcPeer({
      send: () => undefined,
      outgoing: {},
      incoming: {},
      outgoingNotifications: {},
      incomingNotifications: NOTIFICATIONS,
      notificationHandlers: {
        tick: () => {
          throw new Error('handler broke');
        },
      },
      onProtocolError: (error) => errors.push(error),
    });
    expect(() => peer.receive({ jsonrpc: '2.0', method: 'tick', params: { n: 1 } })).not.toThrow();
    expect(errors.map((error) => error.message)).toEqual(['handler broke']);
  });

  it('answers a message that is not JSON-RPC with INVALID_REQUEST, keeping its id', () => {
    const sent: JsonRpcMessage[] = [];
    const peer = new JsonRpcPeer({
      send: (message) => sent.push(message),
      outgoing: {},
      incoming: SERVER_METHODS,
      outgoingNotifications: {},
      incomingNotifications: {},
    });
    peer.receive({ jsonrpc: '1.0', id: 7, method: 'add' });
    peer.receive([1, 2, 3]);
    expect(sent).toEqual([
      expect.objectContaining({ id: 7, error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
    ]);
  });

  it('settles what receive() returns once a request is answered, and at once for anything else', async () => {
    const sent: JsonRpcMessage[] = [];
    let finish!: () => void;
    const peer = new JsonRpcPeer({
      send: (message) => sent.push(message),
      outgoing: {},
      incoming: SERVER_METHODS,
      outgoingNotifications: {},
      incomingNotifications: NOTIFICATIONS,
      handlers: {
        slow: () =>
          new Promise<Record<string, never>>((resolve) => {
            finish = () => resolve({});
          }),
      },
    });
    let handled = false;
    const request = peer.receive({ jsonrpc: '2.0', id: 1, method: 'slow', params: {} }).then(() => {
      handled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(handled).toBe(false);
    finish();
    await request;
    expect(sent).toEqual([expect.objectContaining({ id: 1, result: {} })]);
    // A notification, an invalid message, an unknown method: handled as they come.
    await peer.receive({ jsonrpc: '2.0', method: 'tick', params: { n: 1 } });
    await peer.receive({ nothing: true });
    await peer.receive({ jsonrpc: '2.0', id: 2, method: 'nope', params: {} });
    expect(sent.slice(1)).toEqual([
      expect.objectContaining({ id: null, error: expect.objectContaining({ code: -32600 }) }),
      expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32601 }) }),
    ]);
  });

  it('rejects a result that does not match what the caller expects', async () => {
    const sent: JsonRpcMessage[] = [];
    const caller = new JsonRpcPeer({
      send: (message) => sent.push(message),
      outgoing: SERVER_METHODS,
      incoming: {},
      outgoingNotifications: {},
      incomingNotifications: {},
    });
    const result = caller.request('add', { a: 1, b: 2 });
    caller.receive({ jsonrpc: '2.0', id: 1, result: { total: 3 } });
    await expect(result).rejects.toMatchObject({ code: 'PROTOCOL_MISMATCH' });
  });
});
