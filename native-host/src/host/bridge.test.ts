import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';

import { CHROME_EXTENSION_ID } from '@nextai/shared';
import { afterEach, describe, expect, it } from 'vitest';

import { createLogger } from '../core/logger.js';
import { FramedStream } from '../transport/framed-stream.js';
import { Bridge } from './bridge.js';

const ORIGIN = `chrome-extension://${CHROME_EXTENSION_ID}/`;
const log = createLogger({ component: 'test', level: 'error' });

interface FakeDaemon {
  socketPath: string;
  received: Record<string, unknown>[];
  connections: net.Socket[];
  /** Answers each request whose method is in this map; others are left pending. */
  answers: Map<string, unknown>;
  close(): Promise<void>;
}

/** A stand-in daemon on a real Unix socket that records what the bridge sends it. */
async function startFakeDaemon(): Promise<FakeDaemon> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-bridge-'));
  const socketPath = path.join(dir, 'd.sock');
  const fake: FakeDaemon = {
    socketPath,
    received: [],
    connections: [],
    answers: new Map(),
    close: async () => {
      for (const connection of fake.connections) connection.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  const server = net.createServer((socket) => {
    fake.connections.push(socket);
    const stream: FramedStream = new FramedStream({
      readable: socket,
      writable: socket,
      maxInboundBytes: 1 << 20,
      maxOutboundBytes: 1 << 20,
      onMessage: (value) => {
        const message = value as Record<string, unknown>;
        fake.received.push(message);
        if (typeof message.method === 'string' && fake.answers.has(message.method) && 'id' in message) {
          stream.send({ jsonrpc: '2.0', id: message.id, result: fake.answers.get(message.method) });
        }
      },
      onFrameError: () => undefined,
      onInputEnd: () => socket.destroy(),
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return fake;
}

function connectTo(socketPath: string): () => Promise<net.Socket> {
  return () =>
    new Promise((resolve, reject) => {
      const socket = net.connect(socketPath);
      socket.once('connect', () => resolve(socket));
      socket.once('error', reject);
    });
}

/** What the daemon sends a connection over its limit of clients before it closes it. */
const REFUSAL = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32014,
    message: 'The daemon already serves 512 connections, its limit; this one was refused.',
    data: { code: 'BUSY' },
  },
};

/** The browser's side of the bridge: frames in, decoded frames out. */
function browserSide() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const frames: Record<string, unknown>[] = [];
  new FramedStream({
    readable: stdout,
    writable: new PassThrough(),
    maxInboundBytes: 1 << 20,
    maxOutboundBytes: 1 << 20,
    onMessage: (value) => frames.push(value as Record<string, unknown>),
    onFrameError: (error) => {
      throw error;
    },
    onInputEnd: () => undefined,
  });
  const writer = new FramedStream({
    readable: new PassThrough(),
    writable: stdin,
    maxInboundBytes: 1 << 20,
    maxOutboundBytes: 64 << 20,
    onMessage: () => undefined,
    onFrameError: () => undefined,
    onInputEnd: () => undefined,
  });
  return { stdin, stdout, frames, send: (message: unknown) => writer.send(message) };
}

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

describe('Bridge', () => {
  it('answers a request in flight with DAEMON_UNAVAILABLE when the daemon goes away, then reconnects', async () => {
    const daemon = await startFakeDaemon();
    cleanups.push(() => daemon.close());
    daemon.answers.set('daemon.ping', { time: 1 });
    const browser = browserSide();
    const bridge = new Bridge({
      stdin: browser.stdin,
      stdout: browser.stdout,
      callerArgs: [ORIGIN],
      connectDaemon: () =>
        new Promise((resolve, reject) => {
          const socket = net.connect(daemon.socketPath);
          socket.once('connect', () => resolve(socket));
          socket.once('error', reject);
        }),
      log,
      reconnectDelaysMs: [10, 10, 10],
    });
    bridge.start();

    browser.send({ jsonrpc: '2.0', id: 1, method: 'tools.call', params: { name: 'system_info', input: {} } });
    await expect.poll(() => daemon.received.some((message) => message.id === 1)).toBe(true);
    // The bridge introduced itself first.
    expect(daemon.received[0]).toMatchObject({ method: 'bridge.register', params: { origin: ORIGIN } });

    daemon.connections[0]?.destroy();
    await expect
      .poll(() => browser.frames.find((frame) => frame.id === 1))
      .toMatchObject({
        error: { data: { code: 'DAEMON_UNAVAILABLE' } },
      });
    await expect
      .poll(() => browser.frames.map((frame) => (frame.params as { daemon?: string } | undefined)?.daemon))
      .toEqual(expect.arrayContaining(['reconnecting', 'connected']));

    browser.send({ jsonrpc: '2.0', id: 2, method: 'daemon.ping', params: {} });
    await expect.poll(() => browser.frames.find((frame) => frame.id === 2)).toMatchObject({ result: { time: 1 } });
    browser.stdin.end();
    expect(await bridge.done).toBe(0);
  });

  it('says the daemon stopped only when it did: a daemon that still runs closed the connection', async () => {
    for (const running of [true, false]) {
      const daemon = await startFakeDaemon();
      cleanups.push(() => daemon.close());
      const browser = browserSide();
      const bridge = new Bridge({
        stdin: browser.stdin,
        stdout: browser.stdout,
        callerArgs: [ORIGIN],
        connectDaemon: connectTo(daemon.socketPath),
        daemonRunning: () => running,
        log,
        reconnectDelaysMs: [10, 10, 10],
      });
      bridge.start();
      browser.send({ jsonrpc: '2.0', id: 1, method: 'tools.call', params: { name: 'system_info', input: {} } });
      await expect.poll(() => daemon.received.some((message) => message.id === 1)).toBe(true);
      daemon.connections[0]?.destroy();
      await expect.poll(() => browser.frames.find((frame) => frame.id === 1)).toBeDefined();
      const error = browser.frames.find((frame) => frame.id === 1)?.error as {
        message: string;
        data: { code: string };
      };
      expect(error.data.code).toBe('DAEMON_UNAVAILABLE');
      await expect.poll(() => browser.frames.find((frame) => frame.method === 'bridge.state')).toBeDefined();
      const state = browser.frames.find((frame) => frame.method === 'bridge.state')?.params as { message: string };
      if (running) {
        expect(error.message).toContain('closed before it answered (the daemon still runs)');
        expect(error.message).not.toContain('stopped');
        expect(state.message).not.toContain('stopped');
      } else {
        expect(error.message).toContain('The daemon stopped before answering');
        expect(state.message).toContain('The daemon stopped');
      }
      browser.stdin.end();
      await bridge.done;
    }
  });

  it('answers what the daemon refused for too many clients BUSY, and tries again', async () => {
    const daemon = await startFakeDaemon();
    cleanups.push(() => daemon.close());
    daemon.answers.set('daemon.ping', { time: 1 });
    const browser = browserSide();
    let attempts = 0;
    const bridge = new Bridge({
      stdin: browser.stdin,
      stdout: browser.stdout,
      callerArgs: [ORIGIN],
      connectDaemon: async () => {
        const socket = await connectTo(daemon.socketPath)();
        // The daemon's side of the first connection refuses it, as the daemon does past its limit.
        if (++attempts === 1) {
          await expect.poll(() => daemon.connections.length).toBe(1);
          const refused = daemon.connections[0]!;
          refused.pause();
          setTimeout(() => {
            const payload = Buffer.from(JSON.stringify(REFUSAL));
            const header = Buffer.alloc(4);
            header.writeUInt32LE(payload.length, 0);
            refused.end(Buffer.concat([header, payload]));
          }, 20);
        }
        return socket;
      },
      daemonRunning: () => true,
      log,
      reconnectDelaysMs: [10, 10, 10],
    });
    browser.send({ jsonrpc: '2.0', id: 1, method: 'daemon.ping', params: {} });
    bridge.start();
    await expect
      .poll(() => browser.frames.find((frame) => frame.id === 1))
      .toMatchObject({ error: { code: -32014, data: { code: 'BUSY' } } });
    // Not passed on as a message of its own: the browser hears it as the answer and the state.
    expect(browser.frames.filter((frame) => frame.id === null)).toEqual([]);
    await expect
      .poll(() => browser.frames.filter((frame) => frame.method === 'bridge.state').map((frame) => frame.params))
      .toEqual([
        { daemon: 'reconnecting', message: expect.stringContaining('The daemon refused the connection') },
        { daemon: 'connected' },
      ]);
    browser.send({ jsonrpc: '2.0', id: 2, method: 'daemon.ping', params: {} });
    await expect.poll(() => browser.frames.find((frame) => frame.id === 2)).toMatchObject({ result: { time: 1 } });
    browser.stdin.end();
    expect(await bridge.done).toBe(0);
  });

  it('stops reading from the browser while the daemon does not take what it was sent, instead of dropping it', async () => {
    const daemon = await startFakeDaemon();
    cleanups.push(() => daemon.close());
    const browser = browserSide();
    const bridge = new Bridge({
      stdin: browser.stdin,
      stdout: browser.stdout,
      callerArgs: [ORIGIN],
      connectDaemon: connectTo(daemon.socketPath),
      log,
    });
    bridge.start();
    await expect.poll(() => daemon.connections.length).toBe(1);
    await expect.poll(() => daemon.received.length).toBe(1);
    daemon.connections[0]!.pause();
    const COUNT = 400;
    const payload = 'x'.repeat(64 * 1024);
    for (let id = 1; id <= COUNT; id++)
      browser.send({ jsonrpc: '2.0', method: 'ui.surfaces', params: { id, payload } });
    await expect.poll(() => browser.stdin.isPaused()).toBe(true);
    expect(browser.frames.filter((frame) => frame.method === 'bridge.state')).toEqual([]);
    daemon.connections[0]!.resume();
    await expect.poll(() => daemon.received.length, { timeout: 10_000 }).toBe(COUNT + 1);
    expect(browser.stdin.isPaused()).toBe(false);
    expect(browser.frames).toEqual([]);
    browser.stdin.end();
    expect(await bridge.done).toBe(0);
  });

  it('gives up after its reconnection attempts, fails what is queued and exits with 1', async () => {
    const browser = browserSide();
    const bridge = new Bridge({
      stdin: browser.stdin,
      stdout: browser.stdout,
      callerArgs: [ORIGIN],
      // Like ensureDaemon, fail only after a while (it waits for a daemon it started).
      connectDaemon: () =>
        new Promise((_, reject) =>
          setTimeout(() => reject(Object.assign(new Error('connect ENOENT'), { code: 'ENOENT' })), 50),
        ),
      log,
      reconnectDelaysMs: [5],
    });
    browser.send({ jsonrpc: '2.0', id: 'queued', method: 'daemon.ping', params: {} });
    bridge.start();
    expect(await bridge.done).toBe(1);
    expect(browser.frames).toEqual([
      expect.objectContaining({
        id: 'queued',
        error: expect.objectContaining({ data: { code: 'DAEMON_UNAVAILABLE' } }),
      }),
      expect.objectContaining({ method: 'bridge.state', params: expect.objectContaining({ daemon: 'unavailable' }) }),
    ]);
  });
});
