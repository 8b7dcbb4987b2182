import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import type { Logger } from '../core/logger.js';
import { DaemonSocket } from './daemon-socket.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A logger that keeps what it was told. */
function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = {
    lines,
    debug: (message: string) => lines.push(`debug ${message}`),
    info: (message: string) => lines.push(`info ${message}`),
    warn: (message: string) => lines.push(`warn ${message}`),
    error: (message: string) => lines.push(`error ${message}`),
    child: () => logger,
  };
  return logger;
}

async function openSocket() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-sock-'));
  const socketPath = path.join(dir, 'run', 'daemon.sock');
  fs.mkdirSync(path.dirname(socketPath), { mode: 0o700 });
  const log = recordingLog();
  const socket = await DaemonSocket.open({ path: socketPath, platform: 'linux', log, checkEveryMs: 20 });
  const accepted: net.Socket[] = [];
  socket.serve((connection) => {
    accepted.push(connection);
    connection.on('error', () => undefined);
    connection.on('data', (chunk) => connection.write(chunk));
  });
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanups.push(async () => {
    for (const connection of accepted) connection.destroy();
    await socket.close();
  });
  return { socket, socketPath, log, accepted };
}

function connect(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const client = net.connect(socketPath);
    client.once('connect', () => resolve(client));
    client.on('error', reject);
    cleanups.push(() => {
      client.destroy();
    });
  });
}

async function echoes(client: net.Socket): Promise<boolean> {
  const back = new Promise<string>((resolve) => client.once('data', (chunk: Buffer) => resolve(chunk.toString())));
  client.write('hello');
  return (await back) === 'hello';
}

describe('DaemonSocket', () => {
  it('makes a new socket when its file is deleted, and keeps the connections it has', async () => {
    const { socketPath, log } = await openSocket();
    const before = await connect(socketPath);
    const inode = fs.statSync(socketPath).ino;

    fs.rmSync(socketPath);
    await expect.poll(() => fs.existsSync(socketPath)).toBe(true);
    expect(fs.statSync(socketPath).ino).not.toBe(inode);
    expect(fs.statSync(socketPath).mode & 0o777).toBe(0o600);
    expect(await echoes(await connect(socketPath))).toBe(true);
    expect(await echoes(before)).toBe(true);
    expect(log.lines).toEqual(
      expect.arrayContaining([
        'warn the daemon socket file was removed; making a new one',
        'info the daemon socket is back',
      ]),
    );
  });

  it('takes its path back from a file put in its place, and from a socket nobody listens on', async () => {
    const { socketPath } = await openSocket();
    fs.rmSync(socketPath);
    fs.writeFileSync(socketPath, 'not a socket');
    await expect.poll(() => fs.statSync(socketPath).isSocket()).toBe(true);
    expect(await echoes(await connect(socketPath))).toBe(true);
  });

  it('leaves alone a socket another process listens on, and says so once', async () => {
    const { socketPath, log } = await openSocket();
    fs.rmSync(socketPath);
    const other = net.createServer((connection) => {
      connection.on('error', () => undefined);
      connection.end('other');
    });
    await new Promise<void>((resolve) => other.listen(socketPath, resolve));
    cleanups.push(() => new Promise<void>((resolve) => other.close(() => resolve())));
    await expect.poll(() => log.lines.filter((line) => line.includes('another process listens')).length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(log.lines.filter((line) => line.includes('another process listens'))).toHaveLength(1);
    const client = await connect(socketPath);
    expect(await new Promise((resolve) => client.once('data', (chunk: Buffer) => resolve(chunk.toString())))).toBe(
      'other',
    );
  });

  it('says once that it cannot make a new socket, and makes it when it can', async () => {
    const { socketPath, log } = await openSocket();
    fs.rmSync(socketPath);
    fs.mkdirSync(socketPath);
    await expect
      .poll(() => log.lines.filter((line) => line.startsWith('error could not make a new daemon socket')).length)
      .toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(log.lines.filter((line) => line.startsWith('error could not make'))).toHaveLength(1);
    fs.rmdirSync(socketPath);
    await expect.poll(() => fs.existsSync(socketPath) && fs.statSync(socketPath).isSocket()).toBe(true);
  });

  it('refuses a connection over the limit with one BUSY frame, then closes it', async () => {
    const { socket, socketPath } = await openSocket();
    socket.serve((connection) => socket.refuse(connection, 3));
    const client = await connect(socketPath);
    const chunks: Buffer[] = [];
    client.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => client.once('close', resolve));
    const frame = Buffer.concat(chunks);
    expect(frame.readUInt32LE(0)).toBe(frame.length - 4);
    expect(JSON.parse(frame.toString('utf8', 4))).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32014, message: expect.stringContaining('already serves 3 connections'), data: { code: 'BUSY' } },
    });
  });

  it('removes its socket file when closed, not one put in its place', async () => {
    const { socket, socketPath } = await openSocket();
    await socket.close();
    expect(fs.existsSync(socketPath)).toBe(false);
  });
});
