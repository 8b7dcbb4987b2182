import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { CHROME_EXTENSION_ID, PROTOCOL_VERSION } from '@nextai/shared';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { runCli } from '../support/cli.js';
import { daemonPidsOf, isAlive, makeHome, readPid, type TestHome } from '../support/home.js';
import { NativeHostProcess, lengthPrefix } from '../support/native-host-process.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';

/** What the daemon holds for one connection, and how many connections it serves (daemon/). */
const PER_CLIENT = 256;
const MAX_CONNECTIONS = 512;
const ORIGIN = `chrome-extension://${CHROME_EXTENSION_ID}/`;

let home: TestHome;
const cleanups: (() => void)[] = [];

beforeAll(() => requireBuilt(CLI_BUNDLE));
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await home.cleanup();
});

type Frame = Record<string, unknown> & {
  id?: unknown;
  error?: { code: number; message: string; data?: { code?: string } };
};

/** A client on the daemon socket that speaks raw frames: sends what it is told, keeps what comes back. */
class RawClient {
  readonly frames: Frame[] = [];
  closed = false;
  private buffer: Buffer = Buffer.alloc(0);

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => undefined);
    cleanups.push(() => socket.destroy());
  }

  /**
   * Connects as the daemon's own clients do: while the kernel's queue of connections the daemon
   * has not accepted yet is full (EAGAIN, a busy machine), it tries again for a few seconds.
   */
  static async connect(socketPath: string): Promise<RawClient> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        return await new Promise<RawClient>((resolve, reject) => {
          const socket = net.connect(socketPath);
          socket.once('connect', () => resolve(new RawClient(socket)));
          socket.once('error', reject);
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /** Writes all the messages at once, in one write. */
  send(messages: unknown[]): void {
    this.socket.write(Buffer.concat(messages.map(frameOf)));
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    let offset = 0;
    while (this.buffer.length - offset >= 4) {
      const length = this.buffer.readUInt32LE(offset);
      if (this.buffer.length - offset < 4 + length) break;
      this.frames.push(JSON.parse(this.buffer.toString('utf8', offset + 4, offset + 4 + length)) as Frame);
      offset += 4 + length;
    }
    this.buffer = this.buffer.subarray(offset);
  }
}

function frameOf(message: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(message), 'utf8');
  return Buffer.concat([lengthPrefix(payload.length), payload]);
}

const ping = (id: number, payload?: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'daemon.ping',
  params: payload === undefined ? {} : { payload },
});

