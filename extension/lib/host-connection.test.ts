import { CHUNK_CHARS, splitIntoChunks } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { HostConnection, type EventCursor, type NativePort } from './host-connection.js';

const DAEMON = {
  version: '0.1.0',
  protocol_version: 1,
  pid: 42,
  platform: 'linux',
  arch: 'x64',
  data_dir: '/tmp/x',
  started_at: '2026-11-22T00:00:00.000Z',
} as const;

type Message = {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
};

/** A scripted native host: records what the extension posts and answers like the daemon would. */
class FakePort implements NativePort {
  readonly posted: Message[] = [];
  private messageListeners: ((message: unknown) => void)[] = [];
  private disconnectListeners: ((port: NativePort) => void)[] = [];
  disconnected = false;
  constructor(private readonly script: (message: Message, port: FakePort) => void) {}
  postMessage(message: unknown): void {
    const copy = JSON.parse(JSON.stringify(message)) as Message;
    this.posted.push(copy);
    queueMicrotask(() => this.script(copy, this));
  }
  disconnect(): void {
    this.disconnected = true;
  }
  onMessage = { addListener: (listener: (message: unknown) => void) => void this.messageListeners.push(listener) };
  onDisconnect = {
    addListener: (listener: (port: NativePort) => void) => void this.disconnectListeners.push(listener),
  };
  deliver(message: unknown): void {
    for (const listener of this.messageListeners) listener(message);
  }
  closeFromHost(): void {
    for (const listener of this.disconnectListeners) listener(this);
  }
}

const daemonScript = (message: Message, port: FakePort) => {
  if (message.method === 'daemon.hello')
    port.deliver({ jsonrpc: '2.0', id: message.id, result: { daemon: DAEMON, client_id: 'c1' } });
  if (message.method === 'events.subscribe') {
    port.deliver({ jsonrpc: '2.0', method: 'event', params: { seq: 8, type: 'tool.started', time: 'now', data: {} } });
    port.deliver({ jsonrpc: '2.0', id: message.id, result: { log_id: 'log-1', last_seq: 8, replayed: 1, gap: false } });
  }
};

function makeConnection(ports: FakePort[], options: { cursor?: EventCursor; lastError?: string } = {}) {
  const saved: EventCursor[] = [];
  let next = 0;
  const connection = new HostConnection({
    connectNative: () => {
      const port = ports[Math.min(next++, ports.length - 1)]!;
      if (options.lastError) queueMicrotask(() => port.closeFromHost());
      return port;
    },
    disconnectReason: () => options.lastError,
    client: { kind: 'extension', name: 'chromium', version: '0.1.0' },
    browserTools: [],
    loadCursor: async () => options.cursor ?? { seq: 0 },
    saveCursor: async (cursor) => void saved.push(cursor),
    backoffMs: [1000, 5000],
    now: () => Date.now(),
  });
  return { connection, saved };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('HostConnection', () => {
  it('introduces itself, resumes events from its saved cursor and saves the new one', async () => {
    const port = new FakePort(daemonScript);
    const { connection, saved } = makeConnection([port], { cursor: { seq: 7, logId: 'log-1' } });
    const seen: number[] = [];
    connection.onEvent((event) => seen.push(event.seq));
    await connection.start();
    await vi.advanceTimersByTimeAsync(300);

    expect(port.posted[0]).toMatchObject({
      method: 'daemon.hello',
      params: { client: { kind: 'extension', name: 'chromium', capabilities: ['browser_tools'] }, protocol_version: 1 },
    });
    expect(port.posted[1]).toMatchObject({ method: 'events.subscribe', params: { after_seq: 7, log_id: 'log-1' } });
    expect(connection.current).toMatchObject({ status: 'connected', daemon: DAEMON, lastEventSeq: 8 });
    expect(seen).toEqual([8]);
    expect(saved.at(-1)).toEqual({ seq: 8, logId: 'log-1' });
  });

  it('starts over from the daemon’s numbering when its event log is not the one the cursor came from', async () => {
    const port = new FakePort((message, self) => {
      if (message.method === 'events.subscribe') {
        self.deliver({
          jsonrpc: '2.0',
          id: message.id,
          result: { log_id: 'log-2', last_seq: 3, replayed: 0, gap: true },
        });
      } else daemonScript(message, self);
    });
    const { connection, saved } = makeConnection([port], { cursor: { seq: 500, logId: 'log-1' } });
    await connection.start();
    await vi.advanceTimersByTimeAsync(300);
    expect(connection.current.lastEventSeq).toBe(3);
    expect(saved.at(-1)).toEqual({ seq: 3, logId: 'log-2' });
  });

  it('reports a missing host plainly and retries with growing waits', async () => {
    const ports = [new FakePort(() => undefined), new FakePort(() => undefined), new FakePort(() => undefined)];
    const { connection } = makeConnection(ports, { lastError: 'Specified native messaging host not found.' });
    await connection.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(connection.current).toMatchObject({ status: 'disconnected', error: { hostMissing: true } });
    expect(connection.current.nextRetryAt! - Date.now()).toBe(1000);

    await vi.advanceTimersByTimeAsync(1000);
    expect(connection.current.nextRetryAt! - Date.now()).toBe(5000);
    await vi.advanceTimersByTimeAsync(4999);
    expect(ports[2]!.posted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(ports[2]!.posted[0]).toMatchObject({ method: 'daemon.hello' });
  });

  it('does not call other errors a missing host', async () => {
    const { connection } = makeConnection([new FakePort(() => undefined)], { lastError: 'Native host has exited.' });
    await connection.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(connection.current.error).toMatchObject({ hostMissing: false, message: 'Native host has exited.' });
  });

  it('reassembles an answer that arrives in chunks', async () => {
    const payload = 'x'.repeat(CHUNK_CHARS * 2 + 10);
    const port = new FakePort((message, self) => {
      daemonScript(message, self);
      if (message.method === 'daemon.ping') {
        const whole = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { payload, time: 1 } });
        for (const chunk of splitIntoChunks(whole, 'm1'))
          self.deliver({ jsonrpc: '2.0', method: 'bridge.chunk', params: chunk });
      }
    });
    const { connection } = makeConnection([port]);
    await connection.start();
    await vi.advanceTimersByTimeAsync(10);
    await expect(connection.request('daemon.ping', { payload: 'x' })).resolves.toEqual({ payload, time: 1 });
  });

  it('follows the bridge through a daemon restart and says hello again', async () => {
    const port = new FakePort(daemonScript);
    const { connection } = makeConnection([port]);
    await connection.start();
    await vi.advanceTimersByTimeAsync(10);
    port.deliver({ jsonrpc: '2.0', method: 'bridge.state', params: { daemon: 'reconnecting' } });
    expect(connection.current).toMatchObject({ status: 'connecting', daemonRestarting: true });
    port.deliver({ jsonrpc: '2.0', method: 'bridge.state', params: { daemon: 'connected' } });
    await vi.advanceTimersByTimeAsync(10);
    expect(connection.current).toMatchObject({ status: 'connected', daemonRestarting: false });
    expect(port.posted.filter((message) => message.method === 'daemon.hello')).toHaveLength(2);
    // And it resumed the event stream where it was, not from the start.
    const subscriptions = port.posted.filter((message) => message.method === 'events.subscribe');
    expect(subscriptions.map((message) => message.params)).toEqual([
      { after_seq: 0 },
      { after_seq: 8, log_id: 'log-1' },
    ]);
  });

  it('answers the daemon’s browser-tool requests from the extension’s handler table', async () => {
    const port = new FakePort(daemonScript);
    const { connection } = makeConnection([port]);
    await connection.start();
    await vi.advanceTimersByTimeAsync(10);
    port.deliver({
      jsonrpc: '2.0',
      id: 'd1',
      method: 'extension.tool_call',
      // Input the catalog refuses: answered from the handler table before any tab is touched.
      params: { name: 'browser_tabs', input: { action: 'juggle' }, call_id: 'c' },
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(port.posted.find((message) => message.id === 'd1')).toMatchObject({
      result: { ok: false, error: { code: 'INVALID_INPUT', message: expect.stringContaining('action') } },
    });
  });

  it('keeps the host’s own explanation when the port then closes', async () => {
    const port = new FakePort((message, self) => {
      if (message.method === 'daemon.hello') {
        self.deliver({
          jsonrpc: '2.0',
          method: 'bridge.state',
          params: { daemon: 'unavailable', message: 'The daemon was stopped on purpose.' },
        });
        self.closeFromHost();
      }
    });
    const { connection } = makeConnection([port]);
    await connection.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(connection.current).toMatchObject({
      status: 'disconnected',
      error: { code: 'DAEMON_UNAVAILABLE', message: 'The daemon was stopped on purpose.' },
    });
  });

  it('knows whether the daemon can save: from its status on connecting, then from its events, until the port closes', async () => {
    const full = {
      ok: false,
      data_dir: '/tmp/x',
      problem: 'disk_full',
      code: 'SQLITE_FULL',
      since: '2026-01-01T00:00:00.000Z',
      fix: 'Free space on the disk holding /tmp/x.',
    };
    const port = new FakePort((message, self) => {
      daemonScript(message, self);
      if (message.method === 'daemon.status') {
        self.deliver({
          jsonrpc: '2.0',
          id: message.id,
          result: { running: true, daemon: DAEMON, uptime_ms: 1, clients: [], last_event_seq: 8, storage: full },
        });
      }
    });
    const { connection } = makeConnection([port]);
    await connection.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(connection.current).toMatchObject({ status: 'connected', storage: full });

    // Writing works again: the daemon says so with an event.
    const ok = {
      ok: true,
      data_dir: '/tmp/x',
      recovered_from: { problem: 'disk_full', code: 'SQLITE_FULL', since: full.since },
    };
    port.deliver({
      jsonrpc: '2.0',
      method: 'event',
      params: { seq: 9, type: 'storage.health', time: 'now', data: ok },
    });
    expect(connection.current.storage).toEqual(ok);
    // And it stops again: the announcement carries the seq of the last event written.
    port.deliver({
      jsonrpc: '2.0',
      method: 'event',
      params: { seq: 9, type: 'storage.health', time: 'later', data: full },
    });
    expect(connection.current.storage).toEqual(full);

    port.closeFromHost();
    expect(connection.current).toMatchObject({ status: 'disconnected' });
    expect(connection.current.storage).toBeUndefined();
  });

  it('refuses requests while not connected, saying why', async () => {
    const { connection } = makeConnection([new FakePort(() => undefined)], {
      lastError: 'Specified native messaging host not found.',
    });
    await connection.start();
    await vi.advanceTimersByTimeAsync(0);
    await expect(connection.request('daemon.status', {})).rejects.toMatchObject({
      code: 'DAEMON_UNAVAILABLE',
      message: 'Specified native messaging host not found.',
    });
  });
});