/** Answers by kind: `ok`, or the error's code name. */
function tally(frames: Frame[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const frame of frames) {
    if (!('id' in frame) || typeof frame.id !== 'number') continue;
    const kind = frame.error ? (frame.error.data?.code ?? String(frame.error.code)) : 'ok';
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

function answeredIds(frames: Frame[]): number[] {
  return frames
    .filter((frame) => typeof frame.id === 'number' && ('result' in frame || 'error' in frame))
    .map((frame) => frame.id as number)
    .sort((a, b) => a - b);
}

const range = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

async function statusJson(): Promise<{ code: number; status: Record<string, unknown> }> {
  const result = await runCli(['status', '--json'], home.env);
  return { code: result.code, status: JSON.parse(result.stdout) as Record<string, unknown> };
}

async function startDaemon(): Promise<number> {
  expect((await runCli(['daemon', '--detach'], home.env)).code).toBe(0);
  return readPid(path.join(home.dir, 'run', 'daemon.pid'))!;
}

const daemonLog = () => fs.readFileSync(path.join(home.dir, 'logs', 'daemon.log'), 'utf8');

describe('a daemon whose socket file is deleted', () => {
  it('is still found by `nextai status` (by its lock and pid), and makes a new socket within seconds', async () => {
    home = makeHome();
    const pid = await startDaemon();
    const socket = dataPaths(home.dir).socket;

    fs.rmSync(socket);
    // A directory where the socket was keeps the daemon from making a new one: it stays without.
    fs.mkdirSync(socket);
    const { code, status } = await statusJson();
    expect(code).toBe(3);
    expect(status).toMatchObject({ running: true, reachable: false, reason: 'unreachable', pid });
    expect(status.message).toContain('socket');
    const human = await runCli(['status'], home.env);
    expect(human.stdout).toContain(`daemon:    running (pid ${pid}), but it cannot be reached now`);
    expect(human.stdout).toContain(`its socket ${socket} is missing`);
    // Nothing starts a second daemon meanwhile: it would only find the lock taken.
    expect(daemonPidsOf(home.dir)).toEqual([String(pid)]);

    fs.rmdirSync(socket);
    await expect.poll(() => fs.existsSync(socket), { timeout: 10_000 }).toBe(true);
    expect(fs.statSync(socket).mode & 0o777).toBe(0o600);
    const back = await statusJson();
    expect(back).toMatchObject({ code: 0, status: { running: true, pid } });
    expect((await runCli(['tool', 'system_info', '{"categories":["os"]}'], home.env)).code).toBe(0);
    expect(daemonPidsOf(home.dir)).toEqual([String(pid)]);
    expect(daemonLog()).toContain('the daemon socket file was removed; making a new one');
    expect(daemonLog()).toContain('the daemon socket is back');
  });

  it('comes back on its own, and `nextai daemon --detach` meanwhile finds it rather than starting another', async () => {
    home = makeHome();
    const pid = await startDaemon();
    const socket = dataPaths(home.dir).socket;
    fs.rmSync(socket);
    const detach = await runCli(['daemon', '--detach'], home.env);
    expect(detach).toMatchObject({ code: 0, stdout: `daemon already running for ${home.dir}\n` });
    expect(fs.existsSync(socket)).toBe(true);
    expect((await statusJson()).status).toMatchObject({ running: true, pid });
    expect(daemonPidsOf(home.dir)).toEqual([String(pid)]);
  });

  it('is stopped by `nextai daemon stop` by its pid, and stays stopped', async () => {
    home = makeHome();
    const pid = await startDaemon();
    const socket = dataPaths(home.dir).socket;
    fs.rmSync(socket);
    fs.mkdirSync(socket);

    const stop = await runCli(['daemon', 'stop'], home.env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`a daemon (pid ${pid}) holds the lock for ${home.dir} but its socket is missing`);
    expect(stop.stdout).toContain(`daemon stopped (pid ${pid})`);
    await expect.poll(() => isAlive(pid)).toBe(false);
    fs.rmdirSync(socket);
    expect((await statusJson()).status).toMatchObject({ running: false, reason: 'stopped' });
  });
});

describe('one client cannot hold up the others', () => {
  it('answers every ping of a second client while one floods 20 000 requests, refusing the excess BUSY', async () => {
    home = makeHome();
    await startDaemon();
    const paths = dataPaths(home.dir);
    const flooder = await RawClient.connect(paths.socket);
    const other = await DaemonClient.connect(paths, { start: false, client: { kind: 'test', name: 'pinger' } });
    cleanups.push(() => other.close());

    const FLOOD = 20_000;
    flooder.send(range(FLOOD).map((id) => ping(id)));
    const pings: Promise<unknown>[] = [];
    for (let i = 0; i < 50; i++) {
      pings.push(other.peer.request('daemon.ping', { payload: `ping ${i}` }));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const answers = await Promise.all(pings);
    expect(answers).toEqual(range(50).map((n) => expect.objectContaining({ payload: `ping ${n - 1}` })));

    // Every request of the flood is answered, once: done, or refused at once.
    await expect.poll(() => answeredIds(flooder.frames).length, { timeout: 30_000 }).toBe(FLOOD);
    expect(answeredIds(flooder.frames)).toEqual(range(FLOOD));
    const counts = tally(flooder.frames);
    expect(Object.keys(counts).sort()).toEqual(['BUSY', 'ok']);
    expect(counts.ok).toBeGreaterThanOrEqual(PER_CLIENT);
    expect(counts.BUSY).toBeGreaterThan(0);
    const busy = flooder.frames.find((frame) => frame.error?.data?.code === 'BUSY')!;
    expect(busy.error).toMatchObject({
      code: -32014,
      message: expect.stringContaining(`already has ${PER_CLIENT} requests waiting or running`),
      data: { details: { limit: PER_CLIENT } },
    });
    // The refusals are said in the log once per burst, not once each.
    const said = daemonLog()
      .split('\n')
      .filter((line) => line.includes('refusing the excess (BUSY)'));
    expect(said.length).toBeLessThan(5);
    // The connection that flooded is still served.
    flooder.send([ping(FLOOD + 1)]);
    await expect.poll(() => flooder.frames.find((frame) => frame.id === FLOOD + 1)).toHaveProperty('result');
  });

  it(`refuses connections over ${MAX_CONNECTIONS} with a clear error, and serves again once some close`, async () => {
    home = makeHome();
    const pid = await startDaemon();
    const paths = dataPaths(home.dir);
    const clients: RawClient[] = [];
    // In batches: the kernel queues only so many connections the daemon has not accepted yet.
    for (let batch = 0; batch < 6; batch++) {
      clients.push(...(await Promise.all(range(100).map(() => RawClient.connect(paths.socket)))));
    }
    const refused = () => clients.filter((client) => client.frames.length > 0);
    await expect.poll(() => refused().length, { timeout: 20_000 }).toBe(600 - MAX_CONNECTIONS);
    for (const client of refused()) {
      expect(client.frames).toEqual([
        expect.objectContaining({
          id: null,
          error: expect.objectContaining({
            code: -32014,
            message: expect.stringContaining(`already serves ${MAX_CONNECTIONS} connections`),
          }),
        }),
      ]);
    }
    await expect.poll(() => refused().every((client) => client.closed)).toBe(true);
    // A client that connects now is told why, not left with a closed connection.
    await expect(DaemonClient.connect(paths, { start: false })).rejects.toMatchObject({
      code: 'BUSY',
      message: expect.stringContaining(`already serves ${MAX_CONNECTIONS} connections`),
    });
    // `nextai status` says it runs, and why it cannot be reached now.
    expect(await statusJson()).toMatchObject({
      code: 3,
      status: {
        running: true,
        reachable: false,
        reason: 'busy',
        pid,
        message: expect.stringContaining('512 connections'),
      },
    });
    // Said once for the burst.
    const said = daemonLog()
      .split('\n')
      .filter((line) => line.includes('too many clients are connected'));
    expect(said).toHaveLength(1);

    for (const client of clients.slice(0, 10)) client.socket.destroy();
    await expect.poll(async () => (await statusJson()).status.running, { timeout: 10_000 }).toBe(true);
  });
});

describe('through the browser host', () => {
  it('a flood is answered — held back by the daemon, or BUSY past its limit — and never "daemon stopped"', async () => {
    home = makeHome();
    const host = new NativeHostProcess([ORIGIN], home.env);
    cleanups.push(() => host.kill());
    const hello = await host.call(0, 'daemon.hello', {
      client: { kind: 'test', name: 'flood', version: '0.1.0' },
      protocol_version: PROTOCOL_VERSION,
    });
    const pid = (hello.result as { daemon: { pid: number } }).daemon.pid;
    const answers = () =>
      host.frames.map((frame) => frame.value as Frame).filter((frame) => typeof frame.id === 'number' && frame.id > 0);

    // Many small requests at once. A browser's bridge may have 4096 waiting or running; past half
    // of that the daemon stops reading it until its queue goes down, so the excess waits in the
    // socket rather than being refused. Every request gets an answer: its result or BUSY.
    const SMALL = 20_000;
    host.writeRaw(Buffer.concat(range(SMALL).map((id) => frameOf(ping(id)))));
    await expect.poll(() => answers().length, { timeout: 30_000 }).toBe(SMALL);
    const small = tally(answers());
    expect(Object.keys(small).filter((kind) => kind !== 'ok' && kind !== 'BUSY')).toEqual([]);
    expect(small.ok).toBeGreaterThan(0);

    // Then 320 MiB of them, more than the host holds for a daemon that reads slower than the
    // browser writes: the host waits for the daemon instead of dropping the connection.
    const LARGE = 20_000;
    const payload = 'x'.repeat(16 * 1024);
    host.writeRaw(Buffer.concat(range(LARGE).map((n) => frameOf(ping(SMALL + n, payload)))));
    await expect.poll(() => answers().length, { timeout: 60_000 }).toBe(SMALL + LARGE);
    const all = tally(answers());
    expect(Object.keys(all).filter((kind) => kind !== 'ok' && kind !== 'BUSY')).toEqual([]);
    const states = host.frames
      .map((frame) => frame.value as Frame)
      .filter((frame) => frame.method === 'bridge.state')
      .map((frame) => frame.params);
    expect(states).toEqual([]);
    const again = await host.call(SMALL + LARGE + 1, 'daemon.hello', {
      client: { kind: 'test', name: 'flood', version: '0.1.0' },
      protocol_version: PROTOCOL_VERSION,
    });
    expect((again.result as { daemon: { pid: number } }).daemon.pid).toBe(pid);
  });
});
